package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"github.com/scouts-hq/scouts/internal/wake"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/tokenseal"
	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
	"github.com/scouts-hq/scouts/store/storetest"
)

// gate holds the Gmail API's history.list requests while closed, so that
// a test can keep a scout's run in progress for as long as it needs.
type gate struct {
	mu      sync.Mutex
	open    bool
	release chan struct{}
	arrived int // history.list requests seen
	// came fires after each history.list request counted.
	came wake.Wake
}

func newGate() *gate { return &gate{open: true, release: make(chan struct{})} }

func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open {
		g.open, g.release = false, make(chan struct{})
	}
}

func (g *gate) openUp() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.open {
		g.open = true
		close(g.release)
	}
}

func (g *gate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.arrived
}

func (g *gate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/history") {
			g.mu.Lock()
			g.arrived++
			wait := g.release
			if g.open {
				wait = nil
			}
			g.mu.Unlock()
			g.came.Fire()
			if wait != nil {
				select {
				case <-wait:
				case <-r.Context().Done():
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// gatedGoogle is newGoogle with the Gmail API behind a gate.
func gatedGoogle(t *testing.T) (*google, *gate) {
	t.Helper()
	g := newGoogle(t, nil)
	gt := newGate()
	srv := httptest.NewServer(gt.wrap(g.gmail))
	t.Cleanup(srv.Close)
	g.gmailURL = srv.URL
	return g, gt
}

// localGmailAgent starts an agent with a local Gmail scout past its first
// sync, on the gated fake.
func localGmailAgent(t *testing.T, g *google, home, dataDir string, extra ...string) (*agentProc, string) {
	t.Helper()
	env := []string{"SCOUTS_KEYRING_PASSPHRASE=e2e keyring passphrase"}
	a := startAgentEnv(t, dataDir, home, env, append(g.agentFlags(t), extra...)...)
	g.connect(t, a)
	cfg, _ := json.Marshal(map[string]any{"email": gmailUser, "mode": "local"})
	sc, err := a.client.CreateScout(context.Background(), apitype.CreateScout{Kind: "gmail", Name: "Work mail", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(t, a, sc.ID, "the first sync")
	return a, sc.ID
}

// waitIdle waits until the scout has run and nothing runs or waits.
func waitIdle(t *testing.T, a *agentProc, scoutID, what string) apitype.Scout {
	t.Helper()
	var s apitype.Scout
	waitOn(t, on(a.changed()), what, func() bool {
		var err error
		s, err = a.client.Scout(context.Background(), scoutID)
		return err == nil && s.Health.LastRunAt != nil && s.Health.ActiveRuns == 0 && !s.Health.Queued
	}, func() string { return fmt.Sprintf("scout: %+v", s.Health) })
	return s
}

// allAudit reads the agent's whole audit log.
func allAudit(t *testing.T, a *agentProc) []apitype.AuditEvent {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(a.dataDir, "local-api.token"))
	if err != nil {
		t.Fatal(err)
	}
	var all []apitype.AuditEvent
	after := int64(0)
	for {
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/v1/audit?limit=1000&after=%d", a.baseURL, after), nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page []apitype.AuditEvent
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if len(page) < 1000 {
			return all
		}
		after = page[len(page)-1].ID
	}
}

func auditOf(t *testing.T, a *agentProc, scoutID, typ string) []apitype.AuditEvent {
	t.Helper()
	var out []apitype.AuditEvent
	for _, e := range allAudit(t, a) {
		if e.Type == typ && e.Refs["scout_id"] == scoutID {
			out = append(out, e)
		}
	}
	return out
}

func sourceRefs(t *testing.T, a *agentProc, scoutID string) []string {
	t.Helper()
	var refs []string
	for _, s := range gmailSuggestions(t, a, scoutID) {
		refs = append(refs, s.SourceRef)
	}
	slices.Sort(refs)
	return refs
}

// Two triggers of one scout while it runs, under each overlap policy, in
// the agent: queue-one runs once more, skip runs no more (and says so),
// allow runs them beside the first. Each mail still becomes one card.
func TestOverlapPoliciesInTheAgent(t *testing.T) {
	ctx := context.Background()
	g, gt := gatedGoogle(t)
	home := t.TempDir()
	a, scout := localGmailAgent(t, g, home, filepath.Join(home, "data"))
	var delivered []string
	for i, tc := range []struct {
		policy string
		runs   int // history.list requests the round makes
	}{{"queue-one", 2}, {"skip", 1}, {"allow", 3}} {
		id, _, _ := g.gmail.Deliver(gmailUser, personalMail(i, tc.policy))
		delivered = append(delivered, id)
		gt.close()
		before := gt.count()
		// Changing the scout restarts it: its first run starts and waits
		// at the gate.
		if _, err := a.client.PatchScout(ctx, scout, apitype.PatchScout{Schedule: &apitype.Schedule{Overlap: tc.policy}}); err != nil {
			t.Fatal(err)
		}
		waitOn(t, on(gt.came.Next), tc.policy+": the first run in progress", func() bool { return gt.count() == before+1 })
		for range 2 {
			if err := a.client.RunScout(ctx, scout); err != nil {
				t.Fatal(err)
			}
		}
		// RunScout returns once the engine took the request: queued, or
		// skipped and audited, by then.
		switch tc.policy {
		case "queue-one":
			if s, err := a.client.Scout(ctx, scout); err != nil || s.Health.ActiveRuns != 1 || !s.Health.Queued {
				t.Fatalf("queue-one: %+v (%v), want one run and one queued", s.Health, err)
			}
		case "skip":
			if n := len(auditOf(t, a, scout, "scout.run_skipped")); n != 1 {
				t.Fatalf("skip: %d skips audited, want 1", n)
			}
			if s, _ := a.client.Scout(ctx, scout); s.Health.ActiveRuns != 1 || s.Health.Queued {
				t.Fatalf("skip: %+v, want one run and none queued", s.Health)
			}
		case "allow":
			waitOn(t, on(gt.came.Next), "three runs at once", func() bool { return gt.count() == before+3 })
		}
		gt.openUp()
		s := waitIdle(t, a, scout, tc.policy+": all runs done")
		if n := gt.count() - before; n != tc.runs {
			t.Fatalf("%s: %d runs, want %d", tc.policy, n, tc.runs)
		}
		if s.Schedule.Overlap != tc.policy {
			t.Fatalf("schedule %+v", s.Schedule)
		}
		if got, want := sourceRefs(t, a, scout), slices.Sorted(slices.Values(delivered)); !slices.Equal(got, want) {
			t.Fatalf("%s: suggestions %v, want each mail once: %v", tc.policy, got, want)
		}
	}
}

// The agent SIGKILLed while a run holds the scout's lock: the next agent
// finds the lock's holder gone, takes the lock over (audited), and the
// run completes once — every mail one card.
func TestAgentKilledHoldingTheRunLock(t *testing.T) {
	ctx := context.Background()
	g, gt := gatedGoogle(t)
	home := t.TempDir()
	dataDir := filepath.Join(home, "data")
	a, scout := localGmailAgent(t, g, home, dataDir)
	var ids []string
	for i := range 3 {
		id, _, _ := g.gmail.Deliver(gmailUser, personalMail(i, "killed"))
		ids = append(ids, id)
	}
	gt.close()
	before := gt.count()
	if err := a.client.RunScout(ctx, scout); err != nil {
		t.Fatal(err)
	}
	waitOn(t, on(gt.came.Next), "the run in progress", func() bool { return gt.count() == before+1 })
	db, err := localdb.Open(ctx, filepath.Join(dataDir, "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	// The run reached Gmail holding its lock.
	held, err := db.RunLocks(ctx)
	if err != nil || len(held) != 1 || held[0].ScoutID != scout {
		t.Fatalf("run locks while the run is in progress: %+v %v", held, err)
	}
	db.Close()
	if held[0].Holder.PID != a.cmd.Process.Pid {
		t.Fatalf("lock held by %+v, want the agent (pid %d)", held[0].Holder, a.cmd.Process.Pid)
	}
	a.kill()
	gt.openUp()
	if got := sourceRefsOffline(t, dataDir, scout); len(got) != 0 {
		t.Fatalf("the killed run recorded %v", got)
	}

	a = startAgentEnv(t, dataDir, home, []string{"SCOUTS_KEYRING_PASSPHRASE=e2e keyring passphrase"}, g.agentFlags(t)...)
	waitOn(t, on(a.changed()), "every mail as one card", func() bool { return len(sourceRefs(t, a, scout)) == len(ids) },
		func() string { return fmt.Sprintf("cards: %v", sourceRefs(t, a, scout)) })
	took := auditOf(t, a, scout, "scout.lock_taken_over")
	if len(took) != 1 || !strings.Contains(took[0].Summary, fmt.Sprintf("process %d is gone", held[0].Holder.PID)) {
		t.Fatalf("takeover audit: %+v", took)
	}
	waitIdle(t, a, scout, "the run after the takeover")
	if got, want := sourceRefs(t, a, scout), slices.Sorted(slices.Values(ids)); !slices.Equal(got, want) {
		t.Fatalf("cards %v, want each mail once %v", got, want)
	}
	// The killed run stays in the history, interrupted, saying why; the
	// run after the takeover found the mail.
	runs, err := a.client.ScoutRuns(ctx, scout, 50)
	if err != nil {
		t.Fatal(err)
	}
	var cut []apitype.Run
	found := 0
	for _, r := range runs {
		switch r.Outcome {
		case "interrupted":
			cut = append(cut, r)
		case "running":
			t.Errorf("a run still running once the scout is idle: %+v", r)
		case "ok":
			found += r.ItemsNew
		}
	}
	if len(cut) != 1 || cut[0].Trigger != "manual" || cut[0].FinishedAt != nil ||
		!strings.Contains(cut[0].Note, fmt.Sprintf("process %d is gone", held[0].Holder.PID)) {
		t.Fatalf("the killed run in the history: %+v (all: %+v), want it interrupted, naming the killed agent", cut, runs)
	}
	if found != len(ids) {
		t.Fatalf("runs after the takeover found %d new mails, want %d: %+v", found, len(ids), runs)
	}
	db, err = localdb.Open(ctx, filepath.Join(dataDir, "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if locks, _ := db.RunLocks(ctx); len(locks) != 0 {
		t.Fatalf("locks left after the run: %+v", locks)
	}
}

// sourceRefsOffline reads a stopped agent's suggestions of a scout.
func sourceRefsOffline(t *testing.T, dataDir, scoutID string) []string {
	t.Helper()
	db, err := localdb.Open(context.Background(), filepath.Join(dataDir, "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, err := db.ListSuggestions(context.Background(), localdb.SuggestionFilter{ScoutID: scoutID, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, s := range list {
		refs = append(refs, s.SourceRef)
	}
	return refs
}

// A run that fails half-way (the third of five mails cannot be read)
// records nothing and leaves the cursor where it was; the retry reads
// them all and makes each one card, and the run after it reads only what
// is new.
func TestRunFailingHalfWayRetriesWithoutDuplicates(t *testing.T) {
	ctx := context.Background()
	g, _ := gatedGoogle(t)
	home := t.TempDir()
	a, scout := localGmailAgent(t, g, home, filepath.Join(home, "data"))
	var ids []string
	for i := range 5 {
		id, _, _ := g.gmail.Deliver(gmailUser, personalMail(i, "half"))
		ids = append(ids, id)
	}
	g.gmail.FailMessage(gmailUser, "messages.get", ids[2], 400, 1)
	if err := a.client.RunScout(ctx, scout); err != nil {
		t.Fatal(err)
	}
	waitOn(t, on(a.changed()), "the failed run", func() bool {
		s, err := a.client.Scout(ctx, scout)
		return err == nil && s.Health.LastError != ""
	})
	if got := sourceRefs(t, a, scout); len(got) != 0 {
		t.Fatalf("a failed run recorded %v", got)
	}
	// The retry (the poll interval, or run now) reads the five again.
	if err := a.client.RunScout(ctx, scout); err != nil {
		t.Fatal(err)
	}
	waitOn(t, on(a.changed()), "five cards", func() bool { return len(sourceRefs(t, a, scout)) == 5 })
	if got, want := sourceRefs(t, a, scout), slices.Sorted(slices.Values(ids)); !slices.Equal(got, want) {
		t.Fatalf("cards %v, want each mail once %v", got, want)
	}
	waitIdle(t, a, scout, "the retry")
	reads := map[string]int{}
	for _, id := range ids {
		reads[id] = g.gmail.MessageCalls(gmailUser, "messages.get", id)
	}
	// The cursor moved past the five: the next run reads only a new mail.
	id6, _, _ := g.gmail.Deliver(gmailUser, personalMail(6, "half"))
	if err := a.client.RunScout(ctx, scout); err != nil {
		t.Fatal(err)
	}
	waitOn(t, on(a.changed()), "the sixth card", func() bool { return len(sourceRefs(t, a, scout)) == 6 })
	for _, id := range ids {
		if n := g.gmail.MessageCalls(gmailUser, "messages.get", id); n != reads[id] {
			t.Fatalf("mail %s read again after the cursor moved past it (%d → %d)", id, reads[id], n)
		}
	}
	if n := g.gmail.MessageCalls(gmailUser, "messages.get", id6); n != 1 {
		t.Fatalf("the new mail was read %d times", n)
	}
}

// Two relay instances on one PostgreSQL both receive every push for a
// relay-triage Gmail scout (a subscription each). Under a burst of mail
// the scout syncs on one instance at a time: each message is read from
// Gmail once and queued once, and the desktop gets each as one card.
func TestTwoRelaysSyncOneGmailScoutOnce(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresDSN(t)
	emu := startEmulator(t)
	g := newGoogle(t, emu)
	topic := emu.topic("gmail")
	keys := filepath.Join(t.TempDir(), "token-keys")
	os.WriteFile(keys, []byte(tokenseal.NewKeyLine("k1")+"\n"), 0o600)
	ep := oauthfake.EndpointsAt(g.oauthURL)
	args := []string{"--gmail", "--google-client-id", oauthfake.DefaultClientID, "--google-client-secret", oauthfake.DefaultClientSecret,
		"--google-token-url", ep.Token, "--gmail-api-url", g.gmailURL, "--gmail-topic", topic, "--token-keys-file", keys,
		"--push-secret", pushSecret, "--gmail-poll", "1h"}
	ra := startRelay(t, dsn, "", args...)
	rb := startRelay(t, dsn, "", args...)
	emu.pushSubscription("push-a", topic, ra.url+"/api/v1/scouts/webhooks/gmail?token="+pushSecret)
	emu.pushSubscription("push-b", topic, rb.url+"/api/v1/scouts/webhooks/gmail?token="+pushSecret)
	tokenFile := newDevice(t, dsn, gmailUser, "laptop", true)
	home := t.TempDir()
	env := []string{"SCOUTS_KEYRING_PASSPHRASE=e2e keyring passphrase"}
	flags := append(g.agentFlags(t), "--relay", ra.url, "--device-token-file", tokenFile)
	a := startAgentEnv(t, filepath.Join(home, "data"), home, env, flags...)
	g.connect(t, a)
	cfg, _ := json.Marshal(map[string]any{"email": gmailUser, "mode": "relay-triage"})
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "gmail", Name: "Work mail", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	db, err := relaydb.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The relays log each sync after storing it.
	waitOn(t, on(ra.logged(), rb.logged(), g.gmail.Next), "the relay's first sync of the scout", func() bool {
		c := g.gmail.Calls(gmailUser)
		rs, err := db.GmailScout(ctx, sc.ID)
		return err == nil && c["watch"] >= 1 && !rs.Gmail.LastSyncAt.IsZero()
	}, func() string { return fmt.Sprintf("Gmail calls so far: %v", g.gmail.Calls(gmailUser)) })
	// No desktop during the burst: a card the instance holding the
	// session did not triage itself would be read again to be delivered,
	// and only the syncs' reads are counted here.
	a.stop()

	const n = 40
	var ids []string
	for i := range n {
		id, _, err := g.gmail.Deliver(gmailUser, personalMail(i, "burst"))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// Each relay logs a sync after queueing its mail, and its hints
	// once handled.
	waitOn(t, on(ra.logged(), rb.logged()), "every mail queued and every push handled", func() bool {
		for _, id := range ids {
			if ok, err := db.Queued(ctx, sc.ID, id); err != nil || !ok {
				return false
			}
		}
		hints, err := db.PushHints(ctx, 1000)
		return err == nil && len(hints) == 0
	})
	for _, id := range ids {
		if got := g.gmail.MessageCalls(gmailUser, "messages.get", id); got != 1 {
			t.Fatalf("message %s read %d times by the relays, want once", id, got)
		}
	}
	// Each instance synced some of the time: both took part.
	if !strings.Contains(ra.stderr.String(), "gmail: synced") || !strings.Contains(rb.stderr.String(), "gmail: synced") {
		t.Logf("only one instance synced during the burst (the other always found the lease taken or nothing new)")
	}

	a = startAgentEnv(t, filepath.Join(home, "data"), home, env, flags...)
	waitGmailSuggestions(t, a, a.events(t), sc.ID, ids)
}

// A secret's value, planted through the CLI and through the API, is found
// nowhere but the keyring: not in the database files, the agent's log, any
// API answer or event, the audit, or any request the model server
// received. The model's key, kept as the secret llm-api-key, reaches the
// model in the Authorization header only.
func TestPlantedSecretIsNowhere(t *testing.T) {
	ctx := context.Background()
	const (
		modelKey = "sk-model-key-in-the-keyring-7731"
		planted  = "PLANTED-crm-token-5f1e9a0c"
		viaAPI   = "PLANTED-api-value-c0ffee42"
	)
	srv := triagetest.New(modelKey, "fake-model")
	t.Cleanup(srv.Close)
	home := t.TempDir()
	dataDir := filepath.Join(home, "data")
	env := []string{"SCOUTS_KEYRING_PASSPHRASE=e2e keyring passphrase"}
	a := startAgentEnv(t, dataDir, home, env, "--keyring", "file", "--llm-url", srv.BaseURL(), "--llm-model", "fake-model")
	stream := a.events(t)

	out, errOut, code := runCLIStdin(t, home, dataDir, planted+"\n", "secrets", "set", "crm-webhook-token")
	if code != 0 || !strings.Contains(out, `{"secret": "crm-webhook-token"}`) {
		t.Fatalf("secrets set: %d %s %s", code, out, errOut)
	}
	if _, errOut, code := runCLIStdin(t, home, dataDir, modelKey, "secrets", "set", "llm-api-key"); code != 0 {
		t.Fatalf("secrets set llm-api-key: %s", errOut)
	}
	if err := a.client.SetSecret(ctx, "api-planted", viaAPI); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runCLIStdin(t, home, dataDir, "", "secrets", "set", "empty-one"); code != 2 {
		t.Fatalf("an empty value: exit %d, want 2", code)
	}
	if err := a.client.SetSecret(ctx, "bad name!", "x"); err == nil || !strings.Contains(err.Error(), "letters, digits") {
		t.Fatalf("a bad name: %v", err)
	}
	out, _, _ = runCLI(t, home, dataDir, "secrets")
	if out != "api-planted\ncrm-webhook-token\nllm-api-key\n" {
		t.Fatalf("secrets list:\n%s", out)
	}
	if err := a.client.DeleteSecret(ctx, "api-planted"); err != nil {
		t.Fatal(err)
	}
	if err := a.client.DeleteSecret(ctx, "api-planted"); err == nil || !strings.Contains(err.Error(), "no secret named") {
		t.Fatalf("removing it twice: %v", err)
	}

	// The model works with the key from the keyring.
	docs := filepath.Join(home, "docs")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "contract.txt"), []byte("Please sign the contract by Friday."), 0o644)
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: docs, IncludeExisting: true})
	if err != nil {
		t.Fatal(err)
	}
	waitOn(t, on(a.changed()), "the card", func() bool {
		l, err := a.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "all", ScoutID: sc.ID})
		return err == nil && len(l) == 1
	})
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[0].Authorization != "Bearer "+modelKey {
		t.Fatalf("%d model requests; the first's authorization %q", len(reqs), func() string {
			if len(reqs) > 0 {
				return reqs[0].Authorization
			}
			return ""
		}())
	}

	// Everything a person or a program can read.
	var answers []any
	for _, get := range []func() (any, error){
		func() (any, error) { return a.client.Status(ctx) },
		func() (any, error) { return a.client.Scouts(ctx) },
		func() (any, error) { return a.client.Secrets(ctx) },
		func() (any, error) {
			return a.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "all"})
		},
		func() (any, error) { return a.client.Settings(ctx) },
	} {
		v, err := get()
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, v)
	}
	answers = append(answers, allAudit(t, a))
	sawSecretEvent := false
	for done := false; !done; {
		select {
		case ev := <-stream:
			answers = append(answers, ev)
			sawSecretEvent = sawSecretEvent || ev.Type == "secrets.changed"
		default:
			done = true
		}
	}
	if !sawSecretEvent {
		t.Fatal("no secrets.changed event reached the stream")
	}
	blobs := map[string][]byte{}
	for i, v := range answers {
		b, _ := json.Marshal(v)
		blobs[fmt.Sprintf("API answer %d", i)] = b
	}
	for i, r := range reqs {
		blobs[fmt.Sprintf("model request %d", i)] = append([]byte(r.Authorization+"\n"), r.Body...)
	}
	a.stop()
	blobs["agent log"] = []byte(a.stderr.String())
	files, _ := filepath.Glob(filepath.Join(dataDir, "scouts.db*"))
	if len(files) == 0 {
		t.Fatal("no database files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blobs[filepath.Base(f)] = b
	}
	for name, b := range blobs {
		for _, secret := range []string{planted, viaAPI} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds the planted secret %q", name, secret)
			}
		}
		if !strings.HasPrefix(name, "model request") && strings.Contains(string(b), modelKey) {
			t.Errorf("%s holds the model's key", name)
		}
	}
	if !strings.Contains(string(blobs["scouts.db"])+string(blobs["scouts.db-wal"]), "crm-webhook-token") {
		t.Error("the audit does not name the secret that was set")
	}
}
