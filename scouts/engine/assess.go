package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/learn"
)

// LearningConfig wires the learner into the engine.
type LearningConfig struct {
	// Off disables the learner: every item goes to the lane its source
	// says, nothing is taught.
	Off bool
	// Salt keys feature hashes (one per installation; see learn.Extract).
	Salt uint64
	// Propose reads what an item's content alone suggests (kind, dates,
	// project); nil proposes nothing. It must be fast and never fail.
	Propose func(ctx context.Context, s scouts.Scout, meta scouts.ItemMetadata, text string) ContentProposal
	// Categorise asks a model what the item should become (kind, title,
	// dates, project), after Propose; nil (no model configured) skips the
	// step. The fields it fills win over the content's; a learned kind
	// still wins over its kind. A failure never holds the item back: it is
	// noted on the item's trail and the content's proposal stands.
	Categorise func(ctx context.Context, s scouts.Scout, meta scouts.ItemMetadata, text string) (ContentProposal, error)
}

// ContentProposal is what an item's content suggests before any learning.
type ContentProposal struct {
	Kind      scouts.EntityKind
	Due       time.Time
	StartsAt  time.Time
	EndsAt    time.Time
	AllDay    bool
	ProjectID string
	Reasons   []string
	// Title is a model's proposed title, "" for none (content cues never
	// propose one).
	Title string
}

// minKindDecisions is how many approvals the kind model needs before its
// kind wins over the content's.
const minKindDecisions = 10

// assessor scores the items of one page: the scout's learner state is read
// once per page.
type assessor struct {
	e     *Engine
	s     scouts.Scout
	state *LearnState
	plan  *planContext // read on the page's first item (arrival.go)

	// rules are the scout's rules, read on the page's first item.
	rules     scouts.RuleSet
	rulesRead bool

	// pageSeen counts the page's items so far by sender and list: they
	// are recorded with the page, after every item of it was assessed.
	pageSeen map[uint64]int
}

// assessment is what the engine concludes about an item as it arrives:
// the Assessment the suggestion keeps, and what only the item's trail and
// its card's making need.
type assessment struct {
	scouts.Assessment
	// title is the rule's title for the card, applied when the
	// suggestion is made; ruleSummary says on the item's trail what the
	// rule did.
	title       string
	ruleSummary string
	// tooSlow names the rule the item's evaluation budget ran out on, and
	// tooSlowWhy says so on the item's trail.
	tooSlow, tooSlowWhy string
	// notes are things worth knowing about the assessment itself (the
	// model's categorisation failed): they go on the item's audit trail,
	// not into the suggestion.
	notes []string
	// participants are the hashes of the item's features that name other
	// people of the conversation (ItemRecord.Participants).
	participants []uint64
	// identities are those that name its sender and list
	// (ItemRecord.Identities).
	identities []uint64
}

// assess decides an item's lane, kind and explanation, and returns the
// hashes of its features for the store.
func (a *assessor) assess(ctx context.Context, meta scouts.ItemMetadata, kind scouts.EntityKind) (assessment, scouts.EntityKind, []uint64, error) {
	as := assessment{Assessment: scouts.Assessment{Lane: scouts.LaneInbox, Approve: -1, Spam: -1, KindFrom: "source"}}
	if meta.Reminder {
		// The scout's own reminder (a follow-up): the inbox as the source
		// made it, and no features, so deciding it teaches nothing.
		return as, kind, nil, nil
	}
	if meta.Evidence != nil {
		// Kept for the screener: a card does not keep its headers.
		as.ListID = strings.ToLower(meta.Evidence.ListID)
	}
	as.Unsubscribe = meta.Unsubscribe
	if meta.Lane.Valid() {
		as.Lane, as.LaneReason = meta.Lane, meta.LaneReason
		as.Trashed = meta.Trashed
	}
	rule, err := a.rule(ctx, meta)
	if err != nil {
		return as, kind, nil, err
	}
	cfg := a.e.cfg.Learning
	text := meta.Body
	if meta.Evidence != nil && meta.Evidence.Body != "" {
		text = meta.Evidence.Body
	}
	if text == "" {
		text = meta.Excerpt
	}
	if cfg.Propose != nil {
		p := cfg.Propose(ctx, a.s, meta, text)
		as.Due, as.StartsAt, as.EndsAt, as.AllDay, as.ProjectID = p.Due, p.StartsAt, p.EndsAt, p.AllDay, p.ProjectID
		if p.Kind != "" {
			as.CueKind = p.Kind
			if p.Kind != kind {
				kind, as.KindFrom = p.Kind, "content"
			}
		}
		as.Why = append(as.Why, p.Reasons...)
	}
	givenFields(meta.Given, &as.Assessment)
	as.SourceActions = meta.Actions
	if ruleDecides(rule) {
		// What the rule says of the lane is what the model is asked
		// about (or not: nobody files what a rule put aside).
		meta.Lane = scouts.LaneSpam
		if rule.Verdict == scouts.RuleShow {
			meta.Lane = scouts.LaneInbox
		}
	}
	kind = a.categorise(ctx, meta, text, kind, &as)
	if rule != nil {
		kind = applyRule(rule, kind, &as)
	}
	if cfg.Off {
		return as, kind, nil, nil
	}
	it := learnItem(a.s, meta)
	fs := learn.Extract(it, cfg.Salt)
	hashes := learn.Hashes(fs)
	as.participants = participants(fs)
	ids, lists := identities(fs)
	as.identities = ids
	onPage := a.countOnPage(ids)
	if a.state == nil {
		st, err := a.e.cfg.Store.LearnState(ctx, a.s.ID)
		if err != nil {
			return learnerFailed(ctx, as, kind, hashes, fmt.Errorf("engine: learner of %s: %w", a.s.ID, err))
		}
		a.state = &st
	}
	st := a.state
	as.Learning = st.Learning()
	if st.Decisions == 0 {
		return as, kind, hashes, nil
	}
	tbl := storeTable{ctx: ctx, store: a.e.cfg.Store, scoutID: a.s.ID}
	pred, err := st.Model.Predict(tbl, fs, a.e.cfg.Now())
	if err != nil {
		return learnerFailed(ctx, as, kind, hashes, fmt.Errorf("engine: learner of %s: %w", a.s.ID, err))
	}
	set := st.Settings
	if pred.Approve.P >= 0 {
		as.Approve = pred.Approve.P
	}
	if pred.Spam.P >= 0 {
		as.Spam = pred.Spam.P
	}
	spamReady := st.Spam >= set.MinSpam && st.Ham >= set.MinSpam && st.Decisions >= set.ColdStart
	var why []string
	switch {
	case as.RuleID != "":
		// The user's rule decided the lane; the learner cannot overrule it.
	case as.Lane == scouts.LaneSpam:
		// The source's own triage (a rule, a heuristic) said spam.
	case spamReady && pred.Spam.P >= set.SpamAbove:
		why = learn.Explain(pred.Spam, "marked as spam", "kept")
		f, err := a.familiar(ctx, ids, lists, onPage)
		if err != nil {
			return learnerFailed(ctx, as, kind, hashes, fmt.Errorf("engine: senders seen by %s: %w", a.s.ID, err))
		}
		if f.ok {
			as.Lane = scouts.LaneScreened
			as.LaneReason = fmt.Sprintf("Screened, not Spam: it looks like spam (%s), but %s wrote %d times before and none of it was taught as spam",
				percent(pred.Spam.P), f.who, f.n)
			break
		}
		as.Lane = scouts.LaneSpam
		as.LaneReason = fmt.Sprintf("Spam: it looks like what you marked as spam (%s)", percent(pred.Spam.P))
	case st.Trained() && pred.Approve.P >= 0 && pred.Approve.P < set.ScreenBelow && (len(ids) == 0 || identityClue(pred.Approve)):
		why = learn.Explain(pred.Approve, "approved", "rejected")
		as.Lane = scouts.LaneScreened
		as.LaneReason = fmt.Sprintf("Screened: you are unlikely to approve it (%s)", percent(pred.Approve.P))
	case st.Trained() && a.s.Kind == scouts.KindGmail && !slices.Contains(lists, true) && !isReply(meta.Title):
		// Mail from a sender that keeps writing, not through a list,
		// while the person never answered any of it waits in Screened
		// (docs/triage.md, "Senders nobody answers").
		f, err := a.unanswered(ctx, ids, lists, onPage)
		if err != nil {
			return learnerFailed(ctx, as, kind, hashes, fmt.Errorf("engine: senders seen by %s: %w", a.s.ID, err))
		}
		if f.ok {
			as.Lane, as.Unanswered = scouts.LaneScreened, true
			as.LaneReason = fmt.Sprintf("Screened: its sender wrote %d times before and you have answered none of it yet — approve or reject one and its mail is judged as usual, or press “always show”", f.n)
			break
		}
		if pred.Approve.P >= 0 {
			why = learn.Explain(pred.Approve, "approved", "rejected")
		}
	default:
		if pred.Approve.P >= 0 {
			why = learn.Explain(pred.Approve, "approved", "rejected")
		}
	}
	if len(why) > 0 && as.LaneReason != "" && as.Lane != scouts.LaneInbox {
		as.LaneReason += " — " + strings.Join(why, "; ")
	}
	as.Why = append(why, as.Why...)
	if k := pred.Kind; k.Kind != "" && k.Decisions >= minKindDecisions && k.P >= 0.6 && as.KindFrom != "rule" {
		as.LearnedKind, as.LearnedKindP = scouts.EntityKind(k.Kind), round3(k.P)
		if as.LearnedKind != kind {
			as.Why = append(as.Why, learn.ExplainKind(k)...)
		}
		kind, as.KindFrom = as.LearnedKind, "learned"
	}
	return as, kind, hashes, nil
}

// learnerFailed is the assessment of an item whose learner could not be
// read (its state, or its counts' lookup): the item goes where the source
// and the person's rules put it — the inbox unless they said otherwise —
// and never to Screened or Spam by a guess; its trail says why. Only the
// caller's own end (a cancelled context) fails the item, to be read again.
func learnerFailed(ctx context.Context, as assessment, kind scouts.EntityKind, hashes []uint64, err error) (assessment, scouts.EntityKind, []uint64, error) {
	if ctx.Err() != nil {
		return as, kind, nil, err
	}
	as.Approve, as.Spam = -1, -1
	as.notes = append(as.notes, fmt.Sprintf("The learner could not be read (%v): the item is where its source and rules put it (%s), not screened or filed as spam by the learner", err, as.Lane))
	return as, kind, hashes, nil
}

// FamiliarAfter is how many earlier items make a sender or a list
// familiar: the learner's spam verdict alone does not send its mail to
// Spam (Screened instead) while none of its mail was taught as spam — a
// person's report, or silence in the Spam lane. Spammers seldom write
// twice from one address; the news feed a person subscribed to after the
// learner last learned writes every day (docs/triage.md, "Familiar
// senders": with the content model on, this took the legitimate mail
// sent to Spam on later mail from 3.7 % to none). And mail a Gmail scout
// would show from a familiar sender, not through a list, that nothing of
// its mail taught anything yet waits in Screened (unanswered): a sender
// that keeps writing to someone who never answers is a feed or a
// marketer, not a correspondent (docs/triage.md, "Senders nobody
// answers"). Three: the first mails of a new sender are judged on their
// content alone.
const FamiliarAfter = 3

// familiarity says whether an item's sender or list is familiar
// (FamiliarAfter), which, and how many times it wrote before.
type familiarity struct {
	ok  bool
	who string
	n   int
}

// countOnPage counts an item's sender and list as seen on the page, and
// returns how many of the page's items before it came with each.
func (a *assessor) countOnPage(ids []uint64) []int {
	if a.pageSeen == nil {
		a.pageSeen = map[uint64]int{}
	}
	out := make([]int, len(ids))
	for i, h := range ids {
		out[i] = a.pageSeen[h]
		a.pageSeen[h]++
	}
	return out
}

// familiar reports whether one of ids (an item's sender and its lists;
// lists[i] says which) came with FamiliarAfter earlier items of the scout
// — recorded ones, and onPage[i] of the page's — and none of ids was
// taught as spam.
func (a *assessor) familiar(ctx context.Context, ids []uint64, lists []bool, onPage []int) (familiarity, error) {
	f, counts, err := a.seenBefore(ctx, ids, lists, onPage)
	if err != nil || !f.ok {
		return familiarity{}, err
	}
	for _, c := range counts {
		if c[learn.CSpam] > spamTaught {
			return familiarity{}, nil
		}
	}
	return f, nil
}

// seenBefore reports whether one of ids came with FamiliarAfter earlier
// items of the scout — recorded ones, and onPage[i] of the page's — and
// if so, the learner's counts of every one of ids.
func (a *assessor) seenBefore(ctx context.Context, ids []uint64, lists []bool, onPage []int) (familiarity, []learn.Vec, error) {
	if len(ids) == 0 {
		return familiarity{}, nil, nil
	}
	seen, err := a.e.cfg.Store.IdentitySeen(ctx, a.s.ID, ids)
	if err != nil {
		return familiarity{}, nil, err
	}
	var f familiarity
	for i := range ids {
		if n := seen[i] + onPage[i]; n >= FamiliarAfter && n > f.n {
			f = familiarity{ok: true, n: n, who: "its sender"}
			if lists[i] {
				f.who = "its list"
			}
		}
	}
	if !f.ok {
		return f, nil, nil
	}
	counts, err := a.e.cfg.Store.LearnCounts(ctx, a.s.ID, ids)
	if err != nil {
		return familiarity{}, nil, err
	}
	return f, counts, nil
}

// unanswered reports whether an item's sender came with FamiliarAfter
// earlier items of the scout while nothing of its mail taught the learner
// anything: no approval, rejection, spam mark or rescue, and no silence
// confirmed in Screened or Spam. An address the person wrote to (a reply
// teaches "wanted") is answered.
func (a *assessor) unanswered(ctx context.Context, ids []uint64, lists []bool, onPage []int) (familiarity, error) {
	f, counts, err := a.seenBefore(ctx, ids, lists, onPage)
	if err != nil || !f.ok {
		return familiarity{}, err
	}
	for _, c := range counts {
		for _, k := range []int{learn.CSpam, learn.CHam, learn.CApprove, learn.CReject} {
			if c[k] > spamTaught {
				return familiarity{}, nil
			}
		}
	}
	return f, nil
}

// identityClue reports whether a prediction rests in part on who sent the
// item (its sender, domain or list, as the person decided their mail):
// the learner screens an item that has a sender as unlikely to be
// approved only then (a file, which has none, on its words and path). A
// person's preferences are mostly about senders and lists; words alone
// learned from other senders' mail do not say that a sender or list the
// person never decided is unwanted (docs/triage.md, "Screening needs a
// known sender"): after 100 decisions of the development groups, which had
// only seen unwanted lists, they screened 200 of 305 later wanted mails of
// lists not decided yet.
func identityClue(b learn.Binary) bool {
	for _, c := range b.Clues {
		if c.Group.IsIdentity() {
			return true
		}
	}
	return false
}

// isReply reports whether a mail's subject marks it as a reply ("Re:",
// and the prefixes of other languages' mail programs): a conversation the
// person is in, which a feed never writes.
func isReply(subject string) bool {
	s := strings.ToLower(strings.TrimSpace(subject))
	for _, p := range []string{"re:", "re :", "aw:", "sv:", "vs:", "antw:", "ref:", "res:", "odp:", "rif:", "r:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// spamTaught is the least count of spam on a feature that says it was
// taught as spam: counts fade, and an undo leaves rounding behind.
const spamTaught = 1e-6

// identities returns the hashes of the features that say who sent an
// item, its sender's and its list's, and which of them are lists.
func identities(fs []learn.Feature) (ids []uint64, lists []bool) {
	for _, f := range fs {
		if f.Group == learn.GroupSender || f.Group == learn.GroupList {
			ids = append(ids, f.Hash)
			lists = append(lists, f.Group == learn.GroupList)
		}
	}
	return ids, lists
}

// participants returns the hashes of the features that name the people a
// mail was sent to (learn.ParticipantSign): in a thread they are its
// other participants, whom a spam verdict on one message must not teach
// anything about.
func participants(fs []learn.Feature) []uint64 {
	var out []uint64
	for _, f := range fs {
		if f.Participant() {
			out = append(out, f.Hash)
		}
	}
	return out
}

// learnItem is what the learner reads of an item: the source's evidence,
// or the card's fields.
func learnItem(s scouts.Scout, meta scouts.ItemMetadata) learn.Item {
	if meta.Evidence != nil {
		it := learn.Item(*meta.Evidence)
		it.Source = string(s.Kind)
		if it.Subject == "" {
			it.Subject = meta.Title
		}
		if it.Path == "" {
			it.Path = meta.Path
		}
		return it
	}
	body := meta.Body
	if body == "" {
		body = meta.Excerpt
	}
	return learn.Item{Source: string(s.Kind), Sender: senderAddress(meta.Sender), Subject: meta.Title, Body: body, Path: meta.Path}
}

// senderAddress takes the address out of `"Name" <addr>`.
func senderAddress(s string) string {
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		if j := strings.IndexByte(s[i:], '>'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

// storeTable reads a scout's feature counts from the store.
type storeTable struct {
	ctx     context.Context
	store   Store
	scoutID string
}

func (t storeTable) Lookup(hashes []uint64) ([]learn.Vec, error) {
	return t.store.LearnCounts(t.ctx, t.scoutID, hashes)
}

func round3(p float64) float64 { return math.Round(p*1000) / 1000 }

func percent(p float64) string {
	switch {
	case p < 0.01:
		return "under 1 %"
	case p > 0.99:
		return "over 99 %"
	}
	return fmt.Sprintf("%.0f %%", p*100)
}

// givenFields puts what the source stated outright (an agent's event
// time) in place of what the content suggested, for the approve preview.
func givenFields(g *scouts.GivenFields, as *scouts.Assessment) {
	if g == nil {
		return
	}
	if !g.Due.IsZero() {
		as.Due = g.Due
	}
	if !g.StartsAt.IsZero() {
		as.StartsAt, as.EndsAt, as.AllDay = g.StartsAt, g.EndsAt, g.AllDay
	}
}
