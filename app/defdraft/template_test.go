package defdraft_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/defdraft"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// The starter template "Invoices … become tasks due on the date in the
// mail" does what it says: a mail whose date the content cues read as an
// appointment (a time of day) or as nothing (a bare date) is still a task
// due on that date, and the template's summary says where the due date
// comes from.
func TestInvoicesTemplateSetsTheDueDateInTheMail(t *testing.T) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	d := g.OpenDesktop(t, t.TempDir(), gmailtest.DesktopOptions{})
	d.Connect()
	var tpl defdraft.Draft
	for _, x := range d.Core.Drafts().Templates(ctx) {
		if strings.HasPrefix(x.Title, "Invoices") {
			tpl = x
		}
	}
	if !strings.Contains(tpl.Title, "due on the date in the mail") ||
		!strings.Contains(strings.Join(tpl.Summary, " "), "as a task, due on the date its content names") {
		t.Fatalf("the template: %q, summary %q", tpl.Title, tpl.Summary)
	}
	doc, err := definition.Parse("invoices.json", []byte(strings.Replace(string(tpl.Definition), "you@gmail.com", gmailtest.Account, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Core.Definitions().Import(ctx, []definition.Document{doc}, defsync.ImportOptions{Apply: true}); err != nil {
		t.Fatal(err)
	}
	deliver := func(subject, body string) {
		raw := "From: Billing <billing@acme.example>\r\nTo: " + gmailtest.Account + "\r\nSubject: " + subject +
			"\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\nMessage-ID: <" + strings.ReplaceAll(subject, " ", "-") + "@acme.example>\r\n" +
			"Content-Type: text/plain; charset=utf-8\r\n\r\n" + body + "\r\n"
		if _, _, err := g.Gmail.Deliver(gmailtest.Account, []byte(raw)); err != nil {
			t.Fatal(err)
		}
	}
	deliver("Invoice 42 from ACME", "Hello Ann, your invoice for April is attached. It will be charged on 3 December 2099 at 10:00.")
	deliver("Your bill for May", "Total 120 EUR. 31 May 2099.")
	want := map[string]time.Time{
		"Pay: Invoice 42 from ACME": time.Date(2099, 12, 3, 10, 0, 0, 0, time.Local),
		"Pay: Your bill for May":    time.Date(2099, 5, 31, 0, 0, 0, 0, time.Local),
	}
	var cards []scouts.Suggestion
	d.Until("two invoice cards", func() bool {
		cards, err = d.Core.DB.ListSuggestions(ctx, localdb.SuggestionFilter{Status: scouts.StatusPending})
		return err == nil && len(cards) == 2
	})
	for _, s := range cards {
		due, ok := want[s.Title]
		if !ok || s.ProposedKind != scouts.EntityTask || s.Assessment.RuleID != "invoices" || !s.Assessment.Due.Equal(due) {
			t.Errorf("card %q: kind %s, assessment %+v; want a task of rule invoices due %v", s.Title, s.ProposedKind, s.Assessment, due)
		}
	}
}
