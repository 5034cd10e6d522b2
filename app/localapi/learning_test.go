package localapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The grace period of implicit feedback is shown with the thresholds and
// changed through them; a client that does not know it (a body without
// the field, as every client written before it sends) keeps it instead
// of turning silence off; an impossible value is refused.
func TestLearningSettingsKeepTheGracePeriodOfSilence(t *testing.T) {
	srv, _ := newServer(t)
	code, _, body := call(t, srv, "POST", "/api/v1/scouts", `{"kind":"folder","path":"`+t.TempDir()+`"}`)
	var sc struct{ ID string }
	if code != 201 && code != 200 || json.Unmarshal(body, &sc) != nil || sc.ID == "" {
		t.Fatalf("create: %d %s", code, body)
	}
	path := "/api/v1/scouts/" + sc.ID + "/learning"
	silence := func(body []byte) int {
		t.Helper()
		var l struct {
			Settings struct {
				SilenceDays *int `json:"silence_days"`
			} `json:"settings"`
		}
		if err := json.Unmarshal(body, &l); err != nil || l.Settings.SilenceDays == nil {
			t.Fatalf("no silence_days in %s (%v)", body, err)
		}
		return *l.Settings.SilenceDays
	}
	if code, _, body := call(t, srv, "GET", path, ""); code != 200 || silence(body) != 7 {
		t.Fatalf("a new scout: %d %s, want silence_days 7", code, body)
	}
	if code, _, body := call(t, srv, "PUT", path, `{"cold_start":12,"screen_below":0.3,"spam_above":0.9,"min_spam":10,"silence_days":3}`); code != 200 || silence(body) != 3 {
		t.Fatalf("set to 3: %d %s", code, body)
	}
	if code, _, body := call(t, srv, "PUT", path, `{"cold_start":20,"screen_below":0.3,"spam_above":0.9,"min_spam":10}`); code != 200 || silence(body) != 3 {
		t.Fatalf("a body without silence_days turned it to %d (%d %s), want it kept at 3", silence(body), code, body)
	}
	if code, e, body := call(t, srv, "PUT", path, `{"cold_start":20,"screen_below":0.3,"spam_above":0.9,"min_spam":10,"silence_days":-2}`); code != 400 || !strings.Contains(e.Error, "silence") {
		t.Fatalf("silence_days -2: %d %s, want 400 naming it", code, body)
	}
	if code, _, body := call(t, srv, "PUT", path, `{"cold_start":20,"screen_below":0.3,"spam_above":0.9,"min_spam":10,"silence_days":0}`); code != 200 || silence(body) != 0 {
		t.Fatalf("turn off: %d %s", code, body)
	}
}

// The gates of a scout's actions are kept by a PUT of the learning
// settings that does not carry them (as every client written before them
// sends).
func TestLearningSettingsKeepTheGates(t *testing.T) {
	srv, c := newServer(t)
	code, _, body := call(t, srv, "POST", "/api/v1/scouts", `{"kind":"folder","path":"`+t.TempDir()+`"}`)
	var sc struct{ ID string }
	if code != 201 && code != 200 || json.Unmarshal(body, &sc) != nil || sc.ID == "" {
		t.Fatalf("create: %d %s", code, body)
	}
	ctx := context.Background()
	st, err := c.DB.LearnState(ctx, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	st.Settings.NotifyPerHour, st.Settings.QuietStart, st.Settings.QuietEnd = 5, "22:00", "07:00"
	if err := c.DB.SetLearnSettings(ctx, sc.ID, st.Settings); err != nil {
		t.Fatal(err)
	}
	if code, _, body := call(t, srv, "PUT", "/api/v1/scouts/"+sc.ID+"/learning", `{"cold_start":12,"screen_below":0.3,"spam_above":0.9,"min_spam":10}`); code != 200 {
		t.Fatalf("put: %d %s", code, body)
	}
	st, _ = c.DB.LearnState(ctx, sc.ID)
	if st.Settings.ColdStart != 12 || st.Settings.NotifyPerHour != 5 || st.Settings.QuietStart != "22:00" || st.Settings.QuietEnd != "07:00" {
		t.Fatalf("after the PUT: %+v", st.Settings)
	}
}

// The gates are shown with the learning settings — the defaults in force
// on a new scout — and set through them: a cooldown, a cap of posts, quiet
// hours; a PUT without them keeps them; "" and "" lift the quiet hours;
// half of a pair, or a time that is not HH:MM, is refused naming it.
func TestLearningSettingsShowAndSetTheGates(t *testing.T) {
	srv, _ := newServer(t)
	code, _, body := call(t, srv, "POST", "/api/v1/scouts", `{"kind":"folder","path":"`+t.TempDir()+`"}`)
	var sc struct{ ID string }
	if code != 201 && code != 200 || json.Unmarshal(body, &sc) != nil || sc.ID == "" {
		t.Fatalf("create: %d %s", code, body)
	}
	path := "/api/v1/scouts/" + sc.ID + "/learning"
	type gates struct {
		Cooldown   *int    `json:"cooldown_seconds"`
		PerHour    *int    `json:"notify_per_hour"`
		QuietStart *string `json:"quiet_start"`
		QuietEnd   *string `json:"quiet_end"`
	}
	read := func(body []byte) string {
		t.Helper()
		var l struct {
			Settings gates `json:"settings"`
		}
		if err := json.Unmarshal(body, &l); err != nil || l.Settings.Cooldown == nil || l.Settings.PerHour == nil ||
			l.Settings.QuietStart == nil || l.Settings.QuietEnd == nil {
			t.Fatalf("gates missing from %s (%v)", body, err)
		}
		g := l.Settings
		return fmt.Sprintf("%d %d %q-%q", *g.Cooldown, *g.PerHour, *g.QuietStart, *g.QuietEnd)
	}
	const base = `"cold_start":30,"screen_below":0.3,"spam_above":0.9,"min_spam":10`
	if code, _, body := call(t, srv, "GET", path, ""); code != 200 || read(body) != `300 30 ""-""` {
		t.Fatalf("a new scout: %d %s, want the defaults", code, body)
	}
	put := func(extra, want string) {
		t.Helper()
		if code, _, body := call(t, srv, "PUT", path, `{`+base+extra+`}`); code != 200 || read(body) != want {
			t.Fatalf("PUT {%s}: %d %s, want %s", extra, code, body, want)
		}
	}
	put(`,"cooldown_seconds":60,"notify_per_hour":2,"quiet_start":"22:00","quiet_end":"07:00"`, `60 2 "22:00"-"07:00"`)
	put(``, `60 2 "22:00"-"07:00"`)
	put(`,"notify_per_hour":0`, `60 30 "22:00"-"07:00"`)
	put(`,"quiet_start":"","quiet_end":""`, `60 30 ""-""`)
	for _, bad := range []struct{ body, says string }{
		{`,"quiet_start":"23:00"`, "quiet_start and quiet_end go together"},
		{`,"quiet_start":"10pm","quiet_end":"07:00"`, "not a time of day"},
		{`,"cooldown_seconds":-1`, "cooldown_seconds"},
	} {
		if code, e, body := call(t, srv, "PUT", path, `{`+base+bad.body+`}`); code != 400 || !strings.Contains(e.Error, bad.says) {
			t.Fatalf("PUT {%s}: %d %s, want 400 saying %q", bad.body, code, body, bad.says)
		}
	}
}
