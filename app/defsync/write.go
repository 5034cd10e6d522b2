package defsync

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// definitionFileText is what a definitions file holds once d, its scout's
// definition after a change, is written to it: JSON for a .json file; for
// a YAML file, the file as the person wrote it with the change made in
// it — its comments, order and styles kept where their keys stay
// (definition.MergeYAML) — or plain YAML. Either way a setting the agent
// reads another way than it is written (a folder's path from ~/) keeps
// the file's spelling while it means the same.
func (s *Service) definitionFileText(name string, kind scouts.Kind, d definition.Document) ([]byte, error) {
	old, err := os.ReadFile(filepath.Join(s.cfg.Dir, name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, scouts.Errorf(scouts.EUnavailable, "read %s before writing it: %v", name, err)
	}
	if prev, err := definition.Parse(name, old); err == nil {
		d.Source = s.asWritten(kind, prev.Source, d.Source)
	}
	data, err := definition.Marshal(d)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return definition.MergeYAML(old, data)
	}
	return data, nil
}

// asWritten is source with each setting whose value in written (the
// file's source) the kind reads as source's value put back as written.
func (s *Service) asWritten(kind scouts.Kind, written, source json.RawMessage) json.RawMessage {
	from := s.kind(kind).FromDefinition
	if from == nil || len(written) == 0 || len(source) == 0 {
		return source
	}
	var raw, read, now map[string]json.RawMessage
	if json.Unmarshal(written, &raw) != nil || json.Unmarshal(from(written), &read) != nil || json.Unmarshal(source, &now) != nil {
		return source
	}
	kept := false
	for k, v := range now {
		if w, ok := raw[k]; ok && bytes.Equal(compactJSON(read[k]), compactJSON(v)) && !bytes.Equal(compactJSON(w), compactJSON(v)) {
			now[k], kept = w, true
		}
	}
	if !kept {
		return source
	}
	out, err := json.Marshal(now)
	if err != nil {
		return source
	}
	return out
}
