package defsync

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// folderState is the state of the definitions folder: the files that
// failed last time it was read.
type folderState struct {
	mu     sync.Mutex // one reconcile at a time; guards errors
	errors []definition.Error
}

// Debounce is how long the folder must be quiet after a change
// before it is read again: an editor's save or a burst of copies is read
// once.
const Debounce = 200 * time.Millisecond

// Errors are the definitions folder's files that failed the last
// reconcile, with their line and reason.
func (s *Service) Errors() []definition.Error {
	s.folder.mu.Lock()
	defer s.folder.mu.Unlock()
	return slices.Clone(s.folder.errors)
}

// Dir is the configured definitions folder ("" when none).
func (s *Service) Dir() string { return s.cfg.Dir }

func isDefinitionFile(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false // editors' and our own temporary files
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// Reconcile makes the scouts match the definitions folder: a
// new file creates its scout, a changed one makes a new version, a file
// gone disables its scout (its suggestions and entities stay). A file that
// cannot be read or applied changes nothing and is reported.
func (s *Service) Reconcile(ctx context.Context) error {
	dir := s.cfg.Dir
	if dir == "" {
		return nil
	}
	s.folder.mu.Lock()
	defer s.folder.mu.Unlock()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return scouts.Errorf(scouts.EUnavailable, "definitions folder %s: %v", dir, err)
	}
	states, err := s.cfg.Store.ScoutDefinitionStates(ctx)
	if err != nil {
		return err
	}
	byManager := map[string]string{}
	for id, st := range states {
		if st.ManagedBy != "" {
			byManager[st.ManagedBy] = id
		}
	}
	var problems []definition.Error
	// Every file first: a file naming a scout whose file is gone is that
	// file renamed, and takes the scout over.
	present := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() && isDefinitionFile(e.Name()) {
			present["file:"+e.Name()] = true
		}
	}
	// The files that manage a scout before the others, whatever the order
	// of their names: a file new to the folder that names (by name and
	// kind) a scout another file manages finds it taken, and finds it no
	// longer under that name if its file has just renamed it.
	slices.SortStableFunc(entries, func(a, b os.DirEntry) int {
		_, ma := byManager["file:"+a.Name()]
		_, mb := byManager["file:"+b.Name()]
		return cmpBool(ma, mb)
	})
	for _, e := range entries {
		if !isDefinitionFile(e.Name()) {
			continue
		}
		name := e.Name()
		data, err := definition.ReadFolderFile(dir, name)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				// Removed while we read: absent, now, so that its scout
				// is let go in this pass rather than on an event that may
				// have come before the listing.
				delete(present, "file:"+name)
				continue
			}
			var de *definition.Error
			if !errors.As(err, &de) {
				de = &definition.Error{File: name, Reason: err.Error()}
			}
			problems = append(problems, *de)
			continue
		}
		d, err := definition.Parse(name, data)
		if err != nil {
			var de *definition.Error
			if errors.As(err, &de) {
				problems = append(problems, *de)
			} else {
				problems = append(problems, definition.Error{File: name, Reason: err.Error()})
			}
			continue
		}
		if len(d.History) > 0 {
			// The file decides the definition; the agent keeps its
			// versions. A history here would be re-checked on every
			// change and lost on the next write to the file.
			problems = append(problems, definition.Error{File: name, Line: 1,
				Reason: "holds a history (an export with --history): import it with scouts import FILE --apply, and keep the definition alone in the folder"})
			continue
		}
		if id, ok := byManager["file:"+name]; ok {
			d.ID = id
		}
		if d.ID == "" {
			id, owner, err := s.scoutNamed(ctx, d, states, present)
			if err != nil {
				return err
			}
			if owner != "" {
				problems = append(problems, alreadyManaged(name, id, owner, d))
				continue
			}
			d.ID = id
		}
		if id := d.ID; id != "" {
			if st, ok := states[id]; ok && st.ManagedBy != "" && st.ManagedBy != "file:"+name && present[st.ManagedBy] {
				problems = append(problems, alreadyManaged(name, id, st.ManagedBy, d))
				continue
			}
		}
		if _, err := s.Import(ctx, []definition.Document{d}, ImportOptions{Apply: true, Actor: "file:" + name,
			Note: "file " + name + " changed", CreateNote: "created from file " + name, ManagedBy: "file:" + name}); err != nil {
			problems = append(problems, definition.Error{File: name, Reason: scouts.ErrorMessage(err)})
			continue
		}
		if states[d.ID].ManagedBy != "file:"+name {
			// Created or taken over: later files must see it as managed.
			if states, err = s.cfg.Store.ScoutDefinitionStates(ctx); err != nil {
				return err
			}
		}
	}
	// The managers now, after the files above: a scout a renamed file
	// took over is not its old file's to disable.
	if states, err = s.cfg.Store.ScoutDefinitionStates(ctx); err != nil {
		return err
	}
	for by, id := range byManager {
		if present[by] || states[id].ManagedBy != by {
			continue
		}
		if err := s.disableUnmanaged(ctx, id, by); err != nil {
			return err
		}
	}
	slices.SortFunc(problems, func(a, b definition.Error) int { return strings.Compare(a.File, b.File) })
	if problems == nil {
		problems = []definition.Error{} // on the stream: a list, never null
	}
	s.folder.errors = problems
	s.publish(scouts.Event{Type: EventReconciled, Data: map[string]any{"definition_errors": problems}})
	return nil
}

// disableUnmanaged disables a scout whose file (by) was removed, which
// the file records as the scout's last version.
func (s *Service) disableUnmanaged(ctx context.Context, id, by string) error {
	tx := s.begin()
	defer s.end(ctx)
	if err := s.cfg.Store.SetScoutManagedBy(ctx, id, ""); err != nil && scouts.ErrorCode(err) != scouts.ENotFound {
		return err
	}
	off := false
	if err := s.cfg.Host.UpdateScout(ctx, tx, id, Settings{Enabled: &off}); err != nil && scouts.ErrorCode(err) != scouts.ENotFound {
		return err
	}
	if _, err := s.record(ctx, tx, id, by, "its file was removed: disabled"); err != nil && scouts.ErrorCode(err) != scouts.ENotFound {
		return err
	}
	return nil
}

// EventReconciled is published after each reconcile of the definitions
// folder.
const EventReconciled = "definitions.reconciled"

// Watch reconciles the definitions folder now and after every
// change to it (debounced) until ctx ends. The folder is created if
// missing so that it can be watched. It is watched through the agent's
// shared watcher (watches.go); when a limit of the system keeps it from
// being watched (the watcher has logged which), it is read again every
// poll interval instead.
func (s *Service) Watch(ctx context.Context) error {
	dir := s.cfg.Dir
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return scouts.Errorf(scouts.EUnavailable, "definitions folder %s: %v", dir, err)
	}
	sub, err := s.cfg.Watches.Subscribe(dir)
	if err == nil {
		if err = sub.Add(dir); err != nil {
			sub.Close()
			sub = nil
		}
	}
	var limit *watchhub.LimitError
	if err != nil && !errors.As(err, &limit) {
		return scouts.Errorf(scouts.EUnavailable, "definitions folder %s: watch: %v", dir, err)
	}
	// The first reconcile comes after the watch is set, so that no change
	// falls between them.
	first := s.Reconcile(ctx)
	if first != nil {
		s.log.Warn("definitions folder", "err", first, "retry_in", time.Second)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var events <-chan fsnotify.Event
		var watchErrs <-chan error
		var poll <-chan time.Time
		if sub != nil {
			defer sub.Close()
			events, watchErrs = sub.Events(), sub.Errors()
		} else {
			t := time.NewTicker(cmp.Or(s.cfg.PollInterval, 5*time.Minute))
			defer t.Stop()
			poll = t.C
		}
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		var retry time.Duration
		if first != nil {
			retry = time.Second
			timer.Reset(retry)
		}
		for {
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case ev, ok := <-events:
				if !ok {
					return
				}
				if isDefinitionFile(filepath.Base(ev.Name)) {
					timer.Reset(Debounce)
				}
			case err, ok := <-watchErrs:
				if !ok {
					return
				}
				// An overflow loses events: read everything again.
				s.log.Warn("definitions folder: watch", "err", err)
				timer.Reset(Debounce)
			case <-poll:
				timer.Reset(0)
			case <-timer.C:
				if err := s.Reconcile(ctx); err != nil {
					// A failed pass (the database busy, a scout being
					// restarted) would otherwise wait for the folder's
					// next change: try again, less and less often.
					retry = min(max(2*retry, time.Second), time.Minute)
					s.log.Warn("definitions folder", "err", err, "retry_in", retry)
					timer.Reset(retry)
					continue
				}
				retry = 0
			}
		}
	}()
	return nil
}

// ManagerOf says who manages a scout's definition ("file:NAME"; "" for
// nobody).
func (s *Service) ManagerOf(ctx context.Context, id string) (string, error) {
	states, err := s.cfg.Store.ScoutDefinitionStates(ctx)
	if err != nil {
		return "", err
	}
	return states[id].ManagedBy, nil
}

// ManagedBy is every managed scout's manager ("file:NAME"), by scout id.
func (s *Service) ManagedBy(ctx context.Context) (map[string]string, error) {
	states, err := s.cfg.Store.ScoutDefinitionStates(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for id, st := range states {
		if st.ManagedBy != "" {
			out[id] = st.ManagedBy
		}
	}
	return out, nil
}

// writeFile writes a file-managed scout's current definition to its file,
// atomically: JSON, or YAML keeping the person's comments
// (definitionFileText).
func (s *Service) writeFile(ctx context.Context, _ *Tx, id, by string) error {
	name := strings.TrimPrefix(by, "file:")
	if s.cfg.Dir == "" || name == by || filepath.Base(name) != name {
		return scouts.Errorf(scouts.EInvalid, "scout %s is managed by %s, which is not a definitions file", id, by)
	}
	sc, err := s.cfg.Store.GetScout(ctx, id)
	if err != nil {
		return err
	}
	d, err := s.Document(ctx, sc)
	if err != nil {
		return err
	}
	data, err := s.definitionFileText(name, sc.Kind, d)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.cfg.Dir, ".write-*")
	if err != nil {
		return scouts.Errorf(scouts.EUnavailable, "write %s: %v", name, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return scouts.Errorf(scouts.EUnavailable, "write %s: %v", name, err)
	}
	if err := tmp.Close(); err != nil {
		return scouts.Errorf(scouts.EUnavailable, "write %s: %v", name, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.cfg.Dir, name)); err != nil {
		return scouts.Errorf(scouts.EUnavailable, "write %s: %v", name, err)
	}
	return nil
}
