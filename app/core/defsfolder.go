package core

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

// defsFolder is the state of the definitions folder: the files that
// failed last time it was read.
type defsFolder struct {
	mu     sync.Mutex // one reconcile at a time; guards errors
	errors []definition.Error
}

// DefinitionsDebounce is how long the folder must be quiet after a change
// before it is read again: an editor's save or a burst of copies is read
// once.
const DefinitionsDebounce = 200 * time.Millisecond

// DefinitionErrors are the definitions folder's files that failed the
// last reconcile, with their line and reason.
func (c *Core) DefinitionErrors() []definition.Error {
	c.defs.mu.Lock()
	defer c.defs.mu.Unlock()
	return slices.Clone(c.defs.errors)
}

// DefinitionsDir is the configured definitions folder ("" when none).
func (c *Core) DefinitionsDir() string { return c.cfg.DefinitionsDir }

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

// ReconcileDefinitions makes the scouts match the definitions folder: a
// new file creates its scout, a changed one makes a new version, a file
// gone disables its scout (its suggestions and entities stay). A file that
// cannot be read or applied changes nothing and is reported.
func (c *Core) ReconcileDefinitions(ctx context.Context) error {
	dir := c.cfg.DefinitionsDir
	if dir == "" {
		return nil
	}
	c.defs.mu.Lock()
	defer c.defs.mu.Unlock()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return scouts.Errorf(scouts.EUnavailable, "definitions folder %s: %v", dir, err)
	}
	states, err := c.DB.ScoutDefinitionStates(ctx)
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
				continue // removed while we read: the next event says so
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
			id, owner, err := c.scoutNamed(ctx, d, states, present)
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
		if _, err := c.ImportDefinitions(ctx, []definition.Document{d}, ImportOptions{Apply: true, Actor: "file:" + name,
			Note: "file " + name + " changed", CreateNote: "created from file " + name, ManagedBy: "file:" + name}); err != nil {
			problems = append(problems, definition.Error{File: name, Reason: scouts.ErrorMessage(err)})
			continue
		}
		if states[d.ID].ManagedBy != "file:"+name {
			// Created or taken over: later files must see it as managed.
			if states, err = c.DB.ScoutDefinitionStates(ctx); err != nil {
				return err
			}
		}
	}
	// The managers now, after the files above: a scout a renamed file
	// took over is not its old file's to disable.
	if states, err = c.DB.ScoutDefinitionStates(ctx); err != nil {
		return err
	}
	for by, id := range byManager {
		if present[by] || states[id].ManagedBy != by {
			continue
		}
		if err := c.disableUnmanaged(ctx, id, by); err != nil {
			return err
		}
	}
	slices.SortFunc(problems, func(a, b definition.Error) int { return strings.Compare(a.File, b.File) })
	if problems == nil {
		problems = []definition.Error{} // on the stream: a list, never null
	}
	c.defs.errors = problems
	c.Bus.Publish(scouts.Event{Type: EventDefinitionsReconciled, Data: map[string]any{"definition_errors": problems}})
	return nil
}

// disableUnmanaged disables a scout whose file (by) was removed, which
// the file records as the scout's last version.
func (c *Core) disableUnmanaged(ctx context.Context, id, by string) error {
	ctx, done := c.changeDefinitions(ctx)
	defer done()
	if err := c.DB.SetScoutManagedBy(ctx, id, ""); err != nil && scouts.ErrorCode(err) != scouts.ENotFound {
		return err
	}
	off := false
	if _, err := c.UpdateScout(ctx, id, ScoutPatch{Enabled: &off, fromDefinition: true}); err != nil && scouts.ErrorCode(err) != scouts.ENotFound {
		return err
	}
	if _, err := c.SnapshotDefinition(ctx, id, by, "its file was removed: disabled"); err != nil && scouts.ErrorCode(err) != scouts.ENotFound {
		return err
	}
	return nil
}

// EventDefinitionsReconciled is published after each reconcile of the
// definitions folder.
const EventDefinitionsReconciled = "definitions.reconciled"

// WatchDefinitions reconciles the definitions folder now and after every
// change to it (debounced) until ctx ends. The folder is created if
// missing so that it can be watched. It is watched through the agent's
// shared watcher (watches.go); when a limit of the system keeps it from
// being watched (the watcher has logged which), it is read again every
// poll interval instead.
func (c *Core) WatchDefinitions(ctx context.Context) error {
	dir := c.cfg.DefinitionsDir
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return scouts.Errorf(scouts.EUnavailable, "definitions folder %s: %v", dir, err)
	}
	sub, err := c.watches.hub.Subscribe(dir)
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
	if err := c.ReconcileDefinitions(ctx); err != nil {
		c.log.Warn("definitions folder", "err", err)
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		var events <-chan fsnotify.Event
		var watchErrs <-chan error
		var poll <-chan time.Time
		if sub != nil {
			defer sub.Close()
			events, watchErrs = sub.Events(), sub.Errors()
		} else {
			t := time.NewTicker(cmp.Or(c.cfg.PollInterval, 5*time.Minute))
			defer t.Stop()
			poll = t.C
		}
		timer := time.NewTimer(time.Hour)
		timer.Stop()
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
					timer.Reset(DefinitionsDebounce)
				}
			case err, ok := <-watchErrs:
				if !ok {
					return
				}
				// An overflow loses events: read everything again.
				c.log.Warn("definitions folder: watch", "err", err)
				timer.Reset(DefinitionsDebounce)
			case <-poll:
				timer.Reset(0)
			case <-timer.C:
				if err := c.ReconcileDefinitions(ctx); err != nil {
					c.log.Warn("definitions folder", "err", err)
				}
			}
		}
	}()
	return nil
}

// managedBy says who manages a scout's definition ("" for nobody).
func (c *Core) managedBy(ctx context.Context, id string) (string, error) {
	states, err := c.DB.ScoutDefinitionStates(ctx)
	if err != nil {
		return "", err
	}
	return states[id].ManagedBy, nil
}

// checkEditable refuses a change under ctx to the definition of a scout a
// file manages, unless ctx asks to write the file (WithWriteFile).
func (c *Core) checkEditable(ctx context.Context, id string) error {
	by, err := c.managedBy(ctx, id)
	if err != nil {
		return err
	}
	if by != "" && !writesFile(ctx) {
		return errManaged(by)
	}
	return nil
}

// writeFileAsked writes a scout's definition to the file that manages it
// when the change made under ctx asked for it (WithWriteFile).
func (c *Core) writeFileAsked(ctx context.Context, id string) error {
	if !writesFile(ctx) {
		return nil
	}
	by, err := c.managedBy(ctx, id)
	if err != nil || by == "" {
		return err
	}
	return c.writeDefinitionFile(ctx, id, by)
}

// ManagedBy is every managed scout's manager ("file:NAME"), by scout id.
func (c *Core) ManagedBy(ctx context.Context) (map[string]string, error) {
	states, err := c.DB.ScoutDefinitionStates(ctx)
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

// writeDefinitionFile writes a file-managed scout's current definition to
// its file, atomically: JSON, or YAML keeping the person's comments
// (definitionFileText).
func (c *Core) writeDefinitionFile(ctx context.Context, id, by string) error {
	name := strings.TrimPrefix(by, "file:")
	if c.cfg.DefinitionsDir == "" || name == by || filepath.Base(name) != name {
		return scouts.Errorf(scouts.EInvalid, "scout %s is managed by %s, which is not a definitions file", id, by)
	}
	s, err := c.DB.GetScout(ctx, id)
	if err != nil {
		return err
	}
	d, err := c.DefinitionOf(ctx, s)
	if err != nil {
		return err
	}
	data, err := c.definitionFileText(name, s.Kind, d)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.cfg.DefinitionsDir, ".write-*")
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
	if err := os.Rename(tmp.Name(), filepath.Join(c.cfg.DefinitionsDir, name)); err != nil {
		return scouts.Errorf(scouts.EUnavailable, "write %s: %v", name, err)
	}
	return nil
}
