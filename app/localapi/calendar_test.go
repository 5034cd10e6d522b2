package localapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/scouts-hq/scouts/app/apitype"
)

// getFeed asks for path as a calendar app does: no bearer token, no
// cookie, only what the URL holds.
func getFeed(t *testing.T, srv *httptest.Server, path string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// parseICS reads a calendar with a parser other than the one that wrote
// it (emersion/go-ical; the agent writes with arran4/golang-ical).
func parseICS(t *testing.T, body string) *goical.Calendar {
	t.Helper()
	// RFC 5545 §3.1: content lines end with CRLF; some calendar apps
	// refuse a feed whose lines end with a bare LF (the parser here
	// accepts both, so the line ends are checked apart).
	if lf := strings.Count(body, "\n"); lf == 0 || strings.Count(body, "\r\n") != lf {
		t.Fatalf("the calendar's lines do not all end with CRLF (%d CRLF of %d line ends):\n%q", strings.Count(body, "\r\n"), lf, body)
	}
	cal, err := goical.NewDecoder(strings.NewReader(body)).Decode()
	if err != nil {
		t.Fatalf("the calendar does not parse: %v\n%s", err, body)
	}
	return cal
}

// The feed serves events and the tasks with a due date, as iCalendar a
// real parser reads, to whoever has the feed's token alone; a wrong or
// revoked token, or the API's own token, is refused, and the feed's
// token opens nothing else. One event downloads as a file.
func TestCalendarFeed(t *testing.T) {
	srv, _ := newServer(t)
	if st, _ := getFeed(t, srv, "/api/v1/calendar.ics", nil); st != http.StatusUnauthorized {
		t.Fatalf("feed before any token: %d, want 401", st)
	}
	var ev, task apitype.Entity
	_, _, b := call(t, srv, "POST", "/api/v1/events", `{"title":"Workshop in Lisbon","body":"Bring the slides","starts_at":"2026-06-03T09:00:00Z","ends_at":"2026-06-03T12:30:00Z","location":"Rua Augusta 12"}`)
	json.Unmarshal(b, &ev)
	_, _, b = call(t, srv, "POST", "/api/v1/tasks", `{"title":"Pay invoice 2231","due":"2026-06-10T17:00:00Z"}`)
	json.Unmarshal(b, &task)
	call(t, srv, "POST", "/api/v1/tasks", `{"title":"Someday, no date"}`)
	call(t, srv, "POST", "/api/v1/events", `{"title":"An event without a time"}`)
	if ev.ID == "" || task.ID == "" {
		t.Fatalf("entities not made: %+v %+v", ev, task)
	}

	st, _, b := call(t, srv, "POST", "/api/v1/calendar/token", "")
	var feed apitype.CalendarFeed
	if err := json.Unmarshal(b, &feed); st != http.StatusCreated || err != nil || feed.Token == "" || !strings.Contains(feed.Path, feed.Token) {
		t.Fatalf("make a token: %d %s", st, b)
	}
	st, body := getFeed(t, srv, feed.Path, nil)
	if st != http.StatusOK {
		t.Fatalf("feed with its token: %d %s", st, body)
	}
	cal := parseICS(t, body)
	events := cal.Events()
	if len(events) != 1 {
		t.Fatalf("feed events: %d, want the one with a start time\n%s", len(events), body)
	}
	e := events[0]
	start, err1 := e.DateTimeStart(time.UTC)
	end, err2 := e.DateTimeEnd(time.UTC)
	summary, _ := e.Props.Text(goical.PropSummary)
	loc, _ := e.Props.Text(goical.PropLocation)
	uid, _ := e.Props.Text(goical.PropUID)
	if err1 != nil || err2 != nil || !start.Equal(time.Date(2026, 6, 3, 9, 0, 0, 0, time.UTC)) || !end.Equal(time.Date(2026, 6, 3, 12, 30, 0, 0, time.UTC)) ||
		summary != "Workshop in Lisbon" || loc != "Rua Augusta 12" || uid != ev.ID+"@scouts" {
		t.Fatalf("feed event: %v %v %v %v %q %q %q\n%s", start, end, err1, err2, summary, loc, uid, body)
	}
	var todos []*goical.Component
	for _, c := range cal.Children {
		if c.Name == goical.CompToDo {
			todos = append(todos, c)
		}
	}
	if len(todos) != 1 {
		t.Fatalf("feed to-dos: %d, want the task with a due date\n%s", len(todos), body)
	}
	due, err := todos[0].Props.DateTime(goical.PropDue, time.UTC)
	tsum, _ := todos[0].Props.Text(goical.PropSummary)
	if err != nil || !due.Equal(time.Date(2026, 6, 10, 17, 0, 0, 0, time.UTC)) || tsum != "Pay invoice 2231" {
		t.Fatalf("feed to-do: %v %v %q\n%s", due, err, tsum, body)
	}

	// Refused: a wrong token, the API's token in its place, the API's
	// token as a bearer header; the feed's token opens nothing else.
	for name, c := range map[string]struct {
		path   string
		header map[string]string
	}{
		"wrong token":          {"/api/v1/calendar.ics?token=" + strings.Repeat("0", len(feed.Token)), nil},
		"API token as feed's":  {"/api/v1/calendar.ics?token=" + token, nil},
		"API bearer":           {"/api/v1/calendar.ics", map[string]string{"Authorization": "Bearer " + token}},
		"feed token elsewhere": {"/api/v1/events?token=" + feed.Token, map[string]string{"Authorization": "Bearer " + feed.Token}},
	} {
		if st, body := getFeed(t, srv, c.path, c.header); st != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401\n%s", name, st, body)
		}
	}

	// A new token revokes the old one; revoking leaves none.
	_, _, b = call(t, srv, "POST", "/api/v1/calendar/token", "")
	var next apitype.CalendarFeed
	json.Unmarshal(b, &next)
	if st, _ := getFeed(t, srv, feed.Path, nil); st != http.StatusUnauthorized {
		t.Errorf("the old token after a new one: %d, want 401", st)
	}
	if st, _ := getFeed(t, srv, next.Path, nil); st != http.StatusOK {
		t.Errorf("the new token: %d, want 200", st)
	}
	if st, _, b := call(t, srv, "DELETE", "/api/v1/calendar/token", ""); st != http.StatusOK {
		t.Fatalf("revoke: %d %s", st, b)
	}
	if st, _ := getFeed(t, srv, next.Path, nil); st != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d, want 401", st)
	}
	_, _, b = call(t, srv, "GET", "/api/v1/calendar", "")
	if !strings.Contains(string(b), `"enabled":false`) {
		t.Errorf("status after revoking: %s", b)
	}

	// One event as a file to download.
	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/events/"+ev.ID+"/ics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	one, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Disposition") != `attachment; filename="Workshop-in-Lisbon.ics"` ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/calendar") {
		t.Fatalf("event download: %d %v\n%s", resp.StatusCode, resp.Header, one)
	}
	if evs := parseICS(t, string(one)).Events(); len(evs) != 1 {
		t.Fatalf("event download holds %d events\n%s", len(evs), one)
	}
}
