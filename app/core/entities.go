package core

import (
	"context"

	"github.com/scouts-hq/scouts/scouts"
)

// CreateEntity stores an entity made by hand.
func (c *Core) CreateEntity(ctx context.Context, e scouts.Entity) (scouts.Entity, error) {
	now := c.now()
	e.ID = scouts.NewEntityID(e.Kind)
	e.SourceSuggestionID = ""
	e.CreatedAt, e.UpdatedAt = now, now
	if err := e.Validate(); err != nil {
		return e, err
	}
	if err := c.DB.CreateEntity(ctx, e); err != nil {
		return e, err
	}
	c.Bus.Publish(scouts.Event{Type: scouts.EventEntityCreated, Data: e})
	return e, nil
}

// UpdateEntity edits an entity.
func (c *Core) UpdateEntity(ctx context.Context, kind scouts.EntityKind, id string, p scouts.EntityPatch) (scouts.Entity, error) {
	e, err := c.DB.UpdateEntity(ctx, kind, id, p, c.now())
	if err != nil {
		return e, err
	}
	c.Bus.Publish(scouts.Event{Type: scouts.EventEntityUpdated, Data: e})
	return e, nil
}

// DeleteEntity deletes an entity.
func (c *Core) DeleteEntity(ctx context.Context, kind scouts.EntityKind, id string) error {
	if err := c.DB.DeleteEntity(ctx, kind, id); err != nil {
		return err
	}
	c.Bus.Publish(scouts.Event{Type: scouts.EventEntityDeleted, Data: map[string]string{"id": id, "kind": string(kind)}})
	return nil
}
