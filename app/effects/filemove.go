// Package effects runs the remote actions that touch the desktop's own
// world rather than a source's account: moving a file (file.move) and
// posting to a web service (webhook.post). Each is a engine.ActionExecutor:
// checked when the plan is approved and again when it runs, and idempotent
// per key, since the outbox may run an action again after a crash.
package effects

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// FileMove moves a folder card's file into a folder the user chose, inside
// their home folder. The destination is checked when the plan is made (a
// rule's, on arrival, with its templates rendered; a person's, when the
// card is approved) and again when the move runs: no ".." segment, inside
// the home folder once resolved, named by its real path (no symbolic link
// below the home folder), and never the agent's own folders (Protected).
// The move itself goes through an os.Root opened on the home folder, which
// keeps it inside the home folder whatever is swapped in, but follows links
// that stay inside it: so the destination's path is looked at again, one
// component at a time through the root, just before the rename.
type FileMove struct {
	// Home is the user's home folder; nothing moves out of it, nor from
	// outside it.
	Home string
	// Protected are the agent's data, configuration and definitions
	// folders, which folder scouts refuse to read: nothing moves into them
	// or below them (a .yaml file moved into the definitions folder would
	// become a scout).
	Protected []string
}

type fileMoveParams struct {
	To string `json:"to"`
}

// movePlan is a move with every path resolved and relative to the home
// folder.
type movePlan struct {
	home    string // resolved
	srcRel  string // the file, relative to home
	destRel string // the destination folder, relative to home
	hash    string // the ref's content hash prefix
	display string // the destination as the user wrote it, expanded
}

// CheckParams checks the destination as written, without an item: an
// absolute path or ~/…, no ".." segment, not one of the agent's folders.
// It is what plan begins with, and what a rule is checked with when it is
// saved or imported (with its templates filled in by a placeholder).
func (m FileMove) CheckParams(params json.RawMessage) error {
	var p fileMoveParams
	if err := json.Unmarshal(params, &p); err != nil || p.To == "" {
		return scouts.Errorf(scouts.EInvalid, "file.move needs the destination folder in \"to\"")
	}
	_, err := m.destination(p.To)
	return err
}

// Check validates a move when its plan is approved.
func (m FileMove) Check(ctx context.Context, inv engine.Invocation) error {
	_, err := m.plan(inv)
	return err
}

func (m FileMove) plan(inv engine.Invocation) (movePlan, error) {
	var p fileMoveParams
	if err := json.Unmarshal(inv.Params, &p); err != nil || p.To == "" {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move needs the destination folder in \"to\"")
	}
	if inv.Scout.Kind != scouts.KindFolder {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move applies to folder cards only")
	}
	if m.Home == "" {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: the home folder is unknown, so no destination can be checked")
	}
	home, err := filepath.EvalSymlinks(m.Home)
	if err != nil {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: the home folder %s cannot be read: %v", m.Home, err)
	}
	to, err := m.destination(p.To)
	if err != nil {
		return movePlan{}, err
	}
	// The scout's write scope, on the destination as rendered (before it
	// is looked up: a folder outside the scope is refused for that, even
	// one that does not exist) and below on its real path.
	if err := m.inScope(inv.Scout, to, home, to); err != nil {
		return movePlan{}, err
	}
	dest, err := filepath.EvalSymlinks(to)
	if err != nil {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: the destination %s does not exist (create the folder first)", to)
	}
	if fi, err := os.Stat(dest); err != nil || !fi.IsDir() {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: the destination %s is not a folder", to)
	}
	destRel, ok := inside(home, dest)
	if !ok {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: %s is outside your home folder (it resolves to %s); files only move within %s", to, dest, m.Home)
	}
	// A link below the home folder could lead anywhere in it (~/Sorted/keys
	// → ~/.ssh) while the path looks like the folder the user chose: the
	// destination is named by its real path, as the catalogue promises.
	spelled, ok := inside(filepath.Clean(m.Home), to)
	if !ok {
		spelled, ok = inside(home, to)
	}
	if !ok || spelled != destRel {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: %s goes through a symbolic link (it leads to %s): files only move into a folder named by its real path", to, dest)
	}
	if err := m.notProtected(to, dest); err != nil {
		return movePlan{}, err
	}
	if err := m.inScope(inv.Scout, to, home, filepath.Join(home, destRel)); err != nil {
		return movePlan{}, err
	}
	cfg, err := directory.ParseConfig(inv.Scout.Config)
	if err != nil {
		return movePlan{}, err
	}
	root, err := filepath.EvalSymlinks(cfg.Path)
	if err != nil {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: the scout's folder %s cannot be read: %v", cfg.Path, err)
	}
	if _, ok := inside(root, dest); ok {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: %s is inside the folder this scout watches (%s): the file would come back as a new card", to, cfg.Path)
	}
	rootRel, ok := inside(home, root)
	if !ok {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: the scout's folder %s is outside your home folder; files only move within %s", cfg.Path, m.Home)
	}
	rel, hash, err := directory.ParseRef(inv.Suggestion.SourceRef)
	if err != nil {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: %v", err)
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return movePlan{}, scouts.Errorf(scouts.EInvalid, "file.move: %q is not a path inside the scout's folder", rel)
	}
	return movePlan{home: home, srcRel: filepath.Join(rootRel, filepath.FromSlash(rel)), destRel: destRel, hash: hash, display: to}, nil
}

// destination reads the "to" parameter as rendered (a rule's template
// filled in from the item): ~ is the home folder, the path is absolute and
// has no ".." segment. The segments are checked on the value as written,
// before anything cleans them away: "~/Sorted/{{.text}}" with a file that
// says "../.config" must not climb out of ~/Sorted.
func (m FileMove) destination(raw string) (string, error) {
	if hasDotDot(raw) {
		return "", scouts.Errorf(scouts.EInvalid, "file.move: the destination %q has a \"..\" segment: a destination names its folder directly, never by climbing out of another (a rule's template may have taken it from the item's text)", clipParam(raw))
	}
	to := raw
	if rest, ok := strings.CutPrefix(to, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
		if m.Home == "" {
			return "", scouts.Errorf(scouts.EInvalid, "file.move: the home folder is unknown, so %q cannot be read", clipParam(raw))
		}
		to = filepath.Join(m.Home, rest)
	}
	if !filepath.IsAbs(to) {
		return "", scouts.Errorf(scouts.EInvalid, "file.move: %q is not an absolute path (or ~/…)", clipParam(raw))
	}
	to = filepath.Clean(to)
	if err := m.notProtected(to, ""); err != nil {
		return "", err
	}
	return to, nil
}

// inScope refuses a destination outside the scout's write scope
// (scouts.WriteScope, its folders): dir is the destination, either as
// rendered or by its real path below the resolved home folder home. The
// home folder may itself be a link (/home/u → /data/u): a glob's ~, the
// glob and dir are each read with either spelling of it, so a scope
// written either way matches a destination named either way; to is what
// the error names.
func (m FileMove) inScope(sc scouts.Scout, to, home, dir string) error {
	folders, isDefault := sc.WriteScope.Effective(scouts.ScopeFolders)
	homes := []string{filepath.Clean(m.Home), home}
	dirs := []string{dir}
	for _, h := range homes {
		if rel, ok := inside(h, dir); ok {
			for _, other := range homes {
				dirs = append(dirs, filepath.Join(other, rel))
			}
		}
	}
	for _, h := range homes {
		for _, d := range dirs {
			if scouts.MatchFolder(folders, h, d) {
				return nil
			}
		}
	}
	return scouts.Errorf(scouts.EInvalid, "file.move: %s is outside the scout's write scope %s: this scout moves files only into those folders (write_scope.folders in its definition)",
		m.tilde(clipParam(to)), scouts.ScopeWords(folders, isDefault))
}

// tilde writes a path below the home folder as ~/…, as the user does.
func (m FileMove) tilde(p string) string {
	if m.Home == "" {
		return p
	}
	if rel, ok := inside(filepath.Clean(m.Home), p); ok {
		if rel == "." {
			return "~"
		}
		return "~/" + filepath.ToSlash(rel)
	}
	return p
}

// notProtected refuses a destination that is, or is inside, one of the
// agent's own folders, by any spelling (the check folder scouts make of
// their roots); resolved is the destination with its links resolved, ""
// when it was not resolved.
func (m FileMove) notProtected(to, resolved string) error {
	for _, p := range []string{to, resolved} {
		if p == "" {
			continue
		}
		if d, ok := directory.InsideProtected(p, m.Protected); ok {
			return scouts.Errorf(scouts.EInvalid, "file.move: %s is inside %s, where Scouts keeps its own data, configuration or definitions: files never move there", to, d)
		}
	}
	return nil
}

// hasDotDot reports whether a path, as written, has a ".." segment.
func hasDotDot(p string) bool {
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if seg == ".." {
			return true
		}
	}
	return false
}

// clipParam shortens a parameter quoted in an error: a template may have
// filled it with a whole file's text.
func clipParam(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	for i := n; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return ""
}

// inside returns path relative to dir when path is dir or below it.
func inside(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

// maxCopies bounds the " (2)", " (3)" … names tried on a collision.
const maxCopies = 100

// Execute moves the file. It first checks whether the move already
// happened (an attempt that crashed before it was recorded): the file gone
// from its place and a file with its content in the destination under its
// name or one of the collision names.
func (m FileMove) Execute(ctx context.Context, inv engine.Invocation) (json.RawMessage, error) {
	p, err := m.plan(inv)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(p.home)
	if err != nil {
		return nil, fmt.Errorf("file.move: open %s: %w", p.home, err)
	}
	defer root.Close()
	name := filepath.Base(p.srcRel)
	names := candidates(name)
	if _, err := root.Lstat(p.srcRel); errors.Is(err, fs.ErrNotExist) {
		for _, n := range names {
			if h, err := hashOf(root, filepath.Join(p.destRel, n)); err == nil && p.hash != "" && strings.HasPrefix(h, p.hash) {
				return moved(filepath.Join(p.display, n), true), nil
			}
		}
		return nil, scouts.Errorf(scouts.ENotFound, "%s is no longer there, and no file with its content is in %s", filepath.Join(p.home, p.srcRel), p.display)
	} else if err != nil {
		return nil, fmt.Errorf("file.move: %w", err)
	}
	// Looked at again at the time of the move, through the root: a link
	// swapped in since the plan was read would be followed by the root
	// as long as it stays in the home folder.
	if err := m.recheck(root, p); err != nil {
		return nil, err
	}
	for _, n := range names {
		dst := filepath.Join(p.destRel, n)
		if _, err := root.Lstat(dst); err == nil {
			continue // taken: never overwrite
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("file.move: %w", err)
		}
		// Rename cannot replace a file that appears in between without
		// the check above racing it; Link then Remove would not either on
		// every system. Collisions with a file created in the same instant
		// are accepted as the user's own doing.
		if err := root.Rename(p.srcRel, dst); err != nil {
			return nil, fmt.Errorf("file.move: move %s to %s: %w", name, p.display, err)
		}
		return moved(filepath.Join(p.display, n), false), nil
	}
	return nil, scouts.Errorf(scouts.EConflict, "file.move: %s already holds %s and %d copies of that name", p.display, name, maxCopies)
}

// recheck looks at the destination's path one component at a time through
// the root, without following links: each must be a folder, none a link,
// and the last not one of the agent's folders.
func (m FileMove) recheck(root *os.Root, p movePlan) error {
	rel := ""
	for _, seg := range strings.Split(p.destRel, string(filepath.Separator)) {
		if seg == "" || seg == "." {
			continue
		}
		rel = filepath.Join(rel, seg)
		fi, err := root.Lstat(rel)
		if err != nil {
			return fmt.Errorf("file.move: the destination %s: %w", p.display, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
			return scouts.Errorf(scouts.EInvalid, "file.move: the destination %s changed since the move was planned (%s is no longer a folder of its own but a link or a file): nothing was moved", p.display, filepath.Join(p.home, rel))
		}
	}
	return m.notProtected(filepath.Join(p.home, p.destRel), "")
}

func candidates(name string) []string {
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	out := []string{name}
	for i := 2; i <= maxCopies; i++ {
		out = append(out, fmt.Sprintf("%s (%d)%s", base, i, ext))
	}
	return out
}

func moved(to string, already bool) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"moved_to": to, "already_moved": already})
	return b
}

// hashOf hashes a file the way folder scouts do (the first
// directory.MaxHashBytes), reading it through the root.
func hashOf(root *os.Root, rel string) (string, error) {
	f, err := root.Open(rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, directory.MaxHashBytes)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
