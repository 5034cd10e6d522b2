package cli

import (
	"flag"
	"io"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/scouts"
)

// entityColumn is one column of an entity list: its heading and its cell.
type entityColumn struct {
	head string
	cell func(apitype.Entity) string
}

// entityColumns are the columns of a kind's list: each shows what its
// kind has (a task's due date, an event's time and place), none what it
// has not (a note is never done).
func entityColumns(kind string) []entityColumn {
	id := entityColumn{"ID", func(e apitype.Entity) string { return e.ID }}
	age := entityColumn{"AGE", func(e apitype.Entity) string { return ago(e.CreatedAt) }}
	title := entityColumn{"TITLE", func(e apitype.Entity) string { return clipText(e.Title, 60) }}
	from := entityColumn{"FROM", func(e apitype.Entity) string { return e.SourceSuggestionID }}
	done := entityColumn{"DONE", func(e apitype.Entity) string {
		if e.Done != nil && *e.Done {
			return "✓"
		}
		return ""
	}}
	switch kind {
	case "task":
		return []entityColumn{id, age, done, {"DUE", func(e apitype.Entity) string { return dueText(e.Due) }}, title,
			{"PROJECT", func(e apitype.Entity) string { return e.ProjectID }}, from}
	case "event":
		return []entityColumn{id, {"WHEN", eventWhen}, title,
			{"WHERE", func(e apitype.Entity) string { return clipText(e.Location, 30) }}, from}
	case "project":
		return []entityColumn{id, age, done, title, from}
	}
	return []entityColumn{id, age, title, from}
}

func entityRows(w io.Writer, kind string, list []apitype.Entity) error {
	cols := entityColumns(kind)
	t := table(w)
	row := make([]string, len(cols))
	for i, c := range cols {
		row[i] = c.head
	}
	io.WriteString(t, strings.Join(row, "\t")+"\n")
	for _, e := range list {
		for i, c := range cols {
			row[i] = c.cell(e)
		}
		io.WriteString(t, strings.Join(row, "\t")+"\n")
	}
	return t.Flush()
}

// dueText is a due date as the person gives it (--due 2026-05-31), with
// the time of day when it has one.
func dueText(t *time.Time) string {
	if t == nil {
		return ""
	}
	return dayOrTime(*t)
}

// eventWhen is an event's start, and its end when it has one.
func eventWhen(e apitype.Entity) string {
	if e.StartsAt == nil {
		return ""
	}
	s := dayOrTime(*e.StartsAt)
	if e.EndsAt != nil {
		end := dayOrTime(*e.EndsAt)
		if sameDay(*e.StartsAt, *e.EndsAt) && len(end) > len("2006-01-02") {
			end = e.EndsAt.Local().Format("15:04")
		}
		if end != s {
			s += " – " + end
		}
	}
	return s
}

// dayOrTime is a local date, with the time of day unless it is midnight
// (a date alone is stored as its local midnight).
func dayOrTime(t time.Time) string {
	l := t.Local()
	if l.Hour() == 0 && l.Minute() == 0 && l.Second() == 0 {
		return l.Format("2006-01-02")
	}
	return l.Format("2006-01-02 15:04")
}

func sameDay(a, b time.Time) bool {
	a, b = a.Local(), b.Local()
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}

// kindFlags refuses a field its kind does not have (--due on a note),
// which the agent would otherwise drop without a word.
func kindFlags(f *flags, kind string) error {
	var err error
	f.Visit(func(fl *flag.Flag) {
		owner := map[string]string{"due": "task", "starts": "event", "ends": "event", "location": "event"}[fl.Name]
		if err == nil && owner != "" && owner != kind {
			err = usageErrorf("--%s is %s's field; %s has none", fl.Name, scouts.EntityKind(owner).WithArticle(), scouts.EntityKind(kind).WithArticle())
		}
	})
	return err
}
