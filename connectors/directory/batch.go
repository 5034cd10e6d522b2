package directory

import "fmt"

// put records an entry in the pending batch.
func (s *scan) put(dir string, e Entry) {
	s.batch.Put = append(s.batch.Put, IndexPut{Dir: dir, Entry: e})
}

// gone forgets an entry that is no longer there (or no longer in scope),
// with everything below it if it was a directory.
func (s *scan) gone(dir, name string, old Entry) {
	s.batch.Delete = append(s.batch.Delete, EntryKey{Dir: dir, Name: name})
	if old.Type == TypeDir || old.Type == TypeProblem {
		// A problem entry may be an unreadable directory.
		s.batch.DeleteTrees = append(s.batch.DeleteTrees, joinRel(dir, name))
	}
}

// maybeFlush hands a full page to the engine, or writes a large batch of
// index-only changes, so that memory stays bounded.
func (s *scan) maybeFlush() error {
	b := &s.batch
	if len(s.items) >= pageSize || len(b.Put)+len(b.Delete)+len(b.DeleteTrees) >= maxBatch {
		return s.flush()
	}
	return nil
}

// flush hands the pending items to the engine and, once it has recorded
// them, applies the index changes that go with them. If the engine fails,
// nothing is applied and the same items come again on the next run.
func (s *scan) flush() error {
	c := s.c
	if len(s.items) > 0 {
		items := s.items
		s.items = nil
		if err := s.page(s.ctx, items); err != nil {
			return err
		}
	}
	if err := c.idx.Apply(s.ctx, s.batch); err != nil {
		return fmt.Errorf("directory: update index: %w", err)
	}
	// Reuse the batch's arrays: a large scan flushes many batches.
	b := &s.batch
	clear(b.Put)
	clear(b.Delete)
	b.Put, b.Delete, b.DeleteTrees = b.Put[:0], b.Delete[:0], nil
	return nil
}
