// Command anytime measures the binary-size cost of ijt/go-anytime.
package main

import (
	"fmt"
	"os"
	"time"

	anytime "github.com/ijt/go-anytime"
)

func main() { fmt.Println(anytime.PartitionTimes(os.Args[len(os.Args)-1], time.Now())) }
