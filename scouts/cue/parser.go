package cue

import (
	"fmt"
	"sort"
	"time"

	"github.com/olebedev/when/rules"
)

// parser is github.com/olebedev/when's Parser (v1.1.0) without its
// middleware: the same matching, clustering and applying of rules. The
// library's root package is not imported because its initialiser builds
// parsers for four languages, Russian, Portuguese and Dutch among them
// (about 1.2 MB of compiled expressions, 0.4 MB of it kept), which every
// process linking this package paid at start.
type parser struct {
	opts  rules.Options
	rules []rules.Rule
}

// parsed is the library's Result: the date expression found first (with
// those chained to it) and the time it names.
type parsed struct {
	Index int // byte offset of Text in the input
	Text  string
	Time  time.Time
}

// Parse returns the first date expression in text, resolved from base, or
// nil if there is none.
func (p *parser) Parse(text string, base time.Time) (*parsed, error) {
	var matches []*rules.Match
	for _, rule := range p.rules {
		if m := rule.Find(text); m != nil {
			m.Order = float64(len(matches))
			matches = append(matches, m)
		}
	}
	if len(matches) == 0 {
		return nil, nil
	}
	// The cluster of matches chained to the first, each at most Distance
	// bytes after the previous one's end.
	sort.Sort(rules.MatchByIndex(matches))
	res := parsed{Index: matches[0].Left, Time: base}
	end := matches[0].Right
	for i, m := range matches {
		if m.Left <= end+p.opts.Distance {
			end = m.Right
		} else {
			matches = matches[:i]
			break
		}
	}
	res.Text = text[res.Index:end]
	if p.opts.MatchByOrder {
		sort.Sort(rules.MatchByOrder(matches))
	}
	ctx := &rules.Context{Text: res.Text}
	applied := false
	for _, m := range matches {
		ok, err := m.Apply(ctx, &p.opts, res.Time)
		if err != nil {
			return nil, err
		}
		applied = ok || applied
	}
	if !applied {
		return nil, nil
	}
	t, err := ctx.Time(res.Time)
	if err != nil {
		return nil, fmt.Errorf("cue: bind date context: %w", err)
	}
	res.Time = t
	return &res, nil
}
