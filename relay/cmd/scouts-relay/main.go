// Command scouts-relay is the hosted Scouts relay.
package main

import (
	"os"

	"github.com/scouts-hq/scouts/relay/cli"
)

// version is set at build time: -ldflags "-X main.version=..."
var version = "dev"

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Version: version}))
}
