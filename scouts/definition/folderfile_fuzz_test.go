//go:build unix

package definition

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Kinds of entry FuzzDefinitionsFolderFile puts in the folder.
const (
	entryRegular   = iota // the content, as a file of the folder
	entryOversized        // the content, then the file made larger than the limit (sparse)
	entryLinkIn           // a link to the content's file, elsewhere in the folder
	entryLinkOut          // a link to the content's file, outside the folder
	entryFIFO             // a named pipe
	entryLinkFIFO         // a link to a named pipe in the folder
	entryFolder           // a folder named like a definition
	entryKinds
)

// FuzzDefinitionsFolderFile: whatever the folder holds under a
// definition's name — any content, a file over the limit, links in and
// out, a named pipe, a folder — reading it comes back (a named pipe is
// never opened for reading), never reads more than the limit and one
// byte, reads only a regular file inside the folder of at most the limit
// and returns exactly its content, and parsing what it read answers a
// definition or an error without panicking.
func FuzzDefinitionsFolderFile(f *testing.F) {
	valid := []byte("version: 1\nkind: webhook\nname: Hooks\n")
	for kind := range entryKinds {
		f.Add(valid, uint8(kind), uint16(len(valid)))
	}
	f.Add([]byte(`{"version":1,"kind":"folder","name":"Scans","source":{"path":"/tmp"}}`), uint8(entryLinkIn), uint16(4096))
	f.Add(bytes.Repeat([]byte("a: "), 100), uint8(entryRegular), uint16(64))       // over the limit by its content
	f.Add([]byte("version: 1\n---\nversion: 1\n"), uint8(entryRegular), uint16(0)) // a limit of 0
	f.Add([]byte("[{}, 1]"), uint8(entryOversized), uint16(3))
	f.Fuzz(func(t *testing.T, content []byte, kind uint8, limit16 uint16) {
		limit := int64(limit16)
		base := t.TempDir()
		dir, outside := filepath.Join(base, "defs"), filepath.Join(base, "outside")
		for _, d := range []string{dir, outside, filepath.Join(dir, "kept")} {
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		const name = "scout.yaml"
		path := filepath.Join(dir, name)
		write := func(p string) {
			if err := os.WriteFile(p, content, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		var err error
		switch kind % entryKinds {
		case entryRegular:
			write(path)
		case entryOversized:
			write(path)
			err = os.Truncate(path, max(limit+1, int64(len(content)), 1<<32))
		case entryLinkIn:
			write(filepath.Join(dir, "kept", "scout"))
			err = os.Symlink("kept/scout", path)
		case entryLinkOut:
			write(filepath.Join(outside, "scout.yaml"))
			err = os.Symlink(filepath.Join(outside, "scout.yaml"), path)
		case entryFIFO:
			err = syscall.Mkfifo(path, 0o600)
		case entryLinkFIFO:
			if err = syscall.Mkfifo(filepath.Join(dir, "kept", "pipe"), 0o600); err == nil {
				err = os.Symlink("kept/pipe", path)
			}
		case entryFolder:
			err = os.Mkdir(path, 0o700)
		}
		if err != nil {
			t.Fatal(err)
		}
		data, n, err := readCounted(t, dir, name, limit)
		if n > limit+1 {
			t.Fatalf("read %d bytes from the file with a limit of %d", n, limit)
		}
		readable := kind%entryKinds == entryRegular || kind%entryKinds == entryLinkIn
		if err != nil {
			why := reason(t, err)
			if readable && int64(len(content)) <= limit {
				t.Fatalf("a readable file of %d bytes refused: %s", len(content), why)
			}
			if readable && !strings.HasPrefix(why, "larger than") {
				t.Fatalf("a file of %d bytes over a limit of %d: %s", len(content), limit, why)
			}
			if !readable && n != 0 {
				t.Fatalf("%d bytes read from what is not a regular file of the folder (%s)", n, why)
			}
			return
		}
		if !readable {
			t.Fatalf("entry kind %d read: %q", kind%entryKinds, data)
		}
		if !bytes.Equal(data, content) {
			t.Fatalf("read %q, the file holds %q", data, content)
		}
		if d, err := Parse(name, data); err == nil && d.Kind == "" {
			t.Fatalf("a definition without a kind parsed: %+v", d)
		}
	})
}
