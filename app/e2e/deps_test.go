package e2e

// The tests build and run the real binary in a subprocess, which Go's test
// cache cannot see. Importing what the binary is made of makes a change to
// any of it invalidate cached results of this package.
import _ "github.com/scouts-hq/scouts/app/cli"
