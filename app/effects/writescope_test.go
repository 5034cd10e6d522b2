package effects_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/scouts-hq/scouts/app/effects"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// scoped is inv with the scout's write scope set to w.
func scoped(inv func(string) engine.Invocation, w scouts.WriteScope) func(string) engine.Invocation {
	return func(to string) engine.Invocation {
		i := inv(to)
		i.Scout.WriteScope = w
		return i
	}
}

// A folder scout that declares no scope moves files into ~/Sorted and
// below only: ~/.ssh, inside the home folder and no agent's folder, passed
// every other check and is refused now, when the plan is made and when the
// move runs, with the scope named; the file stays where it was.
func TestFileMoveStaysInsideTheWriteScope(t *testing.T) {
	ctx := context.Background()
	home, m, all := agentHome(t)
	def := scoped(all, scouts.WriteScope{})
	for _, to := range []string{"~/.ssh", filepath.Join(home, ".ssh"), "~/Sorted2", "~", "~/Inbox/../.ssh/"} {
		for what, err := range map[string]error{"check": m.Check(ctx, def(to)), "run": func() error { _, err := m.Execute(ctx, def(to)); return err }()} {
			if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "write scope") && !strings.Contains(err.Error(), `".." segment`) {
				t.Errorf("%s %s: %v, want a refusal naming the write scope", what, to, err)
			}
		}
		stillThere(t, home)
	}
	if err := m.Check(ctx, def("~/.ssh")); err == nil || !strings.Contains(err.Error(), "~/.ssh is outside the scout's write scope [~/Sorted/**] (the default)") {
		t.Errorf("the refusal does not name the destination and the scope: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, ".ssh")); len(entries) != 0 {
		t.Fatalf("a file reached ~/.ssh: %v", entries)
	}
	for _, to := range []string{"~/Sorted", "~/Sorted/bills", filepath.Join(home, "Sorted", "bills")} {
		if err := m.Check(ctx, def(to)); err != nil {
			t.Errorf("check %s, inside the default scope: %v", to, err)
		}
	}

	// A declared scope replaces the default: exactly ~/Sorted/bills, not
	// ~/Sorted nor a folder below bills.
	os.MkdirAll(filepath.Join(home, "Sorted", "bills", "2024"), 0o755)
	bills := scoped(all, scouts.WriteScope{Folders: []string{"~/Sorted/bills"}})
	if err := m.Check(ctx, bills("~/Sorted/bills")); err != nil {
		t.Errorf("the declared folder: %v", err)
	}
	for _, to := range []string{"~/Sorted", "~/Sorted/bills/2024"} {
		if err := m.Check(ctx, bills(to)); err == nil || !strings.Contains(err.Error(), "[~/Sorted/bills]") {
			t.Errorf("check %s, outside the declared scope: %v", to, err)
		}
	}
	// An empty list allows nothing.
	if err := m.Check(ctx, scoped(all, scouts.WriteScope{Folders: []string{}})("~/Sorted")); err == nil || !strings.Contains(err.Error(), "[] (nothing)") {
		t.Errorf("an empty scope: %v", err)
	}

	// A link inside the scope that leads out of it is refused (by its
	// real path), and one swapped in after the plan was checked too.
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "Sorted", "keys"))
	if err := m.Check(ctx, def("~/Sorted/keys")); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Errorf("a link in ~/Sorted to ~/.ssh: %v", err)
	}
	stillThere(t, home)
}

// A home folder that is itself a link (/home/u → /data/u): a scope
// written with ~ or with either spelling of the home folder still matches
// the destination, named by its real path.
func TestFileMoveWriteScopeThroughALinkedHome(t *testing.T) {
	ctx := context.Background()
	real, _, _ := agentHome(t)
	link := filepath.Join(t.TempDir(), "home")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	_, inv := moveSetupAt(t, link, "x")
	m := effects.FileMove{Home: link}
	for _, glob := range []string{"~/Sorted/**", filepath.Join(link, "Sorted", "**"), filepath.Join(real, "Sorted", "**")} {
		if err := m.Check(ctx, scoped(inv, scouts.WriteScope{Folders: []string{glob}})("~/Sorted/bills")); err != nil {
			t.Errorf("scope %s: %v", glob, err)
		}
	}
}

// webhook.post posts to the hosts of the scout's write scope only: by
// default this machine; a declared host, or a name below a "*." one.
func TestWebhookStaysInsideTheWriteScope(t *testing.T) {
	ctx := context.Background()
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { posts.Add(1) }))
	defer srv.Close()
	h := effects.Webhook{}
	inv := func(url string, w scouts.WriteScope) engine.Invocation {
		return engine.Invocation{Key: "act:sg_1:2", Action: "webhook.post", Params: []byte(`{"url": "` + url + `"}`),
			Scout: scouts.Scout{ID: "sc_1", Kind: scouts.KindWebhook, WriteScope: w}}
	}
	if _, err := h.Execute(ctx, inv(srv.URL+"/in", scouts.WriteScope{})); err != nil || posts.Load() != 1 {
		t.Fatalf("to this machine, by default: %v (%d posts)", err, posts.Load())
	}
	for _, tc := range []struct {
		url  string
		w    scouts.WriteScope
		says string
	}{
		{"https://hooks.example.com/in", scouts.WriteScope{}, "hooks.example.com is outside the scout's write scope [localhost, 127.0.0.1, ::1] (the default)"},
		{"https://evil.example/in", scouts.WriteScope{Hosts: []string{"hooks.example.com", "*.example.org"}}, "[hooks.example.com, *.example.org]"},
		{"https://example.org/in", scouts.WriteScope{Hosts: []string{"*.example.org"}}, "example.org is outside"},
		{srv.URL + "/in", scouts.WriteScope{Hosts: []string{}}, "[] (nothing)"},
	} {
		if err := h.Check(ctx, inv(tc.url, tc.w)); scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("check %s: %v, want a refusal saying %q", tc.url, err, tc.says)
		}
		if _, err := h.Execute(ctx, inv(tc.url, tc.w)); scouts.ErrorCode(err) != scouts.EInvalid {
			t.Errorf("run %s: %v, want a refusal", tc.url, err)
		}
	}
	if posts.Load() != 1 {
		t.Fatalf("%d posts, want the one inside the scope", posts.Load())
	}
	for _, ok := range []struct {
		url string
		w   scouts.WriteScope
	}{
		{"https://hooks.example.com/in", scouts.WriteScope{Hosts: []string{"hooks.example.com"}}},
		{"https://a.b.example.org/in", scouts.WriteScope{Hosts: []string{"*.example.org"}}},
	} {
		if err := h.Check(ctx, inv(ok.url, ok.w)); err != nil {
			t.Errorf("check %s inside %v: %v", ok.url, ok.w.Hosts, err)
		}
	}
}
