//go:build linux

package desktop

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/internal/dbustest"
)

// idle is how long an agent or a window sits untouched before its memory
// is read: long enough for start-up garbage to be collected.
const idle = 3 * time.Second

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkAgentIdleRSS: the always-on agent's memory at rest, with its
// tray registered with a tray host, and with --no-tray (the floor). Each
// iteration is a fresh agent; the figures are medians (MB; VmRSS, and PSS,
// which divides shared pages among the processes sharing them).
func BenchmarkAgentIdleRSS(b *testing.B) {
	bin := binaries(b)
	for _, tc := range []struct {
		name string
		exe  string
		args []string
	}{
		{"tray", "scouts", nil},
		{"no-tray", "scouts", []string{"--no-tray"}},
		// The same agent run from the binary that links GTK and WebKit:
		// why the window is a second executable (docs/desktop.md).
		{"tray-from-scouts-window", "scouts-window", nil},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var rss, pss []float64
			for i := 0; i < b.N; i++ {
				s := newSession(b, false)
				w := dbustest.StartWatcher(b, s.bus)
				a := s.startAgentExe(filepath.Join(bin, tc.exe), tc.args...)
				if tc.args == nil {
					select {
					case <-w.C:
					case <-time.After(30 * time.Second):
						b.Fatal("the tray did not register")
					}
				}
				time.Sleep(idle) // not a wait for an event: the idling measured
				pid := a.cmd.Process.Pid
				rss = append(rss, float64(statusKB(pid, "VmRSS"))/1024)
				pss = append(pss, float64(pssKB(pid))/1024)
				a.kill()
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(median(rss), "MB-RSS")
			b.ReportMetric(median(pss), "MB-PSS")
		})
	}
}

// BenchmarkWindow: `scouts window` against a running agent whose inbox
// has a card. Reported medians: time from starting the command to the
// page's first API request reaching the agent (its code runs), to the
// first non-blank screenshot (first frame; screenshots are taken back to
// back, ≈0.1 s apart) and to a settled page; then the memory of the
// window process with its WebKit helpers, after idling.
func BenchmarkWindow(b *testing.B) {
	bin := binaries(b)
	s := newSession(b, true)
	a := s.startAgent(bin, "--no-tray")
	s.addInbox(a, "Pay the invoice")
	var request, frame, settled, rss, pss []float64
	for i := 0; i < b.N; i++ {
		mark := a.out.mark()
		start := time.Now()
		w := s.start(filepath.Join(bin, "scouts"), s.env(), "window", "--data", a.data)
		var first time.Duration
		waitFor(b, 60*time.Second, "a first frame", func() bool {
			if colours(screenshot(b, s.display)) >= minColours {
				first = time.Since(start)
				return true
			}
			return false
		})
		line := a.out.wait(b, mark, 60*time.Second, "path=/api/v1/suggestions", "client=window")
		request = append(request, float64(logTime(b, line).Sub(start).Milliseconds()))
		frame = append(frame, float64(first.Milliseconds()))
		waitRendered(b, s.display, 60*time.Second, nil)
		// waitRendered returns settle after the last change.
		settled = append(settled, float64(time.Since(start).Milliseconds()-settle.Milliseconds()))
		time.Sleep(idle) // not a wait for an event: the idling measured
		pid := w.cmd.Process.Pid
		var r, p int
		for _, q := range append([]int{pid}, children(pid)...) {
			r += statusKB(q, "VmRSS")
			p += pssKB(q)
		}
		rss = append(rss, float64(r)/1024)
		pss = append(pss, float64(p)/1024)
		if n, err := closeWindowsOf(s.display, pid); err != nil || n == 0 {
			b.Fatalf("close: %d %v", n, err)
		}
		w.waitExit(b, 30*time.Second)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(median(request), "ms-to-first-request")
	b.ReportMetric(median(frame), "ms-to-first-frame")
	b.ReportMetric(median(settled), "ms-to-settled")
	b.ReportMetric(median(rss), "MB-RSS")
	b.ReportMetric(median(pss), "MB-PSS")
}

// logTime reads the time of an slog text line (time=2026-…Z).
func logTime(t testing.TB, line string) time.Time {
	t.Helper()
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "time="); ok {
			at, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				t.Fatalf("log time %q: %v", v, err)
			}
			return at
		}
	}
	t.Fatalf("no time in %q", line)
	return time.Time{}
}
