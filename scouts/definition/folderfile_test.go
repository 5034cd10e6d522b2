//go:build unix

package definition

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// countingReader counts what is read through it.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// readCounted reads name of dir with limit, counting the bytes read from
// the file, and fails the test if reading does not come back: a named
// pipe opened for reading waits forever for a writer.
func readCounted(t *testing.T, dir, name string, limit int64) ([]byte, int64, error) {
	t.Helper()
	type result struct {
		data []byte
		err  error
		n    int64
	}
	done := make(chan result, 1)
	go func() {
		var n int64
		data, err := readFolderFile(dir, name, limit, func(r io.Reader) io.Reader { return countingReader{r, &n} })
		done <- result{data, err, n}
	}()
	select {
	case r := <-done:
		return r.data, r.n, r.err
	case <-time.After(time.Minute): // a hang guard, not a timing: reading never returned
		t.Fatalf("reading %s never came back: something opened it and waits on it", name)
		return nil, 0, nil
	}
}

func reason(t *testing.T, err error) string {
	t.Helper()
	var de *Error
	if !errors.As(err, &de) {
		t.Fatalf("error %v is not a folder problem (*Error)", err)
	}
	return de.Reason
}

// A 4 GiB file (sparse), linked into the folder or in it, is reported
// as too large without a byte of it read; a named pipe, in the folder or
// behind a link, is reported without being opened (opening it for reading
// waits for a writer forever); a link leading outside the folder is
// reported and not read, even to a file that would be a valid definition.
func TestReadFolderFileRefusesWithoutReading(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Sparse: 4 GiB long, no disk used.
	must(os.WriteFile(filepath.Join(dir, "big.bin"), nil, 0o600))
	must(os.Truncate(filepath.Join(dir, "big.bin"), 4<<30))
	must(os.Symlink(filepath.Join(dir, "big.bin"), filepath.Join(dir, "big.yaml")))
	must(os.Symlink("big.bin", filepath.Join(dir, "big-rel.yaml")))
	must(os.WriteFile(filepath.Join(dir, "grown.yaml"), []byte(strings.Repeat("#", MaxSize+1)), 0o600))
	must(syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o600))
	must(os.Symlink("pipe.yaml", filepath.Join(dir, "to-pipe.yaml")))
	must(syscall.Mkfifo(filepath.Join(outside, "pipe"), 0o600))
	must(os.Symlink(filepath.Join(outside, "pipe"), filepath.Join(dir, "out-pipe.yaml")))
	must(os.WriteFile(filepath.Join(outside, "scans.yaml"), []byte("version: 1\nkind: webhook\nname: Hooks\n"), 0o600))
	must(os.Symlink(filepath.Join(outside, "scans.yaml"), filepath.Join(dir, "out.yaml")))
	must(os.Symlink("../"+filepath.Base(outside)+"/scans.yaml", filepath.Join(dir, "out-rel.yaml")))
	must(os.Mkdir(filepath.Join(dir, "old.json"), 0o700))
	must(os.Symlink(filepath.Join(outside, "gone.yaml"), filepath.Join(dir, "gone.yaml")))

	for name, want := range map[string]string{
		"big.yaml":      "larger than 1048576 bytes (4294967296 bytes): not read",
		"big-rel.yaml":  "larger than 1048576 bytes (4294967296 bytes): not read",
		"grown.yaml":    "larger than 1048576 bytes (1048577 bytes): not read",
		"pipe.yaml":     "not a regular file: a named pipe (FIFO)",
		"to-pipe.yaml":  "not a regular file: a named pipe (FIFO)",
		"out-pipe.yaml": "leads outside the definitions folder",
		"out.yaml":      "leads outside the definitions folder",
		"out-rel.yaml":  "leads outside the definitions folder",
		"old.json":      "not a regular file: a folder",
		"gone.yaml":     "which does not exist",
	} {
		data, n, err := readCounted(t, dir, name, MaxSize)
		if err == nil {
			t.Errorf("%s: read %d bytes, want %q", name, len(data), want)
			continue
		}
		if got := reason(t, err); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
		if n != 0 {
			t.Errorf("%s: %d bytes read from it", name, n)
		}
	}
}

// A regular file, or a link to one inside the folder, is read whole; one
// removed meanwhile is said to be gone, not a problem.
func TestReadFolderFileReadsWhatIsInside(t *testing.T) {
	dir := t.TempDir()
	text := "version: 1\nkind: webhook\nname: Hooks\n"
	if err := os.Mkdir(filepath.Join(dir, "kept"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kept", "hooks"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hooks.yaml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("kept/hooks", filepath.Join(dir, "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "hooks.yaml"), filepath.Join(dir, "absolute.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hooks.yaml", "linked.yaml", "absolute.yaml"} {
		data, _, err := readCounted(t, dir, name, MaxSize)
		if err != nil || string(data) != text {
			t.Errorf("%s: %q, %v", name, data, err)
		}
	}
	if _, _, err := readCounted(t, dir, "none.yaml", MaxSize); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file gone: %v", err)
	}
}
