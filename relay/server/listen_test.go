package server_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/store/storetest"
)

// logLines collects a JSON logger's records.
type logLines struct {
	mu    sync.Mutex
	lines []map[string]any
	added chan struct{}
}

func (l *logLines) Write(p []byte) (int, error) {
	var rec map[string]any
	if err := json.Unmarshal(p, &rec); err == nil {
		l.mu.Lock()
		l.lines = append(l.lines, rec)
		l.mu.Unlock()
		select {
		case l.added <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

func (l *logLines) with(msg string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, r := range l.lines {
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

// The PostgreSQL LISTEN connection, lost and re-established again and
// again, waits the first delay each time (a working connection resets the
// backoff), and the log says how long in words a person reads.
func TestListenerBackoffResetsAfterAReconnection(t *testing.T) {
	b := make([]byte, 6)
	rand.Read(b)
	app := "scouts_listen_" + hex.EncodeToString(b)
	base := storetest.PostgresDSN(t)
	dsn := base + "&application_name=" + app
	logs := &logLines{added: make(chan struct{}, 1)}
	newEnvOn(t, dsn, func(*relaydb.DB, *env) server.Config {
		return server.Config{Logger: slog.New(slog.NewJSONHandler(logs, nil))}
	})
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// The listener's backend: this relay's connection whose last statement
	// was LISTEN, other than the ones already cut.
	listener := func(cut map[int]bool) int {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			rows, err := admin.Query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'`, app)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var pid int
				rows.Scan(&pid)
				if !cut[pid] {
					rows.Close()
					return pid
				}
			}
			rows.Close()
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatal("no LISTEN connection within 30 s")
		return 0
	}
	const msg = "LISTEN connection lost; reconnecting"
	cut := map[int]bool{}
	for i := 1; i <= 3; i++ {
		pid := listener(cut)
		cut[pid] = true
		if _, err := admin.Exec(`SELECT pg_terminate_backend($1)`, pid); err != nil {
			t.Fatal(err)
		}
		for len(logs.with(msg)) < i {
			select {
			case <-logs.added:
			case <-time.After(30 * time.Second):
				t.Fatalf("the relay did not log its lost LISTEN connection (cut %d)", i)
			}
		}
	}
	listener(cut) // reconnected after the third cut
	for i, rec := range logs.with(msg) {
		if in, _ := rec["in"].(string); in != "100ms" {
			t.Fatalf("reconnection %d logged in=%v, want \"100ms\" (every cut followed a working connection)", i+1, rec["in"])
		}
	}
	if n := len(logs.with(msg)); n != 3 {
		t.Fatalf("%d lost connections logged, want 3", n)
	}
}
