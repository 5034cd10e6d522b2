package gmaildesk

import (
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// TestWatchSentConfig: watching sent mail waits three days by default,
// as many as asked within 1..60; a wait without watch_sent, a wait out of
// range and watch_sent in relay-triage mode are refused, saying why.
func TestWatchSentConfig(t *testing.T) {
	for _, c := range []struct {
		cfg   string
		after time.Duration
		err   string
	}{
		{`{"email":"ann@example.com"}`, 0, ""},
		{`{"email":"ann@example.com","watch_sent":true}`, 3 * 24 * time.Hour, ""},
		{`{"email":"ann@example.com","mode":"relay-ping","watch_sent":true,"awaiting_reply_days":7}`, 7 * 24 * time.Hour, ""},
		{`{"email":"ann@example.com","awaiting_reply_days":5}`, 0, "awaiting_reply_days needs watch_sent: true"},
		{`{"email":"ann@example.com","watch_sent":true,"awaiting_reply_days":61}`, 0, "awaiting_reply_days must be 1 to 60"},
		{`{"email":"ann@example.com","watch_sent":true,"awaiting_reply_days":-1}`, 0, "awaiting_reply_days must be 1 to 60"},
		{`{"email":"ann@example.com","watch_sent":"yes"}`, 0, "watch_sent"},
		{`{"email":"ann@example.com","mode":"relay-triage","watch_sent":true}`, 0, "watch_sent needs local or relay-ping mode"},
	} {
		g, err := ParseConfig([]byte(c.cfg))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || scouts.ErrorCode(err) != scouts.EInvalid {
				t.Errorf("%s: error %v, want %q", c.cfg, err, c.err)
			}
			continue
		}
		if err != nil || g.AwaitAfter() != c.after {
			t.Errorf("%s: wait %v (%v), want %v", c.cfg, g.AwaitAfter(), err, c.after)
		}
	}
}
