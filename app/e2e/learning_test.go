package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
)

// kindsOfMail are the three kinds of mail of the learning test: the person
// wants the boss's requests as tasks, rejects the deals newsletter, and
// marks the pills as spam.
var kindsOfMail = []struct {
	name, from, list string
	subjects, words  []string
}{
	{"boss", "Carol Boss <carol@corp.example>", "",
		[]string{"Budget review", "Hiring plan", "Quarterly report", "Vendor contract", "Roadmap draft"},
		[]string{"please", "review", "before", "meeting", "numbers", "team", "draft", "comments", "thanks"}},
	{"deals", "Deals Weekly <news@deals.example>", "deals.lists.example",
		[]string{"This week's deals", "Flash sale", "Members' offers", "Weekend savings", "New arrivals"},
		[]string{"offer", "discount", "shop", "sale", "members", "unsubscribe", "coupon", "store", "prices"}},
	{"pills", "", "",
		[]string{"Cheap meds online", "Lose weight now", "Pharmacy discount", "Best pills", "Your prescription"},
		[]string{"viagra", "pharmacy", "pills", "cheap", "order", "now", "guaranteed", "weight", "meds"}},
}

func learningMail(r *rand.Rand, kind, n int, marker string) []byte {
	k := kindsOfMail[kind]
	from := k.from
	if from == "" {
		from = fmt.Sprintf("Sales <sales%d@pharm%d.example>", r.IntN(1000), r.IntN(50))
	}
	var body []string
	for range 25 {
		body = append(body, k.words[r.IntN(len(k.words))])
	}
	list := ""
	if k.list != "" {
		list = "List-Id: Deals <" + k.list + ">\r\nList-Unsubscribe: <mailto:leave@deals.example>\r\n"
	}
	return []byte(fmt.Sprintf("From: %s\r\nTo: %s\r\n%sSubject: %s %d\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\nMessage-ID: <%s-%d-%s@mail.example>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s (%s)\r\n",
		from, gmailUser, list, k.subjects[r.IntN(len(k.subjects))], n, k.name, n, marker, strings.Join(body, " "), marker))
}

// TestLearningOverRealProcesses: a person's decisions teach the agent's
// learner through the local API; new mail is then screened, filed as spam
// or shown with the evidence in words; the model survives a restart;
// bringing a card back moves it and changes the next prediction; undo
// unlearns; the learner's tables hold no words of the mail.
func TestLearningOverRealProcesses(t *testing.T) { testLearning(t, "local") }

// TestLearningRelayTriage: cards the relay triaged and delivered are
// scored by the desktop's learner on arrival, from what the card carries
// (sender, subject, Gmail's snippet).
func TestLearningRelayTriage(t *testing.T) { testLearning(t, "relay-triage") }

func testLearning(t *testing.T, mode string) {
	ctx := context.Background()
	transport := ""
	if mode != "local" {
		transport = "push"
	}
	w := startGmailWorld(t, mode, transport)
	a := w.a
	stream := a.events(t)
	r := rand.New(rand.NewPCG(7, 9))

	// 300 mails, a third of each kind, decided as the person would.
	kindOf := map[string]int{} // message id → kind
	for i := range 300 {
		k := i % 3
		id, _, err := w.g.gmail.Deliver(gmailUser, learningMail(r, k, i, "train"))
		if err != nil {
			t.Fatal(err)
		}
		kindOf[id] = k
	}
	want := make([]string, 0, len(kindOf))
	for id := range kindOf {
		want = append(want, id)
	}
	waitGmailSuggestions(t, a, stream, w.scout, want)
	decided := 0
	for _, s := range gmailSuggestions(t, a, w.scout) {
		if s.Status != "pending" {
			continue
		}
		var err error
		switch kindOf[s.SourceRef] {
		case 0:
			if s.Lane != "inbox" {
				_, err = a.client.BringBack(ctx, s.ID)
			}
			if err == nil {
				_, err = a.client.Approve(ctx, s.ID, apitype.Approve{As: "task"})
			}
		case 1:
			_, err = a.client.Reject(ctx, s.ID)
		case 2:
			_, err = a.client.MarkSpam(ctx, s.ID)
		}
		if err != nil {
			t.Fatalf("deciding %s (%s): %v", s.ID, s.Lane, err)
		}
		decided++
	}
	if decided != 300 {
		t.Fatalf("decided %d cards, want 300", decided)
	}
	l, err := a.client.Learning(ctx, w.scout)
	if err != nil || l.Decisions < 300 || !l.Trained {
		t.Fatalf("learning after 300 decisions: %+v, %v", l, err)
	}
	if mode == "local" {
		testFolderLearning(t, a)
	}

	// New mail of each kind lands in its lane, saying why.
	newMail := func(marker string) map[int]apitype.Suggestion {
		t.Helper()
		ids := map[int]string{}
		for k := range 3 {
			id, _, err := w.g.gmail.Deliver(gmailUser, learningMail(r, k, 1000+k, marker))
			if err != nil {
				t.Fatal(err)
			}
			ids[k] = id
			want = append(want, id)
		}
		waitGmailSuggestions(t, a, stream, w.scout, want)
		out := map[int]apitype.Suggestion{}
		for _, s := range gmailSuggestions(t, a, w.scout) {
			for k, id := range ids {
				if s.SourceRef == id {
					out[k] = s
				}
			}
		}
		return out
	}
	check := func(got map[int]apitype.Suggestion) {
		t.Helper()
		boss, deals, pills := got[0], got[1], got[2]
		if boss.Lane != "inbox" || boss.ProposedKind != "task" || boss.Assessment == nil || boss.Assessment.Approve < 0.5 {
			t.Fatalf("the boss's mail: lane %s, kind %s, assessment %+v", boss.Lane, boss.ProposedKind, boss.Assessment)
		}
		if !slices.ContainsFunc(boss.Assessment.Why, func(s string) bool { return strings.Contains(s, "approved") && strings.Contains(s, "from this sender") }) {
			t.Fatalf("the boss's mail does not say why: %q", boss.Assessment.Why)
		}
		if deals.Lane != "screened" || !strings.Contains(deals.Assessment.LaneReason, "rejected") {
			t.Fatalf("the newsletter: lane %s, reason %q", deals.Lane, deals.Assessment.LaneReason)
		}
		if pills.Lane != "spam" || !strings.Contains(pills.Assessment.LaneReason, "spam") {
			t.Fatalf("the spam: lane %s, reason %q", pills.Lane, pills.Assessment.LaneReason)
		}
	}
	first := newMail("after-300")
	check(first)
	st, err := a.client.Status(ctx)
	if err != nil || st.Lanes["screened"] < 1 || st.Lanes["spam"] < 1 {
		t.Fatalf("status lanes: %v, %v", st.Lanes, err)
	}

	// The model survives a restart.
	a = w.restartAgent(t)
	stream = a.events(t)
	second := newMail("after-restart")
	check(second)

	// Bringing the newsletter back moves it to the inbox and changes the
	// next newsletter's prediction: the evidence now counts the rescue.
	before := second[1].Assessment
	back, err := a.client.BringBack(ctx, second[1].ID)
	if err != nil || back.Lane != "inbox" || back.Rescued != "screened" {
		t.Fatalf("bring back: %+v, %v", back, err)
	}
	third := newMail("after-bring-back")
	after := third[1].Assessment
	// One rescue among a hundred rejections need not lift a probability
	// that is already about zero (the new card's words differ, so it may
	// even sit a rounding error lower), but the evidence the person reads
	// must count it ("you rejected 100 of 101 from this sender").
	if after.LaneReason == before.LaneReason || !strings.Contains(after.LaneReason, "100 of 101 from this sender") {
		t.Fatalf("bringing back did not change the prediction: %v %q, then %v %q", before.Approve, before.LaneReason, after.Approve, after.LaneReason)
	}

	// Undo unlearns: approving then undoing leaves the learner as it was.
	l1, _ := a.client.Learning(ctx, w.scout)
	if _, err := a.client.Approve(ctx, third[0].ID, apitype.Approve{As: "task"}); err != nil {
		t.Fatal(err)
	}
	if l2, _ := a.client.Learning(ctx, w.scout); l2.Decisions != l1.Decisions+1 {
		t.Fatalf("approval not learned: %d → %d", l1.Decisions, l2.Decisions)
	}
	if _, err := a.client.Undo(ctx, third[0].ID); err != nil {
		t.Fatal(err)
	}
	if l3, _ := a.client.Learning(ctx, w.scout); l3.Decisions != l1.Decisions || l3.Features != l1.Features {
		t.Fatalf("undo did not unlearn: %+v vs %+v", l3, l1)
	}

	// The learner's tables hold hashes and counts: no word of the mail.
	a.stop()
	db, err := localdb.Open(ctx, filepath.Join(a.dataDir, "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, k := range kindsOfMail {
		for _, word := range append(slices.Clone(k.words), k.subjects...) {
			if len(word) >= 4 && db.LearnTablesContain(ctx, []byte(word)) {
				t.Fatalf("the learner's tables contain %q", word)
			}
		}
	}
	for _, s := range []string{"carol@corp.example", "deals.lists.example", "corp.example"} {
		if db.LearnTablesContain(ctx, []byte(s)) {
			t.Fatalf("the learner's tables contain %q", s)
		}
	}
}

// testFolderLearning: a folder scout learns too — the person approves the
// supplier's order confirmations as notes and rejects the build reports;
// then a new confirmation is proposed as a note in the inbox and a new
// report is screened, saying why.
func testFolderLearning(t *testing.T, a *agentProc) {
	t.Helper()
	watchtest.Need(t)
	ctx := context.Background()
	dir := t.TempDir()
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "Drop", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	drop := func(name, text string) {
		t.Helper()
		tmp := filepath.Join(t.TempDir(), filepath.Base(name))
		if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	waitFolder := func(n int) []apitype.Suggestion {
		t.Helper()
		var list []apitype.Suggestion
		waitOn(t, on(a.changed()), fmt.Sprintf("%d folder cards", n), func() bool {
			list, err = a.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "all", ScoutID: sc.ID, Limit: 1000})
			return err == nil && len(list) >= n
		})
		return list
	}
	for i := range 20 {
		drop(fmt.Sprintf("orders/confirmation-%02d.md", i), fmt.Sprintf("# Order confirmation %d\n\nThe supplier confirms order %d: twelve crates of paper, shipped with the usual carrier.\n", i, i))
		drop(fmt.Sprintf("builds/report-%02d.txt", i), fmt.Sprintf("Build report %d\ncompiler warnings linker output artefacts checksum pipeline green\n", i))
	}
	for _, s := range waitFolder(40) {
		if strings.Contains(s.Path, "orders") {
			_, err = a.client.Approve(ctx, s.ID, apitype.Approve{As: "note"})
		} else {
			_, err = a.client.Reject(ctx, s.ID)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	drop("orders/confirmation-99.md", "# Order confirmation 99\n\nThe supplier confirms order 99: twelve crates of paper, shipped with the usual carrier.\n")
	drop("builds/report-99.txt", "Build report 99\ncompiler warnings linker output artefacts checksum pipeline green\n")
	var order, report apitype.Suggestion
	for _, s := range waitFolder(42) {
		switch {
		case strings.HasSuffix(s.Path, "confirmation-99.md"):
			order = s
		case strings.HasSuffix(s.Path, "report-99.txt"):
			report = s
		}
	}
	if order.Lane != "inbox" || order.ProposedKind != "note" || order.Assessment == nil || order.Assessment.Approve < 0.5 {
		t.Fatalf("new order confirmation: lane %s, kind %s, assessment %+v", order.Lane, order.ProposedKind, order.Assessment)
	}
	if report.Lane != "screened" || report.Assessment == nil || !strings.Contains(report.Assessment.LaneReason, "rejected") {
		t.Fatalf("new build report: lane %s, assessment %+v", report.Lane, report.Assessment)
	}
}
