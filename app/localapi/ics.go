package localapi

import (
	"net/http"
	"strings"
	"unicode"

	ics "github.com/arran4/golang-ical"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

// icsDescriptionMax bounds an entity's body in the feed: a calendar shows
// a description, and a body filled from a long mail need not be copied
// whole into every calendar app that subscribes.
const icsDescriptionMax = 2000

// icsUID is an entity's UID, stable across feeds and downloads, so that a
// calendar app updates an event instead of adding it twice.
func icsUID(e scouts.Entity) string { return e.ID + "@scouts" }

func newCalendar(name string) *ics.Calendar {
	cal := ics.NewCalendar()
	cal.SetProductId("-//Scouts//Scouts agent//EN")
	cal.SetMethod(ics.MethodPublish)
	if name != "" {
		cal.SetXWRCalName(name)
		cal.SetName(name)
	}
	return cal
}

func addEvent(cal *ics.Calendar, e scouts.Entity) {
	ev := cal.AddEvent(icsUID(e))
	ev.SetDtStampTime(e.UpdatedAt)
	ev.SetCreatedTime(e.CreatedAt)
	ev.SetModifiedAt(e.UpdatedAt)
	ev.SetStartAt(e.StartsAt)
	if !e.EndsAt.IsZero() && e.EndsAt.After(e.StartsAt) {
		ev.SetEndAt(e.EndsAt)
	}
	ev.SetSummary(e.Title)
	if d := icsDescription(e.Body); d != "" {
		ev.SetDescription(d)
	}
	if e.Location != "" {
		ev.SetLocation(e.Location)
	}
}

func addTodo(cal *ics.Calendar, e scouts.Entity) {
	td := cal.AddTodo(icsUID(e))
	td.SetDtStampTime(e.UpdatedAt)
	td.SetCreatedTime(e.CreatedAt)
	td.SetModifiedAt(e.UpdatedAt)
	td.SetDueAt(e.Due)
	td.SetSummary(e.Title)
	if d := icsDescription(e.Body); d != "" {
		td.SetDescription(d)
	}
	if e.Done {
		td.SetStatus(ics.ObjectStatusCompleted)
	} else {
		td.SetStatus(ics.ObjectStatusNeedsAction)
	}
}

func icsDescription(body string) string {
	body = strings.TrimSpace(body)
	if r := []rune(body); len(r) > icsDescriptionMax {
		body = string(r[:icsDescriptionMax]) + "…"
	}
	return body
}

// eventCalendar is one event as a calendar file.
func eventCalendar(e scouts.Entity) string {
	cal := newCalendar("")
	addEvent(cal, e)
	return cal.Serialize(ics.WithNewLineWindows)
}

// feedCalendar is the feed: every event with a start time and every task
// with a due date (done ones as COMPLETED, so that a calendar app sees
// them finished rather than gone).
func (s *Server) feedCalendar(r *http.Request) (string, error) {
	cal := newCalendar("Scouts")
	cal.SetRefreshInterval("PT15M")
	cal.SetXPublishedTTL("PT15M")
	events, err := s.core.DB.ListEntities(r.Context(), scouts.EntityEvent, localdb.EntityFilter{Limit: 5000})
	if err != nil {
		return "", err
	}
	for _, e := range events {
		if !e.StartsAt.IsZero() {
			addEvent(cal, e)
		}
	}
	tasks, err := s.core.DB.ListEntities(r.Context(), scouts.EntityTask, localdb.EntityFilter{Limit: 5000})
	if err != nil {
		return "", err
	}
	for _, e := range tasks {
		if !e.Due.IsZero() {
			addTodo(cal, e)
		}
	}
	return cal.Serialize(ics.WithNewLineWindows), nil
}

// icsFileName is a download's file name: the title's letters, digits and
// a few marks, never a path or a quote.
func icsFileName(title string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			return r
		case r == ' ' || r == '.':
			return '-'
		}
		return -1
	}, title)
	name = strings.Trim(name, "-")
	if r := []rune(name); len(r) > 60 {
		name = string(r[:60])
	}
	if name == "" {
		name = "event"
	}
	return name + ".ics"
}
