package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"
)

// evalProgram is the program `scouts eval` runs. The evaluation and the
// corpus it reads (with the held-out checksums it embeds) live in their
// own binary, cmd/scouts-eval, so that the always-on agent links neither.
const evalProgram = "scouts-eval"

// runEval is `scouts eval ARGS`: it runs scouts-eval ARGS, found beside the
// running executable (where `make eval` puts it, next to bin/scouts), else
// in PATH, with the same standard streams, and returns its exit status.
func runEval(ctx context.Context, args []string, env Env) int {
	prog, err := findEval()
	if err != nil {
		fmt.Fprintf(env.Stderr, "scouts: %v\n", err)
		return 1
	}
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Stdout, cmd.Stderr = env.Stdout, env.Stderr
	// An interrupt reaches the evaluation from the terminal as well; the
	// context ends on it (or on SIGTERM to scouts alone), and the
	// evaluation is then asked to stop rather than killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode() // scouts-eval said why on stderr
	default:
		fmt.Fprintf(env.Stderr, "scouts: run %s: %v\n", prog, err)
		return 1
	}
}

// findEval returns scouts-eval beside the running executable, else the
// one in PATH, else an error saying in one line how to build it.
func findEval() (string, error) {
	name := evalProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe, err := os.Executable()
	if err == nil {
		if p := filepath.Join(filepath.Dir(exe), name); isRegularFile(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	where := "in PATH"
	if exe != "" {
		where = "beside " + exe + " or in PATH"
	}
	return "", fmt.Errorf("eval is a separate program, %s, not found %s: build it with `make eval` (or go build -o bin/%s ./cmd/scouts-eval)", name, where, name)
}

func isRegularFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
