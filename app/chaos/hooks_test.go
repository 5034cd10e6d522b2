//go:build chaos

package chaos

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/ncruces/go-sqlite3/driver"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/internal/wake"
)

const userEmail = "ann@example.com"

// world is a relay, a desktop connected to it and, for the webhook
// scenarios, a webhook scout.
type world struct {
	relay  *relayProc
	agent  *agent
	hook   apitype.Scout
	db     *sql.DB // the relay's database, to read its queue
	pg     bool
	poster *poster
}

// newHookWorld starts a relay on dsn, a desktop with a device of it, and a
// webhook scout registered at the relay.
func newHookWorld(t *testing.T, s *scenario, dsn string, relayFlags ...string) *world {
	t.Helper()
	w := &world{relay: startRelay(t, s.bins, dsn, nil, relayFlags...)}
	w.openDB(t)
	token := w.relay.newDevice(t, userEmail)
	home := t.TempDir()
	w.agent = startAgent(t, s.bins, filepath.Join(home, "data"), home, nil, "--relay", w.relay.url, "--device-token-file", token)
	var err error
	if w.hook, err = w.agent.client.CreateScout(s.ctx, apitype.CreateScout{Kind: "webhook", Name: "CI alerts"}); err != nil {
		t.Fatal(err)
	}
	// The registration is in the outbox when CreateScout answers: an
	// empty outbox while online means the relay has it.
	w.waitOnline(t, s.ctx, func(st apitype.RelayStatus) bool { return st.Outbox == 0 })
	w.poster = newPoster(w.hook.HookToken)
	return w
}

// openDB opens the relay's database beside it, to read its queue.
func (w *world) openDB(t *testing.T) {
	t.Helper()
	w.pg = strings.HasPrefix(w.relay.dsn, "postgres")
	driver := "sqlite3"
	if w.pg {
		driver = "pgx"
	}
	db, err := sql.Open(driver, w.relay.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w.db = db
}

// waitOnline waits until the desktop's relay link is online and also
// satisfies more (nil: nothing more).
func (w *world) waitOnline(t *testing.T, ctx context.Context, more func(apitype.RelayStatus) bool) apitype.RelayStatus {
	t.Helper()
	var last apitype.RelayStatus
	err := waitFor(ctx, func() bool {
		st, err := w.agent.client.Status(ctx)
		if err != nil || st.Relay == nil {
			return false
		}
		last = *st.Relay
		return last.State == "online" && (more == nil || more(last))
	}, w.agent.changed(t))
	if err != nil {
		t.Fatalf("desktop never online (last %+v): %v\nagent log:\n%s", last, err, w.agent.log.String())
	}
	return last
}

// lastSeq is the desktop's committed relay sequence (-1: not answering).
func (w *world) lastSeq(ctx context.Context) int64 {
	st, err := w.agent.client.Status(ctx)
	if err != nil || st.Relay == nil {
		return -1
	}
	return st.Relay.LastSeq
}

func (w *world) query(q string) string {
	if !w.pg {
		return q
	}
	return strings.ReplaceAll(q, "?", "$1")
}

// relayQueue reads the user's highest sequence number and row count from
// the relay's database.
func (w *world) relayQueue(ctx context.Context) (maxSeq int64, rows int, err error) {
	err = w.db.QueryRowContext(ctx, w.query(`SELECT COALESCE(MAX(q.seq), 0), COUNT(*) FROM triage_queue q
		JOIN users u ON u.id = q.user_id WHERE u.email = ?`), userEmail).Scan(&maxSeq, &rows)
	return maxSeq, rows, err
}

// settle waits until the desktop has committed everything the relay
// queued for it: online, its cursor at the relay's last sequence.
func (w *world) settle(t *testing.T, ctx context.Context) {
	t.Helper()
	var max int64
	// Each commit's cursor is announced (relay.state); a row the relay
	// queues meanwhile is committed, and announced, in turn. A failed read
	// of the relay's queue (its database restarting) is tried again soon.
	var retry wake.Wake
	err := waitFor(ctx, func() bool {
		var err error
		if max, _, err = w.relayQueue(ctx); err != nil {
			time.AfterFunc(100*time.Millisecond, retry.Fire)
			return false
		}
		return w.lastSeq(ctx) >= max
	}, w.agent.changed(t), retry.Next)
	if err != nil {
		t.Errorf("the desktop never caught up with the relay (seq %d, desktop at %d): %v\nrelay log:\n%s\nagent log:\n%s",
			max, w.lastSeq(context.Background()), err, w.relay.log.String(), w.agent.log.String())
	}
}

// checkAcked waits until every row the desktop committed is acknowledged
// at the relay (the desktop acknowledges in batches after committing, and
// resends what a crash lost when it says hello): a row left queued or
// delivered is a backlog that does not exist, kept for 30 days.
func (w *world) checkAcked(t *testing.T, ctx context.Context) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	var open int
	q := w.query(`SELECT COUNT(*) FROM triage_queue q JOIN users u ON u.id = q.user_id
		WHERE u.email = ? AND q.status IN ('queued', 'delivered')`)
	// Polled: the relay marks rows acknowledged in its own database and
	// tells the test nothing.
	err := waitFor(wctx, func() bool {
		return w.db.QueryRowContext(wctx, q, userEmail).Scan(&open) == nil && open == 0
	})
	if err != nil {
		t.Errorf("%d rows the desktop committed are still unacknowledged at the relay: %v", open, err)
	}
}

// suggestions lists every suggestion of a scout, paging.
func suggestions(ctx context.Context, c *localclient.Client, scoutID string) ([]apitype.Suggestion, error) {
	list, err := c.Suggestions(ctx, localclient.SuggestionQuery{Status: "all", ScoutID: scoutID, Limit: 1000})
	if err != nil {
		return nil, err
	}
	for page := list; len(page) == 1000; {
		if page, err = c.SuggestionsAfter(ctx, page[len(page)-1].ID); err != nil {
			return nil, err
		}
		for _, s := range page {
			if s.ScoutID == scoutID {
				list = append(list, s)
			}
		}
	}
	return list, nil
}

// count fills the result in: every accepted key must be exactly one
// suggestion (titled with the key), and one row at the relay.
func (w *world) count(t *testing.T, ctx context.Context, l *ledger, r *result) {
	t.Helper()
	w.settle(t, ctx)
	w.checkAcked(t, ctx)
	t.Logf("the desktop caught up with the relay, every row acknowledged")
	list, err := suggestions(ctx, w.agent.client, w.hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	accepted := l.accepted()
	seen := map[string]int{}
	for _, sg := range list {
		seen[sg.Title]++
	}
	r.accepted = len(accepted)
	var lost, dup []string
	for key := range accepted {
		switch n := seen[key]; {
		case n == 0:
			lost = append(lost, key)
		case n > 1:
			dup = append(dup, key)
			r.duplicated += n - 1
		}
		if seen[key] > 0 {
			r.suggested++
		}
		delete(seen, key)
	}
	for title, n := range seen { // suggestions of nothing accepted
		dup = append(dup, title)
		r.duplicated += n
	}
	r.lost = len(lost)
	_, rows, err := w.relayQueue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if extra := rows - len(accepted); extra > r.duplicated {
		r.note("%d relay rows for %d accepted items", rows, len(accepted))
		r.duplicated = extra
	}
	r.duplicated += int(l.conflicts.Load())
	if len(lost)+len(dup) > 0 {
		t.Errorf("lost %v; duplicated %v; conflicting answers %d", head(lost), head(dup), l.conflicts.Load())
	}
	if rf := l.refused.Load(); rf > 0 {
		t.Errorf("%d posts refused outright (not a transient failure): %s", rf, l.firstRefusal())
	}
	r.note("%d posts retried after a failure, %d repeated after success (answered as duplicates)", l.retries.Load(), l.repeats.Load())
}

func head(s []string) []string {
	if len(s) > 10 {
		return append(s[:10:10], fmt.Sprintf("… %d more", len(s)-10))
	}
	return s
}

// ledger is the posters' record: the queue id of each key's first 2xx.
type ledger struct {
	mu        sync.Mutex
	ids       map[string]string
	n         atomic.Int64 // keys accepted
	added     wake.Wake    // fires after each key accepted
	conflicts atomic.Int64 // a repeated key answered with another item id
	retries   atomic.Int64
	repeats   atomic.Int64
	refused   atomic.Int64
	refusal   string
}

func newLedger() *ledger { return &ledger{ids: map[string]string{}} }

func (l *ledger) record(key, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if first, ok := l.ids[key]; ok {
		if first != id {
			l.conflicts.Add(1)
		}
		return
	}
	l.ids[key] = id
	l.n.Add(1)
	l.added.Fire()
}

func (l *ledger) refuse(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refusal == "" {
		l.refusal = msg
	}
	l.refused.Add(1)
}

func (l *ledger) firstRefusal() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.refusal
}

func (l *ledger) accepted() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]string, len(l.ids))
	for k, v := range l.ids {
		out[k] = v
	}
	return out
}

// poster is a webhook client as a careful integration writes one: an
// Idempotency-Key per item, retried with backoff on any failure that is
// not a refusal of the request itself.
type poster struct {
	token string
	hc    *http.Client
}

func newPoster(token string) *poster {
	tr := &http.Transport{MaxIdleConnsPerHost: 32, IdleConnTimeout: 30 * time.Second}
	return &poster{token: token, hc: &http.Client{Transport: tr, Timeout: 20 * time.Second}}
}

// retryable says whether a client should try again: transport errors,
// 5xx, 408 and 429.
func retryable(code int) bool { return code >= 500 || code == 408 || code == 429 }

// deliver posts one item until the relay accepts it and records the
// answer; repeat also posts it once more afterwards, as a client whose
// first answer timed out would.
func (p *poster) deliver(ctx context.Context, l *ledger, url, key string, repeat bool) {
	body, _ := json.Marshal(map[string]string{"title": key, "body": "Build failed on " + key + ".", "url": "https://ci.example.com/" + key})
	wait := 10 * time.Millisecond
	for attempt := 0; ; attempt++ {
		code, ans, err := p.post(ctx, url, key, body)
		if err == nil && code == http.StatusAccepted {
			l.record(key, ans.ID)
			break
		}
		if err == nil && !retryable(code) {
			l.refuse(fmt.Sprintf("%s: %d", key, code))
			return
		}
		if ctx.Err() != nil {
			return
		}
		l.retries.Add(1)
		// A client's backoff with jitter, not synchronisation.
		t := time.NewTimer(wait/2 + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(wait*2, 400*time.Millisecond)
	}
	if repeat {
		l.repeats.Add(1)
		p.deliver(ctx, l, url, key, false)
	}
}

type hookAnswer struct {
	ID        string `json:"id"`
	Duplicate bool   `json:"duplicate"`
}

func (p *poster) post(ctx context.Context, url, key string, body []byte) (int, hookAnswer, error) {
	var ans hookAnswer
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, ans, err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	res, err := p.hc.Do(req)
	if err != nil {
		return 0, ans, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, ans, err
	}
	if res.StatusCode == http.StatusAccepted {
		if err := json.Unmarshal(b, &ans); err != nil || ans.ID == "" {
			return 0, ans, fmt.Errorf("202 with %q", b)
		}
	}
	return res.StatusCode, ans, nil
}

// postAll posts keys[from:to] with workers goroutines, spreading them
// over urls, and returns at once; done is closed when every key is
// accepted (or the context ends). Every tenth key is posted again after
// its answer.
func (p *poster) postAll(ctx context.Context, l *ledger, urls []string, from, to, workers int) (done <-chan struct{}) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				p.deliver(ctx, l, urls[i%len(urls)], itemKey(i), i%10 == 3)
			}
		}()
	}
	go func() {
		defer close(work)
		for i := from; i < to; i++ {
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	return ch
}

func itemKey(i int) string { return fmt.Sprintf("item-%06d", i) }

// waitDone waits for a postAll, failing the scenario at its deadline.
func waitDone(t *testing.T, ctx context.Context, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("posting did not finish: %v", ctx.Err())
	}
}

// untilCount waits until n() reaches at least target, looking again each
// time one of sources fires (none: polled, the caller says why).
func untilCount(t *testing.T, ctx context.Context, what string, target int64, n func() int64, sources ...wake.Source) {
	t.Helper()
	if err := waitFor(ctx, func() bool { return n() >= target }, sources...); err != nil {
		t.Fatalf("%s never reached %d (at %d): %v", what, target, n(), err)
	}
}
