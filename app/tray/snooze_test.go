package tray

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// A snoozed card coming back is announced; snoozing one is not.
func TestReturnedSnoozeIsNotified(t *testing.T) {
	var got []string
	c := newController(Options{})
	c.notify = func(title string) { got = append(got, title) }
	b, _ := json.Marshal(apitype.Suggestion{Title: "Quarterly report", Status: "pending", Lane: "snoozed"})
	c.onEvent(apitype.StreamEvent{Type: "suggestion.snoozed", Data: b})
	b, _ = json.Marshal(apitype.Suggestion{Title: "Quarterly report", Status: "pending", Lane: "inbox"})
	c.onEvent(apitype.StreamEvent{Type: "suggestion.returned", Data: b})
	if want := []string{"Back from snooze: Quarterly report"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("notified %q, want %q", got, want)
	}
}

// The daily brief is one notification that opens the Brief page.
func TestBriefIsAnnouncedAndOpensTheBriefPage(t *testing.T) {
	var got []Notification
	c := newController(Options{})
	c.announce = func(n Notification) error { got = append(got, n); return nil }
	b, _ := json.Marshal(apitype.Brief{InboxCount: 4, InboxNew: 2, Screened: []apitype.Suggestion{{Title: "Weekly digest"}}})
	c.onEvent(apitype.StreamEvent{Type: "brief.ready", Data: b})
	if len(got) != 1 || got[0].View != "brief" || got[0].Summary != "Your daily brief" ||
		got[0].Body != "4 waiting in the inbox (2 new) · 1 screened since the last brief" {
		t.Fatalf("notifications: %+v", got)
	}
}
