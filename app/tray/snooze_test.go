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
