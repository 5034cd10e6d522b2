// Command naturaldate measures the binary-size cost of tj/go-naturaldate.
package main

import (
	"fmt"
	"os"
	"time"

	naturaldate "github.com/tj/go-naturaldate"
)

func main() { fmt.Println(naturaldate.Parse(os.Args[len(os.Args)-1], time.Now())) }
