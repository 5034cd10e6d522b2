package directory

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
)

// ArchiveDir is the directory inside the root that Archive moves files to.
const ArchiveDir = "Archive"

// WriteFile writes data to the file at rel (slash separated, relative to
// the root) atomically — a temporary file in TempDirName, fsync, rename —
// and records the result in the index before returning, so the scout never
// suggests a file Scouts wrote itself. Missing parent directories are
// created; rel must not lead through a symbolic link.
func (c *Connector) WriteFile(ctx context.Context, rel string, data []byte) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	if rel == TempDirName || strings.HasPrefix(rel, TempDirName+"/") {
		return invalid("%s is reserved for Scouts' temporary files", TempDirName)
	}
	c.ioMu.Lock()
	defer c.ioMu.Unlock()
	dir, _ := splitRel(rel)
	created, err := c.mkdirs(dir)
	if err != nil {
		return err
	}
	tmp, err := c.writeTemp(data)
	if err != nil {
		return err
	}
	if err := c.root().Rename(osRel(tmp), osRel(rel)); err != nil {
		c.root().Remove(osRel(tmp))
		return fmt.Errorf("directory: write %s: %w", c.display(rel), err)
	}
	c.syncDir(dir)
	info, err := c.root().Lstat(osRel(rel))
	if err != nil {
		return fmt.Errorf("directory: write %s: %w", c.display(rel), err)
	}
	sum := sha256.Sum256(data[:min(len(data), MaxHashBytes)])
	b := IndexBatch{Put: dirPuts(created)}
	b.Put = append(b.Put, IndexPut{Dir: dir, Entry: statEntry(TypeFile, info, hex.EncodeToString(sum[:]))})
	return c.record(ctx, b)
}

// writeTemp writes data to a new file in TempDirName, synced to disk, and
// returns its relative path.
func (c *Connector) writeTemp(data []byte) (string, error) {
	fi, err := c.root().Lstat(TempDirName)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := c.root().Mkdir(TempDirName, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("directory: create %s: %w", c.display(TempDirName), err)
		}
	case err != nil:
		return "", fmt.Errorf("directory: %s: %w", c.display(TempDirName), err)
	case !fi.IsDir():
		return "", fmt.Errorf("directory: %s is not a folder; remove it so Scouts can write files", c.display(TempDirName))
	}
	tmp := TempDirName + "/w-" + rand.Text()
	f, err := c.root().OpenFile(osRel(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("directory: create temporary file: %w", err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		c.root().Remove(osRel(tmp))
		return "", fmt.Errorf("directory: write temporary file: %w", err)
	}
	return tmp, nil
}

// syncDir makes a rename in dir durable. It is best effort: some
// platforms cannot sync a directory, and the data itself is synced.
func (c *Connector) syncDir(dir string) {
	if d, err := c.root().Open(osRel(dir)); err == nil {
		d.Sync()
		d.Close()
	}
}

// mkdirs makes sure directory rel exists as a real directory (no link on
// the way) and returns the directories it created, parents first.
func (c *Connector) mkdirs(rel string) ([]string, error) {
	if rel == "" {
		return nil, nil
	}
	var created []string
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := c.root().Lstat(osRel(p))
		if errors.Is(err, fs.ErrNotExist) {
			if err := c.root().Mkdir(osRel(p), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, fmt.Errorf("directory: create %s: %w", c.display(p), err)
			}
			if fi, err = c.root().Lstat(osRel(p)); err == nil && fi.IsDir() {
				created = append(created, p)
				continue
			}
		}
		if err != nil {
			return nil, fmt.Errorf("directory: %s: %w", c.display(p), err)
		}
		if !fi.IsDir() {
			return nil, invalid("%s is a file or a symbolic link, not a folder", c.display(p))
		}
	}
	return created, nil
}

func dirPuts(dirs []string) []IndexPut {
	puts := make([]IndexPut, 0, len(dirs)+1)
	for _, d := range dirs {
		parent, name := splitRel(d)
		puts = append(puts, IndexPut{Dir: parent, Entry: Entry{Name: name, Type: TypeDir}})
	}
	return puts
}

// record applies a change WriteFile or Archive made and, if a scan is
// waiting on a page, tells it (see Connector.ioMu). The caller holds ioMu.
func (c *Connector) record(ctx context.Context, b IndexBatch) error {
	if err := c.idx.Apply(context.WithoutCancel(ctx), b); err != nil {
		return fmt.Errorf("directory: record written file: %w", err)
	}
	if !c.scanning {
		return nil
	}
	if c.touched == nil {
		c.touched = map[EntryKey]touchedEntry{}
	}
	for _, p := range b.Put {
		c.touched[EntryKey{p.Dir, p.Entry.Name}] = touchedEntry{entry: p.Entry, exists: true}
	}
	for _, k := range b.Delete {
		c.touched[k] = touchedEntry{}
	}
	return nil
}

// withoutTouched drops from a scan's batch the changes to entries that
// WriteFile or Archive recorded after the scan saw them.
func (c *Connector) withoutTouched(b IndexBatch) IndexBatch {
	if len(c.touched) == 0 {
		return b
	}
	var out IndexBatch
	for _, p := range b.Put {
		if _, ok := c.touched[EntryKey{p.Dir, p.Entry.Name}]; !ok {
			out.Put = append(out.Put, p)
		}
	}
	for _, k := range b.Delete {
		if _, ok := c.touched[k]; !ok {
			out.Delete = append(out.Delete, k)
		}
	}
	for _, t := range b.DeleteTrees {
		keep := true
		for k := range c.touched {
			if k.Dir == t || strings.HasPrefix(k.Dir, t+"/") {
				keep = false
				break
			}
		}
		if keep {
			out.DeleteTrees = append(out.DeleteTrees, t)
		}
	}
	return out
}

// Archive moves the item's file to Archive/<its path> inside the root,
// adding " (2)", " (3)" … on a name collision. The destination is recorded
// in the index before the move and the source forgotten after it, so no
// scan, even after a crash in between, sees the moved file as new.
func (c *Connector) Archive(ctx context.Context, ref string) error {
	rel, hash, err := ParseRef(ref)
	if err != nil {
		return invalid("cannot archive: %v", err)
	}
	if err := checkRel(rel); err != nil {
		return err
	}
	if rel == ArchiveDir || strings.HasPrefix(rel, ArchiveDir+"/") {
		return nil // archived already
	}
	c.ioMu.Lock()
	defer c.ioMu.Unlock()
	info, err := c.lstatChain(rel)
	if errors.Is(err, fs.ErrNotExist) {
		if c.archivedAlready(rel, hash) {
			return nil // a retry after a move that succeeded
		}
		return scouts.Errorf(scouts.ENotFound, "%s is no longer there; nothing to archive", c.display(rel))
	}
	if err != nil {
		return invalid("cannot archive %s: %v", c.display(rel), errText(err))
	}
	if !info.Mode().IsRegular() {
		return invalid("cannot archive %s: it is not a regular file", c.display(rel))
	}
	srcDir, name := splitRel(rel)
	fileHash, err := c.knownHash(ctx, srcDir, info)
	if err != nil {
		return err
	}
	destRel, err := c.archiveDest(rel)
	if err != nil {
		return err
	}
	destDir, destName := splitRel(destRel)
	created, err := c.mkdirs(destDir)
	if err != nil {
		return err
	}
	dest := statEntry(TypeFile, info, fileHash)
	dest.Name = destName
	b := IndexBatch{Put: append(dirPuts(created), IndexPut{Dir: destDir, Entry: dest})}
	if err := c.record(ctx, b); err != nil {
		return err
	}
	if err := c.root().Rename(osRel(rel), osRel(destRel)); err != nil {
		c.record(ctx, IndexBatch{Delete: []EntryKey{{Dir: destDir, Name: destName}}})
		return fmt.Errorf("directory: archive %s: %w", c.display(rel), err)
	}
	c.syncDir(destDir)
	return c.record(ctx, IndexBatch{Delete: []EntryKey{{Dir: srcDir, Name: name}}})
}

// knownHash returns the content hash of a file: the index's when the file
// is as the index remembers it, else by reading it.
func (c *Connector) knownHash(ctx context.Context, dir string, info fs.FileInfo) (string, error) {
	known, err := c.idx.LoadDir(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("directory: load index: %w", err)
	}
	if e, ok := known[info.Name()]; ok && e.Type == TypeFile && sameStat(e, info) {
		return e.Hash, nil
	}
	return c.hashFile(joinRel(dir, info.Name()), info)
}

func (c *Connector) hashFile(rel string, info fs.FileInfo) (string, error) {
	dir, _ := splitRel(rel)
	d, err := c.openDir(dir, nil)
	if err != nil {
		return "", fmt.Errorf("directory: open %s: %w", c.display(dir), err)
	}
	defer d.Close()
	f, err := c.openIn(d, info)
	if err != nil {
		return "", fmt.Errorf("directory: read %s: %w", c.display(rel), err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, MaxHashBytes)); err != nil {
		return "", fmt.Errorf("directory: read %s: %w", c.display(rel), err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// archiveDest picks a free name for rel in the archive.
func (c *Connector) archiveDest(rel string) (string, error) {
	base := ArchiveDir + "/" + rel
	dir, name := splitRel(base)
	ext := path.Ext(name)
	if ext == name {
		ext = "" // ".profile" has no extension to keep
	}
	stem := strings.TrimSuffix(name, ext)
	for n := 1; n < 10000; n++ {
		cand := base
		if n > 1 {
			cand = joinRel(dir, fmt.Sprintf("%s (%d)%s", stem, n, ext))
		}
		if _, err := c.root().Lstat(osRel(cand)); errors.Is(err, fs.ErrNotExist) {
			return cand, nil
		} else if err != nil {
			return "", fmt.Errorf("directory: archive %s: %w", c.display(rel), err)
		}
	}
	return "", scouts.Errorf(scouts.EConflict, "the archive already holds 10000 files named like %s", c.display(rel))
}

// archivedAlready reports whether the archive holds rel with the given
// content hash, as a previous Archive of the same ref would have left it.
func (c *Connector) archivedAlready(rel, hash string) bool {
	if hash == "" {
		return false
	}
	dest := ArchiveDir + "/" + rel
	info, err := c.lstatChain(dest)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	h, err := c.hashFile(dest, info)
	return err == nil && strings.HasPrefix(h, hash)
}
