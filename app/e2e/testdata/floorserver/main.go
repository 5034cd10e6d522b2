// Command floorserver is the floor of the agent's memory benchmark
// (BenchmarkAgentRSS): a trivial Go HTTP server on a Unix socket, built and
// measured like the agent.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	l, err := net.Listen("unix", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") }))
}
