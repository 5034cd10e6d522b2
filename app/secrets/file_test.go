package secrets

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	jose "github.com/dvsekhvalnov/jose2go"
)

func openTestFile(t *testing.T, dir, pass string) (*Store, error) {
	t.Helper()
	return Open(Options{Backend: BackendFile, FileDir: dir, Passphrase: func() (string, error) { return pass, nil }})
}

func TestFileRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keyring")
	s, err := openTestFile(t, dir, "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("gmail:you@example.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get before Set: %v", err)
	}
	secret := []byte(`{"refresh_token":"1//0gSECRET-refresh-token"}`)
	keys := []string{"gmail:you@example.com", "a/b", ".hidden", "100%"}
	for _, k := range keys {
		if err := s.Set(k, secret); err != nil {
			t.Fatalf("Set %q: %v", k, err)
		}
	}
	if err := s.Set("gmail:you@example.com", append(secret, '!')); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get("gmail:you@example.com")
	if err != nil || !bytes.Equal(got, append(secret, '!')) {
		t.Fatalf("Get after overwrite: %q, %v", got, err)
	}
	listed, err := s.Keys()
	slices.Sort(listed)
	slices.Sort(keys)
	if err != nil || !slices.Equal(listed, keys) {
		t.Fatalf("Keys: %q, %v; want %q", listed, err, keys)
	}

	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(keys) {
		t.Fatalf("%d files for %d keys (temporary files left behind?)", len(ents), len(keys))
	}
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, clear := range [][]byte{[]byte("SECRET-refresh-token"), []byte(base64.StdEncoding.EncodeToString(secret)[:20])} {
			if bytes.Contains(raw, clear) {
				t.Errorf("%s contains the secret in clear", e.Name())
			}
		}
		// keyring's FileBackend format: a JWE its own decoder reads.
		_, hdr, err := jose.Decode(string(raw), "correct horse battery staple")
		if err != nil || hdr["alg"] != jose.PBES2_HS256_A128KW || hdr["enc"] != jose.A256GCM {
			t.Errorf("%s: header %v, %v", e.Name(), hdr, err)
		}
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("keyring directory mode %v, %v; want 0700", fi.Mode().Perm(), err)
		}
	}

	if err := s.Delete("gmail:you@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("gmail:you@example.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Delete: %v", err)
	}
	if err := s.Set("empty", []byte{}); err == nil {
		t.Fatal("Set accepted an empty secret")
	}

	// A second process with the same passphrase reads what the first wrote.
	s2, err := openTestFile(t, dir, "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s2.Get("a/b"); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("reopened Get: %q, %v", got, err)
	}
}

func TestFileWrongPassphrase(t *testing.T) {
	dir := t.TempDir()
	s, err := openTestFile(t, dir, "right")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("gmail:you@example.com", []byte("token")); err != nil {
		t.Fatal(err)
	}
	_, err = openTestFile(t, dir, "wrong")
	if !errors.Is(err, ErrBadPassphrase) {
		t.Fatalf("Open with the wrong passphrase: %v, want ErrBadPassphrase", err)
	}
	if !strings.Contains(err.Error(), EnvPassphraseFile) {
		t.Errorf("error %q does not say where the passphrase comes from", err)
	}

	// An empty directory cannot tell a wrong passphrase from a new one;
	// Get must still refuse rather than hand out garbage.
	dir2 := t.TempDir()
	w, err := openTestFile(t, dir2, "wrong")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.b.(*fileBackend).copyTo(dir2, "gmail:you@example.com"); err != nil {
		t.Fatal(err)
	}
	v, err := w.Get("gmail:you@example.com")
	if v != nil || !errors.Is(err, ErrBadPassphrase) {
		t.Fatalf("Get with the wrong passphrase: %q, %v", v, err)
	}
}

func (b *fileBackend) copyTo(dir, key string) error {
	raw, err := os.ReadFile(filepath.Join(b.dir, escapeFileName(key)))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, escapeFileName(key)), raw, 0o600)
}

func TestFileNeedsPassphrase(t *testing.T) {
	_, err := Open(Options{Backend: BackendFile, FileDir: t.TempDir()})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), EnvPassphraseFile) {
		t.Fatalf("no passphrase: %v", err)
	}
	_, err = openTestFile(t, t.TempDir(), "")
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("empty passphrase: %v", err)
	}
	_, err = Open(Options{Backend: BackendFile, FileDir: t.TempDir(), Passphrase: func() (string, error) { return "", errors.New("boom") }})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("failing passphrase source: %v", err)
	}
}

func TestPassphraseFromEnv(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if PassphraseFromEnv(getenv) != nil {
		t.Fatal("a passphrase source without any variable set")
	}
	env[EnvPassphrase] = "from-env"
	if p, err := PassphraseFromEnv(getenv)(); p != "from-env" || err != nil {
		t.Fatalf("%q, %v", p, err)
	}
	file := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env[EnvPassphraseFile] = file
	if p, err := PassphraseFromEnv(getenv)(); p != "from-file" || err != nil {
		t.Fatalf("the file should win over the variable: %q, %v", p, err)
	}
	env[EnvPassphraseFile] = filepath.Join(t.TempDir(), "missing")
	if _, err := PassphraseFromEnv(getenv)(); err == nil || !strings.Contains(err.Error(), EnvPassphraseFile) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestEscapeFileName(t *testing.T) {
	for _, k := range []string{"gmail:you@example.com", "a/b\\c", ".", "..", "%41", "x y\x00z", "ünïcödé"} {
		n := escapeFileName(k)
		if strings.ContainsAny(n, `/\:*?"<>| `) || strings.HasPrefix(n, ".") {
			t.Errorf("%q escapes to %q, not a portable file name", k, n)
		}
		if got := unescapeFileName(n); got != k {
			t.Errorf("%q → %q → %q", k, n, got)
		}
	}
}
