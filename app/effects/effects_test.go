package effects_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/effects"
	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// moveSetup is a home folder with a watched folder holding one file, and
// the invocation that moves it to dest. Its scout's write scope allows
// every folder, so that each other check of a move is seen alone
// (writescope_test.go checks the scope).
func moveSetup(t testing.TB, content string) (home string, inv func(to string) engine.Invocation) {
	t.Helper()
	return moveSetupAt(t, t.TempDir(), content)
}

// moveSetupAt is moveSetup in the home folder given.
func moveSetupAt(t testing.TB, home, content string) (string, func(to string) engine.Invocation) {
	t.Helper()
	watched := filepath.Join(home, "Inbox")
	os.MkdirAll(filepath.Join(watched, "bills"), 0o755)
	os.MkdirAll(filepath.Join(home, "Filed"), 0o755)
	os.WriteFile(filepath.Join(watched, "bills", "acme.txt"), []byte(content), 0o644)
	sum := sha256.Sum256([]byte(content))
	cfg, _ := json.Marshal(map[string]any{"path": watched})
	return home, func(to string) engine.Invocation {
		p, _ := json.Marshal(map[string]string{"to": to})
		return engine.Invocation{Key: "act:sg_1:2", Action: "file.move", Params: p,
			Scout: scouts.Scout{ID: "sc_1", Kind: scouts.KindFolder, Config: cfg,
				WriteScope: scouts.WriteScope{Folders: []string{"/**"}}},
			Suggestion: scouts.Suggestion{ID: "sg_1", SourceRef: directory.FormatRef("bills/acme.txt", hex.EncodeToString(sum[:]))}}
	}
}

func TestFileMoveRunsOnceInEffect(t *testing.T) {
	ctx := context.Background()
	home, inv := moveSetup(t, "ACME invoice 42")
	m := effects.FileMove{Home: home}
	if err := m.Check(ctx, inv("~/Filed")); err != nil {
		t.Fatal(err)
	}
	res, err := m.Execute(ctx, inv("~/Filed"))
	if err != nil || !strings.Contains(string(res), `"already_moved":false`) {
		t.Fatalf("move: %s %v", res, err)
	}
	if b, err := os.ReadFile(filepath.Join(home, "Filed", "acme.txt")); err != nil || string(b) != "ACME invoice 42" {
		t.Fatalf("moved file: %q %v", b, err)
	}
	// The outbox runs it again after a crash that lost the record: the
	// move is recognised, not repeated, not an error.
	res, err = m.Execute(ctx, inv("~/Filed"))
	if err != nil || !strings.Contains(string(res), `"already_moved":true`) {
		t.Fatalf("second run: %s %v", res, err)
	}
	// Gone, and not in the destination: a clear not-found.
	os.Remove(filepath.Join(home, "Filed", "acme.txt"))
	if _, err := m.Execute(ctx, inv("~/Filed")); scouts.ErrorCode(err) != scouts.ENotFound {
		t.Fatalf("vanished file: %v", err)
	}
}

func TestFileMoveNeverOverwrites(t *testing.T) {
	ctx := context.Background()
	home, inv := moveSetup(t, "new")
	os.WriteFile(filepath.Join(home, "Filed", "acme.txt"), []byte("old"), 0o644)
	res, err := effects.FileMove{Home: home}.Execute(ctx, inv(filepath.Join(home, "Filed")))
	if err != nil || !strings.Contains(string(res), "acme (2).txt") {
		t.Fatalf("collision: %s %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "Filed", "acme.txt")); string(b) != "old" {
		t.Fatalf("the existing file was overwritten: %q", b)
	}
}

func TestFileMoveStaysInsideTheHomeFolder(t *testing.T) {
	ctx := context.Background()
	home, inv := moveSetup(t, "x")
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(home, "Link"))
	m := effects.FileMove{Home: home}
	for _, tc := range []struct{ to, says string }{
		{outside, "outside your home folder"},
		{filepath.Join(home, "Link"), "outside your home folder"},
		{filepath.Join(home, "Filed", "..", ".."), "outside your home folder"},
		{"Filed", "not an absolute path"},
		{filepath.Join(home, "Inbox", "bills"), "inside the folder this scout watches"},
		{filepath.Join(home, "Nope"), "does not exist"},
	} {
		if err := m.Check(ctx, inv(tc.to)); scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("to %s: %v, want an invalid error saying %q", tc.to, err, tc.says)
		}
	}
	// Checked at plan time, then the destination is swapped for a link
	// out of the home folder: the run checks again and refuses.
	dest := filepath.Join(home, "Later")
	os.Mkdir(dest, 0o755)
	if err := m.Check(ctx, inv(dest)); err != nil {
		t.Fatal(err)
	}
	os.Remove(dest)
	os.Symlink(outside, dest)
	if _, err := m.Execute(ctx, inv(dest)); err == nil || !strings.Contains(err.Error(), "outside your home folder") {
		t.Fatalf("swapped destination: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("a file escaped the home folder: %v", entries)
	}
	// A watched folder outside the home folder: nothing moves from it.
	if err := (effects.FileMove{Home: filepath.Join(home, "Filed")}).Check(ctx, inv(filepath.Join(home, "Filed"))); err == nil ||
		!strings.Contains(err.Error(), "is outside your home folder") {
		t.Fatalf("source outside home: %v", err)
	}
}

func TestWebhookAnswersAndRefusals(t *testing.T) {
	ctx := context.Background()
	status := http.StatusOK
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.WriteHeader(status)
	}))
	defer srv.Close()
	h := effects.Webhook{Secret: func(_ context.Context, name string) ([]byte, error) {
		if name == "k" {
			return []byte("v"), nil
		}
		return nil, scouts.Errorf(scouts.ENotFound, "no %s", name)
	}}
	inv := func(params string) engine.Invocation {
		return engine.Invocation{Key: "act:sg_1:3", Action: "webhook.post", Params: json.RawMessage(params),
			Suggestion: scouts.Suggestion{ID: "sg_1", Title: "Pay", Excerpt: "secret text"}}
	}
	ok := inv(`{"url":"` + srv.URL + `","secret":{"secret":"k"}}`)
	if _, err := h.Execute(ctx, ok); err != nil {
		t.Fatal(err)
	}
	if got.Get("Idempotency-Key") != "act:sg_1:3" || !strings.HasPrefix(got.Get("X-Scouts-Signature"), "sha256=") {
		t.Fatalf("headers %v", got)
	}
	for code, wantCode := range map[int]string{500: scouts.EInternal, 429: scouts.EInternal, 404: scouts.EInvalid, 400: scouts.EInvalid} {
		status = code
		if _, err := h.Execute(ctx, ok); err == nil || scouts.ErrorCode(err) != wantCode {
			t.Errorf("answer %d: %v (code %s), want code %s", code, err, scouts.ErrorCode(err), wantCode)
		}
	}
	for _, tc := range []struct{ params, says string }{
		{`{"url":"http://example.com/x"}`, "use https"},
		{`{"url":"https://user:pw@example.com/x"}`, "credentials in a secret"},
		{`{"url":"` + srv.URL + `","secret":{"secret":"missing"}}`, `no secret named "missing"`},
	} {
		if err := h.Check(ctx, inv(tc.params)); scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %q", tc.params, err, tc.says)
		}
	}
}
