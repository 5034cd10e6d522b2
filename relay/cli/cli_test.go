//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/relay/relaydb"
)

func run(args []string, env map[string]string) (code int, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	return code, errb.String()
}

// A secret given as SCOUTS_RELAY_*_FILE must not be readable by others, as
// the token keys file already must not: the relay refuses it and says how
// to fix it, and uses it once it is private.
func TestSecretFilesOpenToOthersAreRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "relay.db")
	secret := filepath.Join(dir, "db-url")
	if err := os.WriteFile(secret, []byte(db+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(secret, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SCOUTS_RELAY_DATABASE_FILE": secret}
	code, stderr := run([]string{"user", "add", "ann@example.com"}, env)
	if code != 1 || !strings.Contains(stderr, "SCOUTS_RELAY_DATABASE_FILE") || !strings.Contains(stderr, "readable by others") ||
		!strings.Contains(stderr, "chmod 600") {
		t.Fatalf("a secret file open to others: exit %d, %q; want refused with how to fix it", code, stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("the relay used the refused secret")
	}

	if err := os.Chmod(secret, 0o600); err != nil {
		t.Fatal(err)
	}
	createDatabase(t, db)
	if code, stderr := run([]string{"user", "add", "ann@example.com"}, env); code != 0 {
		t.Fatalf("a private secret file: exit %d, %s", code, stderr)
	}

	// The model's API key file too.
	key := filepath.Join(dir, "llm-key")
	if err := os.WriteFile(key, []byte("sk-test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(key, 0o640); err != nil {
		t.Fatal(err)
	}
	code, stderr = run([]string{"serve", "--listen", "127.0.0.1:0", "--gmail", "--push-secret", strings.Repeat("s", 32),
		"--llm-url", "http://127.0.0.1:1/v1", "--llm-model", "m", "--llm-key-file", key}, env)
	if code != 1 || !strings.Contains(stderr, "readable by others") {
		t.Errorf("a model key file open to others: exit %d, %q; want refused", code, stderr)
	}
}

// The relay's SQLite database, its WAL and shared memory are private.
func TestRelayDatabaseIsPrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "relay.db")
	startServe(t, map[string]string{"SCOUTS_RELAY_DATABASE": path}).stop()
	if code, stderr := run([]string{"user", "add", "ann@example.com", "--database", path}, nil); code != 0 {
		t.Fatalf("user add: exit %d, %s", code, stderr)
	}
	db, err := relaydb.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.AddUser(context.Background(), "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		} else if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s has mode %#o; want 0600", filepath.Base(p), m)
		}
	}
}
