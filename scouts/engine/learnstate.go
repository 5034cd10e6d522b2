package engine

import (
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

// TeachingOf returns what a suggestion in its current state teaches the
// learner. Every decision replaces the previous teaching of the same item,
// so an undo, a change of mind or a rescue followed by an approval never
// counts twice.
func TeachingOf(s scouts.Suggestion) learn.Label {
	switch s.Status {
	case scouts.StatusApproved:
		if s.ResolvedBy == "policy" {
			return learn.Label{} // the scout created it without anyone deciding
		}
		return learn.Label{Approve: true, Ham: true, Kind: string(s.ResolvedKind)}
	case scouts.StatusRejected:
		if s.Lane == scouts.LaneSpam {
			return learn.Label{Spam: true}
		}
		// A rejection is not a spam report (that is its own decision):
		// the mail was legitimate, only unwanted.
		return learn.Label{Reject: true, Ham: true}
	case scouts.StatusPending:
		switch s.Rescued {
		case scouts.RescueScreened:
			return learn.Label{Approve: true}
		case scouts.RescueSpam:
			return learn.Label{Ham: true}
		}
	}
	return learn.Label{}
}
