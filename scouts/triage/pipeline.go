package triage

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"unicode"

	"github.com/scouts-hq/scouts/scouts"
)

// Config configures the pipeline of one scout.
type Config struct {
	// Scout is the scout's id: the budget counts tokens per scout.
	Scout        string
	ScoutName    string
	ScoutPurpose string
	SourceType   string // default "gmail"

	Rules []Rule
	// MoreRules says that rules beyond Rules apply to the mail later (the
	// desktop applies every rule of the scout; Rules are the ones the
	// pipeline can express): no mail may then be left unread.
	MoreRules bool
	// Heuristics default to DefaultHeuristics(); an empty non-nil slice
	// turns them off.
	Heuristics []Heuristic

	// Model is optional. With a model, Budget and DailyTokens are required.
	Model       Model
	Budget      Budget
	DailyTokens int // the scout's hard daily cap

	Logger *slog.Logger // optional
}

// Pipeline triages mail for one scout. It is immutable once built and safe
// for concurrent use.
type Pipeline struct {
	cfg        Config
	rules      []compiledRule
	heuristics []Heuristic
	log        *slog.Logger
}

// New checks the configuration and builds the pipeline.
func New(cfg Config) (*Pipeline, error) {
	if err := ValidateRules(cfg.Rules); err != nil {
		return nil, err
	}
	if cfg.Model != nil {
		if cfg.Budget == nil {
			return nil, scouts.Errorf(scouts.EInvalid, "triage: a model needs a token budget")
		}
		if cfg.DailyTokens <= 0 {
			return nil, scouts.Errorf(scouts.EInvalid, "triage: a model needs a daily token cap above 0 (got %d)", cfg.DailyTokens)
		}
	}
	if cfg.SourceType == "" {
		cfg.SourceType = string(scouts.KindGmail)
	}
	p := &Pipeline{cfg: cfg, heuristics: cfg.Heuristics, log: cfg.Logger}
	if p.heuristics == nil {
		p.heuristics = DefaultHeuristics()
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	for _, r := range cfg.Rules {
		p.rules = append(p.rules, compileRule(r))
	}
	return p, nil
}

// Triage decides what happens to one mail. The only error it returns is a
// *RetryError (leave the mail unprocessed, retry later) or the context's.
func (p *Pipeline) Triage(ctx context.Context, m Message) (Decision, error) {
	return p.TriageLazy(ctx, m, nil)
}

// BodyLoader fetches a mail's body text when, and only when, a step needs
// it. Rules and heuristics read headers alone, so a scout without a model
// never pays for fetching content (five Gmail quota units a message).
type BodyLoader func(ctx context.Context) (string, error)

// TriageLazy is Triage for a message read without its body: loadBody, if
// not nil, is called once before the model is consulted and its text set
// as the message's body. A loader's failure is a *RetryError (step
// "fetch"), like the model's.
func (p *Pipeline) TriageLazy(ctx context.Context, m Message, loadBody BodyLoader) (Decision, error) {
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	normalize(&m)
	if d, ok := p.byRules(&m); ok {
		return d, nil
	}
	for _, h := range p.heuristics {
		if d, ok := h.Check(&m); ok {
			d.Path = PathHeuristic + h.Name
			return d, nil
		}
	}
	if p.cfg.Model == nil {
		return fallback(&m, ""), nil
	}
	if loadBody != nil && m.Body == "" {
		body, err := loadBody(ctx)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
				return Decision{}, err
			}
			return Decision{}, &RetryError{MessageID: m.ID, Step: "fetch", Err: err}
		}
		m.Body = body
	}
	return p.byModel(ctx, &m)
}

func (p *Pipeline) byRules(m *Message) (Decision, bool) {
	if len(p.rules) == 0 {
		return Decision{}, false
	}
	subject := words(m.Subject)
	for _, r := range p.rules {
		ok, what := r.match(m, subject)
		if !ok {
			continue
		}
		d := Decision{Path: PathRule + r.id, Confidence: ruleConfidence}
		switch r.action {
		case Allow:
			d.Verdict, d.Reason = Relevant, ruleReasonPrefix+r.id+" allows "+what+"."
		case Deny:
			d.Verdict, d.Reason = Spam, ruleReasonPrefix+r.id+" blocks "+what+"."
		case Ignore:
			d.Verdict, d.Reason = Skip, ruleReasonPrefix+r.id+" ignores "+what+"."
		}
		return d, true
	}
	return Decision{}, false
}

func (p *Pipeline) byModel(ctx context.Context, m *Message) (Decision, error) {
	model := p.cfg.Model
	step := PathModel + model.Name()
	in := ModelInput{
		SourceType:   p.cfg.SourceType,
		ScoutName:    p.cfg.ScoutName,
		ScoutPurpose: p.cfg.ScoutPurpose,
		Subject:      m.Subject,
		Sender:       m.From.String(),
		Body:         Truncate(m.Body, ModelBodyRunes),
	}
	res, ok, err := p.cfg.Budget.Reserve(ctx, p.cfg.Scout, p.cfg.DailyTokens, model.MaxTokens(in))
	if err != nil {
		return Decision{}, &RetryError{MessageID: m.ID, Step: "budget", Err: err}
	}
	if !ok {
		return fallback(m, NoteBudgetExhausted), nil
	}
	ans, err := model.Classify(ctx, in)
	used := ans.Tokens
	if err == nil && used <= 0 {
		used = res.Tokens // no usage reported: count the worst case
	}
	if cerr := p.cfg.Budget.Commit(ctx, res, used); cerr != nil {
		p.log.Warn("triage: settling the token reservation failed; the worst case stays counted",
			"scout", p.cfg.Scout, "message", m.ID, "err", cerr)
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return Decision{}, err // the caller gave up; not the model's failure
		}
		return Decision{}, &RetryError{MessageID: m.ID, Step: step, After: retryAfter(err), Err: err}
	}
	if !validAnswer(ans) {
		return Decision{}, &RetryError{MessageID: m.ID, Step: step,
			Err: scouts.Errorf(scouts.EInternal, "model answer out of contract (verdict %q, confidence %v)", ans.Verdict, ans.Confidence)}
	}
	return Decision{Verdict: ans.Verdict, Reason: cleanReason(ans.Reason), Path: step, Confidence: ans.Confidence}, nil
}

// fallback is the decision when nothing decided: relevant, because hiding a
// mail needs a reason and showing one costs a glance. Weak signs and a
// no-reply sender are mentioned so the card's "why" is still informative.
func fallback(m *Message, note string) Decision {
	// The reason says what the checks found, not where the card goes: the
	// learner after triage may still screen it, and a card waiting in
	// Screened must not say it was shown.
	reason := "No rule or check objected."
	if note == NoteBudgetExhausted {
		reason = "The scout's model budget is spent (for today, or for this run), and no rule or check objected."
	}
	var notes []string
	for _, s := range WeakSigns(m) {
		notes = append(notes, s.Reason)
	}
	if IsNoReply(m.From) {
		notes = append(notes, "sent from a no-reply address")
	}
	if len(notes) > 0 {
		reason += " Noted: " + strings.Join(notes, "; ") + "."
	}
	return Decision{Verdict: Relevant, Reason: reason, Path: withNote(PathDefault, note), Confidence: 0.5}
}

// normalize lower-cases what the checks compare, so that a Message built by
// hand (or from the Gmail API) behaves like one parsed by mailtext.
func normalize(m *Message) {
	m.From.Addr = strings.ToLower(strings.TrimSpace(m.From.Addr))
	m.ListID = NormalizeListID(m.ListID)
	m.Precedence = strings.ToLower(strings.TrimSpace(m.Precedence))
	// "auto-replied; owner-email=…": the keyword is what counts.
	as, _, _ := strings.Cut(m.AutoSubmitted, ";")
	m.AutoSubmitted = strings.ToLower(strings.TrimSpace(as))
}

// cleanReason keeps a model's reason to one short printable line.
func cleanReason(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if t := Truncate(s, MaxReasonRunes); t != s {
		s = strings.TrimSpace(Truncate(s, MaxReasonRunes-1)) + "…"
	}
	return s
}

// HasRules reports whether the scout has user rules: a rule can rescue any
// mail, so nothing may be decided without reading its headers.
func (p *Pipeline) HasRules() bool { return len(p.rules) > 0 || p.cfg.MoreRules }
