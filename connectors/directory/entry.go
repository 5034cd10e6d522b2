package directory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/scouts"
)

// maxClockSkew bounds the settle guard: a file dated further in the future
// (a skewed clock, an archive from elsewhere) would otherwise never settle.
const maxClockSkew = time.Minute

// entry decides what one listed entry means and returns the stack with the
// subdirectories to descend into.
func (s *scan) entry(w dirWork, dir *os.Root, info fs.FileInfo, known map[string]Entry, stack []dirWork) []dirWork {
	c := s.c
	name := info.Name()
	rel := joinRel(w.rel, name)
	old, wasKnown := known[name]
	delete(known, name)
	mode := info.Mode()
	switch {
	case mode.IsDir():
		if c.excluded(rel, true) {
			break
		}
		if s.protected.protects(name, info) || c.systemMount(rel, info, s.dirDev(w)) {
			break // Scouts' own data, or /proc and the like: as if excluded
		}
		switch {
		case wasKnown && old.Type == TypeProblem && sameStat(old, info):
			// Unreadable, and reported already.
		case !wasKnown || old.Type != TypeDir:
			// New: descend into all of it whatever the scan's mode.
			s.put(w.rel, Entry{Name: name, Type: TypeDir})
			stack = append(stack, dirWork{rel: rel, recursive: true, info: info})
		case w.recursive:
			stack = append(stack, dirWork{rel: rel, recursive: true, info: info})
		}
		return stack
	case mode.Type() == fs.ModeSymlink:
		if c.excluded(rel, false) || !c.included(rel) {
			break
		}
		if wasKnown && (old.Type == TypeSymlink || old.Type == TypeProblem) && sameStat(old, info) {
			return stack
		}
		if wasKnown && old.Type == TypeDir {
			s.batch.DeleteTrees = append(s.batch.DeleteTrees, rel)
		}
		s.symlink(w, dir, info)
		return stack
	case mode.IsRegular():
		if c.excluded(rel, false) || !c.included(rel) {
			break
		}
		if wasKnown && (old.Type == TypeFile || old.Type == TypeProblem) && sameStat(old, info) {
			return stack
		}
		if wasKnown && old.Type == TypeDir {
			s.batch.DeleteTrees = append(s.batch.DeleteTrees, rel)
		}
		s.file(w, dir, info, old, wasKnown)
		return stack
	}
	// Out of scope: excluded, not included, or a fifo, socket or device
	// (never opened: opening a fifo blocks until someone writes to it).
	if wasKnown {
		s.gone(w.rel, name, old)
	}
	return stack
}

// sameStat reports whether an entry is as the index remembers it.
func sameStat(e Entry, info fs.FileInfo) bool {
	if e.Size != info.Size() || e.MtimeNs != info.ModTime().UnixNano() {
		return false
	}
	return e.Type != TypeProblem || e.Hash == problemPrint(info)
}

// problemPrint fingerprints what a chmod changes, so that a problem entry
// is retried when the permissions are fixed.
func problemPrint(info fs.FileInfo) string {
	return "mode:" + info.Mode().String()
}

func statEntry(t EntryType, info fs.FileInfo, hash string) Entry {
	return Entry{Name: info.Name(), Type: t, Size: info.Size(), MtimeNs: info.ModTime().UnixNano(), Hash: hash}
}

// symlink records a link: silently when it points inside the root (its
// target is scanned where it lives), as a problem when it points outside.
func (s *scan) symlink(w dirWork, dir *os.Root, info fs.FileInfo) {
	c := s.c
	rel := joinRel(w.rel, info.Name())
	target, err := dir.Readlink(info.Name())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return // gone; the next listing will not show it
	case err != nil:
		s.problem(rel, info, fmt.Sprintf("Link %s could not be read: %v", c.display(rel), errText(err)))
	case c.linkInside(w.rel, target):
		s.put(w.rel, statEntry(TypeSymlink, info, ""))
	default:
		s.problem(rel, info, fmt.Sprintf("%s is a symbolic link to a place outside the watched folder; not followed", c.display(rel)))
	}
}

// linkInside reports whether a link in directory dirRel with the given
// target points inside the root. The check is lexical: a link that points
// at another link is safe because that link is checked on its own.
func (c *Connector) linkInside(dirRel, target string) bool {
	p := target
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.abs(dirRel), p)
	}
	p = filepath.Clean(p)
	return within(p, c.rootPath) || (c.rootReal != "" && within(p, c.rootReal))
}

// within reports whether the clean path p is root or below it.
func within(p, root string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// file reads a new or changed regular file and turns it into an item,
// unless its content is what the index already has.
func (s *scan) file(w dirWork, dir *os.Root, info fs.FileInfo, old Entry, wasKnown bool) {
	c := s.c
	rel := joinRel(w.rel, info.Name())
	if s.baseline && !s.isNew(info) {
		s.put(w.rel, statEntry(TypeFile, info, ""))
		return
	}
	if mt := info.ModTime(); mt.After(s.now.Add(-c.settle)) && mt.Before(s.now.Add(maxClockSkew)) {
		// Maybe still being written: look again when it has been quiet
		// for Settle, counted from its modification time.
		s.laterAt(w.rel, mt.Add(c.settle))
		return
	}
	hash, head, err := s.read(dir, rel, info)
	switch {
	case errors.Is(err, errChanged):
		s.later(w.rel)
		return
	case errors.Is(err, fs.ErrNotExist):
		// Nothing to record: the next listing will not show it.
		s.items = append(s.items, scouts.ItemRef{Ref: FormatRef(rel, ""),
			Problem: fmt.Sprintf("File %s vanished before it could be read", c.display(rel))})
		return
	case errors.Is(err, fs.ErrPermission):
		s.problem(rel, info, fmt.Sprintf("File %s cannot be read: permission denied", c.display(rel)))
		return
	case err != nil:
		s.problem(rel, info, fmt.Sprintf("File %s could not be read: %s", c.display(rel), errText(err)))
		return
	}
	e := statEntry(TypeFile, info, hash)
	if wasKnown && old.Type == TypeFile && old.Hash == hash {
		s.put(w.rel, e) // touched, same content: not a new item
		return
	}
	s.items = append(s.items, c.item(rel, info, hash, head, wasKnown && old.Type == TypeFile))
	s.put(w.rel, e)
}

// baselineSlack widens "arrived after the scout was created". File
// timestamps come from the kernel's coarse clock, which lags the clock the
// scout's creation time was read from by up to a scheduler tick (and more
// on some filesystems: FAT has 2 s resolution), so a file written just after
// the scout was created can carry an earlier mtime. Suggesting a file that
// was there a moment before the scout is harmless; missing one is not.
const baselineSlack = 2 * time.Second

// isNew reports whether, during the baseline, a file arrived after the
// scout was created.
func (s *scan) isNew(info fs.FileInfo) bool {
	return !s.c.createdAt.IsZero() && !info.ModTime().Before(s.c.createdAt.Add(-baselineSlack))
}

// later leaves directory rel for a later scan and asks for one once a
// whole Settle has passed.
func (s *scan) later(rel string) {
	s.laterAt(rel, s.now.Add(s.c.settle))
}

// laterAt leaves directory rel for a scan at or after at.
func (s *scan) laterAt(rel string, at time.Time) {
	s.c.markDirty(rel)
	if s.wakeAt.IsZero() || at.Before(s.wakeAt) {
		s.wakeAt = at
	}
}

// read hashes a file (its first MaxHashBytes) and keeps its first
// headBytes, checking that what it read is the file that was listed.
func (s *scan) read(dir *os.Root, rel string, info fs.FileInfo) (hash string, head []byte, err error) {
	c := s.c
	if c.hooks.beforeOpen != nil {
		c.hooks.beforeOpen(rel)
	}
	f, err := c.openIn(dir, info)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	if s.head == nil {
		s.head, s.buf = make([]byte, headBytes), make([]byte, 64<<10)
	}
	n, err := io.ReadFull(f, s.head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", nil, fmt.Errorf("directory: read %s: %w", c.display(rel), err)
	}
	h := sha256.New()
	h.Write(s.head[:n])
	if n == len(s.head) {
		if _, err := io.CopyBuffer(h, io.LimitReader(f, MaxHashBytes-int64(n)), s.buf); err != nil {
			return "", nil, fmt.Errorf("directory: read %s: %w", c.display(rel), err)
		}
	}
	after, err := f.Stat()
	if err != nil {
		return "", nil, fmt.Errorf("directory: stat %s: %w", c.display(rel), err)
	}
	if after.Size() != info.Size() || !after.ModTime().Equal(info.ModTime()) {
		return "", nil, errChanged // written to while read: wait until it settles
	}
	return hex.EncodeToString(h.Sum(nil)), s.head[:n], nil
}

// openIn opens the regular file info names in dir without following a
// link, and checks that it is the file that was listed.
func (c *Connector) openIn(dir *os.Root, info fs.FileInfo) (*os.File, error) {
	var f *os.File
	var err error
	if c.hooks.open != nil {
		f, err = c.hooks.open(dir, info.Name())
	} else {
		f, err = dir.OpenFile(info.Name(), os.O_RDONLY|openFlags, 0)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, err
		}
		// Refused as a link, or escaping the directory: it was swapped
		// since it was listed.
		// (A new link may reuse the old file's inode: compare types too.)
		if now, lerr := dir.Lstat(info.Name()); lerr == nil && (!now.Mode().IsRegular() || !os.SameFile(now, info)) {
			return nil, errChanged
		}
		return nil, err
	}
	got, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !got.Mode().IsRegular() || !os.SameFile(got, info) {
		f.Close()
		return nil, errChanged
	}
	return f, nil
}

// item builds the item of a file read during a scan.
func (c *Connector) item(rel string, info fs.FileInfo, hash string, head []byte, changed bool) scouts.ItemRef {
	name := displayString(path.Base(rel))
	x := extract(name, info.Size(), head)
	kind := proposedKind(name, x.text, c.cfg.NoteExtensions)
	verb := "New file"
	if changed {
		verb = "Changed file"
	}
	var notes []string
	if info.Size() > MaxHashBytes {
		notes = append(notes, fmt.Sprintf("file is %s; only its first %s were read", humanSize(info.Size()), humanSize(MaxHashBytes)))
	}
	if !utf8.ValidString(rel) {
		notes = append(notes, "file name is not valid UTF-8; shown with replacement characters")
	}
	return scouts.ItemRef{
		Ref: FormatRef(rel, hash),
		Meta: &scouts.ItemMetadata{
			Title:        x.title,
			Excerpt:      x.excerpt,
			Path:         c.display(rel),
			ProposedKind: kind,
			Reason:       c.reason(verb, rel, x, kind),
			ReceivedAt:   info.ModTime(),
			Facts:        &scouts.ItemFacts{Size: info.Size(), Text: x.body},
			// The learner reads the path inside the scout's folder (the
			// folders above it say nothing about the person's choices)
			// and the file's first text, transiently.
			Evidence: &scouts.Evidence{Path: displayString(rel), Body: x.body},
		},
		Notes: notes,
	}
}

// reason is the card's "why am I seeing this".
func (c *Connector) reason(verb, rel string, x extracted, kind scouts.EntityKind) string {
	inc := ""
	if g, ok := c.include.first(rel, false); ok {
		inc = fmt.Sprintf(" (matches include %q)", g.src)
	}
	return fmt.Sprintf("%s in %s%s; %s → proposed as %s", verb, c.displayDir(rel), inc, x.describe(), kind)
}

// problem reports an entry that cannot become an item, once: the index
// remembers it until the entry changes. During the baseline, problems with
// what was already there are recorded without being reported.
func (s *scan) problem(rel string, info fs.FileInfo, msg string) {
	dir, _ := splitRel(rel)
	s.put(dir, statEntry(TypeProblem, info, problemPrint(info)))
	if s.baseline && !s.isNew(info) {
		return
	}
	s.items = append(s.items, scouts.ItemRef{Ref: FormatRef(rel, ""), Problem: msg})
}

// errText is an error's message without the path it repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
