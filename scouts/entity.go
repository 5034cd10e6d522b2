package scouts

import (
	"strings"
	"time"
	"unicode/utf8"
)

// EntityKind is what a suggestion can become.
type EntityKind string

const (
	EntityTask    EntityKind = "task"
	EntityNote    EntityKind = "note"
	EntityEvent   EntityKind = "event"
	EntityProject EntityKind = "project"
)

// EntityKinds lists every kind, in the order the UI offers them.
var EntityKinds = []EntityKind{EntityTask, EntityNote, EntityEvent, EntityProject}

// WithArticle is the kind after its indefinite article, for sentences:
// "a task", "an event".
func (k EntityKind) WithArticle() string {
	if k != "" && strings.ContainsRune("aeiou", rune(k[0])) {
		return "an " + string(k)
	}
	return "a " + string(k)
}

// ParseEntityKind accepts a kind name, singular or plural.
func ParseEntityKind(s string) (EntityKind, error) {
	k := EntityKind(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "s"))
	switch k {
	case EntityTask, EntityNote, EntityEvent, EntityProject:
		return k, nil
	}
	return "", Errorf(EInvalid, "unknown kind %q (want task, note, event or project)", s)
}

// Entity is a task, note, event or project the user owns. One type covers
// all four: they share identity, title, body and provenance, and the few
// kind-specific fields are optional.
type Entity struct {
	Kind  EntityKind
	ID    string
	Title string
	Body  string

	// SourceSuggestionID links the entity back to the card it came from.
	SourceSuggestionID string

	// Task: Done, Due, ProjectID. Event: StartsAt, EndsAt, Location.
	// Project: Done (archived).
	Done      bool
	Due       time.Time
	ProjectID string
	StartsAt  time.Time
	EndsAt    time.Time
	Location  string

	CreatedAt time.Time
	UpdatedAt time.Time

	// BodyPending reports that the item's whole text is still to come:
	// the entity was approved with the card's excerpt and the outbox has
	// yet to read its source (engine.FillBody). It is read, never stored.
	BodyPending bool
}

// Limits on user-editable text, so one runaway paste cannot bloat every list.
const (
	MaxTitleBytes = 1 << 10
	MaxBodyBytes  = 1 << 20
)

// Validate checks an entity before it is stored.
func (e Entity) Validate() error {
	if _, err := ParseEntityKind(string(e.Kind)); err != nil {
		return err
	}
	if strings.TrimSpace(e.Title) == "" {
		return Errorf(EInvalid, "%s title is required", e.Kind)
	}
	if len(e.Title) > MaxTitleBytes {
		return Errorf(EInvalid, "%s title is longer than %d bytes", e.Kind, MaxTitleBytes)
	}
	if len(e.Body) > MaxBodyBytes {
		return Errorf(EInvalid, "%s body is longer than %d bytes", e.Kind, MaxBodyBytes)
	}
	if !utf8.ValidString(e.Title) || !utf8.ValidString(e.Body) {
		return Errorf(EInvalid, "%s text is not valid UTF-8", e.Kind)
	}
	if e.Kind == EntityEvent && !e.StartsAt.IsZero() && !e.EndsAt.IsZero() && e.EndsAt.Before(e.StartsAt) {
		return Errorf(EInvalid, "event ends before it starts")
	}
	if e.Kind != EntityEvent && (!e.StartsAt.IsZero() || !e.EndsAt.IsZero() || e.Location != "") {
		return Errorf(EInvalid, "only events have a start, an end or a location")
	}
	if e.Kind != EntityTask && (!e.Due.IsZero() || e.ProjectID != "") {
		return Errorf(EInvalid, "only tasks have a due date or a project")
	}
	return nil
}

// EntityPatch is a partial update; nil fields are left as they are.
type EntityPatch struct {
	Title     *string
	Body      *string
	Done      *bool
	Due       *time.Time
	ProjectID *string
	StartsAt  *time.Time
	EndsAt    *time.Time
	Location  *string
}

// Apply returns e with the patch applied (zero times clear a date).
func (p EntityPatch) Apply(e Entity) Entity {
	if p.Title != nil {
		e.Title = *p.Title
	}
	if p.Body != nil {
		e.Body = *p.Body
	}
	if p.Done != nil {
		e.Done = *p.Done
	}
	if p.Due != nil {
		e.Due = *p.Due
	}
	if p.ProjectID != nil {
		e.ProjectID = *p.ProjectID
	}
	if p.StartsAt != nil {
		e.StartsAt = *p.StartsAt
	}
	if p.EndsAt != nil {
		e.EndsAt = *p.EndsAt
	}
	if p.Location != nil {
		e.Location = *p.Location
	}
	return e
}
