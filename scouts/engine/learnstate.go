package engine

import (
	"math"
	"strconv"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/learn"
)

// LearnState is one scout's learner as stored: its model header and
// settings. The per-feature counts stay in the store.
type LearnState struct {
	ScoutID  string
	Model    learn.Model
	Settings scouts.LearnSettings
	// Decisions is how many of the person's decisions the model holds.
	Decisions int
	// Spam and Ham count the decisions that taught the spam model.
	Spam, Ham int
	ResetAt   time.Time
}

// Learning says in words where the learner stands, for the UI.
func (st LearnState) Learning() string {
	if st.Decisions < st.Settings.ColdStart {
		return "learning — " + strconv.Itoa(st.Decisions) + " of " + strconv.Itoa(st.Settings.ColdStart) + " decisions"
	}
	return "trained on " + strconv.Itoa(st.Decisions) + " decisions"
}

// Trained reports whether the learner may screen items.
func (st LearnState) Trained() bool { return st.Decisions >= st.Settings.ColdStart }

// SilenceWeight is the share of an explicit decision's weight that a card
// settled by silence teaches with (docs/triage.md, "What silence
// teaches"): leaving a card alone is evidence the verdict was right, but
// weaker than saying so — the person may simply not have looked — so two
// silences count as one decision, and one explicit decision the other way
// outweighs a silence.
const SilenceWeight = 0.5

// TeachingOf returns what a suggestion in its current state teaches the
// learner. Every decision replaces the previous teaching of the same item,
// so an undo, a change of mind or a rescue followed by an approval never
// counts twice.
func TeachingOf(s scouts.Suggestion) learn.Label {
	l, _ := Teaching(s)
	return l
}

// Teaching returns what a suggestion in its current state teaches the
// learner and with which share of an explicit decision's weight: 1 for
// what the person decided, SilenceWeight for a verdict their silence
// confirmed. An explicit decision always replaces silence: a decided or
// rescued card teaches what the person said, and a card moved out of the
// lane silence confirmed teaches nothing of it.
func Teaching(s scouts.Suggestion) (learn.Label, float64) {
	switch s.Status {
	case scouts.StatusApproved:
		if s.ResolvedBy == "policy" {
			return learn.Label{}, 1 // the scout created it without anyone deciding
		}
		return learn.Label{Approve: true, Ham: true, Kind: string(s.ResolvedKind)}, 1
	case scouts.StatusRejected:
		if s.Lane == scouts.LaneSpam {
			return learn.Label{Spam: true}, 1
		}
		// A rejection is not a spam report (that is its own decision):
		// the mail was legitimate, only unwanted.
		return learn.Label{Reject: true, Ham: true}, 1
	case scouts.StatusPending, scouts.StatusExpired:
		if s.Status == scouts.StatusPending {
			switch s.Rescued {
			case scouts.RescueScreened:
				return learn.Label{Approve: true}, 1
			case scouts.RescueSpam:
				return learn.Label{Ham: true}, 1
			}
		}
		if s.Silence != "" && s.Silence == s.Lane && s.Rescued == scouts.RescueNone {
			switch s.Lane {
			case scouts.LaneSpam:
				return learn.Label{Spam: true}, SilenceWeight
			case scouts.LaneScreened:
				return learn.Label{Reject: true, Ham: true}, SilenceWeight
			}
		}
	}
	return learn.Label{}, 1
}

// SparesParticipants reports whether a lesson leaves out the features
// that name the other people of a conversation (the recipients): a spam
// verdict is about the mail's sender, and must not teach that the people
// it was sent to, or whose thread it joined, send spam.
func SparesParticipants(l learn.Label) bool { return l.Spam }

// TeachAt returns the time to teach a lesson of factor times an explicit
// decision's weight as, when the lesson happens at at. The model's weights
// double every half-life (learn.Params.Weight), so a lesson dated
// log2(1/factor) half-lives earlier weighs exactly factor as much; the
// weight is stored with what the item taught, so the next decision takes
// back exactly that.
func TeachAt(m learn.Model, at time.Time, factor float64) time.Time {
	if !(factor > 0 && factor < 1) {
		return at
	}
	w0 := m.Params.Weight(m.Epoch, m.Epoch)
	w1 := m.Params.Weight(m.Epoch, m.Epoch.Add(24*time.Hour))
	perDay := math.Log2(w1 / w0) // doublings per day
	if !(perDay > 0) {
		return at
	}
	days := math.Log2(1/factor) / perDay
	return at.Add(-time.Duration(days * float64(24*time.Hour)))
}
