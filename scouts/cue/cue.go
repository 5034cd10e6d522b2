// Package cue proposes, from an item's content alone, what the item should
// become and its fields: a task with a due date, an event with its time, a
// note, and the project it names. It is the cold-start step of triage,
// before the learner knows the user; every cue that decides is returned in
// plain words for the card's "why".
package cue

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/scouts"
)

// Project is one of the user's open projects.
type Project struct{ ID, Name string }

// Input is what Propose reads. Nothing of it is kept.
type Input struct {
	Title string // subject, file title or webhook title
	Text  string // body text; only the first maxText bytes are read for cues
	// Ref is when the item arrived: relative dates ("Friday", "tomorrow")
	// resolve from it. Zero means now.
	Ref         time.Time
	Loc         *time.Location // the user's zone; nil means time.Local
	Projects    []Project      // the user's open projects
	DefaultKind scouts.EntityKind
}

// Proposal is what the content suggests.
type Proposal struct {
	Kind scouts.EntityKind // DefaultKind when no cue decides
	// Due is a task's due date, zero if none. Start and End are an event's
	// (End zero when unsaid). A date that names no time of day is midnight
	// in the user's zone, with AllDay set.
	Due, Start, End time.Time
	AllDay          bool
	// Date is the first date still ahead the content names when no cue
	// made it a due date or a start (a bare date in an item proposed as a
	// note), zero otherwise; DateAllDay when it names no time of day. It
	// is the due date of a task made of the item by something else (a
	// rule, the person approving it as a task).
	Date       time.Time
	DateAllDay bool
	ProjectID  string   // the existing project the item names
	Reasons    []string // plain words for the card's "why"
}

const (
	// maxText bounds the body read for cues: what decides is near the top,
	// and Propose runs on every item.
	maxText = 4000
	// longProse is where a text stops reading like a request.
	longProse = 300
	// maxCount bounds the body scanned to count words; longer bodies are
	// extrapolated.
	maxCount = 64 << 10
)

// segment is a sentence of the title or the text, with its cues.
type segment struct {
	text     string
	words    []string
	deadline string // a deadline word in the sentence
	meeting  string // a meeting word in the sentence
}

// Propose reads the item's content and proposes its kind and fields. It is
// safe for concurrent use.
func Propose(in Input) Proposal {
	loc := in.Loc
	if loc == nil {
		loc = time.Local
	}
	ref := in.Ref
	if ref.IsZero() {
		ref = time.Now()
	}
	ref = ref.In(loc)
	p := Proposal{Kind: in.DefaultKind}
	text := head(in.Text, maxText)

	titleSegs := segments(in.Title)
	titleAsks := askedFor(titleSegs)
	segs := append(titleSegs[:len(titleSegs):len(titleSegs)], segments(text)...)
	asks := askedFor(segs)

	bare, decided := p.fromDates(segs, asks, ref)
	if !decided && bare != nil && bare.timed {
		// A time of day with no deadline reads like an appointment.
		p.setEvent(*bare)
		p.Reasons = append(p.Reasons, "mentions a time: "+showDate(*bare, ref))
		decided = true
	}
	if !decided {
		n, ext := proseWords(in.Text), documentExt(in.Title)
		switch {
		case len(titleAsks) > 0:
			p.Kind = scouts.EntityTask
			p.Reasons = append(p.Reasons, "asks for action: "+quote(asks...))
		case ext != "":
			p.Kind = scouts.EntityNote
			p.Reasons = append(p.Reasons, "a document ("+ext+")")
		case n >= longProse:
			p.Kind = scouts.EntityNote
			p.Reasons = append(p.Reasons, "long prose ("+group(n)+" words)")
		case len(asks) > 0:
			p.Kind = scouts.EntityTask
			p.Reasons = append(p.Reasons, "asks for action: "+quote(asks...))
		}
		if bare != nil && p.Kind == scouts.EntityTask {
			p.setTask(*bare)
			p.Reasons = append(p.Reasons, "mentions a date: "+showDate(*bare, ref))
		}
	}
	if bare != nil && p.Due.IsZero() && p.Start.IsZero() {
		p.Date, p.DateAllDay = bare.at, !bare.timed
	}
	if pr, ok := namedProject(in.Title, text, in.Projects); ok {
		p.ProjectID = pr.ID
		p.Reasons = append(p.Reasons, "names the project "+quote(strings.TrimSpace(pr.Name)))
	}
	return p
}

// fromDates applies the rules that need a date still ahead: the first one
// in a sentence reading like a meeting or a deadline decides. Otherwise it
// returns the first date ahead, if any, for the rules that follow.
func (p *Proposal) fromDates(segs []segment, asks []string, ref time.Time) (bare *hit, decided bool) {
	for _, s := range segs {
		for _, h := range findDates(s.text, ref) {
			h = dayPart(h, s.text)
			if past(h, ref) {
				continue
			}
			by := byBefore(s.text[:h.start])
			deadline := s.deadline != "" || by != ""
			switch {
			case s.meeting != "" && (h.timed || !deadline):
				p.setEvent(h)
				p.Reasons = append(p.Reasons, "mentions a date: "+showDate(h, ref), "reads like a meeting: "+quote(s.meeting))
				return nil, true
			case deadline:
				p.setTask(h)
				// The words that made the date a deadline come first.
				var first []string
				if s.deadline != "" {
					first = append(first, s.deadline)
				}
				if by != "" {
					first = addAsk(first, by)
				}
				for _, a := range asks {
					first = addAsk(first, a)
				}
				p.Reasons = append(p.Reasons, "mentions a date: "+showDate(h, ref), "asks for action: "+quote(first...))
				return nil, true
			case bare == nil:
				bare = &h
			}
		}
	}
	return bare, false
}

func (p *Proposal) setEvent(h hit) {
	p.Kind = scouts.EntityEvent
	p.Start, p.End, p.AllDay = h.at, h.until, !h.timed
}

func (p *Proposal) setTask(h hit) {
	p.Kind = scouts.EntityTask
	p.Due, p.AllDay = h.at, !h.timed
}

// past reports a date before the item arrived. The arrival day itself is
// not past for a date ("send it today"), only for a time that has gone by.
func past(h hit, ref time.Time) bool {
	if h.timed {
		return h.at.Before(ref.Truncate(time.Minute))
	}
	return h.at.Before(dateOf(ref))
}

func segments(s string) []segment {
	var out []segment
	for _, t := range sentences(s) {
		seg := segment{text: t, words: words(t)}
		for _, w := range seg.words {
			if seg.deadline == "" && deadlineWords[w] {
				seg.deadline = w
			}
			if seg.meeting == "" && meetingWords[w] {
				seg.meeting = w
			}
		}
		out = append(out, seg)
	}
	return out
}

// askedFor lists the words that ask for action, in order, without repeats.
func askedFor(segs []segment) []string {
	var asks []string
	for _, s := range segs {
		for i, w := range s.words {
			switch {
			case actionWords[w] || deadlineWords[w]:
				asks = addAsk(asks, w)
			case i == 0 && imperatives[w]:
				asks = addAsk(asks, w)
			case i+1 < len(s.words):
				for _, ph := range askPhrases {
					if w == ph[0] && s.words[i+1] == ph[1] {
						asks = addAsk(asks, w+" "+ph[1])
					}
				}
			}
		}
	}
	return asks
}

func addAsk(asks []string, w string) []string {
	for _, a := range asks {
		if a == w {
			return asks
		}
	}
	return append(asks, w)
}

// byBefore returns the deadline word just before a date ("by Friday",
// "before the end of Monday"), if any.
func byBefore(before string) string {
	ws := words(before)
	for i := len(ws) - 1; i >= 0 && i >= len(ws)-4; i-- {
		if byWords[ws[i]] {
			return ws[i]
		}
	}
	return ""
}

func namedProject(title, text string, projects []Project) (Project, bool) {
	if len(projects) == 0 {
		return Project{}, false
	}
	hay := collapse(title) + "\n" + collapse(text)
	var best Project
	bestLen := 0
	for _, pr := range projects {
		name := collapse(pr.Name)
		if len(name) > bestLen && containsWords(hay, name) {
			best, bestLen = pr, len(name)
		}
	}
	return best, bestLen > 0
}

// proseWords counts the body's words, extrapolating past maxCount bytes.
func proseWords(text string) int {
	if len(text) <= maxCount {
		return countWords(text)
	}
	h := head(text, maxCount)
	return int(int64(countWords(h)) * int64(len(text)) / int64(len(h)))
}

func documentExt(title string) string {
	i := strings.LastIndexByte(title, '.')
	if i < 0 {
		return ""
	}
	ext := strings.ToLower(strings.TrimSpace(title[i:]))
	if documentExts[ext] {
		return ext
	}
	return ""
}

// head cuts s to at most n bytes on a rune boundary.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// showDate writes a date the way a card shows it: "Fri 27 Nov", "Tue 1 Dec
// 14:30–16:00", with the year only when it is not the arrival's.
func showDate(h hit, ref time.Time) string {
	layout := "Mon 2 Jan"
	if h.at.Year() != ref.Year() {
		layout += " 2006"
	}
	s := h.at.Format(layout)
	if h.timed {
		s += h.at.Format(" 15:04")
		if !h.until.IsZero() {
			s += h.until.Format("–15:04")
		}
	}
	return s
}

// quote writes words as the card shows them: “invoice”, “due” (four at most).
func quote(ws ...string) string {
	ws = ws[:min(len(ws), 4)]
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = "“" + w + "”"
	}
	return strings.Join(q, ", ")
}

// group writes 1240 as "1 240".
func group(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}
