// Command base is the baseline for the binary-size comparison: the same
// program as the others without a date library.
package main

import (
	"fmt"
	"os"
	"time"
)

func main() { fmt.Println(time.Now().Format(time.RFC3339), len(os.Args)) }
