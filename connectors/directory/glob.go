package directory

import (
	"fmt"
	"path"
	"strings"
)

// glob is one compiled include or exclude pattern; see the package doc for
// its semantics.
type glob struct {
	src string
	// base is set for a pattern without "/": it matches the base name.
	base segment
	// segs is the anchored pattern split at "/", for a pattern with "/".
	segs    []segment
	dirOnly bool
}

// segment is one path segment of a pattern. Most patterns are a literal
// or a single "*" with a literal on either side ("*.md", ".*", "#*#");
// those are matched with string comparisons, which keeps matching every
// entry of a large tree against a dozen globs cheap.
type segment struct {
	pat string
	// simple is set when pat has at most one "*" and no other special
	// character; prefix and suffix are what surrounds the "*", and star
	// says whether there is one.
	simple, star   bool
	prefix, suffix string
}

func newSegment(p string) segment {
	s := segment{pat: p}
	if strings.ContainsAny(p, "?[\\") || strings.Count(p, "*") > 1 {
		return s
	}
	s.simple = true
	if i := strings.IndexByte(p, '*'); i >= 0 {
		s.star, s.prefix, s.suffix = true, p[:i], p[i+1:]
	} else {
		s.prefix = p
	}
	return s
}

func (s segment) match(name string) bool {
	switch {
	case !s.simple:
		ok, _ := path.Match(s.pat, name)
		return ok
	case !s.star:
		return name == s.prefix
	}
	return len(name) >= len(s.prefix)+len(s.suffix) && strings.HasPrefix(name, s.prefix) && strings.HasSuffix(name, s.suffix)
}

func compileGlob(src string) (glob, error) {
	g := glob{src: src}
	p := src
	if strings.TrimSpace(p) == "" {
		return g, fmt.Errorf("a pattern is empty")
	}
	if strings.HasSuffix(p, "/") {
		g.dirOnly = true
		p = strings.TrimRight(p, "/")
	}
	if strings.Contains(p, "\\") {
		// path.Match treats "\" as an escape; on Windows people would type
		// it as a separator. Either way the result would surprise.
		return g, fmt.Errorf("pattern %q contains \"\\\"; use \"/\" between folders", src)
	}
	if !strings.Contains(p, "/") {
		if _, err := path.Match(p, ""); err != nil {
			return g, fmt.Errorf("pattern %q is not a valid glob (check its brackets)", src)
		}
		g.base = newSegment(p)
		return g, nil
	}
	p = strings.TrimPrefix(p, "/")
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." {
			return g, fmt.Errorf("pattern %q has an empty, \".\" or \"..\" folder in it", src)
		}
		if _, err := path.Match(s, ""); err != nil {
			return g, fmt.Errorf("pattern %q is not a valid glob (check its brackets)", src)
		}
		g.segs = append(g.segs, newSegment(s))
	}
	return g, nil
}

// match reports whether the entry at rel (slash separated, relative to the
// root) matches.
func (g glob) match(rel string, isDir bool) bool {
	if g.dirOnly && !isDir {
		return false
	}
	if g.segs == nil {
		return g.base.match(rel[strings.LastIndexByte(rel, '/')+1:])
	}
	return matchSegs(g.segs, strings.Split(rel, "/"))
}

// matchSegs matches pattern segments against path segments, "**" standing
// for zero or more path segments. Patterns are short, so plain backtracking
// is fine.
func matchSegs(pat []segment, name []string) bool {
	for len(pat) > 0 {
		if pat[0].pat == "**" {
			for len(pat) > 0 && pat[0].pat == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if !pat[0].match(name[0]) {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// globSet is an ordered list of globs.
type globSet []glob

func compileGlobs(srcs []string) (globSet, error) {
	gs := make(globSet, 0, len(srcs))
	for _, s := range srcs {
		g, err := compileGlob(s)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// first returns the first glob that matches, for the "why am I seeing this"
// sentence.
func (gs globSet) first(rel string, isDir bool) (glob, bool) {
	for _, g := range gs {
		if g.match(rel, isDir) {
			return g, true
		}
	}
	return glob{}, false
}

func (gs globSet) any(rel string, isDir bool) bool {
	_, ok := gs.first(rel, isDir)
	return ok
}
