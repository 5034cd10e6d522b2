package localdb

import (
	"encoding/json"
	"fmt"

	"github.com/scouts-hq/scouts/scouts"
)

// writeScopeJSON is how a scout's write scope is stored: the object of its
// definition, where a list left out (nil) is the default and an empty one
// allows nothing — so the lists are pointers, which keep the difference.
type writeScopeJSON struct {
	Folders *[]string `json:"folders,omitempty"`
	Labels  *[]string `json:"labels,omitempty"`
	Hosts   *[]string `json:"hosts,omitempty"`
}

func listPtr(l []string) *[]string {
	if l == nil {
		return nil
	}
	return &l
}

func listOf(p *[]string) []string {
	if p == nil {
		return nil
	}
	if *p == nil {
		return []string{}
	}
	return *p
}

func encodeWriteScope(w scouts.WriteScope) string {
	b, _ := json.Marshal(writeScopeJSON{Folders: listPtr(w.Folders), Labels: listPtr(w.Labels), Hosts: listPtr(w.Hosts)})
	return string(b)
}

func decodeWriteScope(s string) (scouts.WriteScope, error) {
	var j writeScopeJSON
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return scouts.WriteScope{}, fmt.Errorf("stored write scope: %w", err)
	}
	return scouts.WriteScope{Folders: listOf(j.Folders), Labels: listOf(j.Labels), Hosts: listOf(j.Hosts)}, nil
}
