package defsync

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/scouts-hq/scouts/scouts"
)

// Tx is a change to the scouts' definitions in progress: it stands for the
// service's lock, held until the change is done. A function that takes a
// Tx runs only under the lock; the lock is never taken twice, so code
// already holding it passes its Tx instead of locking again.
type Tx struct {
	note string
}

// Note sets the note the change's version records, for a change whose
// words are known only once it is made (a rule's id, from its document).
func (tx *Tx) Note(note string) { tx.note = note }

// Edit is one change to a scout's definition, made by Change.
type Edit struct {
	ScoutID string
	// Note says what changed, recorded with the version; "" lets the
	// version say it from what changed ("schedule changed").
	Note string
	// WriteFile changes a scout a definitions file manages and writes the
	// file too. Without it such a change is refused: the file decides the
	// scout's definition, and its next edit would silently undo the change.
	WriteFile bool
	// Internal is a write of what a definition leaves out (Kind's
	// InternalKeys: a relay's answer, a webhook's address), ordered with
	// the definitions' changes: it is never refused, and records no
	// version and writes no file.
	Internal bool
}

// Change makes one change to a scout's definition, the one way every
// change is made: under the definitions lock, it refuses a scout a
// definitions file manages (unless e.WriteFile), runs fn — which writes
// the change — records the new version by the actor under ctx (WithActor)
// and, for a managed scout, writes its file. The scouts restarted meanwhile
// (Restart) restart once it is done, as the database then has them, so
// that a restarted scout's first run records the new version.
//
// The lock orders the changes, each from what it reads of the scout to the
// version it records, with the reads that record a change made outside a
// definition first (History, Export): a read that came between a change's
// database write and its version recorded that change as the agent's
// ("changed outside a definition"), and a change that came between
// another's write and its version recorded both under its own author.
func (s *Service) Change(ctx context.Context, e Edit, fn func(*Tx) error) error {
	tx := s.begin()
	defer s.end(ctx)
	if e.Internal {
		return fn(tx)
	}
	by, err := s.ManagerOf(ctx, e.ScoutID)
	if err != nil {
		return err
	}
	if by != "" && !e.WriteFile {
		return errManaged(by)
	}
	tx.note = e.Note
	if err := fn(tx); err != nil {
		return err
	}
	if _, err := s.record(ctx, tx, e.ScoutID, ActorOf(ctx), tx.note); err != nil {
		return fmt.Errorf("defs: scout %s changed, but its version was not recorded: %w", e.ScoutID, err)
	}
	if by == "" {
		return nil
	}
	return s.writeFile(ctx, tx, e.ScoutID, by)
}

// begin takes the definitions lock and holds back the scouts' restarts
// until end.
func (s *Service) begin() *Tx {
	s.mu.Lock()
	s.restarts.Lock()
	s.restarts.held = true
	s.restarts.Unlock()
	return &Tx{}
}

// end lets the lock go, then restarts what was held back, each as the
// database has it now (a relay's answer may have changed the scout
// meanwhile): the lock first, so that a scout's restart (which waits for
// its run in progress to stop) never keeps a history from being read.
func (s *Service) end(ctx context.Context) {
	s.restarts.Lock()
	ids := s.restarts.ids
	s.restarts.ids, s.restarts.held = nil, false
	s.restarts.Unlock()
	s.mu.Unlock()
	for id := range ids {
		sc, err := s.cfg.Store.GetScout(context.WithoutCancel(ctx), id)
		if err != nil {
			s.log.Warn("restart scout after its definition changed", "scout", id, "err", err)
			continue
		}
		s.cfg.Sync(sc)
	}
}

// Restart (re)starts sc's runner now or, while a change to the
// definitions is being made, once it is done: the first run of a scout an
// import, a definitions file or a rollback changed then records the new
// version, not the one before, and no restart waits on a run under the
// lock.
func (s *Service) Restart(sc scouts.Scout) {
	s.restarts.Lock()
	if s.restarts.held {
		if s.restarts.ids == nil {
			s.restarts.ids = map[string]bool{}
		}
		s.restarts.ids[sc.ID] = true
		s.restarts.Unlock()
		return
	}
	s.restarts.Unlock()
	s.cfg.Sync(sc)
}

// restartHold is the scouts whose restart waits for the change being
// made.
type restartHold struct {
	sync.Mutex
	held bool
	ids  map[string]bool
}

type actorKey struct{}

// WithActor says who makes the changes done under ctx ("window", "cli",
// "api"…): the definition versions they record name it.
func WithActor(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, actorKey{}, who)
}

// ActorOf is who makes the changes under ctx, "api" when nobody said.
func ActorOf(ctx context.Context) string {
	if a, _ := ctx.Value(actorKey{}).(string); a != "" {
		return a
	}
	return "api"
}

type writeFileKey struct{}

// WithWriteFile asks that the changes done under ctx to a scout a
// definitions file manages be written to its file too (the API's
// ?write_file=true). Without it they are refused (Edit.WriteFile).
func WithWriteFile(ctx context.Context) context.Context {
	return context.WithValue(ctx, writeFileKey{}, true)
}

// WritesFile says whether ctx asks to write a managed scout's file.
func WritesFile(ctx context.Context) bool {
	w, _ := ctx.Value(writeFileKey{}).(bool)
	return w
}

// errManaged is the answer to an edit of a scout a file manages.
func errManaged(by string) error {
	file := strings.TrimPrefix(by, "file:")
	return scouts.Errorf(scouts.EConflict, "managed by %s — edit the file (or ask to write it: ?write_file=true)", file)
}
