package localapi_test

import (
	"context"
	"encoding/json"
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

// The gates of a scout's actions are set by its definition only: a PUT of
// the learning settings, which does not carry them, keeps them.
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
