package core_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

// openModelCore opens a core on dataDir with a model on the fake server
// and the budget counted in its database, as the agent does.
func openModelCore(t *testing.T, srv *triagetest.Server, dataDir string, hardCap int) (*core.Core, *bus.Subscription, func()) {
	t.Helper()
	m, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: catModel, APIKey: catKey})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := core.Open(ctx, core.Config{DataDir: dataDir, Model: m, ModelDailyTokens: hardCap})
	if err != nil {
		t.Fatal(err)
	}
	sub, _, _ := c.Bus.Subscribe(0, 4096)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	closed := false
	stop := func() {
		if !closed {
			closed = true
			cancel()
			c.Close()
		}
	}
	t.Cleanup(stop)
	return c, sub, stop
}

func folderScout(t *testing.T, c *core.Core, dir string, b scouts.Budget) scouts.Scout {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"path": dir, "include_existing": true, "settle": "1ms"})
	cr, err := c.CreateScout(context.Background(), core.NewScout{Kind: scouts.KindFolder, Name: "Docs", Review: true, Enabled: true,
		Config: cfg, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	return cr.Scout
}

// A scout's budget can only lower the global hard cap, and a schedule that
// does not read is refused with its reason; a refused change changes
// nothing.
func TestScoutRunSettingsAreChecked(t *testing.T) {
	srv := triagetest.New(catKey, catModel)
	t.Cleanup(srv.Close)
	c, _, _ := openModelCore(t, srv, t.TempDir(), 1000)
	ctx := context.Background()
	cfg, _ := json.Marshal(map[string]any{"path": t.TempDir()})
	_, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Review: true, Enabled: true, Config: cfg,
		Budget: scouts.Budget{DayTokens: 2000}})
	if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "above the global hard cap of 1000") {
		t.Fatalf("a budget above the hard cap: %v", err)
	}
	cr, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Review: true, Enabled: true, Config: cfg,
		Budget: scouts.Budget{DayTokens: 500, RunTokens: 200}, Schedule: scouts.Schedule{Cron: "*/30 * * * *", TimeZone: "Europe/Paris"}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.DB.GetScout(ctx, cr.Scout.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := scouts.Schedule{Cron: "*/30 * * * *", TimeZone: "Europe/Paris", Overlap: scouts.OverlapQueueOne, CatchUp: scouts.CatchUpRunOnce}
	if s.Schedule != want || s.Budget != (scouts.Budget{DayTokens: 500, RunTokens: 200}) {
		t.Fatalf("stored %+v %+v, want %+v and the budget", s.Schedule, s.Budget, want)
	}
	if next := c.NextRun(s); next.IsZero() || next.Minute()%30 != 0 {
		t.Fatalf("next run %v", next)
	}
	for _, p := range []core.ScoutPatch{
		{Budget: &scouts.Budget{DayTokens: 500, RunTokens: 600}},
		{Schedule: &scouts.Schedule{Cron: "every morning"}},
		{Schedule: &scouts.Schedule{Cron: "@daily", Overlap: "pile-up"}},
	} {
		if _, err := c.UpdateScout(ctx, s.ID, p); scouts.ErrorCode(err) != scouts.EInvalid {
			t.Fatalf("patch %+v: %v, want invalid", p, err)
		}
	}
	after, _ := c.DB.GetScout(ctx, s.ID)
	if after.Schedule != s.Schedule || after.Budget != s.Budget || !after.UpdatedAt.Equal(s.UpdatedAt) {
		t.Fatalf("a refused change changed the scout: %+v", after)
	}
}

// Over its day's budget a scout keeps working on rules and its learner,
// and says so (with when the budget resets) until then; the tokens it
// spent are counted in the database and survive a restart.
func TestModelBudgetSpentIsVisibleAndPersisted(t *testing.T) {
	srv := triagetest.New(catKey, catModel)
	t.Cleanup(srv.Close)
	dataDir, docs := t.TempDir(), t.TempDir()
	c, sub, stop := openModelCore(t, srv, dataDir, 100_000)
	ctx := context.Background()
	dropFile(t, docs, "a.txt", "Please review the contract by Friday.")
	s := folderScout(t, c, docs, scouts.Budget{})
	waitFor(t, sub, "the card of a.txt", suggestedPath("a.txt"))
	spent := c.BudgetStatus(ctx, s).SpentToday
	if spent <= 0 || len(srv.Requests()) == 0 {
		t.Fatalf("spent %d tokens over %d requests", spent, len(srv.Requests()))
	}
	stop()

	// After a restart the ledger still counts them; with a day cap below
	// what was spent the next item is not sent to the model.
	c, sub, _ = openModelCore(t, srv, dataDir, 100_000)
	if got := c.BudgetStatus(ctx, s).SpentToday; got != spent {
		t.Fatalf("after a restart %d tokens counted, want %d", got, spent)
	}
	if _, err := c.UpdateScout(ctx, s.ID, core.ScoutPatch{Budget: &scouts.Budget{DayTokens: spent}}); err != nil {
		t.Fatal(err)
	}
	asked := len(srv.Requests())
	dropFile(t, docs, "b.txt", "Call the plumber tomorrow.")
	card := waitFor(t, sub, "the card of b.txt", suggestedPath("b.txt")).Data.(scouts.Suggestion)
	if n := len(srv.Requests()); n != asked {
		t.Fatalf("the model was asked %d more times over the budget", n-asked)
	}
	if card.ProposedKind == "" {
		t.Fatalf("no card proposal without the model: %+v", card)
	}
	st := c.BudgetStatus(ctx, s)
	if !st.Spent || !strings.Contains(st.Message, "rules and learner only until 00:00 UTC") {
		t.Fatalf("budget status %+v", st)
	}
	list, err := c.SpentBudgets(ctx)
	if err != nil || len(list) != 1 || list[0].Scout.ID != s.ID {
		t.Fatalf("spent budgets %+v %v", list, err)
	}
	evs, _ := c.DB.ListAudit(ctx, localdb.AuditFilter{Limit: 5000})
	said := 0
	for _, e := range evs {
		if e.Type == core.AuditBudgetSpent && e.Refs["scout_id"] == s.ID {
			said++
		}
	}
	if said != 1 {
		t.Fatalf("%d budget audit events, want 1", said)
	}
}

// An expired suggestion says why it expired and can be brought back to
// pending, once, with a new deadline; the audit keeps both.
func TestExpiredSuggestionRevives(t *testing.T) {
	// The clock runs (folder scouts wait for files to settle), skipped
	// ahead by offset.
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	dataDir, docs := t.TempDir(), t.TempDir()
	c, sub := openCoreWith(t, core.Config{DataDir: dataDir, Now: clock})
	ctx := context.Background()
	dropFile(t, docs, "a.txt", "Renew the passport")
	folderScout(t, c, docs, scouts.Budget{})
	card := waitFor(t, sub, "the card of a.txt", suggestedPath("a.txt")).Data.(scouts.Suggestion)
	if _, err := c.Revive(ctx, card.ID, "user (cli)"); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("reviving a pending suggestion: %v, want a conflict", err)
	}
	offset.Store(int64(scouts.DefaultExpiry + time.Hour))
	if n, err := c.Engine.SweepExpired(ctx); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	expired, err := c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{Status: scouts.StatusExpired})
	if err != nil || len(expired) != 1 {
		t.Fatalf("expired: %+v %v", expired, err)
	}
	why, err := c.ExpiryReasons(ctx, expired)
	if err != nil || !strings.Contains(why[card.ID], "nobody decided before") {
		t.Fatalf("why it expired: %q %v", why[card.ID], err)
	}
	back, err := c.Revive(ctx, card.ID, "user (cli)")
	if err != nil {
		t.Fatal(err)
	}
	if d := back.ExpiresAt.Sub(clock()); back.Status != scouts.StatusPending || d <= scouts.DefaultExpiry-time.Minute || d > scouts.DefaultExpiry {
		t.Fatalf("revived: %s, expires %v", back.Status, back.ExpiresAt)
	}
	waitFor(t, sub, "the revived event", func(e scouts.Event) bool { return e.Type == core.EventSuggestionRevived })
	if _, err := c.Revive(ctx, card.ID, "user (cli)"); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("reviving twice: %v, want a conflict", err)
	}
	evs, _ := c.DB.ListAudit(ctx, localdb.AuditFilter{TraceID: card.TraceID})
	var types []string
	for _, e := range evs {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, " "); !strings.HasSuffix(got, "suggestion.expired suggestion.revived") {
		t.Fatalf("trail %s", got)
	}
	// Pending again, it expires again when its new deadline passes.
	offset.Add(int64(scouts.DefaultExpiry + time.Hour))
	if n, _ := c.Engine.SweepExpired(ctx); n != 1 {
		t.Fatalf("the revived suggestion did not expire again (%d)", n)
	}
}

// A run that hits its run cap and, later the same day, the day's cap are
// two things to say: both are audited, and the card says the day's.
func TestRunCapThenDayCapAreBothSaid(t *testing.T) {
	srv := triagetest.New(catKey, catModel)
	t.Cleanup(srv.Close)
	docs := t.TempDir()
	c, sub, _ := openModelCore(t, srv, t.TempDir(), 100_000)
	ctx := context.Background()
	dropFile(t, docs, "a.txt", "Please review the contract by Friday.")
	s := folderScout(t, c, docs, scouts.Budget{RunTokens: 10})
	waitFor(t, sub, "the card of a.txt", suggestedPath("a.txt"))
	if st := c.BudgetStatus(ctx, s); !st.RunSpent || st.Spent || !strings.Contains(st.Message, "budget of 10 tokens") {
		t.Fatalf("after the run cap: %+v", st)
	}
	if _, err := c.UpdateScout(ctx, s.ID, core.ScoutPatch{Budget: &scouts.Budget{DayTokens: 1}}); err != nil {
		t.Fatal(err)
	}
	dropFile(t, docs, "b.txt", "Call the plumber tomorrow.")
	waitFor(t, sub, "the card of b.txt", suggestedPath("b.txt"))
	if st := c.BudgetStatus(ctx, s); !st.Spent {
		t.Fatalf("after the day cap: %+v", st)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d model requests past the caps", n)
	}
	evs, _ := c.DB.ListAudit(ctx, localdb.AuditFilter{Limit: 5000})
	var said []string
	for _, e := range evs {
		if e.Type == core.AuditBudgetSpent && e.Refs["scout_id"] == s.ID {
			said = append(said, e.Summary)
		}
	}
	if len(said) != 2 || !strings.Contains(said[0], "last run") || !strings.Contains(said[1], "model budget spent") {
		t.Fatalf("budget audit %q, want the run's then the day's", said)
	}
}
