package cli

import (
	"strings"
	"testing"
)

// scouts calendar token prints the feed's address once; calendar says
// the feed is on, calendar revoke turns it off.
func TestCalendarFromTheCommandLine(t *testing.T) {
	dir, _ := startTestAgent(t)
	out, errOut, code := cli(t, dir, "calendar")
	if code != 0 || !strings.Contains(out, "feed is off") {
		t.Fatalf("calendar: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, dir, "calendar", "token")
	if code != 0 || !strings.Contains(out, "/api/v1/calendar.ics?token=") {
		t.Fatalf("calendar token: %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code = cli(t, dir, "calendar"); code != 0 || !strings.Contains(out, "feed is on") {
		t.Fatalf("calendar after token: %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code = cli(t, dir, "calendar", "revoke"); code != 0 || !strings.Contains(out, "feed is off") {
		t.Fatalf("calendar revoke: %d\n%s%s", code, out, errOut)
	}
}
