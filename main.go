// Command scouts is the Scouts desktop app: the always-on agent and the
// command line that talks to it.
package main

import (
	"os"

	"github.com/scouts-hq/scouts/app/cli"
)

// version is set at build time: -ldflags "-X main.version=..."
var version = "dev"

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Version: version, Program: os.Args[0]}))
}
