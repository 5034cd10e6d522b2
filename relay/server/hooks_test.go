package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/nacl/box"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/sealbox"
	"github.com/scouts-hq/scouts/relay/server"
)

// hookScout registers a webhook scout through a connected device and
// returns its URL and token.
func (e *env) hookScout() (url, token string) {
	e.t.Helper()
	r, url, token := e.hookScoutOnline()
	r.c.CloseNow()
	return url, token
}

// hookScoutOnline is hookScout leaving the device connected.
func (e *env) hookScoutOnline() (r *raw, url, token string) {
	e.t.Helper()
	token = "hook-secret"
	r = e.dial()
	r.hello(e.token, 0)
	r.send(protocol.TypeScoutRegister, "op-hook", protocol.ScoutConfig{ScoutID: "sc_hook", Kind: "webhook", Name: "hook", Enabled: true,
		HookTokenHash: relaydb.HashToken(token)})
	f, err := r.recv()
	var res protocol.ConfigResult
	if err != nil || f.DecodeData(&res) != nil || !res.OK {
		e.t.Fatalf("register hook scout: %+v %+v %v", f, res, err)
	}
	return r, e.http.URL + "/api/v1/hooks/sc_hook", token
}

type hookAnswer struct {
	status int
	Code   string `json:"code"`
	Error  string `json:"error"`
}

func postHook(t *testing.T, url, token, body string) hookAnswer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	a := hookAnswer{status: res.StatusCode}
	json.NewDecoder(res.Body).Decode(&a)
	return a
}

// A webhook body is one JSON object in valid UTF-8: anything else is
// refused with a reason, rather than half read (a second object dropped)
// or silently altered (bad bytes replaced), and nothing is queued.
func TestHookBodyIsDecodedStrictly(t *testing.T) {
	e := newEnv(t, server.Config{})
	url, token := e.hookScout()
	for _, tc := range []struct{ name, body, want string }{
		{"two objects", `{"title":"a"} {"title":"b"}`, "after the JSON object"},
		{"trailing garbage", `{"title":"a"}x`, "after the JSON object"},
		{"invalid UTF-8 in a string", "{\"title\":\"caf\xe9\"}", "UTF-8"},
		{"invalid UTF-8 outside strings", "{\"title\":\"a\"}\xff", "UTF-8"},
	} {
		a := postHook(t, url, token, tc.body)
		if a.status != http.StatusBadRequest || a.Code != "invalid" || !strings.Contains(a.Error, tc.want) {
			t.Errorf("%s: %d %s %q, want 400 invalid mentioning %q", tc.name, a.status, a.Code, a.Error, tc.want)
		}
	}
	depth, _ := e.db.QueueDepth(context.Background())
	if n := depth[relay.StatusQueued]; n != 0 {
		t.Fatalf("refused bodies queued %d rows", n)
	}
	// One object, with whitespace around it, is fine.
	if a := postHook(t, url, token, " {\"title\":\"caf\u00e9\"}\r\n"); a.status != http.StatusAccepted {
		t.Fatalf("a valid body: %d %s %s", a.status, a.Code, a.Error)
	}
}

// Text that is not characters is refused with the field that holds it,
// not stored as U+FFFD: a lone UTF-16 surrogate escape (which
// encoding/json replaces without a word) and raw invalid UTF-8, in any
// field. A valid surrogate pair and an escaped U+FFFD are characters, and
// reach the device as sent.
func TestHookRefusesTextThatIsNotCharacters(t *testing.T) {
	e := newEnv(t, server.Config{})
	url, token := e.hookScout()
	for _, tc := range []struct{ name, body, want string }{
		{"lone high surrogate in the title", `{"title":"bad \ud800"}`, `title holds a lone UTF-16 surrogate \ud800`},
		{"lone low surrogate in the body", `{"title":"a","body":"x\uDC01y"}`, `body holds a lone UTF-16 surrogate \udc01`},
		{"high surrogate followed by a non-surrogate", `{"title":"a","url":"https://e.com/\ud83d\u0041"}`, `url holds a lone UTF-16 surrogate \ud83d`},
		{"two high surrogates", `{"title":"\ud83d\ud83d\ude00"}`, `title holds a lone UTF-16 surrogate \ud83d`},
		{"surrogate at the end", `{"title":"a","body":"ok \ud800"}`, "body holds a lone"},
		{"invalid UTF-8 in the body", "{\"title\":\"a\",\"body\":\"caf\xe9\"}", "body holds invalid UTF-8 (byte 0xe9)"},
		{"a field name", `{"title":"a","\ud800":"x"}`, "a field name holds a lone"},
	} {
		a := postHook(t, url, token, tc.body)
		if a.status != http.StatusBadRequest || a.Code != "invalid" || !strings.Contains(a.Error, tc.want) {
			t.Errorf("%s: %d %s %q, want 400 invalid saying %q", tc.name, a.status, a.Code, a.Error, tc.want)
		}
	}
	ctx := context.Background()
	if rows, err := e.db.Pending(ctx, e.user, e.dev, 0, 10); err != nil || len(rows) != 0 {
		t.Fatalf("refused bodies queued %d rows (%v)", len(rows), err)
	}

	// What is a character passes untouched: a pair, an escaped U+FFFD,
	// an escaped backslash before "ud800".
	body := `{"title":"ok \ud83d\ude00 \ufffd","body":"\\ud800"}`
	if a := postHook(t, url, token, body); a.status != http.StatusAccepted {
		t.Fatalf("a body of characters: %d %s %q", a.status, a.Code, a.Error)
	}
	rows, err := e.db.Pending(ctx, e.user, e.dev, 0, 10)
	if err != nil || len(rows) != 1 {
		t.Fatalf("queued %d rows (%v), want 1", len(rows), err)
	}
	keys, _ := client.DeviceKeys(e.token)
	p, err := keys.OpenWebhook(rows[0].Sealed)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "ok \U0001F600 \uFFFD" || p.Body != `\ud800` {
		t.Fatalf("the device opened %+q / %+q", p.Title, p.Body)
	}
}

// An account whose every device is revoked cannot receive anything: its
// webhook says so, rather than that no device has connected yet.
func TestHookOfAnAccountWithEveryDeviceRevoked(t *testing.T) {
	e := newEnv(t, server.Config{})
	url, token := e.hookScout()
	ctx := context.Background()
	if err := e.db.RevokeDevice(ctx, e.dev); err != nil {
		t.Fatal(err)
	}
	a := postHook(t, url, token, `{"title":"a"}`)
	if a.status != http.StatusConflict || a.Code != "devices_revoked" || !strings.Contains(a.Error, "every device of this account is revoked") {
		t.Fatalf("all devices revoked: %d %s %q", a.status, a.Code, a.Error)
	}
	// A new device that has not connected yet: that is what the answer
	// says then.
	if _, _, err := e.db.AddDevice(ctx, "ann@example.com", "new laptop"); err != nil {
		t.Fatal(err)
	}
	a = postHook(t, url, token, `{"title":"a"}`)
	if a.status != http.StatusConflict || a.Code != "no_device" || !strings.Contains(a.Error, "has connected") {
		t.Fatalf("a new device not connected yet: %d %s %q", a.status, a.Code, a.Error)
	}
	depth, _ := e.db.QueueDepth(ctx)
	if depth[relay.StatusQueued] != 0 {
		t.Fatalf("refused items were queued: %v", depth)
	}
}

// Many callers posting at once share transactions; whatever is written
// together, a repeated Idempotency-Key is one item: every caller gets its
// id, exactly one hears it was new, the others that it was a duplicate.
// Items without a key are each queued, with distinct dense sequences.
func TestConcurrentPostsKeepOneRowPerKey(t *testing.T) {
	e := newEnv(t, server.Config{})
	url, token := e.hookScout()
	const callers = 16
	type answer struct {
		status int
		server.HookAccepted
	}
	post := func(key string) answer {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"title":"a"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return answer{}
		}
		defer res.Body.Close()
		a := answer{status: res.StatusCode}
		json.NewDecoder(res.Body).Decode(&a.HookAccepted)
		return a
	}
	answers := make([]answer, 2*callers)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := ""
			if i%2 == 0 {
				key = "same-key"
			}
			answers[i] = post(key)
		}()
	}
	wg.Wait()
	keyed, fresh := map[string]int{}, 0
	for i, a := range answers {
		if a.status != http.StatusAccepted || a.ID == "" {
			t.Fatalf("post %d: %d %+v", i, a.status, a)
		}
		if i%2 == 0 {
			keyed[a.ID]++
			if !a.Duplicate {
				fresh++
			}
		} else if a.Duplicate {
			t.Fatalf("post %d without a key answered as a duplicate", i)
		}
	}
	if len(keyed) != 1 || fresh != 1 {
		t.Fatalf("%d posts with one key got ids %v with %d answered new; want one id, one new", callers, keyed, fresh)
	}
	rows, err := e.db.Pending(context.Background(), e.user, e.dev, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != callers+1 {
		t.Fatalf("%d rows queued, want %d (one per keyless post, one for the key)", len(rows), callers+1)
	}
	for i, r := range rows {
		if r.Seq != int64(i+1) {
			t.Fatalf("row %d has sequence %d: sequences must be dense", i, r.Seq)
		}
	}
}

// A webhook item is sealed for each device in the best format it said it
// opens: batch-v1 for a desktop that lists it in its hello (one ephemeral
// key for a run of items), the anonymous sealed box for one that does
// not; each device opens its own copy and no other.
func TestHookItemsAreSealedInTheFormatEachDeviceOpens(t *testing.T) {
	e := newEnv(t, server.Config{})
	url, token := e.hookScout() // the first device says hello without a format
	ctx := context.Background()
	dv2, tok2, err := e.db.AddDevice(ctx, "ann@example.com", "desktop")
	if err != nil {
		t.Fatal(err)
	}
	keys2, _ := client.DeviceKeys(tok2)
	r := e.dial()
	r.send(protocol.TypeHello, "", protocol.Hello{Token: tok2, Protocol: 1, PublicKey: keys2.Public[:], Seal: []string{"future-v9", protocol.SealBatchV1}})
	if f, err := r.recv(); err != nil || f.Type != protocol.TypeWelcome {
		t.Fatalf("welcome: %+v %v", f, err)
	}
	r.c.CloseNow()
	for i := range 2 {
		if a := postHook(t, url, token, fmt.Sprintf(`{"title":"Build %d failed","body":"step deploy"}`, i)); a.status != http.StatusAccepted {
			t.Fatalf("post %d: %+v", i, a)
		}
	}
	keys1, _ := client.DeviceKeys(e.token)
	anon, err := e.db.Pending(ctx, e.user, e.dev, 0, 10)
	if err != nil || len(anon) != 2 {
		t.Fatalf("first device's rows: %d, %v", len(anon), err)
	}
	batch, err := e.db.Pending(ctx, e.user, dv2.ID, 0, 10)
	if err != nil || len(batch) != 2 {
		t.Fatalf("second device's rows: %d, %v", len(batch), err)
	}
	for i := range 2 {
		if _, ok := box.OpenAnonymous(nil, anon[i].Sealed, &keys1.Public, &keys1.Private); !ok {
			t.Fatalf("row %d: the first device's copy is not an anonymous box it opens", i)
		}
		if !sealbox.IsBatch(batch[i].Sealed) {
			t.Fatalf("row %d: the second device's copy is not batch-v1", i)
		}
		p, err := keys2.OpenWebhook(batch[i].Sealed)
		if err != nil || p.Title != fmt.Sprintf("Build %d failed", i) {
			t.Fatalf("row %d: second device opened %+v, %v", i, p, err)
		}
		if _, err := keys1.OpenWebhook(batch[i].Sealed); err == nil {
			t.Fatalf("row %d: the first device opened the second's copy", i)
		}
	}
	if string(batch[0].Sealed[1:33]) != string(batch[1].Sealed[1:33]) {
		t.Fatal("two items in a row were sealed with two ephemeral keys: no batch")
	}
}

// A body over the cap is refused as too large, with the cap in words —
// once the token is known good: an unknown caller learns nothing from the
// size of what it sent, and gets 401 as for any body.
func TestHookBodyOverTheCap(t *testing.T) {
	e := newEnv(t, server.Config{})
	url, token := e.hookScout()
	big := `{"title":"big","body":"` + strings.Repeat("x", server.MaxHookBody) + `"}`
	a := postHook(t, url, token, big)
	if a.status != http.StatusRequestEntityTooLarge || a.Code != "too_large" || a.Error != "body is larger than 64 KiB" {
		t.Fatalf("a body over the cap: %d %s %q", a.status, a.Code, a.Error)
	}
	if a := postHook(t, url, "wrong", big); a.status != http.StatusUnauthorized || a.Code != "unauthorized" {
		t.Fatalf("a body over the cap with a wrong token: %d %s %q", a.status, a.Code, a.Error)
	}
	depth, _ := e.db.QueueDepth(context.Background())
	if depth[relay.StatusQueued] != 0 {
		t.Fatalf("refused items were queued: %v", depth)
	}
}
