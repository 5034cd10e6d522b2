package directory_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"

	"github.com/scouts-hq/scouts/connectors/directory"
)

// A pseudo-filesystem mounted inside the watched tree (here mqueue, which
// is small and harmless to list) is neither listed nor watched, and cannot
// be a root itself.
func TestPseudoFilesystemInsideTheTreeIsSkipped(t *testing.T) {
	e := newEnv(t)
	e.write("note.md", "# Note\n")
	mnt := filepath.Join(e.root, "sys", "mq")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("mqueue", mnt, "mqueue", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		t.Skipf("cannot mount a pseudo-filesystem here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })

	if err := directory.CheckRoot(mnt, nil); err == nil {
		t.Errorf("CheckRoot(%s) accepted an mqueue filesystem", mnt)
	}
	c := e.open(e.cfg())
	var mu sync.Mutex
	var watched []string
	directory.SetAddWatch(c, func(rel string) error {
		mu.Lock()
		watched = append(watched, rel)
		mu.Unlock()
		return nil
	})
	watch(t, c)
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"note.md"}) {
		t.Errorf("scan: %v; want note.md", got)
	}
	if m, err := e.index().LoadDir(context.Background(), "sys"); err != nil || len(m) != 0 {
		t.Errorf("index of sys: %v, %v; want nothing (the mount point is skipped)", m, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(watched, "sys/mq") {
		t.Errorf("the pseudo-filesystem was watched (watched: %v)", watched)
	}
}
