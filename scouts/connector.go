package scouts

import (
	"context"
	"errors"
	"time"
)

// SourceConnector is one scout's link to its source: a folder, a Gmail
// account, a webhook queue. The engine owns what is common to every source
// (deduplication, suggestions, audit, decisions); a connector owns only the
// source's I/O and its cursor.
//
// A connector instance serves exactly one scout; the engine never calls two
// of its methods that change state (ListNew, Archive) at the same time.
type SourceConnector interface {
	// ListNew reports the items that arrived since the connector's cursor,
	// a page at a time. The connector advances its cursor past a page only
	// after page returns nil — by then the engine has durably recorded every
	// item of it — so a crash or a failed page means the same items come
	// again next run, and the engine's per-scout uniqueness absorbs them.
	ListNew(ctx context.Context, page func(context.Context, []ItemRef) error) error

	// FetchMetadata returns what a card shows about one item: cheap,
	// content-free where the source allows it.
	FetchMetadata(ctx context.Context, ref string) (ItemMetadata, error)

	// FetchContent returns the item's text, transiently: callers must not
	// persist it beyond what the user approves into an entity.
	FetchContent(ctx context.Context, ref string) (ItemContent, error)

	// Watch blocks until ctx ends, calling notify whenever the source may
	// have new items (a file event, a push, a periodic rescan). A connector
	// that cannot watch returns ErrCannotWatch at once and is polled.
	Watch(ctx context.Context, notify func()) error

	// Close releases the connector's resources.
	Close() error
}

// WatchManager is implemented by sources whose push subscription must be set
// up and renewed (Gmail's users.watch lasts at most seven days).
type WatchManager interface {
	// SetupWatch starts (or restarts) the subscription and returns when it
	// expires.
	SetupWatch(ctx context.Context) (expires time.Time, err error)
	// StopWatch ends the subscription, for a disabled or deleted scout.
	StopWatch(ctx context.Context) error
}

// Opener creates the connector for a scout; one per scout kind.
type Opener func(ctx context.Context, s Scout) (SourceConnector, error)

// ItemRef is an item a source reports as new.
type ItemRef struct {
	// Ref identifies the item within its scout; see Suggestion.SourceRef.
	Ref string
	// Meta, when set, is the card's metadata read while listing, which
	// saves the engine a FetchMetadata call (a folder scout reads the file
	// once to hash it and takes the title and excerpt on the way).
	Meta *ItemMetadata
	// Problem, when set, says why the item cannot become a suggestion (an
	// unreadable file, a link out of the watched root). The engine records
	// it in the item's audit trail instead of failing the run.
	Problem string
	// Notes are facts worth recording that do not stop the item ("file is
	// 2 GiB; only its first MiB was read").
	Notes []string
	// SentTo, when set, makes this no item but a fact: the person sent
	// mail to these addresses (Gmail's sent mail). No card is made; the
	// scout's learner learns their mail is wanted (engine.SentTo).
	SentTo []string
	// Withdraw, when set, makes this no new item but news of a known one:
	// its card, if still pending, is withdrawn — expired, with Withdraw as
	// the reason on its trail (a Gmail follow-up card whose mail was
	// answered). A decided card stays as it is.
	Withdraw string
}

// ItemMetadata is what a card shows about an item.
type ItemMetadata struct {
	Title        string
	Excerpt      string
	Sender       string
	Path         string
	URL          string
	ProposedKind EntityKind
	// Reason is the human-readable "why am I seeing this".
	Reason     string
	ReceivedAt time.Time
	// Body is the item's full text for sources that cannot be asked again
	// later (a webhook's content exists only in the proposal): it is kept
	// with the suggestion to fill the entity and to be shown on demand.
	// Sources that can be read again leave it empty.
	Body string

	// Evidence is what the learner may read of the item, transiently: the
	// engine hashes it into features and keeps only the hashes. Nil means
	// the card's fields (sender, title, excerpt, path) are all there is.
	Evidence *Evidence
	// Lane is where the source's own triage puts the item (spam found by
	// a heuristic or a rule; screened when there is nothing to act on), with
	// LaneReason saying why; empty means the inbox unless the learner
	// decides otherwise.
	Lane       Lane
	LaneReason string
	// Trashed reports that the source moved the item to its trash as it
	// arrived (a Gmail scout that trashes spam); see Assessment.Trashed.
	Trashed bool
	// Unsubscribe is how a mail offers to be unsubscribed from; see
	// Assessment.Unsubscribe.
	Unsubscribe string
	// MatchedRule is the id of the scout's rule that the source's own
	// triage already matched (the relay applies the rules it can express,
	// on headers this desktop may not see): the engine applies that rule
	// when its turn comes instead of testing it again.
	MatchedRule string

	// Reminder marks a card the scout makes about the person's own item
	// rather than one that arrived (a sent mail nobody answered): it goes
	// to the inbox as the source made it; neither the person's rules nor
	// the learner file it, and deciding it teaches the learner nothing
	// (rejecting "follow up with Ana?" says nothing of Ana's mail).
	Reminder bool

	// Facts are what rules may test of an item beyond its card and its
	// evidence; nil when the source did not read them (a mail triaged on
	// the relay). Transient, like Evidence.
	Facts *ItemFacts

	// Given are fields the source states outright (an AI agent proposing
	// an event at a time): they stand in for what the content suggests,
	// for the approve preview; nil when the source states none.
	Given *GivenFields
	// Actions are the actions the source proposes with the item (an AI
	// agent's "post this to that webhook"): the card's plan lists them,
	// and only a person's approval (or a policy the person set) runs them.
	Actions []RuleAction
}

// GivenFields are an entity's fields a source states for an item; zero
// fields are not stated.
type GivenFields struct {
	Due      time.Time
	StartsAt time.Time
	EndsAt   time.Time
	AllDay   bool
}

// Evidence is what the learner may read of one item, transiently: the
// fields every kind of scout can fill. It has learn.Item's fields, one for
// one, so that the engine hands it to the learner as it is (a conversion)
// while the domain imports nothing of the project.
type Evidence struct {
	// Source is the scout's kind; the engine sets it.
	Source string
	Sender string // a mail address, or a webhook's sender name
	ListID string // a mailing list's id
	// Signs are short content-free facts from headers or the source:
	// "list", "bulk", "auto-reply", "no-reply", "label:CATEGORY_UPDATES", …
	Signs   []string
	Subject string // a mail's subject, a file's or webhook's title
	Body    string // text, where the desktop sees it; may be empty
	Path    string // a file's path relative to its scout's root
}

// ItemFacts are the facts of an item that rules can test and the card
// does not show (scouts/rules documents the fields per kind).
type ItemFacts struct {
	// To are a mail's recipients (To and Cc), lower case.
	To []string
	// Labels are a mail's Gmail label ids.
	Labels []string
	// HasAttachment reports whether a mail carries an attachment; nil
	// when its structure was not read (headers only).
	HasAttachment *bool
	// Size is a file's size in bytes.
	Size int64
	// Text is the text read from the start of a file.
	Text string
	// ContentRead is set for an item whose content the source read (a
	// webhook's payload): its title and body are known, even empty.
	ContentRead bool
}

// ItemContent is an item's text, held in memory only.
type ItemContent struct {
	Text        string
	ContentType string
	// Truncated reports that Text stops before the item does.
	Truncated bool
	// HTML is the item's HTML version, already sanitised by the connector
	// (a mail's), for showing; empty when the source has none.
	HTML string
}

// ErrCannotWatch is returned by Watch when a source can only be polled.
var ErrCannotWatch = errors.New("source cannot be watched")

// SkipError marks a per-item failure that retrying will not fix (the file
// vanished, the message was deleted). The engine audits it and moves on;
// any other error from FetchMetadata fails the page so it is retried.
type SkipError struct {
	Reason string
}

func (e *SkipError) Error() string { return e.Reason }

// Skip returns a *SkipError with the given reason.
func Skip(reason string) error { return &SkipError{Reason: reason} }
