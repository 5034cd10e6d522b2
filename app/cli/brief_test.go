package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
)

// TestBriefPrintsTheOpenAlarms: `scouts brief` lists the alarms still
// open, with their message and whether they were acknowledged; a brief
// without alarms says nothing of them.
func TestBriefPrintsTheOpenAlarms(t *testing.T) {
	b := apitype.Brief{Since: time.Now(), BriefAt: "08:30", Alarms: []apitype.Alarm{
		{ID: "al_1", Severity: "critical", Status: "open", Message: "Gmail access for ann@example.com expired — reconnect it."},
		{ID: "al_2", Severity: "warning", Status: "acknowledged", Message: "The relay has been unreachable for an hour."},
	}}
	var out strings.Builder
	printBrief(&out, b, "scouts")
	for _, want := range []string{"Alarms open: 2", "al_1  critical: Gmail access for ann@example.com expired — reconnect it.",
		"al_2  warning: The relay has been unreachable for an hour. (acknowledged)"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("brief without %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	b.Alarms = nil
	printBrief(&out, b, "scouts")
	if strings.Contains(out.String(), "Alarms") {
		t.Fatalf("a brief without alarms speaks of them:\n%s", out.String())
	}
}
