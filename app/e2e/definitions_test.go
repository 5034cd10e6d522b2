package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
)

// definitionFile is a folder scout's definition as a person writes it.
func definitionFile(name, path string) string {
	return fmt.Sprintf("version: 1\nkind: folder\nname: %s\nreview: true\nsource:\n  path: %q\n", name, path)
}

// A running agent's definitions folder receives 200 writes in a burst —
// new files, each rewritten several times, broken files (a YAML error, a
// value the schema refuses) — while the files of scouts it already had
// are removed. Once it settles, the agent's scouts are exactly the valid
// files' (each with its file's last content and managed by it), every
// broken file is reported with its line and made nothing, and each scout
// whose file is gone is off and no longer managed.
func TestDefinitionsFolderBurstInTheAgent(t *testing.T) {
	watchtest.Need(t)
	ctx := context.Background()
	home := t.TempDir()
	defs := filepath.Join(home, "defs")
	watched := filepath.Join(home, "watched")
	folder := func(name string) string {
		p := filepath.Join(watched, name)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write := func(file, text string) {
		if err := os.WriteFile(filepath.Join(defs, file), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(defs, 0o700); err != nil {
		t.Fatal(err)
	}
	// Scouts the agent finds at start; their files go during the burst.
	const before = 5
	for i := range before {
		write(fmt.Sprintf("old%d.yaml", i), definitionFile(fmt.Sprintf("old-%d", i), folder(fmt.Sprintf("old%d", i))))
	}
	a := startAgent(t, filepath.Join(home, "data"), home, "--definitions", defs)
	waitOn(t, on(a.changed()), "the scouts of the files found at start", func() bool {
		st, err := a.client.DefinitionsStatus(ctx)
		return err == nil && len(st.ManagedBy) == before
	})

	const files, writes = 40, 200
	want := map[string]string{} // file → the name of its scout
	broken := map[string]int{}  // file → the line its error is on
	for w := range writes {
		i := w % files
		file := fmt.Sprintf("s%02d.yaml", i)
		switch {
		case i%7 == 3:
			write(file, "version: 1\nkind: folder\nname: [broken\n")
			broken[file] = 3
		case i%7 == 5:
			write(file, fmt.Sprintf("version: 1\nkind: folder\nname: bad-%d\nreview: maybe\nsource:\n  path: %q\n", i, folder(file)))
			broken[file] = 4
		default:
			name := fmt.Sprintf("scout-%02d rev %d", i, w/files)
			write(file, definitionFile(name, folder(file)))
			want[file] = name
		}
		if w == writes/2 {
			for j := range before {
				if err := os.Remove(filepath.Join(defs, fmt.Sprintf("old%d.yaml", j))); err != nil {
					t.Fatal(err)
				}
			}
		}
	}

	var (
		list []apitype.Scout
		st   apitype.DefinitionsStatus
	)
	settled := func() bool {
		var err error
		if list, err = a.client.Scouts(ctx); err != nil {
			return false
		}
		if st, err = a.client.DefinitionsStatus(ctx); err != nil {
			return false
		}
		got := map[string]string{}
		for _, s := range list {
			if by := st.ManagedBy[s.ID]; by != "" && s.Enabled {
				got[strings.TrimPrefix(by, "file:")] = s.Name
			}
		}
		var failed []string
		for _, e := range st.DefinitionErrors {
			failed = append(failed, e.File)
		}
		slices.Sort(failed)
		return fmt.Sprint(got) == fmt.Sprint(want) && slices.Equal(failed, slices.Sorted(maps.Keys(broken)))
	}
	waitOn(t, on(a.changed()), "the folder reconciled to its valid files", settled, func() string {
		return fmt.Sprintf("scouts %d, managed %v, errors %+v", len(list), st.ManagedBy, st.DefinitionErrors)
	})

	// Exactly those scouts, and the ones whose files went: off, unmanaged.
	if len(list) != len(want)+before {
		t.Fatalf("%d scouts, want %d from the files and the %d whose files went", len(list), len(want), before)
	}
	for _, s := range list {
		by := st.ManagedBy[s.ID]
		switch {
		case strings.HasPrefix(s.Name, "old-"):
			if s.Enabled || by != "" {
				t.Errorf("scout %q: its file is gone, yet it is on (%v) or managed by %q", s.Name, s.Enabled, by)
			}
		case by == "":
			t.Errorf("scout %q is managed by no file", s.Name)
		default:
			file := strings.TrimPrefix(by, "file:")
			if s.Path != filepath.Join(watched, file) {
				t.Errorf("scout %q watches %s, want its file's folder", s.Name, s.Path)
			}
		}
	}
	for _, e := range st.DefinitionErrors {
		if e.Line != broken[e.File] || e.Reason == "" {
			t.Errorf("error %+v, want line %d with a reason", e, broken[e.File])
		}
	}
}
