package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
)

// screenerMail is a mail from a sender, through a list when list is set.
func screenerMail(from, list, subject string, n int) []byte {
	hdr := ""
	if list != "" {
		hdr = "List-Id: The list <" + list + ">\r\n"
	}
	return []byte(fmt.Sprintf("From: %s\r\nTo: %s\r\n%sSubject: %s %d\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\nMessage-ID: <scr-%d-%s@mail.example>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello, this is message %d about %s.\r\n",
		from, gmailUser, hdr, subject, n, n, strings.ReplaceAll(subject, " ", "-"), n, subject))
}

// cardsOf waits until a scout has n cards and returns them, oldest first.
func cardsOf(t *testing.T, a *agentProc, scoutID string, n int) []apitype.Suggestion {
	t.Helper()
	var list []apitype.Suggestion
	waitOn(t, on(a.changed()), fmt.Sprintf("%d cards of %s", n, scoutID), func() bool {
		var err error
		list, err = a.client.Suggestions(context.Background(), localclient.SuggestionQuery{Status: "all", ScoutID: scoutID, Limit: 1000})
		return err == nil && len(list) >= n
	}, func() string { return fmt.Sprintf("%d so far", len(list)) })
	return list
}

func ruleIDOf(t *testing.T, r apitype.Rule) string {
	t.Helper()
	var doc struct{ ID string }
	if err := json.Unmarshal(r.Rule, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.ID
}

// TestScreenerOverRealProcesses: the screener's keys through the local
// API of a real agent — on a local-mode Gmail scout against the fake
// Gmail (a sender, and a list by its List-Id) and on a folder scout (a
// folder by path prefix). The first card from a new sender offers the
// keys; a key writes the rule first in the scout's rules, settles the
// sender's waiting cards (screened: rejected in Screened, which the
// learner learns; shown: brought back to the inbox) and decides the later
// ones, whose why line names it; removing the rule gives the next card
// back to the learner.
func TestScreenerOverRealProcesses(t *testing.T) {
	ctx := context.Background()
	w := startGmailWorld(t, "local", "")
	a := w.a
	deliver := func(raw []byte) {
		t.Helper()
		if _, _, err := w.g.gmail.Deliver(gmailUser, raw); err != nil {
			t.Fatal(err)
		}
	}
	deliver(screenerMail("Dan Deals <dan@deals.example>", "", "Offer", 1))
	deliver(screenerMail("Dan Deals <dan@deals.example>", "", "Offer", 2))
	deliver(screenerMail("Carol <carol@corp.example>", "", "Budget", 3))
	deliver(screenerMail("Eve <eve@lists.example>", "dev.lists.example", "Release", 4))
	deliver(screenerMail("Frank <frank@other.example>", "dev.lists.example", "Patch", 5))
	cards := cardsOf(t, a, w.scout, 5)
	by := func(list []apitype.Suggestion, subject string) apitype.Suggestion {
		t.Helper()
		for _, s := range list {
			if s.Title == subject {
				return s
			}
		}
		t.Fatalf("no card %q among %d", subject, len(list))
		return apitype.Suggestion{}
	}
	dan1, dan2, patch := by(cards, "Offer 1"), by(cards, "Offer 2"), by(cards, "Patch 5")
	if o := dan1.ScreenerOffer; o == nil || o.Of != "sender" || o.Value != "dan@deals.example" || dan2.ScreenerOffer != nil {
		t.Fatalf("the keys: on the first card %+v, on the second %+v", dan1.ScreenerOffer, dan2.ScreenerOffer)
	}
	release := by(cards, "Release 4")
	if o := release.ScreenerOffer; o == nil || o.Of != "list" || o.Value != "dev.lists.example" || patch.ScreenerOffer != nil {
		t.Fatalf("the list's keys: %+v, then %+v", release.ScreenerOffer, patch.ScreenerOffer)
	}
	before, err := a.client.Learning(ctx, w.scout)
	if err != nil {
		t.Fatal(err)
	}

	// Always screen Dan: both his cards are rejected in Screened, and the
	// learner learns both rejections.
	res, err := a.client.ScreenSender(ctx, dan1.ID, "screen")
	if err != nil {
		t.Fatal(err)
	}
	danRule := ruleIDOf(t, res.Rule)
	if res.Rule.Position != 0 || res.Of != "sender" || len(res.Settled) != 2 {
		t.Fatalf("always screen: %+v", res)
	}
	for _, s := range res.Settled {
		if s.Status != "rejected" || s.Lane != "screened" {
			t.Fatalf("settled card %s: %s in %s", s.Title, s.Status, s.Lane)
		}
	}
	if l, _ := a.client.Learning(ctx, w.scout); l.Decisions != before.Decisions+2 {
		t.Fatalf("the learner learned %d decisions, want %d", l.Decisions, before.Decisions+2)
	}
	if _, err := a.client.ScreenSender(ctx, dan2.ID, "screen"); err == nil || !strings.Contains(err.Error(), "already") {
		t.Fatalf("the same key again: %v", err)
	}
	list, err := a.client.Rules(ctx, w.scout)
	if err != nil || len(list.Rules) == 0 || ruleIDOf(t, list.Rules[0]) != danRule {
		t.Fatalf("the scout's rules: %+v, %v", list.Rules, err)
	}

	// Always show the list: its card the person had screened comes back.
	if _, err := a.client.Screen(ctx, patch.ID); err != nil {
		t.Fatal(err)
	}
	res, err = a.client.ScreenSender(ctx, release.ID, "show")
	if err != nil || res.Of != "list" || len(res.Settled) != 2 {
		t.Fatalf("always show the list: %+v, %v", res, err)
	}
	for _, s := range res.Settled {
		if s.Status != "pending" || s.Lane != "inbox" {
			t.Fatalf("settled list card %s: %s in %s", s.Title, s.Status, s.Lane)
		}
	}

	// Later mail: decided by the rules, saying so.
	deliver(screenerMail("Dan Deals <dan@deals.example>", "", "Offer", 6))
	deliver(screenerMail("Gina <gina@lists.example>", "dev.lists.example", "Release", 7))
	cards = cardsOf(t, a, w.scout, 7)
	dan6, rel7 := by(cards, "Offer 6"), by(cards, "Release 7")
	if dan6.Lane != "screened" || dan6.Status != "pending" || dan6.Screener == nil || !strings.HasPrefix(dan6.Screener.Why, "you screened this sender on ") {
		t.Fatalf("Dan's next mail: %s in %s, screener %+v", dan6.Status, dan6.Lane, dan6.Screener)
	}
	if rel7.Lane != "inbox" || rel7.Screener == nil || !strings.HasPrefix(rel7.Screener.Why, "you always show this list (since ") {
		t.Fatalf("the list's next mail: %s, screener %+v", rel7.Lane, rel7.Screener)
	}

	// Removing Dan's rule gives his next mail back to the learner (still
	// learning: the inbox), with nothing of the rule on it.
	if err := a.client.DeleteRule(ctx, w.scout, danRule); err != nil {
		t.Fatal(err)
	}
	deliver(screenerMail("Dan Deals <dan@deals.example>", "", "Offer", 8))
	dan8 := by(cardsOf(t, a, w.scout, 8), "Offer 8")
	if dan8.Lane != "inbox" || dan8.Screener != nil || dan8.Assessment == nil || dan8.Assessment.RuleID != "" || dan8.Assessment.Learning == "" {
		t.Fatalf("Dan's mail after the rule went: %s, screener %+v, assessment %+v", dan8.Lane, dan8.Screener, dan8.Assessment)
	}

	screenerFolder(t, a)
}

// screenerFolder: on a folder scout the keys apply to the file's folder,
// by path prefix (files in folders within it too).
func screenerFolder(t *testing.T, a *agentProc) {
	t.Helper()
	watchtest.Need(t)
	ctx := context.Background()
	dir := t.TempDir()
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "Drop", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	drop := func(name string) {
		t.Helper()
		tmp := filepath.Join(t.TempDir(), filepath.Base(name))
		if err := os.WriteFile(tmp, []byte("Receipt "+name+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	drop("receipts/a.txt")
	first := cardsOf(t, a, sc.ID, 1)[0]
	drop("receipts/b.txt")
	drop("notes/c.txt")
	cards := cardsOf(t, a, sc.ID, 3)
	if o := first.ScreenerOffer; o == nil || o.Of != "folder" || !strings.HasSuffix(o.Value, "receipts/") {
		t.Fatalf("the folder's keys: %+v on %s", first.ScreenerOffer, first.Path)
	}
	res, err := a.client.ScreenSender(ctx, first.ID, "screen")
	if err != nil || len(res.Settled) != 2 {
		t.Fatalf("always screen the folder: %+v, %v (cards %v)", res, err, titles(cards))
	}
	drop("receipts/2026/d.txt")
	var d apitype.Suggestion
	for _, s := range cardsOf(t, a, sc.ID, 4) {
		if strings.HasSuffix(s.Path, "d.txt") {
			d = s
		}
	}
	if d.Lane != "screened" || d.Screener == nil || !strings.HasPrefix(d.Screener.Why, "you screened this folder on ") {
		t.Fatalf("a file in a folder within: %s, screener %+v", d.Lane, d.Screener)
	}
	if err := a.client.DeleteRule(ctx, sc.ID, ruleIDOf(t, res.Rule)); err != nil {
		t.Fatal(err)
	}
	drop("receipts/e.txt")
	var e apitype.Suggestion
	for _, s := range cardsOf(t, a, sc.ID, 5) {
		if strings.HasSuffix(s.Path, "e.txt") {
			e = s
		}
	}
	if e.Lane != "inbox" || e.Screener != nil {
		t.Fatalf("after the rule went: %s, screener %+v", e.Lane, e.Screener)
	}
}
