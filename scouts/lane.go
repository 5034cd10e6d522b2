package scouts

import (
	"time"
)

// Lane is where a pending suggestion waits: the inbox is what the person
// reviews; Screened holds what the learner is confident they would reject
// (or what triage found nothing to act on in); Spam holds spam. Nothing in a
// lane below the inbox is dropped: it is listed, counted and can be brought
// back with one keystroke.
type Lane string

const (
	LaneInbox    Lane = "inbox"
	LaneScreened Lane = "screened"
	LaneSpam     Lane = "spam"
	// LaneSnoozed holds what the person put off until a time; it is not a
	// lane triage sends anything to (Valid), and a card in it returns to
	// the inbox on its own.
	LaneSnoozed Lane = "snoozed"
	// LaneHeld holds a scout's cards past its pending cap (PendingCap):
	// kept, counted and let in, oldest first, as cards are decided; not a
	// lane triage sends anything to (Valid).
	LaneHeld Lane = "held"
)

// Valid reports whether l is a known lane.
func (l Lane) Valid() bool { return l == LaneInbox || l == LaneScreened || l == LaneSpam }

// ParseLane accepts a lane name.
func ParseLane(s string) (Lane, error) {
	l := Lane(s)
	if !l.Valid() && l != LaneSnoozed && l != LaneHeld {
		return "", Errorf(EInvalid, "unknown lane %q (want inbox, screened, spam, snoozed or held)", s)
	}
	return l, nil
}

// Assessment is what the engine concluded about an item when it arrived:
// its lane and why, what the learner predicted, and the fields proposed
// from its content. It is kept with the suggestion (content-free: scores,
// plain-words reasons naming at most a sender, a list or a few words of the
// card itself).
type Assessment struct {
	Lane       Lane   `json:"lane"`
	LaneReason string `json:"lane_reason,omitempty"`
	// Trashed is set when the source moved the item to its trash as it
	// arrived (a Gmail scout that trashes spam): bringing the card back
	// takes it out again (BringBack).
	Trashed bool `json:"trashed,omitempty"`
	// Approve is the learner's probability that the person approves the
	// item; -1 while it cannot tell (too few decisions).
	Approve float64 `json:"approve"`
	// Spam is the learner's probability that the item is spam; -1 while
	// it cannot tell.
	Spam float64 `json:"spam"`
	// LearnedKind is the kind the person's past approvals suggest, with
	// its probability; empty until the learner has seen approvals.
	LearnedKind  EntityKind `json:"learned_kind,omitempty"`
	LearnedKindP float64    `json:"learned_kind_p,omitempty"`
	// CueKind is the kind the item's content suggests on its own.
	CueKind EntityKind `json:"cue_kind,omitempty"`
	// KindFrom says which proposed the suggestion's kind: "learned",
	// "model" (the optional categorisation model), "content", "source"
	// (the scout's default) or "rule".
	KindFrom string `json:"kind_from,omitempty"`
	// ProposedTitle is the title the categorisation model proposes when it
	// differs from the card's; the card keeps the original title, so the
	// subject stays visible, and the approve preview may offer this one.
	ProposedTitle string `json:"proposed_title,omitempty"`
	// Why lists the learner's and the content's evidence in plain words:
	// "you approved 9 of 10 from this sender", "words like invoice, due".
	Why []string `json:"why,omitempty"`
	// Fields proposed from the content for the approve preview.
	Due       time.Time `json:"due,omitzero"`
	StartsAt  time.Time `json:"starts_at,omitzero"`
	EndsAt    time.Time `json:"ends_at,omitzero"`
	AllDay    bool      `json:"all_day,omitempty"`
	ProjectID string    `json:"project_id,omitempty"`
	// Learning reports the scout's learner when the item arrived, e.g.
	// "learning — 12 of 30 decisions".
	Learning string `json:"learning,omitempty"`
	// RuleID is the user's rule that decided the item's lane (and maybe
	// its kind, title, project, due date and actions); empty when no rule
	// matched.
	RuleID string `json:"rule_id,omitempty"`
	// RuleActions are the actions that rule attached to the item, their
	// parameters rendered for it: the plan its approval runs includes
	// them.
	RuleActions []RuleAction `json:"rule_actions,omitempty"`
	// SourceActions are the actions the source proposed with the item
	// (ItemMetadata.Actions): the plan its approval runs includes them,
	// with origin "source".
	SourceActions []RuleAction `json:"source_actions,omitempty"`
	// SourceTitle is the title the source gave the item when a rule
	// replaced it (the card shows the rule's).
	SourceTitle string `json:"source_title,omitempty"`
	// ListID is the mailing list the item came through (its List-Id,
	// lower case), when the source read it: the screener's keys apply to
	// the list rather than to the sender (app/screener).
	ListID string `json:"list_id,omitempty"`
	// Unsubscribe is how the mail offered to be unsubscribed from, best
	// first: "one-click" (RFC 8058), "mailto" or "link"; empty when it
	// offered none or the source did not read its headers. Only the way
	// is kept, never the address: gmail.unsubscribe reads the headers
	// again when it runs.
	Unsubscribe string `json:"unsubscribe,omitempty"`
	// Unanswered says the card waits in Screened only because its sender
	// kept writing while the person answered none of its mail
	// (engine.FamiliarAfter): the screener offers its keys on it.
	Unanswered bool `json:"unanswered,omitempty"`
}

// LearnSettings are a scout's learner thresholds.
type LearnSettings struct {
	// ColdStart is how many decisions the learner needs before it screens
	// anything or files anything as spam on its own. Default 30.
	ColdStart int `json:"cold_start"`
	// ScreenBelow screens an item whose approve probability is below it.
	// Default 0.3, chosen with `scouts eval` (docs/triage.md): Fisher's
	// combined probabilities are far from 0.5 once a scout is trained, and
	// 0.1 left a fifth of the shown cards unwanted.
	ScreenBelow float64 `json:"screen_below"`
	// SpamAbove files an item as spam when the learner's spam probability
	// is at least it. Default 0.9.
	SpamAbove float64 `json:"spam_above"`
	// MinSpam is how many spam and how many non-spam decisions the spam
	// model needs before it files anything. Default 10 of each.
	MinSpam int `json:"min_spam"`
	// SilenceDays is the grace period of implicit feedback: a card left
	// unopened in Spam or Screened this many days teaches the learner as
	// if the person had confirmed it (at SilenceWeight; docs/triage.md,
	// "What silence teaches"). 0 turns it off. Default 7.
	SilenceDays int `json:"silence_days"`
	// PendingCap is how many pending cards the scout may have waiting;
	// past it new cards are held (LaneHeld) and let in as cards are
	// decided. 0: DefaultPendingCap.
	PendingCap int `json:"pending_cap,omitempty"`
	// PendingActionsCap is how many pending cards carrying actions its
	// rules proposed that wait for the person's approval the scout may
	// have; past it such cards are held too. 0: DefaultPendingActionsCap.
	PendingActionsCap int `json:"pending_actions_cap,omitempty"`
	// CooldownSeconds is how long the same action on the same item with
	// the same params is blocked after it ran (the anti-flap gate). 0:
	// DefaultCooldown.
	CooldownSeconds int `json:"cooldown_seconds,omitempty"`
	// NotifyPerHour caps the scout's outbound posts (webhook.post) in any
	// hour (the storm gate). 0: DefaultNotifyPerHour.
	NotifyPerHour int `json:"notify_per_hour,omitempty"`
	// QuietStart and QuietEnd ("22:00", "07:00", the desktop's local
	// time) are the scout's quiet hours: while they last, a write or
	// danger action that a policy allows needs approval. Empty: none.
	QuietStart string `json:"quiet_start,omitempty"`
	QuietEnd   string `json:"quiet_end,omitempty"`
}

// DefaultPendingActionsCap is a scout's cap of cards with actions awaiting
// approval when its settings say none.
const DefaultPendingActionsCap = 10

// ActionsCap is the cap of cards with actions awaiting approval in force.
func (s LearnSettings) ActionsCap() int {
	if s.PendingActionsCap <= 0 {
		return DefaultPendingActionsCap
	}
	return s.PendingActionsCap
}

// DefaultPendingCap is a scout's pending cap when its settings say none.
const DefaultPendingCap = 500

// Cap is the pending cap in force.
func (s LearnSettings) Cap() int {
	if s.PendingCap <= 0 {
		return DefaultPendingCap
	}
	return s.PendingCap
}

// DefaultLearnSettings are the thresholds of a new scout.
func DefaultLearnSettings() LearnSettings {
	return LearnSettings{ColdStart: 30, ScreenBelow: 0.3, SpamAbove: 0.9, MinSpam: 10, SilenceDays: 7}
}

// Validate checks the settings' ranges.
func (s LearnSettings) Validate() error {
	switch {
	case s.ColdStart < 0 || s.ColdStart > 100000:
		return Errorf(EInvalid, "cold_start must be between 0 and 100000 decisions")
	// Written as "not within" so that NaN, which compares false to
	// everything, is refused too.
	case !(s.ScreenBelow >= 0 && s.ScreenBelow <= 0.5):
		return Errorf(EInvalid, "screen_below must be between 0 and 0.5 (it screens what the person is unlikely to approve)")
	case !(s.SpamAbove >= 0.5 && s.SpamAbove <= 1):
		return Errorf(EInvalid, "spam_above must be between 0.5 and 1")
	case s.MinSpam < 0 || s.MinSpam > 100000:
		return Errorf(EInvalid, "min_spam must be between 0 and 100000 decisions")
	case s.SilenceDays < 0 || s.SilenceDays > 365:
		return Errorf(EInvalid, "silence_days must be between 0 (off) and 365 days")
	case s.PendingCap < 0 || s.PendingCap > 100000:
		return Errorf(EInvalid, "pending_cap must be between 1 and 100000 cards (0: the default, 500)")
	case s.PendingActionsCap < 0 || s.PendingActionsCap > 10000:
		return Errorf(EInvalid, "pending_actions_cap must be between 1 and 10000 cards (0: the default, 10)")
	}
	return s.validateGates()
}

// Rescue records that a pending item was brought back from a lane below
// the inbox: the person said it belongs in the inbox.
type Rescue string

const (
	RescueNone     Rescue = ""
	RescueScreened Rescue = "screened"
	RescueSpam     Rescue = "spam"
)

// ProposedFields are the fields the assessment proposed for an entity of
// kind k (a task's due date and project, an event's times), applied when the
// person approves without editing them: what the card showed is what they
// get.
func (a Assessment) ProposedFields(k EntityKind) EntityPatch {
	var p EntityPatch
	switch k {
	case EntityTask:
		if !a.Due.IsZero() {
			due := a.Due
			p.Due = &due
		}
		if a.ProjectID != "" {
			id := a.ProjectID
			p.ProjectID = &id
		}
	case EntityEvent:
		if !a.StartsAt.IsZero() {
			start := a.StartsAt
			p.StartsAt = &start
			if !a.EndsAt.IsZero() && a.EndsAt.After(a.StartsAt) {
				end := a.EndsAt
				p.EndsAt = &end
			}
		}
	}
	return p
}
