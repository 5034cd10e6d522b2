package evaluate

import (
	"context"
	"errors"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// User is how the simulated person decides.
type User string

const (
	// UserRealistic decides every card in the inbox, and looks at
	// Screened and Spam only to rescue mistakes: wanted mail from either,
	// legitimate mail from Spam. A correct placement is left alone, as a
	// person leaves it: only silence (implicit feedback) confirms it.
	UserRealistic User = "realistic"
	// UserConfirmAll decides every card wherever it landed, spam
	// included: no person does that, and the learner then learns from
	// every spam, not only from those that reached the inbox.
	UserConfirmAll User = "confirm-all"
)

// Action is what the user does with a card once it is where they want it.
type Action string

const (
	ActNone    Action = ""        // left where it is
	ActApprove Action = "approve" // approved as the policy's kind
	ActReject  Action = "reject"  // rejected (unwanted, not spam)
	ActSpam    Action = "spam"    // marked as spam
)

// plan is what the user does with one card: bring it back to the inbox
// first or not, then an action.
type plan struct {
	rescue bool
	act    Action
}

// choose is the user's rule for a card found in lane.
func choose(u User, lane scouts.Lane, j judged) plan {
	want := ActReject
	switch {
	case j.mail.Spam:
		want = ActSpam
	case j.wanted:
		want = ActApprove
	}
	if u == UserConfirmAll {
		switch want {
		case ActSpam: // wherever it is
			return plan{act: ActSpam}
		case ActApprove:
			return plan{rescue: lane != scouts.LaneInbox, act: ActApprove}
		}
		// Rejecting in the Spam lane confirms spam, which the user
		// knows it is not: brought back first.
		return plan{rescue: lane == scouts.LaneSpam, act: ActReject}
	}
	switch lane {
	case scouts.LaneScreened:
		if want == ActApprove { // wanted mail hidden: a mistake
			return plan{rescue: true, act: ActApprove}
		}
		return plan{} // unwanted or spam out of the inbox: right enough
	case scouts.LaneSpam:
		if want == ActSpam {
			return plan{}
		}
		return plan{rescue: true, act: want} // legitimate mail in Spam
	}
	return plan{act: want}
}

// Person is what the simulated user did over the training part.
type Person struct {
	// Decisions counts the cards the user decided (a rescue and the
	// decision after it are one); Calls the engine calls they took.
	Decisions int `json:"decisions"`
	Calls     int `json:"calls"`
	Approved  int `json:"approved"`
	Rejected  int `json:"rejected"`
	// MarkedSpam counts explicit spam reports.
	MarkedSpam      int `json:"marked_spam"`
	RescuedScreened int `json:"rescued_screened"`
	RescuedSpam     int `json:"rescued_spam"`
	// LeftScreened and LeftSpam count the cards the user left where they
	// were (spam among the ones in Screened: LeftScreenedSpam).
	LeftScreened     int `json:"left_screened"`
	LeftScreenedSpam int `json:"left_screened_spam"`
	LeftSpam         int `json:"left_spam"`
	// Settled counts the cards left alone whose silence taught the
	// learner (implicit feedback), by lane; SettledScreenedSpam the spam
	// among those settled in Screened, whose silence taught "unwanted".
	SettledSpam         int `json:"settled_spam"`
	SettledScreened     int `json:"settled_screened"`
	SettledScreenedSpam int `json:"settled_screened_spam"`
	// SpamTaught and HamTaught are the learner's own counts of the
	// decisions that taught its spam model (engine.LearnState), after
	// the training part.
	SpamTaught int `json:"spam_taught"`
	HamTaught  int `json:"ham_taught"`
}

func (pe *Person) count(lane scouts.Lane, pl plan, j judged) {
	if pl.act == ActNone {
		switch lane {
		case scouts.LaneScreened:
			pe.LeftScreened++
			if j.mail.Spam {
				pe.LeftScreenedSpam++
			}
		case scouts.LaneSpam:
			pe.LeftSpam++
		}
		return
	}
	pe.Decisions++
	if pl.rescue {
		if lane == scouts.LaneSpam {
			pe.RescuedSpam++
		} else {
			pe.RescuedScreened++
		}
	}
	switch pl.act {
	case ActApprove:
		pe.Approved++
	case ActReject:
		pe.Rejected++
	case ActSpam:
		pe.MarkedSpam++
	}
}

// TraceEvent is one step of the simulated user, for tests: a card found
// and what was done with it, or a round of implicit feedback.
type TraceEvent struct {
	// Batch is the batch of arrivals the step belongs to (from 0).
	Batch int
	// A card: its ref, what the policy says of it, the lane it was in
	// when the user looked, what they did, and the card afterwards.
	Ref     string
	Spam    bool
	Wanted  bool
	Lane    scouts.Lane
	Rescued bool
	Action  Action
	After   scouts.Suggestion
	// Settle marks a round of implicit feedback: SettleSilent ran at At
	// and settled the cards named in Settled.
	Settle  bool
	At      time.Time
	Settled []string
}

// act carries out the user's plan on a card through the engine's API, as
// the window and the CLI call it, and returns each call's duration.
func (p *product) act(ctx context.Context, s scouts.Suggestion, j judged, pl plan) ([]time.Duration, error) {
	var ds []time.Duration
	timed := func(f func() error) error {
		t0 := time.Now()
		err := f()
		ds = append(ds, time.Since(t0))
		return err
	}
	var err error
	if pl.rescue {
		err = timed(func() error { _, err := p.engine.BringBack(ctx, s.ID, "eval"); return err })
	}
	if err == nil {
		switch pl.act {
		case ActSpam:
			err = timed(func() error { _, err := p.engine.MarkSpam(ctx, s.ID, "eval"); return err })
		case ActApprove:
			err = timed(func() error {
				_, _, err := p.engine.Approve(ctx, s.ID, engine.Approval{As: j.kind, Actor: "eval"})
				return err
			})
		case ActReject:
			err = timed(func() error { _, err := p.engine.Reject(ctx, s.ID, "eval"); return err })
		}
	}
	if err != nil {
		return nil, errors.Join(errors.New("evaluate: decide "+j.mail.Ref), err)
	}
	return ds, nil
}

// decide plays the confirm-all user on one card (the spam
// cross-validation's user): spam is marked as spam wherever it is; a
// wanted mail found in Screened or Spam is brought back, then approved as
// the policy's kind; an unwanted mail is rejected, brought back first
// from Spam, because rejecting in the Spam lane confirms it as spam, which
// a user who knows it is not spam would not say.
func (p *product) decide(ctx context.Context, s scouts.Suggestion, j judged) ([]time.Duration, error) {
	return p.act(ctx, s, j, choose(UserConfirmAll, s.Lane, j))
}
