package rulebook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// urlSecret is a password in a webhook URL: it must never be stored.
const urlSecret = "S3CRET-in-the-url"

func hookRule(id, url string) string {
	return `{"id":"` + id + `","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show","actions":[{"action":"webhook.post","params":{"url":"` + url + `"}}]}}`
}

// refusedForCredentials fails the test unless err refuses the URL's
// credentials without quoting them.
func refusedForCredentials(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), "credentials") {
		t.Errorf("%s: %v, want a refusal naming the credentials in the URL", what, err)
	}
	if err != nil && strings.Contains(err.Error(), urlSecret) {
		t.Errorf("%s: the error quotes the secret: %v", what, err)
	}
}

// A webhook.post URL with credentials in it is refused by the rule's save
// and every import — API and CLI saves (AddRule, UpdateRule), imports,
// the definitions folder, drafts, an export's history — with the check the
// executor makes when it runs, so the secret never reaches the database,
// an export or the history.
func TestAWebhookURLWithCredentialsIsNeverStored(t *testing.T) {
	data, defs := t.TempDir(), t.TempDir()
	c, _ := openCoreWith(t, core.Config{DataDir: data, DefinitionsDir: defs})
	ctx := context.Background()
	dir := t.TempDir()
	sc := folderScout(t, c, dir, scouts.Budget{})
	bad := "https://u:" + urlSecret + "@hooks.example/h"

	// Saved through the API or the CLI (both call these).
	_, err := c.Rules().Add(ctx, sc.ID, []byte(hookRule("hook", bad)), -1)
	refusedForCredentials(t, "add", err)
	_, err = c.Rules().Add(ctx, sc.ID, []byte(hookRule("hook", "https://u:{{.name}}@hooks.example/h")), -1)
	refusedForCredentials(t, "add with a template for the password", err)
	if _, err := c.Rules().Add(ctx, sc.ID, []byte(hookRule("hook", "https://hooks.example/in/{{.name}}")), -1); err != nil {
		t.Fatalf("a URL without credentials, templated: %v", err)
	}
	_, err = c.Rules().Update(ctx, sc.ID, "hook", []byte(hookRule("hook", bad)))
	refusedForCredentials(t, "update", err)

	// Imported (the API, scouts import --apply).
	doc := func(name, url string, history ...definition.PastVersion) definition.Document {
		src, _ := json.Marshal(map[string]string{"path": t.TempDir()})
		return definition.Document{Version: 1, Kind: "folder", Name: name, Enabled: true, Review: true, Source: src,
			Rules: []json.RawMessage{json.RawMessage(hookRule("hook", url))}, History: history}
	}
	_, err = c.Definitions().Import(ctx, []definition.Document{doc("Imported", bad)}, defsync.ImportOptions{Apply: true})
	refusedForCredentials(t, "import", err)

	// Imported with a history whose older version had the secret.
	past, _ := json.Marshal(doc("With history", bad))
	_, err = c.Definitions().Import(ctx, []definition.Document{doc("With history", "https://hooks.example/h",
		definition.PastVersion{Version: 1, Document: past})}, defsync.ImportOptions{Apply: true})
	refusedForCredentials(t, "import with history", err)

	// A draft checked before it is saved.
	raw := fmt.Sprintf("version: 1\nkind: folder\nname: Drafted\nsource:\n  path: %s\nrules:\n  - %s\n", t.TempDir(), hookRule("hook", bad))
	d := c.Drafts().Check(ctx, []byte(raw))
	if d.Valid || len(d.Errors) == 0 {
		t.Errorf("draft: valid %v, errors %v", d.Valid, d.Errors)
	} else {
		refusedForCredentials(t, "draft", fmt.Errorf("%s", d.Errors[0].Reason))
	}

	// A file in the definitions folder: reported, not imported.
	if err := os.WriteFile(filepath.Join(defs, "hook.yaml"), []byte(strings.Replace(raw, "Drafted", "From a file", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Definitions().Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if errs := c.Definitions().Errors(); len(errs) != 1 {
		t.Errorf("definitions folder errors %+v, want the file's", errs)
	} else {
		refusedForCredentials(t, "definitions folder", fmt.Errorf("%s", errs[0].Reason))
	}

	list, err := c.DB.ListScouts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("%d scouts, want only the first: a refused import created one", len(list))
	}
	exported, err := c.Definitions().Export(ctx, nil, defsync.ExportOptions{History: true})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(exported); bytes.Contains(b, []byte(urlSecret)) {
		t.Errorf("the export holds the secret: %s", b)
	}
	c.Close()
	files, _ := filepath.Glob(filepath.Join(data, "*"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(urlSecret)) {
			t.Errorf("%s holds the secret", filepath.Base(f))
		}
	}
}
