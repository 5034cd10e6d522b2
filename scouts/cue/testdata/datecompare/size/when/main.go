// Command when measures the binary-size cost of olebedev/when.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/olebedev/when"
	"github.com/olebedev/when/rules/common"
	"github.com/olebedev/when/rules/en"
)

func main() {
	w := when.New(nil)
	w.Add(en.All...)
	w.Add(common.All...)
	r, err := w.Parse(os.Args[len(os.Args)-1], time.Now())
	fmt.Println(r, err)
}
