// Package mcpclient makes the tools of other Model Context Protocol servers
// actions of Scouts (issue 21, the client direction): a registry of
// servers, their processes or connections, each tool's definition pinned
// by a hash when the person approves it, and drift — a tool whose
// definition changed since — blocked until the person reviews the
// difference and approves it again.
//
// The specification tells clients to treat a server's tool annotations as
// untrusted, and a tool's description and schema are what a model reads
// and what a call sends: a server that changes them after they were
// approved ("rug pull", tool poisoning) must not be believed silently.
package mcpclient

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Definition is the part of a tool that is pinned: what a person approves
// and what a model and a call depend on. Icons and _meta are left out:
// they change nothing a call does.
type Definition struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema and OutputSchema are canonical JSON (keys sorted, no
	// insignificant space), so that re-serialising the same schema is
	// not a change.
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  Annotations     `json:"annotations"`
}

// Annotations are a tool's hints as the server declared them: nil is "not
// said", which is not the same as false (the specification's defaults for
// an absent hint are the cautious ones for destructive and open world).
type Annotations struct {
	Title       string `json:"title,omitempty"`
	ReadOnly    *bool  `json:"readOnlyHint,omitempty"`
	Destructive *bool  `json:"destructiveHint,omitempty"`
	Idempotent  *bool  `json:"idempotentHint,omitempty"`
	OpenWorld   *bool  `json:"openWorldHint,omitempty"`
}

// effective returns the hints with the specification's defaults for the
// absent ones: not read-only, destructive, not idempotent, open world.
func (a Annotations) effective() (readOnly, destructive, idempotent, openWorld bool) {
	or := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	return or(a.ReadOnly, false), or(a.Destructive, true), or(a.Idempotent, false), or(a.OpenWorld, true)
}

// loosens reports whether going from a to b claims any hint safer than
// before: read-only where it was not, not destructive, idempotent, or
// closed world where it was open. A change that only claims less safety
// (a tool now saying it is destructive) is not drift: believing it costs
// nothing, since annotations can only ever make Scouts more careful.
func (a Annotations) loosens(b Annotations) bool {
	r1, d1, i1, o1 := a.effective()
	r2, d2, i2, o2 := b.effective()
	return (!r1 && r2) || (d1 && !d2) || (!i1 && i2) || (o1 && !o2)
}

// RawTool is a tool as tools/list sends it.
type RawTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *struct {
		Title       string `json:"title,omitempty"`
		ReadOnly    *bool  `json:"readOnlyHint,omitempty"`
		Destructive *bool  `json:"destructiveHint,omitempty"`
		Idempotent  *bool  `json:"idempotentHint,omitempty"`
		OpenWorld   *bool  `json:"openWorldHint,omitempty"`
	} `json:"annotations,omitempty"`
}

// Define turns a tool as the server sent it into its definition. The Go
// SDK fills readOnlyHint and idempotentHint with false when a server left
// them out; false is what absence means for both, so nothing is lost.
func Define(t RawTool) (Definition, error) {
	d := Definition{Name: t.Name, Title: t.Title, Description: t.Description}
	var err error
	if d.InputSchema, err = Canonical(t.InputSchema); err != nil {
		return Definition{}, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	if d.OutputSchema, err = Canonical(t.OutputSchema); err != nil {
		return Definition{}, fmt.Errorf("tool %q: output schema: %w", t.Name, err)
	}
	if a := t.Annotations; a != nil {
		d.Annotations = Annotations{Title: a.Title, ReadOnly: trueOnly(a.ReadOnly), Destructive: a.Destructive,
			Idempotent: trueOnly(a.Idempotent), OpenWorld: a.OpenWorld}
	}
	return d, nil
}

// trueOnly keeps a hint whose absence means false only when it is true:
// "false" and "not said" are one value, so one server that spells it out
// and one that does not pin the same.
func trueOnly(p *bool) *bool {
	if p == nil || !*p {
		return nil
	}
	return p
}

// Canonical re-encodes JSON with sorted keys and no insignificant space;
// numbers keep their text. "null" and nothing are nothing.
func Canonical(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	out, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Hash is a definition's pin: the SHA-256 of its canonical JSON.
func (d Definition) Hash() string {
	b, _ := json.Marshal(d) // fields in a fixed order, schemas canonical
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// withoutHints is the definition with its safety hints cleared, to tell a
// change of the hints alone from any other.
func (d Definition) withoutHints() Definition {
	d.Annotations = Annotations{Title: d.Annotations.Title}
	return d
}

// SetHash pins a whole tool set: one hash over every tool's name and
// hash, so that a rename, a removal or a new tool changes it even when
// every remaining tool is as it was.
func SetHash(defs map[string]string) string {
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%s\n", n, defs[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Status is what a tool listed now is, against its pin.
type Status string

const (
	// StatusUnchanged: the definition is the pinned one.
	StatusUnchanged Status = "unchanged"
	// StatusTightened: only safety hints changed, each towards more caution.
	// Not drift: the pin follows, and the trail says so.
	StatusTightened Status = "tightened"
	// StatusChanged: the definition differs from the pin (text, a schema, a
	// hint claiming more safety). Blocked until approved again.
	StatusChanged Status = "changed"
	// StatusNew: no pin by that name (a new tool, or a renamed one). Blocked
	// until approved.
	StatusNew Status = "new"
	// StatusRemoved: pinned, and no longer listed. Its action cannot run.
	StatusRemoved Status = "removed"
)

// Drift reports whether a status needs the person's review.
func (s Status) Drift() bool { return s == StatusChanged || s == StatusNew }

// ToolReport is one tool's classification.
type ToolReport struct {
	Name    string      `json:"name"`
	Status  Status      `json:"status"`
	OldHash string      `json:"old_hash,omitempty"`
	NewHash string      `json:"new_hash,omitempty"`
	Old     *Definition `json:"old,omitempty"`
	New     *Definition `json:"new,omitempty"`
	// Diff sets the old and new definitions side by side (changed and
	// tightened tools).
	Diff []DiffRow `json:"diff,omitempty"`
}

// Report is a tools/list classified against a server's pins.
type Report struct {
	// SetHash is the listed set's hash; PinnedSetHash the pinned one's.
	// Equal, nothing of the set changed.
	SetHash       string       `json:"set_hash"`
	PinnedSetHash string       `json:"pinned_set_hash"`
	Tools         []ToolReport `json:"tools"`
}

// Drifted lists the tools that need review.
func (r Report) Drifted() []ToolReport {
	var out []ToolReport
	for _, t := range r.Tools {
		if t.Status.Drift() {
			out = append(out, t)
		}
	}
	return out
}

// Classify compares the tools listed now with the pinned definitions (by
// tool name), each tool on its own: one changed tool blocks that tool
// only.
func Classify(pinned map[string]Definition, listed []Definition) Report {
	r := Report{}
	pinHashes := map[string]string{}
	for n, d := range pinned {
		pinHashes[n] = d.Hash()
	}
	r.PinnedSetHash = SetHash(pinHashes)
	seen := map[string]string{}
	for _, d := range listed {
		h := d.Hash()
		seen[d.Name] = h
		tr := ToolReport{Name: d.Name, NewHash: h, New: ptr(d)}
		old, ok := pinned[d.Name]
		switch {
		case !ok:
			tr.Status = StatusNew
		case pinHashes[d.Name] == h:
			tr.Status, tr.OldHash, tr.New = StatusUnchanged, h, nil
		default:
			tr.OldHash, tr.Old = pinHashes[d.Name], ptr(old)
			tr.Status = StatusChanged
			if old.withoutHints().Hash() == d.withoutHints().Hash() && !old.Annotations.loosens(d.Annotations) {
				tr.Status = StatusTightened
			}
			tr.Diff = SideBySide(old, d)
		}
		r.Tools = append(r.Tools, tr)
	}
	r.SetHash = SetHash(seen)
	for n, d := range pinned {
		if _, ok := seen[n]; !ok {
			r.Tools = append(r.Tools, ToolReport{Name: n, Status: StatusRemoved, OldHash: pinHashes[n], Old: ptr(d)})
		}
	}
	slices.SortFunc(r.Tools, func(a, b ToolReport) int { return strings.Compare(a.Name, b.Name) })
	return r
}

func ptr[T any](v T) *T { return &v }
