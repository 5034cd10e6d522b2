package cue

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

func TestPropose(t *testing.T) {
	ref := phraseRef(t) // Wednesday 25 November 2026, 09:12, Paris
	loc := ref.Location()
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, loc) }
	at := func(m time.Month, d, h, min int) time.Time { return time.Date(2026, m, d, h, min, 0, 0, loc) }
	prose := strings.Repeat("The committee looked at the survey results and the history of the garden. ", 30)

	tests := []struct {
		name string
		in   Input
		want Proposal
	}{
		{
			name: "a file asking to pay an invoice is a task due the coming Friday",
			in:   Input{Title: "acme", Text: "Pay the ACME invoice — due Friday: 1 200 EUR", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityTask, Due: day(time.November, 27), AllDay: true,
				Reasons: []string{"mentions a date: Fri 27 Nov", "asks for action: “pay”, “invoice”, “due”"}},
		},
		{
			name: "a meeting with a time is an event at that time",
			in:   Input{Title: "Team sync on Tuesday at 14:30 in room 4", DefaultKind: scouts.EntityTask},
			want: Proposal{Kind: scouts.EntityEvent, Start: at(time.December, 1, 14, 30),
				Reasons: []string{"mentions a date: Tue 1 Dec 14:30", "reads like a meeting: “sync”"}},
		},
		{
			name: "a meeting with a start and an end",
			in:   Input{Title: "Board meeting", Text: "Board meeting: 9 December 2026, 10:00–12:00, main office.", DefaultKind: scouts.EntityTask},
			want: Proposal{Kind: scouts.EntityEvent, Start: at(time.December, 9, 10, 0), End: at(time.December, 9, 12, 0),
				Reasons: []string{"mentions a date: Wed 9 Dec 10:00–12:00", "reads like a meeting: “meeting”"}},
		},
		{
			name: "an invitation without a time is an all-day event",
			in:   Input{Title: "You're invited: Christmas party on 18 December", DefaultKind: scouts.EntityTask},
			want: Proposal{Kind: scouts.EntityEvent, Start: day(time.December, 18), AllDay: true,
				Reasons: []string{"mentions a date: Fri 18 Dec", "reads like a meeting: “invited”"}},
		},
		{
			name: "a file's stamp in a commit mail is when it happened, not an appointment",
			in:   Input{Title: "CVS: spamassassin/lib Mail", Text: "Modified Files:\n--- SpamAssassin.pm\t25 Nov 2026 09:10:02 -0000\t1.115\n+++ SpamAssassin.pm\t25 Nov 2026 13:19:28 -0000\t1.116", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityNote},
		},
		{
			name: "a quoted mail's header and a log line are stamps too",
			in:   Input{Title: "Re: razor error", Text: "> Date:  Thu, 26 Nov 2026 22:58:16 -0400\n> the check failed\nFrom pudge@perl.org  Wed Nov 25 12:22:44 2026\n[2026-11-25 18:04:11.532] agent restarted", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityNote},
		},
		{
			name: "tonight names no time: no appointment, a date",
			in:   Input{Title: "Re: razor error", Text: "I will play with it more tonight when I get home and see if the error comes back.", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityNote, Date: day(time.November, 25), DateAllDay: true},
		},
		{
			name: "a time written out is one",
			in:   Input{Title: "Drinks", Text: "Drinks tonight at 7pm, the usual place.", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityEvent, Start: at(time.November, 25, 19, 0),
				Reasons: []string{"mentions a time: Wed 25 Nov 19:00"}},
		},
		{
			name: "a deadline with a year, in the next year",
			in:   Input{Title: "Tax return", Text: "The tax return must be filed by 31 January 2027.", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityTask, Due: time.Date(2027, 1, 31, 0, 0, 0, 0, loc), AllDay: true,
				Reasons: []string{"mentions a date: Sun 31 Jan 2027", "asks for action: “by”"}},
		},
		{
			name: "an ISO date is a date, not a time of day",
			in:   Input{Title: "Renew passport before 2027-03-15", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityTask, Due: time.Date(2027, 3, 15, 0, 0, 0, 0, loc), AllDay: true,
				Reasons: []string{"mentions a date: Mon 15 Mar 2027", "asks for action: “before”, “renew”"}},
		},
		{
			name: "amounts, versions and phone numbers are not dates",
			in: Input{Title: "Release 2.4.1", Text: "Version 10.12 costs 1 200 EUR (VAT 20 %). Support: +33 6 12 34 56 78 or 0800 123 456.",
				DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityNote},
		},
		{
			name: "a request is a task",
			in:   Input{Title: "Draft", Text: "Could you review the attached draft?", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityTask, Reasons: []string{"asks for action: “could you”"}},
		},
		{
			name: "an imperative is a task",
			in:   Input{Title: "Lease", Text: "Sign the lease and send it back to the agency.", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityTask, Reasons: []string{"asks for action: “sign”"}},
		},
		{
			name: "a request in the subject wins over a long body",
			in:   Input{Title: "Please read before the board", Text: prose, DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityTask, Reasons: []string{"asks for action: “please”"}},
		},
		{
			name: "long prose is a note",
			in:   Input{Title: "Garden history", Text: prose, DefaultKind: scouts.EntityTask},
			want: Proposal{Kind: scouts.EntityNote, Reasons: []string{"long prose (390 words)"}},
		},
		{
			name: "a document is a note",
			in:   Input{Title: "Q3 report.pdf", Text: "Quarterly figures for the northern region.", DefaultKind: scouts.EntityTask},
			want: Proposal{Kind: scouts.EntityNote, Reasons: []string{"a document (.pdf)"}},
		},
		{
			name: "a dated request with no deadline word is due that day",
			in:   Input{Title: "Reminder: the survey closes tomorrow", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityTask, Due: day(time.November, 26), AllDay: true,
				Reasons: []string{"asks for action: “reminder”", "mentions a date: Thu 26 Nov"}},
		},
		{
			name: "no cue keeps the source's kind",
			in:   Input{Title: "Lunch menu", Text: "Soup, salad and a dessert.", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityNote},
		},
		{
			name: "nothing at all",
			in:   Input{DefaultKind: scouts.EntityTask},
			want: Proposal{Kind: scouts.EntityTask},
		},
		{
			name: "cues past the first 4000 bytes are not read",
			in:   Input{Title: "Log", Text: strings.Repeat("ok ", 1400) + "Please pay by Friday.", DefaultKind: scouts.EntityNote},
			want: Proposal{Kind: scouts.EntityNote, Reasons: []string{"long prose (1 404 words)"}},
		},
		{
			name: "the longest project named, in any case, across a line break",
			in: Input{Title: "Kick-off notes", Text: "Notes from the WEBSITE\nrelaunch kick-off.", DefaultKind: scouts.EntityNote,
				Projects: []Project{{ID: "p1", Name: "Website"}, {ID: "p2", Name: "Website relaunch"}, {ID: "p3", Name: "Ops"}}},
			want: Proposal{Kind: scouts.EntityNote, ProjectID: "p2", Reasons: []string{"names the project “Website relaunch”"}},
		},
		{
			name: "a project name inside another word is not named",
			in: Input{Title: "Developers wanted", Text: "We hire developers and shops.", DefaultKind: scouts.EntityNote,
				Projects: []Project{{ID: "p3", Name: "Ops"}, {ID: "p4", Name: "Develop"}}},
			want: Proposal{Kind: scouts.EntityNote},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Ref, in.Loc = ref, loc
			got := Propose(in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Propose:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestPastDatesAreNotDue: a date before the item arrived is neither a due
// date nor an event start; the arrival day still is, unless its time has
// gone by.
func TestPastDatesAreNotDue(t *testing.T) {
	ref := phraseRef(t) // Wednesday 25 November 2026, 09:12
	loc := ref.Location()
	tests := []struct {
		text       string
		kind       scouts.EntityKind
		due, start time.Time
	}{
		{"The invoice was due on 2 November", scouts.EntityTask, time.Time{}, time.Time{}},
		{"Please pay the invoice that was due yesterday", scouts.EntityTask, time.Time{}, time.Time{}},
		{"Last Monday we had the meeting at 10:00", scouts.EntityNote, time.Time{}, time.Time{}},
		{"The call at 8:00 today went well", scouts.EntityNote, time.Time{}, time.Time{}},
		{"Changelog of 2026-11-20 attached", scouts.EntityNote, time.Time{}, time.Time{}},
		{"Please send the signed copy back today", scouts.EntityTask, time.Date(2026, 11, 25, 0, 0, 0, 0, loc), time.Time{}},
		{"Quick call at 16:00 today?", scouts.EntityEvent, time.Time{}, time.Date(2026, 11, 25, 16, 0, 0, 0, loc)},
	}
	for _, tt := range tests {
		got := Propose(Input{Title: tt.text, Ref: ref, Loc: loc, DefaultKind: scouts.EntityNote})
		if got.Kind != tt.kind || !got.Due.Equal(tt.due) || !got.Start.Equal(tt.start) {
			t.Errorf("%q: kind %s due %v start %v (why %q); want kind %s due %v start %v",
				tt.text, got.Kind, got.Due, got.Start, got.Reasons, tt.kind, tt.due, tt.start)
		}
	}
}

// TestRelativeDatesFollowRefAndZone: "tomorrow" is the day after the item
// arrived in the user's zone, not in UTC.
func TestRelativeDatesFollowRefAndZone(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	// 20:00 UTC on Wednesday is already Thursday 05:00 in Tokyo.
	ref := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	got := Propose(Input{Title: "Please send the report by tomorrow", Ref: ref, Loc: tokyo, DefaultKind: scouts.EntityNote})
	want := time.Date(2026, 11, 27, 0, 0, 0, 0, tokyo)
	if got.Kind != scouts.EntityTask || !got.Due.Equal(want) {
		t.Errorf("got %s due %v, want task due %v", got.Kind, got.Due, want)
	}
	// A Friday item asking for Friday means the next one.
	friday := time.Date(2026, 11, 27, 9, 0, 0, 0, tokyo)
	got = Propose(Input{Text: "Invoice due Friday", Ref: friday, Loc: tokyo, DefaultKind: scouts.EntityNote})
	if want := time.Date(2026, 12, 4, 0, 0, 0, 0, tokyo); !got.Due.Equal(want) {
		t.Errorf("due %v, want %v", got.Due, want)
	}
}

func BenchmarkPropose(b *testing.B) {
	mail, err := os.ReadFile("testdata/mail2k.txt")
	if err != nil {
		b.Fatal(err)
	}
	var projects []Project
	for _, name := range []string{"Website relaunch", "Client report", "Hiring", "Office move", "Budget 2027",
		"Regional breakdown", "Onboarding", "Security audit", "Newsletter", "Annual review"} {
		projects = append(projects, Project{ID: name, Name: name})
	}
	ref := phraseRef(b)
	in := Input{Title: "Comments on the draft", Text: string(mail), Ref: ref, Loc: ref.Location(), Projects: projects,
		DefaultKind: scouts.EntityTask}
	b.SetBytes(int64(len(mail)))
	b.ReportAllocs()
	var p Proposal
	for b.Loop() {
		p = Propose(in)
	}
	if p.Kind != scouts.EntityTask || p.Due.IsZero() || p.ProjectID != "Regional breakdown" {
		b.Fatalf("unexpected proposal %+v", p)
	}
}

// TestProposeConcurrent: the engine proposes for several scouts at once;
// the shared date parser must give each caller the same answer as alone.
func TestProposeConcurrent(t *testing.T) {
	ref := phraseRef(t)
	phrases := loadPhrases(t)
	want := make([]Proposal, len(phrases))
	for i, p := range phrases {
		want[i] = Propose(Input{Title: p.text, Ref: ref, Loc: ref.Location(), DefaultKind: scouts.EntityTask})
	}
	errs := make(chan string, 4*len(phrases))
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i, p := range phrases {
				got := Propose(Input{Title: p.text, Ref: ref, Loc: ref.Location(), DefaultKind: scouts.EntityTask})
				if !reflect.DeepEqual(got, want[i]) {
					errs <- fmt.Sprintf("%q: %+v, alone %+v", p.text, got, want[i])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
