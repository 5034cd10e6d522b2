package evaluate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
)

// synthetic writes a small mailbox, one mail an hour: spam (some of it
// with forged-looking headers the heuristics file as spam at once), a
// development list the user wants as tasks (some of its mail also looks
// forged: mistakes in Spam), a chatter list they do not want, and
// personal mail without a list, which the test policy wants.
func synthetic(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	at := time.Date(2002, 9, 2, 8, 0, 0, 0, time.UTC)
	spamWords := []string{"cash prize winner claim", "cheap meds online pharmacy", "mortgage rates refinance now", "lose weight fast pills"}
	for i := range n {
		sub, from, to, subject, body, list := "ham", "", "To: you@example.org\r\n", "", "", ""
		switch i % 6 {
		case 0, 1:
			sub = "spam"
			w := spamWords[i%len(spamWords)]
			from = fmt.Sprintf("promo%d@offers%d.example.com", i, i%5)
			subject, body = "Great offer "+w, strings.Repeat(w+" click here unsubscribe free money ", 6)
			if i%12 == 0 { // no visible recipient, shouting: the heuristics call it spam
				to, subject = "", "YOU WON!!! "+strings.ToUpper(w)
			}
		case 2:
			from, list = fmt.Sprintf("dev%d@build.example.org", i%4), "List-Id: <dev.example.org>\r\n"
			subject, body = fmt.Sprintf("patch %d for the release build", i), strings.Repeat("the build fails on the release branch, patch attached for review ", 5)
			if i%18 == 2 { // wanted, but looks forged: the heuristics put it in Spam
				to, subject = "", "RELEASE BLOCKER!!! BUILD BROKEN"
			}
		case 3, 5:
			from, list = fmt.Sprintf("fan%d@chatter.example.net", i%7), "List-Id: <chatter.example.net>\r\n"
			subject, body = fmt.Sprintf("football party %d this weekend", i), strings.Repeat("who is coming to the football party, bring snacks and chairs ", 5)
		case 4:
			from = fmt.Sprintf("colleague%d@work.example.org", i%3)
			subject, body = fmt.Sprintf("question about the report %d", i), strings.Repeat("could you look at the quarterly report numbers before the meeting ", 5)
		}
		raw := fmt.Sprintf("From: %s\r\n%sSubject: %s\r\nDate: %s\r\nMessage-ID: <m%d@example.org>\r\n%s\r\n%s\r\n",
			from, to, subject, at.Add(time.Duration(i)*time.Hour).Format(time.RFC1123Z), i, list, body)
		p := filepath.Join(dir, sub, fmt.Sprintf("%04d.eml", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(raw), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func syntheticPolicy(t *testing.T) Policy {
	t.Helper()
	p, err := ParsePolicy([]byte(`{"want":[{"list":"dev.example.org","kind":"task"}],"no_list":"note","default":"reject"}`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The realistic user decides every card in the inbox, brings back every
// mistake it finds in Screened or Spam (wanted mail, legitimate mail in
// Spam) and decides it, and never decides a card that is rightly in
// Screened or Spam. Checked on the cards themselves after each look, over
// a run where the heuristics and the learner put cards in every lane.
func TestRealisticUserRules(t *testing.T) {
	in, err := LoadInput(synthetic(t, 144), corpus.HeldOutSums())
	if err != nil {
		t.Fatal(err)
	}
	set := scouts.DefaultLearnSettings()
	set.ColdStart, set.MinSpam = 6, 3
	var cards, settles []TraceEvent
	rep, err := Run(context.Background(), Options{Input: in, Policy: syntheticPolicy(t), Batch: 12, Settings: set,
		Checkpoints: []int{10, 30}, Dir: t.TempDir(), MinMeasure: time.Millisecond,
		Trace: func(e TraceEvent) {
			if e.Settle {
				settles = append(settles, e)
			} else {
				cards = append(cards, e)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.User != UserRealistic || rep.Split != SplitDate || rep.Train != 72 || rep.Test != 72 {
		t.Fatalf("user %s, split %s, %d + %d: want the realistic user and the date split by default, halves of 72", rep.User, rep.Split, rep.Train, rep.Test)
	}
	if len(cards) != rep.Train {
		t.Fatalf("the user looked at %d cards, want every one of the %d that arrived while deciding", len(cards), rep.Train)
	}
	var inbox, rightSpam, rightScreened, wrongSpam, decided, reported, inboxSpam int
	for _, c := range cards {
		a := c.After
		right := c.Lane == scouts.LaneSpam && c.Spam || c.Lane == scouts.LaneScreened && !c.Wanted
		switch {
		case right:
			// Never confirmed: the card is still waiting where it was.
			if a.Status != scouts.StatusPending || a.Lane != c.Lane || c.Action != ActNone {
				t.Errorf("%s, rightly in %s (spam %v, wanted %v), was decided: %s in %s", c.Ref, c.Lane, c.Spam, c.Wanted, a.Status, a.Lane)
			}
			if c.Lane == scouts.LaneSpam {
				rightSpam++
			} else {
				rightScreened++
			}
			continue
		case c.Lane == scouts.LaneInbox:
			inbox++
			if c.Spam {
				inboxSpam++
			}
		default: // a mistake: brought back and decided
			if !c.Rescued || a.Rescued == scouts.RescueNone {
				t.Errorf("%s (spam %v, wanted %v) in %s was not brought back", c.Ref, c.Spam, c.Wanted, c.Lane)
			}
			if c.Lane == scouts.LaneSpam {
				wrongSpam++
			}
		}
		decided++
		// Decided as the policy says.
		switch {
		case c.Spam:
			reported++
			if a.Status != scouts.StatusRejected || a.Lane != scouts.LaneSpam {
				t.Errorf("spam %s in the inbox: %s in %s, want marked as spam", c.Ref, a.Status, a.Lane)
			}
		case c.Wanted:
			if a.Status != scouts.StatusApproved {
				t.Errorf("wanted %s found in %s: %s, want approved", c.Ref, c.Lane, a.Status)
			}
		default:
			if a.Status != scouts.StatusRejected || a.Lane == scouts.LaneSpam {
				t.Errorf("unwanted %s found in %s: %s in %s, want rejected outside Spam", c.Ref, c.Lane, a.Status, a.Lane)
			}
		}
	}
	// The run put cards where each rule matters.
	if inbox == 0 || rightSpam == 0 || rightScreened == 0 || wrongSpam == 0 {
		t.Fatalf("the run did not exercise every rule: %d inbox cards, %d rightly in Spam, %d rightly in Screened, %d legitimate in Spam", inbox, rightSpam, rightScreened, wrongSpam)
	}
	p := rep.Person
	if p.Decisions != decided || p.MarkedSpam != reported || reported != inboxSpam || p.LeftSpam != rightSpam {
		t.Fatalf("report %+v; the cards say %d decided, %d spam reported (%d spam in the inbox), %d left in Spam", p, decided, reported, inboxSpam, rightSpam)
	}
	a := rep.Accounting
	if a.Trained+a.Scored+a.Unreadable != a.Messages || a.Messages != 144 {
		t.Fatalf("accounting %+v", a)
	}

	checkSilence(t, rep, cards, settles)

	// Without implicit feedback nothing settles.
	quiet, err := Run(context.Background(), Options{Input: in, Policy: syntheticPolicy(t), Batch: 12, Settings: set, NoImplicit: true,
		Checkpoints: []int{}, Dir: t.TempDir(), MinMeasure: time.Millisecond,
		Trace: func(e TraceEvent) {
			if e.Settle {
				t.Errorf("--no-implicit: silence settled at batch %d", e.Batch)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if q := quiet.Person; quiet.Implicit || q.SettledSpam+q.SettledScreened != 0 {
		t.Fatalf("--no-implicit: implicit %v, person %+v", quiet.Implicit, q)
	}

	// The user of old, who confirms everything, reports every spam: the
	// realistic one only what reached the inbox.
	all, err := Run(context.Background(), Options{Input: in, Policy: syntheticPolicy(t), User: UserConfirmAll, Split: SplitDate, Batch: 12,
		Settings: set, Checkpoints: []int{}, Dir: t.TempDir(), MinMeasure: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if all.Person.MarkedSpam != all.Training.TP+all.Training.FN || all.Person.Decisions != all.Train || all.Person.MarkedSpam <= p.MarkedSpam {
		t.Fatalf("confirm-all reported %d spam of %d and decided %d of %d cards; the realistic user reported %d",
			all.Person.MarkedSpam, all.Training.TP+all.Training.FN, all.Person.Decisions, all.Train, p.MarkedSpam)
	}
}

// checkSilence checks implicit feedback against the cards the user left
// alone: silence settles a card only once the next batch has been looked
// at (the grace period, as the evaluation simulates it), never one of the
// batch just looked at, and then every card left alone before.
func checkSilence(t *testing.T, rep Report, cards, settles []TraceEvent) {
	t.Helper()
	if !rep.Implicit {
		t.Fatalf("implicit feedback is off by default")
	}
	leftIn := map[string]int{} // ref → batch, for cards left alone
	for _, c := range cards {
		if c.Action == ActNone {
			leftIn[c.Ref] = c.Batch
		}
	}
	settled := map[string]int{}
	for _, e := range settles {
		if e.Batch == 0 {
			t.Fatalf("silence settled %v before a second batch was looked at", e.Settled)
		}
		for _, ref := range e.Settled {
			b, ok := leftIn[ref]
			switch {
			case !ok:
				t.Errorf("batch %d: silence settled %s, which the user did not leave alone", e.Batch, ref)
			case b >= e.Batch:
				t.Errorf("batch %d: silence settled %s of batch %d before its grace period", e.Batch, ref, b)
			}
			if _, twice := settled[ref]; twice {
				t.Errorf("%s settled twice", ref)
			}
			settled[ref] = e.Batch
		}
	}
	last := settles[len(settles)-1].Batch
	n := 0
	for ref, b := range leftIn {
		if b < last {
			if _, ok := settled[ref]; !ok {
				t.Errorf("%s, left alone in batch %d, was never settled (last settling after batch %d)", ref, b, last)
			}
			n++
		}
	}
	p := rep.Person
	if n == 0 || p.SettledSpam == 0 || p.SettledSpam+p.SettledScreened != len(settled) {
		t.Fatalf("%d cards settled (%d left alone before the last batch); person %+v", len(settled), n, p)
	}
}
