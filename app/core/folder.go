package core

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
)

// Folder scouts: what the desktop does for them beside the connector
// (connectors/directory), as kinds.go names it.

// openFolder builds a folder scout's connector.
func (c *Core) openFolder(ctx context.Context, s scouts.Scout) (scouts.SourceConnector, error) {
	cfg, err := directory.ParseConfig(s.Config)
	if err != nil {
		return nil, err
	}
	return directory.New(directory.Options{
		ScoutID:        s.ID,
		Config:         cfg,
		Index:          c.DB.FolderIndex(s.ID),
		Logger:         c.log.With("scout", s.ID),
		Now:            c.now,
		ScoutCreatedAt: s.CreatedAt,
		Protected:      c.protectedDirs(),
		Watches:        c.watches.hub,
		OnWatchLimit:   func(err error) { c.noteWatchLimit(s.ID, err) },
	})
}

// folderFromDefinition reads a folder definition's path as written by
// hand, as docs/definitions.md shows it: a leading "~" is the home folder.
// Anything else is left to the folder's own checks.
func folderFromDefinition(source json.RawMessage, home string) json.RawMessage {
	var m map[string]json.RawMessage
	var p string
	if home == "" || json.Unmarshal(source, &m) != nil || json.Unmarshal(m["path"], &p) != nil {
		return source
	}
	rest, ok := strings.CutPrefix(p, "~")
	if !ok || (rest != "" && rest[0] != '/' && rest[0] != filepath.Separator) {
		return source // "~bob/x" names another user's home: refused as not absolute
	}
	m["path"], _ = json.Marshal(filepath.Join(home, rest))
	out, _ := json.Marshal(m)
	return out
}

// checkFolder validates a folder scout: a folder no folder scout may read
// is refused, and so is one another scout watches already.
func (c *Core) checkFolder(ctx context.Context, s *scouts.Scout) error {
	cfg, err := directory.ParseConfig(s.Config)
	if err != nil {
		return err
	}
	if err := directory.CheckRoot(cfg.Path, c.protectedDirs()); err != nil {
		return err
	}
	norm, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	s.Config = norm
	if s.Name == "" {
		s.Name = filepath.Base(cfg.Path)
	}
	// Two scouts on one folder would suggest every file twice.
	others, err := c.DB.ListScouts(ctx)
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.ID == s.ID || o.Kind != scouts.KindFolder {
			continue
		}
		if ocfg, err := directory.ParseConfig(o.Config); err == nil && samePath(ocfg.Path, cfg.Path) {
			return scouts.Errorf(scouts.EConflict, "scout %q (%s) already watches %s", o.Name, o.ID, cfg.Path)
		}
	}
	return nil
}

// Defaults for Config.FolderWarnFiles and FolderMaxFiles. A scan handles
// 100 000 files in bounded memory (docs/benchmarks.md), but a tree that
// large is seldom what was meant: its first scan takes a while and every
// change in it can become a card.
const (
	DefaultFolderWarnFiles = 10_000
	DefaultFolderMaxFiles  = 100_000
)

// checkFolderSize counts the files of a new folder scout's tree (up to the
// hard limit): above FolderWarnFiles the answer warns with the count, above
// FolderMaxFiles the scout is refused unless forced.
func (c *Core) checkFolderSize(ctx context.Context, s scouts.Scout, force bool) ([]string, error) {
	cfg, err := directory.ParseConfig(s.Config)
	if err != nil {
		return nil, err
	}
	warnAt, maxFiles := c.cfg.FolderWarnFiles, c.cfg.FolderMaxFiles
	if warnAt <= 0 {
		warnAt = DefaultFolderWarnFiles
	}
	if maxFiles <= 0 {
		maxFiles = DefaultFolderMaxFiles
	}
	n, err := directory.CountFiles(ctx, cfg, c.protectedDirs(), maxFiles+1)
	if err != nil {
		return nil, err
	}
	switch {
	case n > maxFiles && !force:
		return nil, scouts.Errorf(scouts.EInvalid, "folder %s holds more than %s files (counting stopped there): "+
			"its first scan would take long and any change in it could become a card. Choose a smaller folder or narrow it "+
			"with include globs; to watch it anyway, confirm with --force (in the API: \"force\": true)", cfg.Path, thousands(maxFiles))
	case n > maxFiles:
		return []string{fmt.Sprintf("folder %s holds more than %s files; watching it as you confirmed (force): "+
			"its first scan will take a while", cfg.Path, thousands(maxFiles))}, nil
	case n > warnAt:
		w := fmt.Sprintf("folder %s holds %s files: its first scan will take a while, and each new or changed file in it may become a card", cfg.Path, thousands(n))
		if cfg.IncludeExisting {
			w += "; with include_existing every one of them will be suggested"
		}
		return []string{w + ". Narrow it with include globs if that is not what you want"}, nil
	}
	return nil, nil
}

// thousands writes n with thousands separators: 16,769.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// protectedDirs are the folders no folder scout reads and no file.move
// writes to: the data directory (the database, the lock, the API token),
// the definitions folder (a file there becomes a scout) and the configured
// others (the configuration folder).
func (c *Core) protectedDirs() []string {
	dirs := append([]string{}, c.cfg.ProtectedDirs...)
	for _, d := range []string{c.cfg.DataDir, c.cfg.DefinitionsDir} {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil && !slices.Contains(dirs, abs) {
			dirs = append(dirs, abs)
		}
	}
	return dirs
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}
