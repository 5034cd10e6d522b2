package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDesktopDoesNotLinkRelayOnlyPackages keeps what only the relay needs
// out of the desktop binaries (bin/scouts, and the window built with its
// tags): a PostgreSQL client, Pub/Sub, the relay's own server and storage.
// Each package linked costs the always-on agent memory at rest (its
// initialisation and code pages), whether it is used or not. The agent
// itself must not link the window's GTK/WebKit either.
func TestDesktopDoesNotLinkRelayOnlyPackages(t *testing.T) {
	forbidden := []string{
		"github.com/jackc/pgx",
		"cloud.google.com/go/pubsub",
		"github.com/scouts-hq/scouts/relay/relaydb",
		"github.com/scouts-hq/scouts/relay/server",
		"github.com/scouts-hq/scouts/relay/gmailscout",
	}
	for _, build := range []struct {
		name string
		args []string
		also []string
	}{
		{"bin/scouts", nil, []string{"github.com/wailsapp/wails"}},
		{"bin/scouts-window", []string{"-tags", "window,production,webkit2_41"}, nil},
	} {
		out, err := exec.Command("go", append(append([]string{"list", "-deps"}, build.args...), ".")...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", build.name, err, out)
		}
		pkgs := strings.Fields(string(out))
		if !strings.Contains(string(out), "github.com/scouts-hq/scouts/app/core") {
			t.Fatalf("go list did not list the desktop's packages:\n%s", out)
		}
		for _, pkg := range pkgs {
			for _, f := range append(forbidden, build.also...) {
				if pkg == f || strings.HasPrefix(pkg, f+"/") {
					t.Errorf("%s links %s", build.name, pkg)
				}
			}
		}
	}
}

// TestDecisionPathCrossesEachPackageOnce keeps an approval on a Gmail card
// going app/localapi → app/core → scouts/engine (decision, plan and outbox
// in one transaction) → app/gmaildesk (the executor) → connectors/gmail,
// each package once: Gmail is reached only through its kind's package, and
// nothing below the core reaches back up into it or the API.
func TestDecisionPathCrossesEachPackageOnce(t *testing.T) {
	const mod = "github.com/scouts-hq/scouts/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`,
		"./app/localapi", "./app/core", "./app/gmaildesk", "./scouts", "./scouts/engine", "./connectors/gmail").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := map[string][]string{
		"app/localapi":     {"connectors/gmail"},
		"app/core":         {"connectors/gmail"},
		"app/gmaildesk":    {"app/core", "app/localapi"},
		"scouts":           {"app/", "connectors/"},
		"scouts/engine":    {"app/", "connectors/"},
		"connectors/gmail": {"app/"},
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		bad, ok := forbidden[pkg]
		if !ok {
			t.Fatalf("go list answered for %s", f[0])
		}
		seen++
		for _, imp := range f[1:] {
			imp, ours := strings.CutPrefix(imp, mod)
			if !ours {
				continue
			}
			for _, b := range bad {
				if imp == strings.TrimSuffix(b, "/") || (strings.HasSuffix(b, "/") && strings.HasPrefix(imp, b)) {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
		}
	}
	if seen != len(forbidden) {
		t.Fatalf("go list listed %d of %d packages:\n%s", seen, len(forbidden), out)
	}
}

// TestRelayLinkSeesTheDesktopThroughItsHost keeps the desktop's relay link
// (app/relaylink) below the core: it sees the desktop only through its
// Host and Store interfaces, which the core implements, and never imports
// the core, the agent's storage or the local API.
func TestRelayLinkSeesTheDesktopThroughItsHost(t *testing.T) {
	const mod = "github.com/scouts-hq/scouts/"
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "./app/relaylink").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := strings.Fields(string(out))
	if !slices.Contains(imports, mod+"relay/client") {
		t.Fatalf("go list did not list app/relaylink's imports:\n%s", out)
	}
	for _, imp := range imports {
		for _, bad := range []string{"app/core", "app/localdb", "app/localapi"} {
			if imp == mod+bad {
				t.Errorf("app/relaylink imports %s", bad)
			}
		}
	}
}

// TestDefinitionServicesStayBelowTheCore keeps the scouts' definitions
// (app/defsync), their rules (app/rulebook) and drafting (app/defdraft)
// below the core: each sees the desktop through interfaces the core
// implements and never imports the core or the local API. The rules
// change through the definitions service, never the other way round.
func TestDefinitionServicesStayBelowTheCore(t *testing.T) {
	const mod = "github.com/scouts-hq/scouts/"
	forbidden := map[string][]string{
		"app/defsync":  {"app/core", "app/localapi", "app/rulebook", "app/defdraft"},
		"app/rulebook": {"app/core", "app/localapi", "app/defdraft"},
		"app/defdraft": {"app/core", "app/localapi", "app/defsync", "app/rulebook"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "./"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		imports := strings.Fields(string(out))
		if !slices.Contains(imports, mod+"scouts") {
			t.Fatalf("go list did not list %s's imports:\n%s", pkg, out)
		}
		for _, b := range bad {
			if slices.Contains(imports, mod+b) {
				t.Errorf("%s imports %s", pkg, b)
			}
		}
	}
}

// TestAgentLinksNoTestOrEvaluationCode keeps the evaluation (app/evaluate,
// the program cmd/scouts-eval that `scouts eval` runs), the SpamAssassin
// corpus with its embedded held-out checksums, and the testing package out
// of the desktop binaries: tests get the corpus through corpustest.
func TestAgentLinksNoTestOrEvaluationCode(t *testing.T) {
	forbidden := []string{
		"github.com/scouts-hq/scouts/app/evaluate",
		"github.com/scouts-hq/scouts/scouts/triage/corpus",
		"testing",
	}
	for _, build := range []struct {
		name string
		args []string
	}{
		{"bin/scouts", nil},
		{"bin/scouts-window", []string{"-tags", "window,production,webkit2_41"}},
	} {
		out, err := exec.Command("go", append(append([]string{"list", "-deps"}, build.args...), ".")...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", build.name, err, out)
		}
		pkgs := strings.Fields(string(out))
		if !slices.Contains(pkgs, "github.com/scouts-hq/scouts/app/cli") {
			t.Fatalf("go list did not list the desktop's packages:\n%s", out)
		}
		for _, pkg := range pkgs {
			for _, f := range forbidden {
				if pkg == f || strings.HasPrefix(pkg, f+"/") {
					t.Errorf("%s links %s", build.name, pkg)
				}
			}
		}
	}
}

// TestStorageAndWindowStayBelow keeps the desktop's storage and its window
// from linking what stands above them: app/localdb implements the folder
// scouts' index (the leaf connectors/directory/dirindex) without the folder
// connector, and app/window finds the agent's socket (the leaf
// app/datadir) without the agent or the core. The leaves link nothing of
// ours.
func TestStorageAndWindowStayBelow(t *testing.T) {
	const mod = "github.com/scouts-hq/scouts/"
	window := []string{"-tags", "window,production,webkit2_41"}
	for _, c := range []struct {
		pkg  string
		tags []string
		bad  []string // nil: nothing of ours at all
	}{
		{"app/localdb", nil, []string{"connectors/directory", "app/core", "app/agent"}},
		{"app/window", nil, []string{"app/agent", "app/core", "app/localdb"}},
		{"app/window", window, []string{"app/agent", "app/core", "app/localdb"}},
		{"connectors/directory/dirindex", nil, nil},
		{"app/datadir", nil, nil},
	} {
		args := append(append([]string{"list", "-deps"}, c.tags...), "./"+c.pkg)
		out, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", c.pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, mod+c.pkg) {
			t.Fatalf("go list did not list %s:\n%s", c.pkg, out)
		}
		for _, dep := range deps {
			ours, ok := strings.CutPrefix(dep, mod)
			if !ok || ours == c.pkg {
				continue
			}
			if c.bad == nil || slices.Contains(c.bad, ours) {
				t.Errorf("%s %v links %s", c.pkg, c.tags, ours)
			}
		}
	}
}

// TestDomainStandsAlone keeps the domain (the root package scouts: the
// types, their rules and error codes) free of everything else: it links
// the standard library only, so every other package — the engine, the
// sources, storage, the relay — can build on it without pulling anything
// in. And the relay, which needs the domain's types, links them without
// the engine that runs scouts on the desktop.
func TestDomainStandsAlone(t *testing.T) {
	const mod = "github.com/scouts-hq/scouts/"
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{.Standard}}`, "./scouts").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, std, _ := strings.Cut(line, " ")
		switch {
		case pkg == mod+"scouts":
			seen = true
		case std != "true":
			t.Errorf("scouts links %s, which is not of the standard library", pkg)
		}
	}
	if !seen {
		t.Fatalf("go list did not list scouts:\n%s", out)
	}

	out, err = exec.Command("go", "list", "-deps", "./relay/cmd/scouts-relay").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, mod+"scouts") {
		t.Fatalf("go list did not list the relay's packages (or the relay no longer links the domain):\n%s", out)
	}
	for _, dep := range deps {
		if dep == mod+"scouts/engine" || strings.HasPrefix(dep, mod+"scouts/engine/") {
			t.Errorf("the relay links %s", dep)
		}
	}
}

// TestRelayTransportCallsTheService keeps the relay's transport
// (relay/server: HTTP, WebSocket, parking, limits) apart from what its
// requests mean (relay/service): the transport reaches storage and the
// Gmail scouts only through the service and runs no SQL itself, and the
// service knows no transport — no HTTP, no WebSocket, nothing of the
// server.
func TestRelayTransportCallsTheService(t *testing.T) {
	const mod = "github.com/scouts-hq/scouts/"
	forbidden := map[string][]string{
		"relay/server":  {mod + "relay/relaydb", mod + "relay/gmailscout", "database/sql", "github.com/jackc/pgx/"},
		"relay/service": {mod + "relay/server", "net/http", "github.com/coder/websocket"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "./"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		imports := strings.Fields(string(out))
		if !slices.Contains(imports, mod+"relay/protocol") {
			t.Fatalf("go list did not list %s's imports:\n%s", pkg, out)
		}
		for _, imp := range imports {
			for _, b := range bad {
				if imp == b || (strings.HasSuffix(b, "/") && strings.HasPrefix(imp, b)) {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
		}
	}
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "./relay/server").CombinedOutput()
	if err != nil || !slices.Contains(strings.Fields(string(out)), mod+"relay/service") {
		t.Fatalf("relay/server does not call relay/service (%v):\n%s", err, out)
	}
}
