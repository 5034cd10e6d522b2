package tray

import (
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
)

// briefNote is the daily brief's notification: the counts in one line; a
// click opens the window's Brief page, where each card can be brought
// back.
func briefNote(b apitype.Brief) Notification {
	parts := []string{fmt.Sprintf("%d waiting in the inbox", b.InboxCount)}
	if b.InboxNew > 0 {
		parts[0] += fmt.Sprintf(" (%d new)", b.InboxNew)
	}
	if n := len(b.Screened); n > 0 {
		parts = append(parts, fmt.Sprintf("%d screened since the last brief", n))
	}
	if n := len(b.Spam); n > 0 {
		parts = append(parts, fmt.Sprintf("%d spam", n))
	}
	if n := len(b.Tasks); n > 0 {
		parts = append(parts, fmt.Sprintf("%d tasks due", n))
	}
	if n := len(b.Events); n > 0 {
		parts = append(parts, fmt.Sprintf("%d events today", n))
	}
	return Notification{Summary: "Your daily brief", Body: strings.Join(parts, " · "), View: "brief"}
}
