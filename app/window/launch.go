package window

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/datadir"
	"github.com/scouts-hq/scouts/app/localclient"
)

// AgentLog is the file, in the data directory, where an agent started by
// the window (or by a bare `scouts`) writes its output.
const AgentLog = "agent.log"

// EnsureAgent makes sure an agent serves dataDir. If none answers on its
// socket, it starts `exe agent --data dataDir` detached from this process
// (its own session, output appended to DATA/agent.log), so that it outlives
// the window and a Ctrl-C in the terminal that ran `scouts`, and waits
// until its socket answers. It reports whether it started one.
func EnsureAgent(ctx context.Context, exe, dataDir string, timeout time.Duration) (started bool, err error) {
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return false, err
	}
	c := localclient.NewSocket(datadir.SocketPath(dir))
	c.ClientName = ClientName
	_, err = c.Status(ctx)
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, localclient.ErrNoAgent) {
		return false, fmt.Errorf("the Scouts agent for %s does not answer properly: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	logPath := filepath.Join(dir, AgentLog)
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return false, fmt.Errorf("agent log: %w", err)
	}
	fmt.Fprintf(logf, "--- %s: started by %s\n", time.Now().Format(time.RFC3339), filepath.Base(exe))
	cmd := exec.Command(exe, "agent", "--data", dir)
	cmd.Stdout = logf
	cmd.Stderr = logf
	detach(cmd)
	err = cmd.Start()
	logf.Close()
	if err != nil {
		return false, fmt.Errorf("start the agent: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reaps it if it dies while we run

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var exitErr error
	dead := false
	for {
		if _, err := c.Status(ctx); err == nil {
			return true, nil
		}
		if dead {
			// It exited and nothing answers: another agent winning the
			// lock at the same moment would answer by now.
			return true, fmt.Errorf("the agent exited (%v) without serving; its log %s says:\n%s", exitErr, logPath, tail(logPath, 15))
		}
		select {
		case <-ctx.Done():
			return true, fmt.Errorf("the agent did not answer on %s within %v; see %s", datadir.SocketPath(dir), timeout, logPath)
		case exitErr = <-exited:
			dead = true
		case <-tick.C:
		}
	}
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.ReplaceAll(string(bytes.Join(lines, []byte("\n"))), "\n", "\n  ")
}
