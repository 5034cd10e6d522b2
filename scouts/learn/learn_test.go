package learn

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestExtractIsDedupedSaltedAndBounded(t *testing.T) {
	it := Item{Source: "gmail", Sender: "Bob@Example.CO.UK", ListID: "<dev.lists.example.org>", Signs: []string{"list"},
		Subject: "Invoice due invoice DUE", Body: "see https://www.pay.example.com/x?y=1 now " + strings.Repeat("word ", 10000), Path: "a/b/report-final.PDF"}
	fs := Extract(it, 1)
	seen := map[uint64]bool{}
	groups := map[Group]int{}
	for _, f := range fs {
		if seen[f.Hash] {
			t.Fatalf("feature %q twice", f.Text)
		}
		seen[f.Hash] = true
		groups[f.Group]++
	}
	for _, g := range []Group{GroupSender, GroupDomain, GroupList, GroupSign, GroupSubject, GroupBody, GroupPath, GroupExt, GroupURL} {
		if groups[g] == 0 {
			t.Errorf("no feature of group %d in %v", g, fs)
		}
	}
	if len(fs) > maxFeatures {
		t.Fatalf("%d features, more than the cap %d", len(fs), maxFeatures)
	}
	var texts []string
	for _, f := range fs {
		texts = append(texts, f.Text)
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"bob@example.co.uk", "example.co.uk", "dev.lists.example.org", "pay.example.com", "invoice", "invoice due", "pdf", "report"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no feature %q in %s", want, joined)
		}
	}
	// Another installation's salt gives other hashes for the same item.
	other := Extract(it, 2)
	if other[0].Hash == fs[0].Hash || other[0].Text != fs[0].Text {
		t.Fatal("the salt does not key the hashes")
	}
}

func train(tbl MemTable, m *Model, fs []Feature, l Label, w float64) {
	tbl.Apply(Hashes(fs), l.Vec(), w)
	m.Totals = m.Totals.Add(l.Vec(), len(Hashes(fs)), w)
}

func TestPredictLearnsAndUnlearnsExactly(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &Model{Epoch: now}
	tbl := MemTable{}
	boss := func(i int) []Feature {
		return Extract(Item{Source: "gmail", Sender: "boss@corp.example", Subject: "Please review the budget", Body: "numbers team draft"}, 0)
	}
	news := func(i int) []Feature {
		return Extract(Item{Source: "gmail", Sender: "news@deals.example", ListID: "deals", Subject: "Weekly offers", Body: "sale coupon shop"}, 0)
	}
	for i := range 20 {
		train(tbl, m, boss(i), Label{Approve: true, Ham: true, Kind: "task"}, 1)
		train(tbl, m, news(i), Label{Reject: true, Ham: true}, 1)
	}
	before := len(tbl)
	p, _ := m.Predict(tbl, boss(99), now)
	q, _ := m.Predict(tbl, news(99), now)
	if p.Approve.P < 0.9 || q.Approve.P > 0.1 || p.Kind.Kind != "task" {
		t.Fatalf("boss %.3f (kind %s), news %.3f", p.Approve.P, p.Kind.Kind, q.Approve.P)
	}
	why := Explain(q.Approve, "approved", "rejected")
	if len(why) == 0 || !strings.Contains(why[0], "rejected 20") {
		t.Fatalf("why: %q", why)
	}
	if p.Spam.P != -1 {
		t.Fatalf("spam probability %v without any spam decision; want -1 (cannot tell)", p.Spam.P)
	}
	// Teaching then unlearning one decision leaves the model as it was.
	extra := Extract(Item{Source: "gmail", Sender: "new@else.example", Subject: "Hello"}, 0)
	totals := m.Totals
	train(tbl, m, extra, Label{Spam: true}, 3)
	train(tbl, m, extra, Label{Spam: true}, -3)
	if len(tbl) != before || m.Totals != totals {
		t.Fatalf("unlearning left %d features (had %d), totals %v (had %v)", len(tbl), before, m.Totals, totals)
	}
}

func TestOldDecisionsFade(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var p Params
	half := p.withDefaults().HalfLife
	if w := p.Weight(epoch, epoch.Add(half)); math.Abs(w-2) > 1e-9 {
		t.Fatalf("weight after one half-life %v, want 2", w)
	}
	// Ten old rejections, then ten new approvals: the new ones win.
	m := &Model{Epoch: epoch}
	tbl := MemTable{}
	fs := Extract(Item{Source: "folder", Sender: "x@y.example", Subject: "Report"}, 0)
	other := Extract(Item{Source: "folder", Sender: "z@w.example", Subject: "Other"}, 0)
	for range 10 {
		train(tbl, m, fs, Label{Reject: true}, p.Weight(epoch, epoch))
		train(tbl, m, other, Label{Approve: true}, p.Weight(epoch, epoch))
	}
	later := epoch.Add(4 * half)
	for range 10 {
		train(tbl, m, fs, Label{Approve: true}, p.Weight(epoch, later))
		train(tbl, m, other, Label{Reject: true}, p.Weight(epoch, later))
	}
	pr, _ := m.Predict(tbl, fs, later)
	if pr.Approve.P < 0.5 {
		t.Fatalf("after the person changed their mind the old rejections still win: %.3f", pr.Approve.P)
	}
}

func TestChi2Q(t *testing.T) {
	// Known values: Q(x2=2, dof=2) = e^-1; Q(0, dof) = 1.
	if got := chi2Q(2, 2); math.Abs(got-math.Exp(-1)) > 1e-12 {
		t.Fatalf("chi2Q(2,2) = %v", got)
	}
	if got := chi2Q(0, 10); got != 1 {
		t.Fatalf("chi2Q(0,10) = %v", got)
	}
}
