//go:build linux

// Package desktop holds the end-to-end tests of the desktop: the real
// Wails window under Xvfb against a real agent, and the real tray on a
// private DBus session bus with a minimal tray host. They build bin/scouts
// and bin/scouts-window the way make build does, and skip (fail under
// CI=true) when Xvfb, DBus or the GTK/WebKit headers are missing.
package desktop

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/internal/dbustest"
	"github.com/scouts-hq/scouts/app/localclient"
)

// WindowTags are the build tags of bin/scouts-window (see the Makefile).
const WindowTags = "window,production,webkit2_41"

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds scouts and scouts-window side by side, once per test
// process, and returns the directory.
func binaries(t testing.TB) string {
	t.Helper()
	dbustest.Need(t, "pkg-config")
	if err := exec.Command("pkg-config", "--exists", "gtk+-3.0", "webkit2gtk-4.1").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("GTK 3 / WebKit2GTK 4.1 development files are missing (build/deps.sh test installs them)")
		}
		t.Skip("GTK 3 / WebKit2GTK 4.1 development files are not installed (build/deps.sh test installs them); skipping")
	}
	// The window embeds the built frontend (make frontend, which make test
	// runs first); without it there is nothing to show.
	if _, err := os.Stat(filepath.Join("..", "..", "..", "frontend", "dist", "index.html")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("frontend/dist is not built: run make frontend (make test does) before these tests")
		}
		t.Skip("frontend/dist is not built (make frontend); skipping")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "scouts-desktop-bin-")
		if buildErr != nil {
			return
		}
		root := filepath.Join("..", "..", "..")
		for _, b := range []struct{ name, tags string }{{"scouts", ""}, {"scouts-window", WindowTags}} {
			args := []string{"build", "-o", filepath.Join(binDir, b.name)}
			if b.tags != "" {
				args = append(args, "-tags", b.tags)
			}
			cmd := exec.Command("go", append(args, ".")...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// display is one Xvfb for the whole test process.
var (
	xOnce    sync.Once
	xDisplay string
	xErr     error
	xCmd     *exec.Cmd
)

// TestMain stops what the tests shared: the X server and the binaries.
func TestMain(m *testing.M) {
	code := m.Run()
	if xCmd != nil {
		xCmd.Process.Kill()
		xCmd.Wait()
	}
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// startXvfb returns the display of a private X server (it picks a free
// display number itself: -displayfd).
func startXvfb(t testing.TB) string {
	t.Helper()
	dbustest.Need(t, "Xvfb")
	xOnce.Do(func() {
		r, w, err := os.Pipe()
		if err != nil {
			xErr = err
			return
		}
		cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset")
		cmd.ExtraFiles = []*os.File{w}
		// It dies with the test process, even one killed on a timeout.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			xErr = err
			return
		}
		xCmd = cmd
		w.Close()
		line := make(chan string, 1)
		go func() {
			s, _ := bufio.NewReader(r).ReadString('\n')
			line <- strings.TrimSpace(s)
		}()
		select {
		case n := <-line:
			if n == "" {
				xErr = fmt.Errorf("Xvfb did not start")
				return
			}
			xDisplay = ":" + n
		case <-time.After(20 * time.Second):
			xErr = fmt.Errorf("Xvfb did not say its display within 20 s")
		}
	})
	if xErr != nil {
		t.Fatal(xErr)
	}
	return xDisplay
}

// session is a desktop for one test: a home, a private session bus and,
// when asked, the X display.
type session struct {
	t       testing.TB
	home    string
	bus     string
	display string
	runtime string
}

func newSession(t testing.TB, withX bool) *session {
	t.Helper()
	s := &session{t: t, home: t.TempDir(), bus: dbustest.StartBus(t)}
	s.runtime = filepath.Join(s.home, "run")
	os.MkdirAll(s.runtime, 0o700)
	if withX {
		s.display = startXvfb(t)
	}
	return s
}

func (s *session) env(extra ...string) []string {
	env := []string{
		"HOME=" + s.home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir(), "LANG=C.UTF-8",
		"DBUS_SESSION_BUS_ADDRESS=" + s.bus, "XDG_RUNTIME_DIR=" + s.runtime,
		"NO_AT_BRIDGE=1", // no accessibility bus on the private session
	}
	if s.display != "" {
		env = append(env, "DISPLAY="+s.display)
	}
	return append(env, extra...)
}

// lineLog collects a process's output and lets a test wait for a line.
type lineLog struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
	changed chan struct{}
}

func newLineLog() *lineLog { return &lineLog{changed: make(chan struct{})} }

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n") + "\n" + string(l.partial)
}

// mark is a position in the log; wait looks at lines after it.
func (l *lineLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// wait returns the first line after from that has all the parts.
func (l *lineLog) wait(t testing.TB, from int, timeout time.Duration, parts ...string) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		l.mu.Lock()
		for _, line := range l.lines[from:] {
			if containsAll(line, parts) {
				l.mu.Unlock()
				return line
			}
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no log line with %q within %v", parts, timeout)
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// proc is a process the test started.
type proc struct {
	cmd    *exec.Cmd
	out    *lineLog
	exited chan struct{}
	err    error
}

func (s *session) start(name string, env []string, args ...string) *proc {
	s.t.Helper()
	p := &proc{cmd: exec.Command(name, args...), out: newLineLog(), exited: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	// Its own process group, like a command started from a terminal.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	s.t.Cleanup(func() {
		p.kill()
		if s.t.Failed() {
			s.t.Logf("%s output:\n%s", strings.Join(append([]string{filepath.Base(name)}, args...), " "), p.out.String())
		}
	})
	return p
}

func (p *proc) kill() {
	select {
	case <-p.exited:
	default:
		p.cmd.Process.Kill()
		<-p.exited
	}
}

func (p *proc) waitExit(t testing.TB, timeout time.Duration) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.err
	case <-time.After(timeout):
		t.Fatalf("%s did not exit within %v", p.cmd.Path, timeout)
		return nil
	}
}

// agent is a running `scouts agent`.
type agent struct {
	*proc
	data   string
	client *localclient.Client
}

// startAgent runs the agent on a new data directory and waits until it
// serves (it prints "Socket:" once it does).
func (s *session) startAgent(bin string, extra ...string) *agent {
	s.t.Helper()
	return s.startAgentExe(filepath.Join(bin, "scouts"), extra...)
}

// startAgentExe is startAgent with another executable (scouts-window, to
// measure what linking WebKit costs the agent).
func (s *session) startAgentExe(exe string, extra ...string) *agent {
	s.t.Helper()
	data := filepath.Join(s.home, "data")
	killWith(s.t, data)
	args := append([]string{"agent", "--data", data, "--inbox", "", "--log-level", "debug"}, extra...)
	p := s.start(exe, s.env(), args...)
	p.out.wait(s.t, 0, 30*time.Second, "Socket: ")
	c := localclient.NewSocket(filepath.Join(data, "agent.sock"))
	c.ClientName = "script"
	return &agent{proc: p, data: data, client: c}
}

// addInbox creates a folder scout over a folder holding one Markdown file
// and waits for its suggestion: the inbox then has a card.
func (s *session) addInbox(a *agent, title string) (folder string) {
	s.t.Helper()
	folder = filepath.Join(s.home, "Inbox")
	os.MkdirAll(folder, 0o755)
	os.WriteFile(filepath.Join(folder, "first.md"), []byte("# "+title+"\n\nDue on Monday.\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Follow the stream before creating the scout, so that its
	// suggestion.created cannot pass unseen.
	w, err := a.client.Watch(ctx, 0)
	if err != nil {
		s.t.Fatal(err)
	}
	defer w.Close()
	if _, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: folder, IncludeExisting: true}); err != nil {
		s.t.Fatal(err)
	}
	for {
		ev, err := w.Next()
		if err != nil {
			s.t.Fatalf("waiting for the inbox's suggestion: %v", err)
		}
		if ev.Type == "suggestion.created" {
			return folder
		}
	}
}

// waitFor polls cond until it holds: for state that has no event to wait
// on (another process's output on screen, a process gone).
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshot captures the display.
func screenshot(t testing.TB, display string) image.Image {
	t.Helper()
	out, err := exec.Command("import", "-display", display, "-window", "root", "png:-").Output()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("decode screenshot: %v", err)
	}
	return img
}

// colours counts the distinct colours of an image: a blank screen has one
// or two, a rendered page hundreds (text is antialiased).
func colours(img image.Image) int {
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
		}
	}
	return len(seen)
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

// minColours is the bar for "a page is rendered".
const minColours = 64

// settle is how long the screen must stay the same for a page to count
// as rendered: the page draws "Loading…" first, then its data, within a
// few hundred milliseconds on this 2-core machine.
const settle = 1500 * time.Millisecond

// waitRendered polls screenshots until the screen shows a rendered page
// (not blank: many colours), different from unlike, that has not changed
// for settle.
func waitRendered(t testing.TB, display string, timeout time.Duration, unlike image.Image) image.Image {
	t.Helper()
	var last image.Image
	var since time.Time
	waitFor(t, timeout, "a rendered window that differs from before and has settled", func() bool {
		img := screenshot(t, display)
		now := time.Now()
		if os.Getenv("SCOUTS_TEST_DEBUG") != "" {
			t.Logf("screenshot: %d colours", colours(img))
		}
		if last == nil || !samePixels(img, last) {
			last, since = img, now
			return false
		}
		return colours(img) >= minColours && (unlike == nil || !samePixels(img, unlike)) && now.Sub(since) >= settle
	})
	return last
}

func savePNG(t testing.TB, img image.Image, name string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "test-artifacts", "desktop")
	os.MkdirAll(dir, 0o755)
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(p)
	return abs
}

// children lists the processes whose parent is pid (the window's WebKit
// helpers).
func children(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces; split after ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			if pp, _ := strconv.Atoi(f[1]); pp == pid {
				out = append(out, n)
			}
		}
	}
	return out
}

// processesWith lists the processes whose command line contains all parts.
func processesWith(parts ...string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if containsAll(strings.ReplaceAll(string(b), "\x00", " "), parts) {
			out = append(out, n)
		}
	}
	return out
}

// killWith kills, when the test ends, the processes left running on the
// data directory: windows the tray started, an agent a window started.
func killWith(t testing.TB, data string) {
	t.Cleanup(func() {
		for _, pid := range processesWith(data) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// alive reports whether pid runs (a zombie has exited).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// statusKB reads a field (VmRSS) of /proc/PID/status in kB.
func statusKB(pid int, field string) int {
	return procKB(fmt.Sprintf("/proc/%d/status", pid), field)
}

// pssKB is the proportional set size (shared pages divided among the
// processes sharing them).
func pssKB(pid int) int { return procKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss") }

func procKB(path, field string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}
