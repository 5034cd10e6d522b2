package evaluate

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

//go:embed default-policy.json
var defaultPolicy []byte

// Policy is what the simulated user wants: the mail of some lists,
// domains or senders, each as a kind; mail without a List-Id that no
// entry matches gets NoList; everything else gets Default. Spam is always
// spam, whatever the policy says.
type Policy struct {
	About string `json:"about,omitempty"`
	Want  []Want `json:"want"`
	// NoList is "reject", or a kind: what happens to mail that came
	// through no mailing list (no List-Id) and that no entry matches.
	// Empty: such mail gets Default like the rest.
	NoList string `json:"no_list,omitempty"`
	// Default is "reject", or a kind: what happens to mail no entry
	// matches.
	Default string `json:"default"`
}

// Want is one source and what the user does with its mail; exactly one
// of List, Domain, Sender is set. Kind is an entity kind, or "reject" for
// an exception to what follows (a sender without a list whom no_list
// would otherwise want).
type Want struct {
	List   string `json:"list,omitempty"`   // a List-Id, with or without <>
	Domain string `json:"domain,omitempty"` // the sender's domain or a parent of it
	Sender string `json:"sender,omitempty"` // a bare address
	Kind   string `json:"kind"`
}

// DefaultPolicy is the policy shipped for the SpamAssassin development
// groups (app/evaluate/default-policy.json).
func DefaultPolicy() Policy {
	p, err := ParsePolicy(defaultPolicy)
	if err != nil {
		panic("evaluate: the embedded default policy is invalid: " + err.Error())
	}
	return p
}

// ParsePolicy reads a policy file strictly: unknown fields, unknown kinds
// and entries matching nothing or several things are errors.
func ParsePolicy(b []byte) (Policy, error) {
	var p Policy
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Policy{}, fmt.Errorf("policy: %w", err)
	}
	if p.Default == "" {
		p.Default = "reject"
	}
	var err error
	if p.Default, err = kindOrReject(p.Default); err != nil {
		return Policy{}, fmt.Errorf("policy: default: %w", err)
	}
	if p.NoList != "" {
		if p.NoList, err = kindOrReject(p.NoList); err != nil {
			return Policy{}, fmt.Errorf("policy: no_list: %w", err)
		}
	}
	for i, w := range p.Want {
		n := 0
		for _, s := range []string{w.List, w.Domain, w.Sender} {
			if strings.TrimSpace(s) != "" {
				n++
			}
		}
		if n != 1 {
			return Policy{}, fmt.Errorf("policy: want[%d]: set exactly one of list, domain, sender", i)
		}
		k, err := kindOrReject(w.Kind)
		if err != nil {
			return Policy{}, fmt.Errorf("policy: want[%d]: %w", i, err)
		}
		p.Want[i] = Want{List: normList(w.List), Domain: strings.ToLower(strings.Trim(strings.TrimSpace(w.Domain), ".")),
			Sender: strings.ToLower(strings.TrimSpace(w.Sender)), Kind: k}
	}
	return p, nil
}

// kindOrReject reads "reject" or a kind, as the policy's fallbacks are
// written.
func kindOrReject(s string) (string, error) {
	if s == "reject" {
		return s, nil
	}
	k, err := scouts.ParseEntityKind(s)
	if err != nil {
		return "", fmt.Errorf("want \"reject\" or a kind: %w", err)
	}
	return string(k), nil
}

func normList(s string) string { return strings.ToLower(strings.Trim(strings.TrimSpace(s), "<>")) }

// Judge says whether the user wants m, as which kind: the first entry
// matching wins, else no_list for mail without a List-Id, else the
// default.
func (p Policy) Judge(m triage.Message) (wanted bool, kind scouts.EntityKind) {
	list, from, dom := normList(m.ListID), strings.ToLower(m.From.Addr), m.From.Domain()
	for _, w := range p.Want {
		switch {
		case w.List != "" && w.List == list,
			w.Sender != "" && w.Sender == from,
			w.Domain != "" && dom != "" && (dom == w.Domain || strings.HasSuffix(dom, "."+w.Domain)):
			if w.Kind == "reject" {
				return false, ""
			}
			return true, scouts.EntityKind(w.Kind)
		}
	}
	fallback := p.Default
	if p.NoList != "" && list == "" {
		fallback = p.NoList
	}
	if fallback != "reject" {
		return true, scouts.EntityKind(fallback)
	}
	return false, ""
}
