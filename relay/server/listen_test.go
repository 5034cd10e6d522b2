package server_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/scouts-hq/scouts/internal/wake"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/store/storetest"
)

// logLines collects a JSON logger's records; added fires after each.
type logLines struct {
	mu    sync.Mutex
	lines []map[string]any
	added wake.Wake
}

func (l *logLines) Write(p []byte) (int, error) {
	var rec map[string]any
	if err := json.Unmarshal(p, &rec); err == nil {
		l.mu.Lock()
		l.lines = append(l.lines, rec)
		l.mu.Unlock()
		l.added.Fire()
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
	logs := &logLines{}
	newEnvOn(t, dsn, func(*relaydb.DB, *env) server.Config {
		return server.Config{Logger: slog.New(slog.NewJSONHandler(logs, nil))}
	})
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	const msg, listening = "LISTEN connection lost; reconnecting", "listening for notifications from other instances"
	// The listener's backend: this relay's connection whose last statement
	// was LISTEN, other than the ones already cut, once the relay has said
	// it listens for the i-th time.
	listener := func(i int, cut map[int]bool) int {
		waitOn(t, fmt.Sprintf("LISTEN connection %d", i), func() bool { return len(logs.with(listening)) >= i }, logs.added.Next)
		rows, err := admin.Query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'`, app)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var pid int
			rows.Scan(&pid)
			if !cut[pid] {
				return pid
			}
		}
		t.Fatalf("the relay says it listens (%d), yet no LISTEN connection but the ones cut", i)
		return 0
	}
	cut := map[int]bool{}
	for i := 1; i <= 3; i++ {
		pid := listener(i, cut)
		cut[pid] = true
		if _, err := admin.Exec(`SELECT pg_terminate_backend($1)`, pid); err != nil {
			t.Fatal(err)
		}
		waitOn(t, fmt.Sprintf("the relay to log its lost LISTEN connection (cut %d)", i), func() bool { return len(logs.with(msg)) >= i }, logs.added.Next)
	}
	listener(4, cut) // reconnected after the third cut
	for i, rec := range logs.with(msg) {
		if in, _ := rec["in"].(string); in != "100ms" {
			t.Fatalf("reconnection %d logged in=%v, want \"100ms\" (every cut followed a working connection)", i+1, rec["in"])
		}
	}
	if n := len(logs.with(msg)); n != 3 {
		t.Fatalf("%d lost connections logged, want 3", n)
	}
}
