//go:build linux

package desktop

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
)

// The window against a running agent: it renders the inbox from the API
// it reaches through its forwarding asset server, shows a new suggestion
// live (the agent's stream re-emitted as Wails events), and closing it
// ends the window process while the agent goes on.
func TestWindowShowsTheInboxLiveAndClosesAlone(t *testing.T) {
	bin := binaries(t)
	needImport(t)
	watchtest.Need(t)
	s := newSession(t, true)
	a := s.startAgent(bin, "--no-tray")
	folder := s.addInbox(a, "Pay the invoice")

	mark := a.out.mark()
	w := s.start(filepath.Join(bin, "scouts"), s.env(), "window", "--data", a.data, "--log-level", "info")
	// The page's own request, forwarded over the socket by the window.
	line := a.out.wait(t, mark, 60*time.Second, "path=/api/v1/suggestions", "status=200", "client=window", "via=socket")
	if !strings.Contains(line, "AppleWebKit") {
		t.Errorf("the window's request does not come from its WebKit page: %s", line)
	}
	first := waitRendered(t, s.display, 30*time.Second, nil)
	p := savePNG(t, first, "window-inbox.png")
	t.Logf("window with its inbox: %s (%d colours)", p, colours(first))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	events, err := a.client.Watch(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer events.Close()

	// What the window shows is up to date: an event that changes nothing
	// on screen (the same settings stored again) makes WebKit paint again,
	// and the screen stays the same. (With WebKit's GPU policy "on
	// demand", under Xvfb the page stopped painting after "Loading…"
	// until such an event: docs/desktop.md.)
	st, err := a.client.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.client.SetSettings(ctx, st); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, "settings.updated", "")
	if again := waitRendered(t, s.display, 30*time.Second, nil); !samePixels(again, first) {
		t.Fatalf("the window changed after an event that changes nothing: it was not up to date (%s, then %s)",
			p, savePNG(t, again, "window-inbox-repainted.png"))
	}

	// Live: a new file becomes a card without the page asking.
	os.WriteFile(filepath.Join(folder, "second.md"), []byte("# Call the plumber\n\nTuesday 9am.\n"), 0o644)
	waitEvent(t, events, "suggestion.created", "Call the plumber")
	second := waitRendered(t, s.display, 30*time.Second, first)
	t.Logf("after a new file: %s", savePNG(t, second, "window-inbox-live.png"))

	// Closing the window (WM_DELETE_WINDOW, as the close button) ends its
	// process and only it.
	n, err := closeWindowsOf(s.display, w.cmd.Process.Pid)
	if err != nil || n == 0 {
		t.Fatalf("close the window: found %d windows of pid %d: %v", n, w.cmd.Process.Pid, err)
	}
	if err := w.waitExit(t, 30*time.Second); err != nil {
		t.Fatalf("the window exited with %v", err)
	}
	if _, err := a.client.Status(ctx); err != nil {
		t.Fatalf("the agent does not answer after the window closed: %v", err)
	}
	select {
	case <-a.exited:
		t.Fatal("the agent exited with the window")
	default:
	}
}

// A bare `scouts` with no agent running starts one (detached, in its own
// session, logging to DATA/agent.log) and opens the window; a Ctrl-C in
// the terminal ends the window, not the agent.
func TestBareScoutsStartsTheAgentAndTheWindow(t *testing.T) {
	bin := binaries(t)
	needImport(t)
	s := newSession(t, true)
	data := filepath.Join(s.home, "data")
	killWith(t, data)
	w := s.start(filepath.Join(bin, "scouts"), s.env("SCOUTS_DATA="+data))
	w.out.wait(t, 0, 60*time.Second, "Started the Scouts agent")
	c := localclient.NewSocket(filepath.Join(data, "agent.sock"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatalf("no agent answers after bare scouts said it started one: %v", err)
	}
	pidb, err := os.ReadFile(filepath.Join(data, "agent.lock"))
	if err != nil {
		t.Fatal(err)
	}
	agentPid, _ := strconv.Atoi(strings.TrimSpace(string(pidb)))
	t.Cleanup(func() { syscall.Kill(agentPid, syscall.SIGKILL) })
	if sid, _ := unix.Getsid(agentPid); sid != agentPid {
		t.Errorf("the agent (pid %d) is not in its own session (sid %d)", agentPid, sid)
	}
	if exe, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(agentPid), "exe")); filepath.Base(exe) != "scouts" {
		t.Errorf("the agent runs %s: it must be the small scouts, not scouts-window", exe)
	}
	// scouts, once the agent answers, becomes scouts-window (exec).
	waitFor(t, 30*time.Second, "the window process to be scouts-window", func() bool {
		exe, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(w.cmd.Process.Pid), "exe"))
		return filepath.Base(exe) == "scouts-window"
	})
	if st.DataDir != data {
		t.Errorf("agent data %q, want %q", st.DataDir, data)
	}
	img := waitRendered(t, s.display, 60*time.Second, nil)
	t.Logf("bare scouts: %s", savePNG(t, img, "bare-scouts.png"))
	log, _ := os.ReadFile(filepath.Join(data, "agent.log"))
	if !strings.Contains(string(log), "Scouts agent") {
		t.Errorf("DATA/agent.log does not hold the agent's output:\n%s", log)
	}

	// Ctrl-C: the terminal signals the foreground process group.
	syscall.Kill(-w.cmd.Process.Pid, syscall.SIGINT)
	w.waitExit(t, 30*time.Second)
	if _, err := c.Status(ctx); err != nil {
		t.Fatalf("the agent stopped with the window: %v", err)
	}
	// The agent still stops when asked.
	syscall.Kill(agentPid, syscall.SIGTERM)
	waitFor(t, 30*time.Second, "the agent to exit on SIGTERM", func() bool { return !alive(agentPid) })
}

func needImport(t *testing.T) {
	t.Helper()
	if _, err := execLookPath("import"); err != nil {
		needOrSkip(t, "import (imagemagick) is missing")
	}
}

// waitEvent reads the agent's stream until an event of typ whose data
// contains text.
func waitEvent(t *testing.T, w *localclient.Watcher, typ, text string) {
	t.Helper()
	for {
		ev, err := w.Next()
		if err != nil {
			// A live watch lost for want of inotify would only read as a
			// deadline exceeded.
			if why := watchtest.Why(t.TempDir()); why != "" {
				t.Fatalf("waiting for %s: %v; %s", typ, err, why)
			}
			t.Fatalf("waiting for %s: %v", typ, err)
		}
		if ev.Type == typ && strings.Contains(string(ev.Data), text) {
			return
		}
	}
}
