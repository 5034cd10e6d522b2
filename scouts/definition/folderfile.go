package definition

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ReadFolderFile reads the file name directly in dir, the definitions
// folder. It never reads more than MaxSize+1 bytes: a file larger than
// MaxSize, whatever the folder holds, must not make the agent read it
// whole (a link to a 4 GiB file stopped the agent at every start). What
// is not a regular file of the folder — a folder, a named pipe, a device,
// a symbolic link to nothing or leading outside the folder — and a file
// over MaxSize are never opened for reading: each is an *Error saying
// why, for the folder's problems. A file removed meanwhile is an error
// that errors.Is(fs.ErrNotExist).
func ReadFolderFile(dir, name string) ([]byte, error) {
	return readFolderFile(dir, name, MaxSize, nil)
}

// readFolderFile is ReadFolderFile with its limit; wrap, when set, wraps
// the opened file, so that a test can count what is read from it.
func readFolderFile(dir, name string, limit int64, wrap func(io.Reader) io.Reader) ([]byte, error) {
	bad := func(format string, a ...any) error {
		return &Error{File: name, Reason: fmt.Sprintf(format, a...)}
	}
	if !filepath.IsLocal(name) || filepath.Base(name) != name {
		return nil, bad("not a file directly in the definitions folder")
	}
	path := filepath.Join(dir, name)
	li, err := os.Lstat(path)
	if err != nil {
		return nil, gone(name, err)
	}
	// rel is what is opened, relative to the folder: the link's target
	// once it is known to stay inside.
	rel := name
	if li.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		real, err := filepath.EvalSymlinks(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, bad("not a regular file: a symbolic link to %s, which does not exist", target)
		case err != nil:
			return nil, bad("not read: a symbolic link to %s that cannot be followed: %v", target, err)
		}
		realDir, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, gone(name, err)
		}
		// Outside, it could be any file of the person's (a key, whose
		// lines a parse error would quote) or one that never ends.
		if rel, err = filepath.Rel(realDir, real); err != nil || !filepath.IsLocal(rel) {
			return nil, bad("not read: a symbolic link to %s, which leads outside the definitions folder "+
				"(put the file itself in the folder, or give the agent the folder it is in: scouts agent --definitions DIR)", target)
		}
	}
	// Opened through the folder as a root: a link swapped in after the
	// checks above still cannot lead out of it.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, gone(name, err)
	}
	defer root.Close()
	fi, err := root.Stat(rel)
	if err != nil {
		return nil, gone(name, err)
	}
	if err := checkFolderFile(name, fi, limit); err != nil {
		return nil, err
	}
	// Without blocking: a named pipe swapped in since the Stat would
	// otherwise hold the agent until something writes to it.
	f, err := root.OpenFile(rel, openFolderFileFlags, 0)
	if err != nil {
		return nil, gone(name, err)
	}
	defer f.Close()
	// What was opened, not what was looked at: it may have been replaced.
	if fi, err = f.Stat(); err != nil {
		return nil, bad("%v", err)
	}
	if err := checkFolderFile(name, fi, limit); err != nil {
		return nil, err
	}
	var r io.Reader = f
	if wrap != nil {
		r = wrap(r)
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, bad("%v", err)
	}
	if int64(len(data)) > limit { // it grew since it was looked at
		return nil, bad("larger than %d bytes: not read", limit)
	}
	return data, nil
}

// checkFolderFile refuses what fi describes unless it is a regular file
// of at most limit bytes.
func checkFolderFile(name string, fi fs.FileInfo, limit int64) error {
	var why string
	switch m := fi.Mode(); {
	case m.IsDir():
		why = "not a regular file: a folder (definitions are files directly in the definitions folder)"
	case m&fs.ModeNamedPipe != 0:
		why = "not a regular file: a named pipe (FIFO), not read"
	case m&fs.ModeDevice != 0:
		why = "not a regular file: a device, not read"
	case m&fs.ModeSocket != 0:
		why = "not a regular file: a socket, not read"
	case !m.IsRegular():
		why = "not a regular file, not read"
	case fi.Size() > limit:
		why = fmt.Sprintf("larger than %d bytes (%d bytes): not read", limit, fi.Size())
	default:
		return nil
	}
	return &Error{File: name, Reason: why}
}

// gone is err as ReadFolderFile answers it: as is when the file is no
// longer there (the folder's next change says so), else the folder's
// problem with name.
func gone(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("definition %s: %w", name, err)
	}
	return &Error{File: name, Reason: err.Error()}
}
