package evaluate

import (
	"context"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// Scores are what the product did with a set of messages.
type Scores struct {
	// Decisions is how many decisions the learner had seen.
	Decisions int `json:"decisions"`
	Messages  int `json:"messages"`
	// Lanes counts the messages per lane.
	Lanes map[scouts.Lane]int `json:"lanes"`

	// Spam: positive = the message is spam, predicted = it ended in the
	// Spam lane.
	TP, FP, FN, TN int     `json:"-"`
	SpamRecall     float64 `json:"spam_recall"`
	SpamFPR        float64 `json:"spam_fpr"`
	SpamPrecision  float64 `json:"spam_precision"`
	SpamF1         float64 `json:"spam_f1"`

	// Wanted is how many messages the policy wants; WantedShown the share
	// of them in the inbox. Shown is how many are in the inbox;
	// ShownUnwanted the share of those the user does not want (spam
	// included).
	Wanted        int     `json:"wanted"`
	WantedShown   float64 `json:"wanted_shown"`
	Shown         int     `json:"shown"`
	ShownUnwanted float64 `json:"shown_unwanted"`
	// WantedInSpam counts wanted mail the product filed as spam: the
	// false positives that cost the user something.
	WantedInSpam int `json:"wanted_in_spam"`
	// KindAccuracy is the share of wanted messages proposed as the kind
	// the policy gives them.
	KindAccuracy float64 `json:"kind_accuracy"`

	// Legitimate mail apart from hard ham, and how much of it went to
	// Spam: the false positives a person meets.
	Legit       int     `json:"legit"`
	LegitFP     int     `json:"legit_fp"`
	LegitToSpam float64 `json:"legit_to_spam"`
	// Hard ham, the false-positive stress set, apart.
	Hard       int     `json:"hard_ham"`
	HardFP     int     `json:"hard_fp"`
	HardToSpam float64 `json:"hard_ham_to_spam"`
	// InboxSpam and InboxUnwanted split the junk in the inbox.
	InboxSpam     int `json:"inbox_spam"`
	InboxUnwanted int `json:"inbox_unwanted"`
	// SpamTaught is how many decisions had taught the spam model spam
	// (engine.LearnState) when the test part was scored.
	SpamTaught int `json:"spam_taught"`
}

// scored is one message and its suggestion.
type scored struct {
	j judged
	s scouts.Suggestion
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func scoresOf(items []scored) Scores {
	sc := Scores{Messages: len(items), Lanes: map[scouts.Lane]int{}}
	wantedShown, shownUnwanted, kindRight := 0, 0, 0
	for _, it := range items {
		lane := it.s.Lane
		sc.Lanes[lane]++
		spam, inSpam := it.j.mail.Spam, lane == scouts.LaneSpam
		switch {
		case spam && inSpam:
			sc.TP++
		case inSpam:
			sc.FP++
			if it.j.mail.Hard {
				sc.HardFP++
			} else {
				sc.LegitFP++
			}
		case spam:
			sc.FN++
		default:
			sc.TN++
		}
		switch {
		case spam:
		case it.j.mail.Hard:
			sc.Hard++
		default:
			sc.Legit++
		}
		shown := lane == scouts.LaneInbox
		if shown {
			sc.Shown++
			switch {
			case spam:
				sc.InboxSpam++
			case !it.j.wanted:
				sc.InboxUnwanted++
			}
			if !it.j.wanted {
				shownUnwanted++
			}
		}
		if it.j.wanted {
			sc.Wanted++
			if shown {
				wantedShown++
			}
			if inSpam {
				sc.WantedInSpam++
			}
			if it.s.ProposedKind == it.j.kind {
				kindRight++
			}
		}
	}
	sc.SpamRecall = ratio(sc.TP, sc.TP+sc.FN)
	sc.SpamFPR = ratio(sc.FP, sc.FP+sc.TN)
	sc.SpamPrecision = ratio(sc.TP, sc.TP+sc.FP)
	if sc.SpamRecall+sc.SpamPrecision > 0 {
		sc.SpamF1 = 2 * sc.SpamRecall * sc.SpamPrecision / (sc.SpamRecall + sc.SpamPrecision)
	}
	sc.LegitToSpam = ratio(sc.LegitFP, sc.Legit)
	sc.HardToSpam = ratio(sc.HardFP, sc.Hard)
	sc.WantedShown = ratio(wantedShown, sc.Wanted)
	sc.ShownUnwanted = ratio(shownUnwanted, sc.Shown)
	sc.KindAccuracy = ratio(kindRight, sc.Wanted)
	return sc
}

// find returns the suggestion a mail became; false when it became none
// (unreadable).
func (p *product) find(ctx context.Context, ref string) (scouts.Suggestion, bool, error) {
	s, err := p.db.SuggestionByRef(ctx, p.scout.ID, ref)
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return s, false, nil
	}
	return s, err == nil, err
}

// score delivers the test part under a fresh prefix (so the same mail
// arrives anew and nothing is taught), and reads where each landed. With
// measure, it also reports the CPU the arrival took.
func (p *product) score(ctx context.Context, prefix string, test []judged, measure bool) (Scores, Throughput, error) {
	refs := make([]string, len(test))
	mails := make([]*Mail, len(test))
	for i, j := range test {
		refs[i], mails[i] = prefix+j.mail.Ref, j.mail
	}
	// The same later mail is scored after each number of decisions: the
	// senders it makes familiar (engine.FamiliarAfter) are counted back
	// afterwards, as if it had arrived once.
	seen, err := p.db.SeenCounts(ctx, p.scout.ID)
	if err != nil {
		return Scores{}, Throughput{}, err
	}
	c0, cpuOK := cpuTime()
	w0 := time.Now()
	if err := p.arrive(ctx, refs, mails); err != nil {
		return Scores{}, Throughput{}, err
	}
	c1, _ := cpuTime()
	if err := p.db.SetSeenCounts(ctx, p.scout.ID, seen); err != nil {
		return Scores{}, Throughput{}, err
	}
	wall := time.Since(w0)
	var tp Throughput
	if measure {
		tp = Throughput{CPU: cpuOK, Messages: len(test), Product: perSecond(len(test), c1-c0, wall, cpuOK)}
	}
	items := make([]scored, 0, len(test))
	for i, j := range test {
		s, ok, err := p.find(ctx, refs[i])
		if err != nil {
			return Scores{}, tp, err
		}
		if ok {
			items = append(items, scored{j: j, s: s})
		}
	}
	if p.expireScored {
		// Nobody decides the test part: its cards must not teach by
		// silence either, so they leave the pending cards at once.
		for _, it := range items {
			if _, _, err := p.db.ExpireSuggestion(ctx, it.s.ID, p.clock(), "evaluation", "scored by the evaluation, taught nothing"); err != nil {
				return Scores{}, tp, err
			}
		}
	}
	sc := scoresOf(items)
	st, err := p.db.LearnState(ctx, p.scout.ID)
	if err != nil {
		return Scores{}, tp, err
	}
	sc.SpamTaught = st.Spam
	return sc, tp, nil
}

func perSecond(n int, cpu, wall time.Duration, cpuOK bool) float64 {
	d := cpu
	if !cpuOK {
		d = wall
	}
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

func (p *product) footprint(ctx context.Context) (Footprint, error) {
	f, err := p.db.LearnFootprint(ctx, p.scout.ID)
	if err != nil {
		return Footprint{}, err
	}
	st, err := p.db.LearnState(ctx, p.scout.ID)
	if err != nil {
		return Footprint{}, err
	}
	return Footprint{Decisions: st.Decisions, Features: f.Features, FeatureBytes: f.FeatureBytes, Items: f.Items, ItemBytes: f.ItemBytes}, nil
}
