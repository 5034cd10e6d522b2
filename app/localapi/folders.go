package localapi

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/scouts"
)

// maxFolderEntries bounds one listing: a chooser does not need more.
const maxFolderEntries = 1000

// handleFolders lists the subfolders of a folder, for the UI's folder
// chooser: a browser cannot hand a page an absolute path, so the agent,
// which runs as the user, answers instead. Names only, never file contents.
func (s *Server) handleFolders(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := q.Get("path")
	if p == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			s.fail(w, r, scouts.Errorf(scouts.EUnavailable, "no home folder is known (%v): type an absolute path", err))
			return
		}
		p = home
	}
	if !filepath.IsAbs(p) {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "path %q is not absolute (want e.g. /home/ann/Documents)", p))
		return
	}
	p = filepath.Clean(p)
	entries, err := os.ReadDir(p)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			s.fail(w, r, scouts.Errorf(scouts.ENotFound, "folder %s does not exist", p))
		case errors.Is(err, fs.ErrPermission):
			s.fail(w, r, scouts.Errorf(scouts.EInvalid, "folder %s cannot be opened: permission denied", p))
		default:
			if fi, serr := os.Stat(p); serr == nil && !fi.IsDir() {
				s.fail(w, r, scouts.Errorf(scouts.EInvalid, "%s is a file, not a folder", p))
				return
			}
			s.fail(w, r, scouts.Errorf(scouts.EUnavailable, "folder %s cannot be read: %v", p, err))
		}
		return
	}
	hidden := q.Get("hidden") == "1" || q.Get("hidden") == "true"
	out := apitype.Folders{Path: p, Dirs: []string{}}
	if parent := filepath.Dir(p); parent != p {
		out.Parent = parent
	}
	for _, e := range entries {
		name := e.Name()
		if !hidden && strings.HasPrefix(name, ".") {
			continue
		}
		isDir := e.IsDir()
		if !isDir && e.Type()&fs.ModeSymlink != 0 {
			// A link to a folder is a folder to the person choosing.
			fi, err := os.Stat(filepath.Join(p, name))
			isDir = err == nil && fi.IsDir()
		}
		if !isDir {
			continue
		}
		if len(out.Dirs) == maxFolderEntries {
			out.Truncated = true
			break
		}
		out.Dirs = append(out.Dirs, name)
	}
	slices.Sort(out.Dirs)
	writeJSON(w, http.StatusOK, out)
}
