package triage

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/scouts"
)

// stubModel answers from a script and records what it was asked.
type stubModel struct {
	mu     sync.Mutex
	answer ModelAnswer
	err    error
	max    int
	inputs []ModelInput
}

func (s *stubModel) Name() string             { return "stub-1" }
func (s *stubModel) MaxTokens(ModelInput) int { return s.max }
func (s *stubModel) calls() int               { s.mu.Lock(); defer s.mu.Unlock(); return len(s.inputs) }
func (s *stubModel) lastInput() (in ModelInput) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inputs[len(s.inputs)-1]
}
func (s *stubModel) Classify(_ context.Context, in ModelInput) (ModelAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs = append(s.inputs, in)
	return s.answer, s.err
}

func newModelPipeline(t *testing.T, m Model, b Budget, cap int, rules ...Rule) *Pipeline {
	t.Helper()
	p, err := New(Config{Scout: "s1", ScoutName: "Invoices", ScoutPurpose: "bills to pay", Rules: rules,
		Model: m, Budget: b, DailyTokens: cap})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Rules, then heuristics, then the model, then the default; the model is
// only asked when nothing before it decided.
func TestPipelineOrder(t *testing.T) {
	model := &stubModel{answer: ModelAnswer{Verdict: Spam, Reason: "An unsolicited offer.", Confidence: 0.9, Tokens: 100}, max: 500}
	budget := NewMemoryBudget(nil)
	p := newModelPipeline(t, model, budget, 10_000, Rule{ID: "vip", Action: Allow, Senders: []string{"boss@corp.example"}})

	spamLabelled := plain()
	spamLabelled.Labels = []string{"SPAM"}
	fromBoss := spamLabelled
	fromBoss.From = Address{Addr: "boss@corp.example"}

	for _, c := range []struct {
		name    string
		m       Message
		path    string
		verdict Verdict
		calls   int
	}{
		{"rule beats heuristic", fromBoss, "rule:vip", Relevant, 0},
		{"heuristic before model", spamLabelled, "heuristic:label-spam", Spam, 0},
		{"model when nothing decided", plain(), "model:stub-1", Spam, 1},
	} {
		before := model.calls()
		d, err := p.Triage(context.Background(), c.m)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d.Path != c.path || d.Verdict != c.verdict || model.calls()-before != c.calls {
			t.Errorf("%s: got %s %s with %d model calls", c.name, d.Path, d.Verdict, model.calls()-before)
		}
	}
	if got := budget.Used("s1"); got != 100 {
		t.Errorf("budget used %d, want the reported 100", got)
	}
	in := model.lastInput()
	if in.SourceType != "gmail" || in.ScoutName != "Invoices" || in.ScoutPurpose != "bills to pay" ||
		in.Subject != "Lunch on Friday?" || in.Sender != `"Ann Lee" <ann@example.com>` || in.Body != "Are you free?" {
		t.Errorf("model input %+v", in)
	}
}

// The model never sees more than ModelBodyRunes of the body.
func TestPipelineTruncatesBody(t *testing.T) {
	model := &stubModel{answer: ModelAnswer{Verdict: Relevant, Reason: "ok", Confidence: 0.5}, max: 10}
	p := newModelPipeline(t, model, NewMemoryBudget(nil), 1000)
	m := plain()
	m.Body = strings.Repeat("ж", 5000)
	if _, err := p.Triage(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(model.lastInput().Body); n != ModelBodyRunes {
		t.Fatalf("model saw %d runes", n)
	}
}

// A failing model means "retry later": a RetryError carrying the cause and
// the unavailable code, never a verdict.
func TestPipelineModelFailureIsRetry(t *testing.T) {
	cause := errors.New("connection refused")
	model := &stubModel{err: &hinted{cause}, max: 300}
	budget := NewMemoryBudget(nil)
	p := newModelPipeline(t, model, budget, 1_000_000)
	m := plain()
	m.ID = "msg-7"
	d, err := p.Triage(context.Background(), m)
	re, ok := IsRetry(err)
	if !ok || d != (Decision{}) {
		t.Fatalf("got %+v, %v; want a RetryError and no decision", d, err)
	}
	if re.Step != "model:stub-1" || re.MessageID != "msg-7" || re.After != 3*time.Second || !errors.Is(err, cause) {
		t.Fatalf("RetryError %+v", re)
	}
	if scouts.ErrorCode(err) != scouts.EUnavailable {
		t.Fatalf("code %q, want unavailable", scouts.ErrorCode(err))
	}
	if got := budget.Used("s1"); got != 0 {
		t.Errorf("a failed call without usage cost %d tokens", got)
	}
	// A model that answers outside the contract is a failure too.
	model.err, model.answer = nil, ModelAnswer{Verdict: Skip, Reason: "x", Confidence: 0.5}
	if _, err := p.Triage(context.Background(), m); err == nil {
		t.Fatal("an out-of-contract answer was accepted")
	} else if _, ok := IsRetry(err); !ok {
		t.Fatalf("out-of-contract answer: %v", err)
	}
	for _, bad := range []ModelAnswer{
		{Verdict: Spam, Reason: "", Confidence: 0.5},
		{Verdict: Spam, Reason: "x", Confidence: 1.5},
		{Verdict: Spam, Reason: "x", Confidence: -0.1},
	} {
		model.answer = bad
		if _, err := p.Triage(context.Background(), m); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

type hinted struct{ error }

func (h *hinted) RetryAfter() time.Duration { return 3 * time.Second }
func (h *hinted) Unwrap() error             { return h.error }

// A caller that gives up gets its own context error, not a RetryError.
func TestPipelineCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	model := &stubModel{err: context.Canceled, max: 1}
	p := newModelPipeline(t, model, NewMemoryBudget(nil), 1000)
	if _, err := p.Triage(ctx, plain()); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

// The daily cap is hard: once the worst case of the next call would pass
// it, the model is skipped and the path says so; the next day it resets.
func TestPipelineBudget(t *testing.T) {
	now := time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	budget := NewMemoryBudget(clock)
	model := &stubModel{answer: ModelAnswer{Verdict: Relevant, Reason: "fine", Confidence: 0.7, Tokens: 250}, max: 400}
	p := newModelPipeline(t, model, budget, 1000)
	var paths []string
	for i := 0; i < 5; i++ {
		d, err := p.Triage(context.Background(), plain())
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, d.Path)
	}
	// 250 + 250 + 250 used; a fourth call could need 400: 750+400 > 1000.
	want := []string{"model:stub-1", "model:stub-1", "model:stub-1", "default (model budget exhausted)", "default (model budget exhausted)"}
	if strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Fatalf("paths %v", paths)
	}
	if used := budget.Used("s1"); used != 750 || used > 1000 {
		t.Fatalf("used %d", used)
	}
	d, _ := p.Triage(context.Background(), plain())
	if d.Verdict != Relevant || !strings.Contains(d.Reason, "budget is spent") {
		t.Fatalf("exhausted decision %+v", d)
	}
	// Other scouts have their own allowance.
	if _, ok, _ := budget.Reserve(context.Background(), "s2", 1000, 400); !ok {
		t.Fatal("another scout was refused")
	}
	now = now.Add(2 * time.Hour) // next UTC day
	if d, _ := p.Triage(context.Background(), plain()); d.Path != "model:stub-1" {
		t.Fatalf("next day: %s", d.Path)
	}
}

// A server that reports no usage is charged the worst case.
func TestPipelineBudgetWithoutUsage(t *testing.T) {
	budget := NewMemoryBudget(nil)
	model := &stubModel{answer: ModelAnswer{Verdict: Relevant, Reason: "fine", Confidence: 0.7}, max: 400}
	p := newModelPipeline(t, model, budget, 1000)
	if _, err := p.Triage(context.Background(), plain()); err != nil {
		t.Fatal(err)
	}
	if got := budget.Used("s1"); got != 400 {
		t.Fatalf("used %d, want the reserved 400", got)
	}
}

type failingBudget struct{}

func (failingBudget) Reserve(context.Context, string, int, int) (Reservation, bool, error) {
	return Reservation{}, false, errors.New("database is down")
}
func (failingBudget) Commit(context.Context, Reservation, int) error { return nil }

func TestPipelineBudgetStoreDown(t *testing.T) {
	p := newModelPipeline(t, &stubModel{max: 1}, failingBudget{}, 1000)
	if _, err := p.Triage(context.Background(), plain()); err == nil {
		t.Fatal("no error")
	} else if re, ok := IsRetry(err); !ok || re.Step != "budget" {
		t.Fatalf("got %v", err)
	}
}

// Concurrent triage never lets the total pass the cap (run with -race).
func TestBudgetHardUnderConcurrency(t *testing.T) {
	budget := NewMemoryBudget(nil)
	model := &stubModel{answer: ModelAnswer{Verdict: Relevant, Reason: "fine", Confidence: 0.7, Tokens: 90}, max: 100}
	p := newModelPipeline(t, model, budget, 5000)
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Triage(context.Background(), plain()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if used := budget.Used("s1"); used > 5000 {
		t.Fatalf("used %d, over the cap", used)
	}
	if calls := model.calls(); calls < 50 || calls*90 != budget.Used("s1") {
		t.Fatalf("%d calls for %d tokens", calls, budget.Used("s1"))
	}
}

func TestNewChecksModelConfig(t *testing.T) {
	if _, err := New(Config{Model: &stubModel{}}); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Errorf("model without budget: %v", err)
	}
	if _, err := New(Config{Model: &stubModel{}, Budget: NewMemoryBudget(nil)}); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Errorf("model without cap: %v", err)
	}
}

func TestCleanReason(t *testing.T) {
	if got := cleanReason("  two\nlines\t\x00here "); got != "two lines here" {
		t.Errorf("got %q", got)
	}
	long := cleanReason(strings.Repeat("word ", 100))
	if n := utf8.RuneCountInString(long); n > MaxReasonRunes || !strings.HasSuffix(long, "…") {
		t.Errorf("long reason: %d runes %q", n, long)
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{{"héllo", 2, "hé"}, {"héllo", 10, "héllo"}, {"abc", 0, ""}, {"日本語", 2, "日本"}} {
		if got := Truncate(c.s, c.n); got != c.want {
			t.Errorf("Truncate(%q, %d) = %q", c.s, c.n, got)
		}
	}
}

func TestParseVerdict(t *testing.T) {
	for _, s := range []string{"relevant", " SPAM ", "skip"} {
		if _, err := ParseVerdict(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	if _, err := ParseVerdict("maybe"); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Errorf("maybe: %v", err)
	}
}

// The body is fetched only when the model is about to be asked: a rule or
// a heuristic decides from headers alone, and a fetch failure is a retry.
func TestPipelineLazyBody(t *testing.T) {
	model := &stubModel{answer: ModelAnswer{Verdict: Relevant, Reason: "A bill.", Confidence: 0.8, Tokens: 10}, max: 100}
	p := newModelPipeline(t, model, NewMemoryBudget(nil), 10_000, Rule{ID: "vip", Action: Allow, Senders: []string{"boss@corp.example"}})
	loads := 0
	load := func(context.Context) (string, error) { loads++; return "please pay invoice 42", nil }

	fromBoss := plain()
	fromBoss.From = Address{Addr: "boss@corp.example"}
	if d, err := p.TriageLazy(context.Background(), fromBoss, load); err != nil || d.Path != "rule:vip" || loads != 0 {
		t.Fatalf("rule: %+v %v, loads %d; want rule:vip without a fetch", d, err, loads)
	}
	spam := plain()
	spam.Labels = []string{"SPAM"}
	if d, err := p.TriageLazy(context.Background(), spam, load); err != nil || !strings.HasPrefix(d.Path, PathHeuristic) || loads != 0 {
		t.Fatalf("heuristic: %+v %v, loads %d; want a heuristic without a fetch", d, err, loads)
	}
	headersOnly := plain()
	headersOnly.Body = ""
	if d, err := p.TriageLazy(context.Background(), headersOnly, load); err != nil || d.Path != "model:stub-1" || loads != 1 {
		t.Fatalf("model: %+v %v, loads %d; want the model after one fetch", d, err, loads)
	}
	if got := model.lastInput().Body; got != "please pay invoice 42" {
		t.Fatalf("model saw body %q", got)
	}
	failing := func(context.Context) (string, error) { return "", errors.New("gmail: 503") }
	_, err := p.TriageLazy(context.Background(), headersOnly, failing)
	if re, ok := IsRetry(err); !ok || re.Step != "fetch" {
		t.Fatalf("fetch failure: %v; want a RetryError at step fetch", err)
	}
	if model.calls() != 1 {
		t.Fatalf("model asked %d times; a failed fetch must not reach it", model.calls())
	}
}
