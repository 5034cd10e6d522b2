package localdb

import (
	"context"
	"slices"

	"github.com/scouts-hq/scouts/scouts"
)

// openProjectsLimit bounds the open projects content cues match against.
const openProjectsLimit = 200

// projectsCache is the open projects as of a write generation.
type projectsCache struct {
	gen  uint64
	list []scouts.Entity
}

// OpenProjects returns the newest open projects (at most 200), what content
// cues match an item's text against. Every item of a page asks, so the list
// is read again only after a write: once per page when a drain commits one
// page per transaction.
func (d *DB) OpenProjects(ctx context.Context) ([]scouts.Entity, error) {
	gen := d.gen.Load()
	d.projMu.Lock()
	c := d.proj
	d.projMu.Unlock()
	if c != nil && c.gen == gen {
		return slices.Clone(c.list), nil
	}
	done := false
	list, err := d.ListEntities(ctx, scouts.EntityProject, EntityFilter{Done: &done, Limit: openProjectsLimit})
	if err != nil {
		return nil, err
	}
	// Stored under the generation read before the query: a write that
	// commits meanwhile makes the next call read again.
	d.projMu.Lock()
	d.proj = &projectsCache{gen: gen, list: list}
	d.projMu.Unlock()
	return slices.Clone(list), nil
}
