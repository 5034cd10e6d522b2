package server_test

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/internal/promtext"
	"github.com/scouts-hq/scouts/internal/syncbuf"
	"github.com/scouts-hq/scouts/relay/server"
)

// metricValue reads one sample of the relay's /metrics, e.g.
// scouts_relay_webhook_requests_total{result="accepted"}; 0 when absent.
func metricValue(t *testing.T, base, sample string) float64 {
	t.Helper()
	m, err := promtext.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	return m[sample]
}

// At the default level a relay does not write a log line per webhook
// request, accepted or refused: /metrics counts them by result. At debug
// level each queued item is logged.
func TestHookRequestsAreCountedNotLoggedAtInfo(t *testing.T) {
	logs := &syncbuf.Buffer{}
	// The device stays connected (and, answering no pings, is not dropped
	// within the hour): its session's end is logged at info, once per
	// connection, and must not fall among the requests.
	e := newEnv(t, server.Config{Heartbeat: time.Hour,
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	_, url, token := e.hookScoutOnline()
	before := logs.String()
	const n = 30
	for i := range n {
		if a := postHook(t, url, token, `{"title":"build `+strconv.Itoa(i)+` failed"}`); a.status != http.StatusAccepted {
			t.Fatalf("post %d: %+v", i, a)
		}
	}
	if a := postHook(t, url, token, `{"title":""}`); a.status != http.StatusBadRequest {
		t.Fatalf("an empty title: %+v", a)
	}
	if a := postHook(t, url, "wrong", `{"title":"a"}`); a.status != http.StatusUnauthorized {
		t.Fatalf("a wrong token: %+v", a)
	}
	if during, _ := strings.CutPrefix(logs.String(), before); during != "" {
		t.Errorf("%d webhook requests at info level wrote log lines:\n%s", n+2, during)
	}
	for result, want := range map[string]float64{"accepted": n, "invalid": 1, "unauthorized": 1} {
		sample := `scouts_relay_webhook_requests_total{result="` + result + `"}`
		if got := metricValue(t, e.http.URL, sample); got != want {
			t.Errorf("%s = %v, want %v", sample, got, want)
		}
	}

	debug := &syncbuf.Buffer{}
	e = newEnv(t, server.Config{Logger: slog.New(slog.NewJSONHandler(debug, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	url, token = e.hookScout()
	for i := range 3 {
		if a := postHook(t, url, token, `{"title":"a"}`); a.status != http.StatusAccepted {
			t.Fatalf("post %d at debug: %+v", i, a)
		}
	}
	if got := strings.Count(debug.String(), `"msg":"hook item queued"`); got != 3 {
		t.Errorf("3 items at debug level logged %d times, want 3:\n%s", got, debug.String())
	}
}
