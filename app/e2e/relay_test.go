package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/store/storetest"
)

// waitState waits on the stream for a relay.state event matching ok.
func waitState(t testing.TB, ch <-chan apitype.StreamEvent, what string, ok func(apitype.RelayStatus) bool) apitype.RelayStatus {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case ev, open := <-ch:
			if !open {
				t.Fatalf("stream ended waiting for %s", what)
			}
			var st apitype.RelayStatus
			switch ev.Type {
			case "hello":
				var s apitype.Status
				json.Unmarshal(ev.Data, &s)
				if s.Relay == nil {
					continue
				}
				st = *s.Relay
			case "relay.state":
				json.Unmarshal(ev.Data, &st)
			default:
				continue
			}
			if ok(st) {
				return st
			}
		case <-deadline:
			t.Fatalf("relay never reached: %s", what)
		}
	}
}

func online(st apitype.RelayStatus) bool { return st.State == "online" }

// waitSynced waits until an operation just queued (a scout created or
// changed) has reached the relay: first the event of the outbox growing,
// then the one of it draining — so that an earlier "online, nothing
// pending" still in the stream is not mistaken for the answer.
func waitSynced(t testing.TB, ch <-chan apitype.StreamEvent, what string) {
	t.Helper()
	waitState(t, ch, what+" (queued)", func(st apitype.RelayStatus) bool { return st.Outbox > 0 })
	waitState(t, ch, what, func(st apitype.RelayStatus) bool { return st.State == "online" && st.Outbox == 0 })
}

// hookItem is what the test posts; Body carries a marker that must never
// appear in the relay's database.
type hookItem struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	URL   string `json:"url,omitempty"`
}

// post sends one webhook item and returns the relay's answer.
func post(t testing.TB, hookURL, token, key string, it hookItem) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(it)
	req, _ := http.NewRequest("POST", hookURL, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post %s: %v", key, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// waitSuggestions waits until the agent has n suggestions in all.
func waitSuggestions(t *testing.T, a *agentProc, n int) []apitype.Suggestion {
	t.Helper()
	stream := a.events(t)
	deadline := time.After(90 * time.Second)
	for {
		list, err := a.client.Suggestions(context.Background(), localclient.SuggestionQuery{Status: "all", Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		// Paging: at most 1000 per call.
		for len(list)%1000 == 0 && len(list) > 0 {
			more, err := a.client.SuggestionsAfter(context.Background(), list[len(list)-1].ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(more) == 0 {
				break
			}
			list = append(list, more...)
		}
		if len(list) >= n {
			return list
		}
		select {
		case <-stream:
		case <-deadline:
			t.Fatalf("%d of %d suggestions after 90s", len(list), n)
		}
	}
}

func TestRelayWebhooksSQLite(t *testing.T) {
	testRelayWebhooks(t, filepath.Join(t.TempDir(), "relay.db"))
}

func TestRelayWebhooksPostgres(t *testing.T) {
	testRelayWebhooks(t, storetest.PostgresDSN(t))
}

// testRelayWebhooks is the relay issue's end-to-end check on one backend:
// 1 000 webhook items with duplicate Idempotency-Keys, the agent and the
// relay killed with SIGKILL at random points, every distinct item exactly
// one suggestion; tenant isolation; revocation; no plaintext on the relay.
func testRelayWebhooks(t *testing.T, dsn string) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	relay := startRelay(t, dsn, "")
	relayAddr := strings.TrimPrefix(relay.url, "http://")
	annToken := newDevice(t, dsn, "ann@example.com", "ann-laptop", true)
	bobToken := newDevice(t, dsn, "bob@example.com", "bob-laptop", true)

	home := t.TempDir()
	annData := filepath.Join(home, "ann")
	agentArgs := []string{"--relay", relay.url, "--device-token-file", annToken}
	ann := startAgent(t, annData, home, agentArgs...)
	stream := ann.events(t)
	waitState(t, stream, "online", online)

	hook, err := ann.client.CreateScout(ctx, apitype.CreateScout{Kind: "webhook", Name: "CI alerts"})
	if err != nil {
		t.Fatal(err)
	}
	if hook.HookToken == "" || !strings.HasPrefix(hook.HookURL, relay.url+"/api/v1/hooks/") {
		t.Fatalf("webhook scout = %+v", hook)
	}
	if again, _ := ann.client.Scout(ctx, hook.ID); again.HookToken != "" || again.HookURL != hook.HookURL {
		t.Fatalf("GET shows the token again, or lost the URL: %+v", again)
	}
	waitSynced(t, stream, "scout registered")

	// Wrong token, bad body, oversized body: refused, nothing queued.
	if code, _ := post(t, hook.HookURL, "whk_wrong", "", hookItem{Title: "x"}); code != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", code)
	}
	if code, _ := post(t, hook.HookURL, hook.HookToken, "", hookItem{Title: ""}); code != http.StatusBadRequest {
		t.Fatalf("empty title: %d", code)
	}
	if code, _ := post(t, hook.HookURL, hook.HookToken, "", hookItem{Title: "big", Body: strings.Repeat("x", 70<<10)}); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("70 KiB body: %d", code)
	}

	const total = 1000
	markers := make([]string, total)
	for i := range markers {
		markers[i] = fmt.Sprintf("secret-body-%04d-%08x", i, rng.Uint32())
	}
	// Batches of random sizes; between them the agent or the relay dies.
	next := 0
	agentKills, relayKills := 0, 0
	for round := 0; next < total; round++ {
		n := min(total-next, 50+rng.IntN(250))
		var wg sync.WaitGroup
		work := make(chan int)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range work {
					key := fmt.Sprintf("item-%04d", i)
					it := hookItem{Title: key, Body: "Build failed. " + markers[i], URL: "https://ci.example.com/" + key}
					code, first := post(t, hook.HookURL, hook.HookToken, key, it)
					if code != http.StatusAccepted || first["duplicate"] != false {
						t.Errorf("post %s: %d %v", key, code, first)
						continue
					}
					if i%10 == 0 { // a client retrying: answered with the first result
						code, dup := post(t, hook.HookURL, hook.HookToken, key, it)
						if code != http.StatusAccepted || dup["duplicate"] != true || dup["id"] != first["id"] {
							t.Errorf("duplicate %s: %d %v (first %v)", key, code, dup, first)
						}
					}
				}
			}()
		}
		killAt := next + rng.IntN(n)
		killAgent := agentKills < 2 && (round%2 == 0 || relayKills >= 2)
		for i := next; i < next+n; i++ {
			if killAgent && i == killAt {
				// Mid-drain: items are arriving and being delivered while
				// the agent dies; the posting goes on meanwhile.
				ann.kill()
				ann = startAgent(t, annData, home, agentArgs...)
				agentKills++
			}
			work <- i
		}
		close(work)
		wg.Wait()
		next += n
		if t.Failed() {
			return
		}
		switch {
		case killAgent:
		case relayKills < 2:
			relay.kill() // mid-delivery
			relay = startRelay(t, dsn, relayAddr)
			ann.client.Sync(ctx) // "Sync now": reconnect without waiting for the backoff
			relayKills++
		}
	}
	got := waitSuggestions(t, ann, total)
	seen := map[string]int{}
	for _, s := range got {
		seen[s.Title]++
	}
	for i := range total {
		if c := seen[fmt.Sprintf("item-%04d", i)]; c != 1 {
			t.Errorf("item-%04d became %d suggestions, want 1", i, c)
		}
	}
	if len(got) != total {
		t.Fatalf("%d suggestions, want %d", len(got), total)
	}
	if agentKills < 2 || relayKills < 2 {
		t.Fatalf("only %d agent and %d relay kills", agentKills, relayKills)
	}
	// The card carries the opened content: title, excerpt, link, and the
	// full body on demand.
	s := got[0]
	if !strings.HasPrefix(s.Excerpt, "Build failed. secret-body-") || !strings.HasPrefix(s.URL, "https://ci.example.com/item-") {
		t.Fatalf("card = %+v", s)
	}
	if c, err := ann.client.Content(ctx, s.ID); err != nil || !strings.Contains(c.Text, "secret-body-") {
		t.Fatalf("content: %+v %v", c, err)
	}

	// Bob's desktop never sees Ann's items, and Ann's never sees Bob's.
	bob := startAgent(t, filepath.Join(home, "bob"), home, "--relay", relay.url, "--device-token-file", bobToken)
	bobStream := bob.events(t)
	waitState(t, bobStream, "bob online", online)
	bobHook, err := bob.client.CreateScout(ctx, apitype.CreateScout{Kind: "webhook", Name: "Bob's hook"})
	if err != nil {
		t.Fatal(err)
	}
	waitSynced(t, bobStream, "bob's scout registered")
	if code, _ := post(t, bobHook.HookURL, bobHook.HookToken, "bob-1", hookItem{Title: "for bob", Body: "bob-secret"}); code != http.StatusAccepted {
		t.Fatalf("bob's post: %d", code)
	}
	if code, _ := post(t, hook.HookURL, bobHook.HookToken, "", hookItem{Title: "bob's token on ann's hook"}); code != http.StatusUnauthorized {
		t.Fatalf("bob's token on ann's hook: %d", code)
	}
	bobGot := waitSuggestions(t, bob, 1)
	if len(bobGot) != 1 || bobGot[0].Title != "for bob" {
		t.Fatalf("bob's suggestions: %+v", titles(bobGot))
	}
	if list, _ := ann.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "all", Limit: 1000}); len(list) != total {
		t.Fatalf("ann has %d suggestions after bob's item, want %d", len(list), total)
	}

	// The relay's database holds no plaintext of any posted body, and its
	// logs hold neither bodies nor tokens.
	assertNoPlaintext(t, dsn, append(markers, "bob-secret"))
	logs := relay.stderr.String()
	annTok, _ := os.ReadFile(annToken)
	for _, secret := range append(markers, "bob-secret", hook.HookToken, bobHook.HookToken, strings.TrimSpace(string(annTok))) {
		if strings.Contains(logs, secret) {
			t.Fatalf("the relay's log contains %q", secret)
		}
	}

	// Revoking Ann's device cuts the open connection within seconds.
	st, _ := ann.client.Status(ctx)
	relayAdmin(t, dsn, "device", "revoke", st.Relay.DeviceID)
	waitState(t, ann.events(t), "revoked", func(s apitype.RelayStatus) bool { return s.State == "revoked" })
	// Bob is untouched.
	if st, _ := bob.client.Status(ctx); st.Relay.State != "online" {
		t.Fatalf("bob's state after ann's revocation: %s", st.Relay.State)
	}
}

// assertNoPlaintext searches everything the relay stored for the markers.
func assertNoPlaintext(t *testing.T, dsn string, markers []string) {
	t.Helper()
	var blob []byte
	if strings.HasPrefix(dsn, "postgres") {
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, table := range []string{"users", "devices", "cloud_scouts", "triage_queue", "queue_sealed", "hook_requests", "config_ops", "audit"} {
			var s sql.NullString
			if err := db.QueryRow(`SELECT string_agg(t::text, ' ') FROM ` + table + ` t`).Scan(&s); err != nil {
				t.Fatalf("dump %s: %v", table, err)
			}
			blob = append(blob, s.String...)
		}
	} else {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			b, err := os.ReadFile(dsn + suffix)
			if err == nil {
				blob = append(blob, b...)
			}
		}
	}
	if len(blob) == 0 {
		t.Fatal("read nothing of the relay's database")
	}
	for _, m := range markers {
		if bytes.Contains(blob, []byte(m)) {
			t.Fatalf("the relay's database contains plaintext %q", m)
		}
	}
}
