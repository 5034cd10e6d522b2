// Command dateparser measures the binary-size cost of markusmobius/go-dateparser.
package main

import (
	"fmt"
	"os"
	"time"

	dps "github.com/markusmobius/go-dateparser"
)

func main() {
	cfg := &dps.Configuration{Languages: []string{"en"}, CurrentTime: time.Now()}
	_, r, err := dps.Search(cfg, os.Args[len(os.Args)-1])
	fmt.Println(r, err)
}
