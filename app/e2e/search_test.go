package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// searchMail is a mail whose body holds a word well past Gmail's snippet
// (200 characters): that word is in the mail alone, never in what Scouts
// keeps of it.
func searchMail(bodyWord string) []byte {
	filler := strings.Repeat("The figures for the quarter are attached below. ", 8)
	return []byte(strings.ReplaceAll(fmt.Sprintf(`From: Ana Sousa <ana@partner.example>
To: ann@example.com
Subject: Quarterly xylophone budget
Date: Mon, 2 Nov 2026 10:00:00 +0000
Message-ID: <search-1@partner.example>
Content-Type: text/plain; charset=utf-8

Hi Ann, %s the secret word is %s.
`, filler, bodyWord), "\n", "\r\n"))
}

// TestSearchFindsACardAfterACrash: a Gmail card is found by its subject
// and its sender through the real agent, also after the agent was
// SIGKILLed and started again (the index is written in the card's own
// transaction), through the API and the CLI; a word of the mail's body,
// which Scouts never keeps, is found nowhere and shows in no answer.
func TestSearchFindsACardAfterACrash(t *testing.T) {
	ctx := context.Background()
	w := startGmailWorld(t, "local", "")
	const bodyWord = "quokkabody"
	w.g.gmail.Deliver(gmailUser, searchMail(bodyWord))
	var card apitype.Suggestion
	waitOn(t, on(w.a.changed()), "the mail's card", func() bool {
		for _, s := range gmailSuggestions(t, w.a, w.scout) {
			if strings.Contains(s.Title, "xylophone") {
				card = s
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("%d cards", len(gmailSuggestions(t, w.a, w.scout))) })
	if strings.Contains(card.Excerpt, bodyWord) {
		t.Fatalf("the test's premise: the body word is in the card's excerpt %q", card.Excerpt)
	}

	check := func(when string) {
		t.Helper()
		for _, q := range []string{"xyloph", "from:ana quarterly", "xylophone lane:" + card.Lane} {
			res, err := w.a.client.Search(ctx, q, 0)
			if err != nil {
				t.Fatalf("%s: search %q: %v", when, q, err)
			}
			if len(res.Results) != 1 || res.Results[0].ID != card.ID || res.Results[0].Type != "card" || res.Results[0].Scout != "Work mail" {
				t.Fatalf("%s: search %q: %+v, want the card %s", when, q, res.Results, card.ID)
			}
			if strings.Contains(fmt.Sprint(res), bodyWord) {
				t.Fatalf("%s: search %q shows the mail's body: %+v", when, q, res)
			}
		}
		res, err := w.a.client.Search(ctx, bodyWord, 0)
		if err != nil || len(res.Results) != 0 {
			t.Fatalf("%s: the body's word finds %+v (%v), want nothing", when, res.Results, err)
		}
		out, errOut, code := runCLI(t, w.home, w.a.dataDir, "search", "xylophone")
		if code != 0 || !strings.Contains(out, card.ID) || strings.Contains(out, bodyWord) {
			t.Fatalf("%s: scouts search xylophone: %d\n%s%s", when, code, out, errOut)
		}
	}
	check("before the crash")
	w.a.kill()
	w.a = startAgentEnv(t, w.a.dataDir, w.home, w.env, w.flags...)
	check("after the crash")
}
