// Package actions is the catalogue of every side effect Scouts can cause:
// each action has a name, a risk hint, a JSON Schema for its parameters and
// a place where it runs (inside the decision's transaction, or later through
// the durable outbox). It also resolves the mode of an invocation — allow,
// deny or require approval — from the user's policies (seed 002).
//
// The package knows nothing of suggestions, storage or sources: the engine
// (package scouts) builds plans from it and records what it resolves, and
// the desktop registers the executors of remote actions.
package actions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/scouts-hq/scouts/scouts/internal/schemacheck"
)

// Risk is an action's risk hint. It only sets the default mode (read →
// allow, write and danger → require approval); enforcement is the
// resolved mode.
type Risk string

const (
	RiskRead   Risk = "read"
	RiskWrite  Risk = "write"
	RiskDanger Risk = "danger"
)

// Where says where an action runs.
type Where string

const (
	// Local actions create an entity in the local database, inside the
	// transaction that records the decision: they happen exactly when the
	// decision does.
	Local Where = "local"
	// Outbox actions change something outside the database (a mailbox, a
	// folder, a web service): they are queued in the durable outbox in the
	// decision's transaction and run afterwards, exactly once in effect,
	// with an idempotency key.
	Outbox Where = "outbox"
)

// Def is one action of the catalogue.
type Def struct {
	Name        string
	Risk        Risk
	Where       Where
	Description string
	// Kinds lists the scout kinds whose items the action applies to;
	// empty means any kind.
	Kinds []string
	// Schema is the JSON Schema (draft 2020-12) of the action's params.
	Schema json.RawMessage
	// Blocked, when set, says why the action cannot run now (a tool of an
	// MCP server whose definition changed since the person approved it):
	// it resolves to deny, whatever the policies say, and plans show it
	// with this reason.
	Blocked string

	compiled *jsonschema.Schema
}

// AppliesTo reports whether the action can act on items of a scout kind.
func (d Def) AppliesTo(kind string) bool {
	return len(d.Kinds) == 0 || slices.Contains(d.Kinds, kind)
}

// Catalogue is the set of actions, with their compiled schemas.
type Catalogue struct {
	defs []Def
	// extra lists the actions that come and go while the agent runs (the
	// tools of MCP servers), asked each time: nil, none.
	extra func() []Def
	// schemas caches the compiled schemas of extra actions by their text.
	schemas *schemaCache
}

// WithExtra returns the catalogue with actions that come and go at run
// time: extra is called on every look-up, so an action it stops listing
// (or lists as blocked) is gone (or blocked) at once. An extra action
// never shadows a built-in one.
func (c *Catalogue) WithExtra(extra func() []Def) *Catalogue {
	return &Catalogue{defs: c.defs, extra: extra, schemas: &schemaCache{m: map[string]*jsonschema.Schema{}}}
}

// schemaCache holds compiled schemas of extra actions, keyed by the
// schema's text: a tool whose schema changes compiles again.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]*jsonschema.Schema
}

// maxCachedSchemas bounds the cache; past it, it starts again.
const maxCachedSchemas = 1000

func (sc *schemaCache) compile(d Def) (*jsonschema.Schema, error) {
	key := d.Name + "\x00" + string(d.Schema)
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if s, ok := sc.m[key]; ok {
		return s, nil
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	schema := d.Schema
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = json.RawMessage(`{"type": "object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: its schema is not JSON: %v", ErrInvalid, d.Name, err)
	}
	url := "scouts:actions/extra/" + d.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%w: %s: its schema: %v", ErrInvalid, d.Name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: its schema does not compile: %v", ErrInvalid, d.Name, err)
	}
	if len(sc.m) >= maxCachedSchemas {
		clear(sc.m)
	}
	sc.m[key] = s
	return s, nil
}

// New compiles the built-in catalogue. It fails only on a broken schema in
// the code, which the package's tests rule out.
func New() (*Catalogue, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	defs := builtin()
	for i := range defs {
		d := &defs[i]
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.Schema))
		if err != nil {
			return nil, fmt.Errorf("actions: schema of %s: %w", d.Name, err)
		}
		url := "scouts:actions/" + d.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("actions: schema of %s: %w", d.Name, err)
		}
		if d.compiled, err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("actions: schema of %s: %w", d.Name, err)
		}
	}
	return &Catalogue{defs: defs}, nil
}

// MustNew is New for programs and tests, where a broken built-in schema is
// a bug.
func MustNew() *Catalogue {
	c, err := New()
	if err != nil {
		panic(err)
	}
	return c
}

// List returns every action, in catalogue order: the built-in ones,
// then the extra ones.
func (c *Catalogue) List() []Def {
	out := slices.Clone(c.defs)
	if c.extra != nil {
		for _, d := range c.extra() {
			if !slices.ContainsFunc(c.defs, func(b Def) bool { return b.Name == d.Name }) {
				out = append(out, d)
			}
		}
	}
	return out
}

// Get returns the action called name.
func (c *Catalogue) Get(name string) (Def, bool) {
	for _, d := range c.defs {
		if d.Name == name {
			return d, true
		}
	}
	if c.extra != nil {
		for _, d := range c.extra() {
			if d.Name == name {
				return d, true
			}
		}
	}
	return Def{}, false
}

// ErrInvalid marks errors in what a caller asked for (an unknown action,
// params that break the schema): the engine turns them into EInvalid.
var ErrInvalid = errors.New("invalid action")

// Validate checks params against the action's schema. Absent params are
// an empty object.
func (c *Catalogue) Validate(name string, params json.RawMessage) error {
	d, ok := c.Get(name)
	if !ok {
		return fmt.Errorf("%w: unknown action %q (see GET /api/v1/actions)", ErrInvalid, name)
	}
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage(`{}`)
	}
	if len(params) > MaxParamsBytes {
		return fmt.Errorf("%w: %s: params are %d bytes, at most %d", ErrInvalid, name, len(params), MaxParamsBytes)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return fmt.Errorf("%w: %s: params are not JSON: %v", ErrInvalid, name, err)
	}
	compiled := d.compiled
	if compiled == nil && c.schemas != nil {
		if compiled, err = c.schemas.compile(d); err != nil {
			return err
		}
	}
	if compiled == nil {
		return fmt.Errorf("%w: %s has no schema", ErrInvalid, name)
	}
	if err := compiled.Validate(inst); err != nil {
		if leaves, ok := schemacheck.Leaves(err); ok {
			return fmt.Errorf("%w: %s: %s", ErrInvalid, name, describe(leaves))
		}
		return fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	return nil
}

// MaxParamsBytes bounds one action's params.
const MaxParamsBytes = 16 << 10

// describe words a validation error's leaves: "at /label: …".
func describe(leaves []schemacheck.Failure) string {
	out := make([]string, len(leaves))
	for i, l := range leaves {
		out[i] = "at /" + strings.Join(l.At, "/") + ": " + l.Msg
	}
	return strings.Join(out, "; ")
}
