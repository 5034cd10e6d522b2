package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
)

// The README's tour, as a newcomer types it: first run watches
// ~/Scouts/Inbox, a dropped file becomes a suggestion, the CLI approves it.
func TestFirstRunAndCLITour(t *testing.T) {
	watchtest.Need(t)
	home := t.TempDir()
	data := filepath.Join(home, "data")
	inbox := filepath.Join(home, "Scouts", "Inbox")

	out, errOut, code := runCLI(t, home, data, "status")
	if code == 0 || !strings.Contains(errOut, "no Scouts agent is running") || !strings.Contains(errOut, "scouts agent") {
		t.Fatalf("status without an agent: code %d, stdout %q, stderr %q", code, out, errOut)
	}

	a := startAgent(t, data, home, "--inbox", inbox)
	if fi, err := os.Stat(inbox); err != nil || !fi.IsDir() {
		t.Fatalf("first run did not create %s: %v", inbox, err)
	}
	stream := a.events(t)
	if err := os.WriteFile(filepath.Join(inbox, "todo.md"), []byte("# Renew passport\n\nExpires in June.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	collect[struct{ ID string }](t, stream, "suggestion.created", 1)

	out, errOut, code = runCLI(t, home, data, "suggestions")
	if code != 0 || !strings.Contains(out, "Renew passport") {
		t.Fatalf("suggestions: code %d\n%s%s", code, out, errOut)
	}
	list, err := a.client.Suggestions(context.Background(), localclient.SuggestionQuery{Status: "pending"})
	if err != nil || len(list) != 1 {
		t.Fatalf("pending: %v %v", list, err)
	}
	id := list[0].ID
	out, errOut, code = runCLI(t, home, data, "approve", id, "--as", "task", "--due", "2026-06-01")
	if code != 0 || !strings.Contains(out, "Approved "+id+" → task") {
		t.Fatalf("approve: code %d\n%s%s", code, out, errOut)
	}
	out, _, code = runCLI(t, home, data, "tasks")
	if code != 0 || !strings.Contains(out, "Renew passport") || !strings.Contains(out, id) {
		t.Fatalf("tasks:\n%s", out)
	}
	out, _, code = runCLI(t, home, data, "show", id)
	if code != 0 || !strings.Contains(out, "suggestion.approved") || !strings.Contains(out, "Approved as task by user (cli)") {
		t.Fatalf("show:\n%s", out)
	}
	out, errOut, code = runCLI(t, home, data, "reject", id)
	if code != 1 || !strings.Contains(errOut, "already approved") {
		t.Fatalf("reject approved: code %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runCLI(t, home, data, "approve", id, "--as", "banana")
	if code != 1 || !strings.Contains(errOut, "unknown kind") {
		t.Fatalf("approve as banana: code %d, %s", code, errOut)
	}

	other := filepath.Join(home, "Projects")
	os.MkdirAll(other, 0o755)
	out, errOut, code = runCLI(t, home, data, "scouts", "add-folder", other, "--auto", "--include", "*.md")
	if code != 0 || !strings.Contains(out, "entities are created directly") {
		t.Fatalf("add-folder: code %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runCLI(t, home, data, "scouts", "add-folder", other)
	if code != 1 || !strings.Contains(errOut, "already watches") {
		t.Fatalf("adding the same folder twice: code %d, %s", code, errOut)
	}
	_, errOut, code = runCLI(t, home, data, "scouts", "add-folder", filepath.Join(home, "missing"))
	if code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Fatalf("adding a missing folder: code %d, %s", code, errOut)
	}
	// `add-folder /` once flooded the inbox from /proc.
	_, errOut, code = runCLI(t, home, data, "scouts", "add-folder", string(filepath.Separator))
	if code != 1 || !strings.Contains(errOut, "root of the filesystem") {
		t.Fatalf("adding the filesystem's root: code %d, %s", code, errOut)
	}
	out, _, code = runCLI(t, home, data, "scouts")
	if code != 0 || !strings.Contains(out, "Inbox") || !strings.Contains(out, "Projects") || !strings.Contains(out, "auto") {
		t.Fatalf("scouts:\n%s", out)
	}
	out, _, code = runCLI(t, home, data, "status")
	// Scouts are counted by health; the one just added may not have run
	// yet, so only the count is certain here.
	if code != 0 || !strings.Contains(out, "2 scouts") || strings.Contains(out, "running of") || !strings.Contains(out, "1 task,") {
		t.Fatalf("status:\n%s", out)
	}
	a.stop()

	// The first run happens once: a restart does not recreate the inbox
	// scout the user may have deleted.
	b := startAgent(t, data, home, "--inbox", inbox)
	scouts, err := b.client.Scouts(context.Background())
	if err != nil || len(scouts) != 2 {
		t.Fatalf("scouts after restart: %d, %v", len(scouts), err)
	}
}

func TestOneAgentPerDataDirectory(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "data")
	startAgent(t, data, home)
	out, errOut, code := runCLI(t, home, data, "agent", "--inbox", "")
	if code == 0 || !strings.Contains(errOut, "already running") {
		t.Fatalf("second agent: code %d\n%s%s", code, out, errOut)
	}
}

func TestLoopbackListenerRefusesForeignCallers(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "data")
	a := startAgent(t, data, home)
	tok, _ := os.ReadFile(filepath.Join(data, "local-api.token"))
	token := strings.TrimSpace(string(tok))
	if fi, err := os.Stat(filepath.Join(data, "local-api.token")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	cases := []struct {
		name   string
		host   string
		origin string
		auth   string
		want   int
	}{
		{"no token", "", "", "", http.StatusUnauthorized},
		{"wrong token", "", "", "Bearer nope", http.StatusUnauthorized},
		{"good token", "", "", "Bearer " + token, http.StatusOK},
		{"DNS rebinding host", "evil.example:80", "", "Bearer " + token, http.StatusForbidden},
		{"foreign origin", "", "http://evil.example", "Bearer " + token, http.StatusForbidden},
		{"same origin", "", a.baseURL, "Bearer " + token, http.StatusOK},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("GET", a.baseURL+"/api/v1/status", nil)
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
}
