package defdraft_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defdraft"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

func draftCore(t *testing.T) (*core.Core, *triagetest.Server) {
	t.Helper()
	srv := triagetest.New("key", "drafter")
	t.Cleanup(srv.Close)
	m, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "drafter", APIKey: "key"})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir(), Model: m, ModelDailyTokens: draftDailyTokens})
	return c, srv
}

const draftDailyTokens = 100_000

func risks(d defdraft.Draft) string {
	var codes []string
	for _, r := range d.Risks {
		codes = append(codes, r.Code)
	}
	return strings.Join(codes, ",")
}

// A safe draft is valid, summarised, with no risk; the model was asked
// with the scout schema as its structured output; nothing is saved.
func TestDraftDefinitionSafe(t *testing.T) {
	c, srv := draftCore(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "Scans")
	os.MkdirAll(dir, 0o755)
	doc, _ := json.Marshal(map[string]any{"version": 1, "kind": "folder", "name": "Scans", "enabled": true, "review": true,
		"source": map[string]any{"path": dir}})
	srv.Script(triagetest.Turn{Content: string(doc)})
	d, err := c.Drafts().Draft(ctx, "files in my Scans folder become notes")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Valid || len(d.Risks) != 0 || len(d.Summary) == 0 || !strings.Contains(d.Summary[0], dir) {
		t.Fatalf("draft: %+v", d)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].ResponseFormat), `"scout_definition"`) ||
		!strings.Contains(string(reqs[0].ResponseFormat), `"kind"`) {
		t.Fatalf("the model was not asked for the scout schema: %d requests", len(reqs))
	}
	if list, _ := c.DB.ListScouts(ctx); len(list) != 0 {
		t.Fatalf("a draft was saved: %d scouts", len(list))
	}
}

// A draft that breaks the schema is reported with why, not saved.
func TestDraftDefinitionInvalid(t *testing.T) {
	c, srv := draftCore(t)
	ctx := context.Background()
	srv.Script(triagetest.Turn{Content: `{"version": 1, "kind": "ftp", "name": "Files"}`})
	d, err := c.Drafts().Draft(ctx, "watch my ftp server")
	if err != nil {
		t.Fatal(err)
	}
	if d.Valid || len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Reason, "kind") {
		t.Fatalf("invalid draft: %+v", d)
	}
	if list, _ := c.DB.ListScouts(ctx); len(list) != 0 {
		t.Fatalf("an invalid draft was saved: %d scouts", len(list))
	}
}

// A dangerous draft is valid but flagged: auto-create, the home folder,
// a ** glob, a danger action, an action without approval, a missing
// secret.
func TestDraftDefinitionDangerous(t *testing.T) {
	c, srv := draftCore(t)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	doc, _ := json.Marshal(map[string]any{"version": 1, "kind": "folder", "name": "Everything", "enabled": true, "review": false,
		"source": map[string]any{"path": home, "include": []string{"**/*"}},
		"rules": []any{map[string]any{"id": "all", "when": map[string]any{"ext": map[string]any{"equals": "pdf"}},
			"then": map[string]any{"verdict": "show", "kind": "note", "actions": []any{
				map[string]any{"action": "webhook.post", "params": map[string]any{"url": "https://crm.example/hook", "secret": map[string]any{"secret": "crm-token"}}},
			}}}}})
	srv.Script(triagetest.Turn{Content: string(doc)})
	d, err := c.Drafts().Draft(context.Background(), "everything in my home folder to my CRM, no questions")
	if err != nil {
		t.Fatal(err)
	}
	got := risks(d)
	for _, want := range []string{"auto_create", "broad_folder", "broad_glob", "runs_without_approval", "missing_secret"} {
		if !strings.Contains(got, want) {
			t.Errorf("risk %s not flagged (flagged: %s)", want, got)
		}
	}
	if !d.Valid {
		t.Fatalf("dangerous but valid draft reported invalid: %+v", d.Errors)
	}
}

// Without a model drafting says so and the templates are valid.
func TestDraftTemplatesWithoutModel(t *testing.T) {
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir()})
	if _, err := c.Drafts().Draft(context.Background(), "invoices become tasks"); !errors.Is(err, defdraft.ErrNoModel) {
		t.Fatalf("without a model: %v", err)
	}
	ts := c.Drafts().Templates(context.Background())
	if len(ts) != 2 {
		t.Fatalf("%d templates", len(ts))
	}
	for _, d := range ts {
		if !d.Valid || d.Title == "" || len(d.Summary) == 0 {
			t.Errorf("template %q: %+v", d.Title, d)
		}
	}
}

// A draft's tokens count against the model's daily budget, in the
// persisted ledger, as the model reported them; a second draft adds its
// own.
func TestDraftCountsAgainstTheBudget(t *testing.T) {
	c, srv := draftCore(t)
	ctx := context.Background()
	day := time.Now().UTC().Format(time.DateOnly)
	doc := `{"version": 1, "kind": "webhook", "name": "Hooks"}`
	srv.Script(triagetest.Turn{Content: doc}, triagetest.Turn{Content: doc})
	d1, err := c.Drafts().Draft(ctx, "a webhook scout")
	if err != nil {
		t.Fatal(err)
	}
	spent, err := c.DB.Spent(ctx, defdraft.BudgetKey, day)
	if err != nil || d1.Tokens <= 0 || spent != d1.Tokens {
		t.Fatalf("after one draft of %d tokens the ledger counts %d (%v)", d1.Tokens, spent, err)
	}
	d2, err := c.Drafts().Draft(ctx, "another webhook scout")
	if err != nil {
		t.Fatal(err)
	}
	if spent, _ := c.DB.Spent(ctx, defdraft.BudgetKey, day); spent != d1.Tokens+d2.Tokens {
		t.Fatalf("after two drafts (%d + %d tokens) the ledger counts %d", d1.Tokens, d2.Tokens, spent)
	}
}

// With the day's budget spent, drafting is refused with why and until
// when, and the model is not asked.
func TestDraftRefusedWhenTheBudgetIsSpent(t *testing.T) {
	c, srv := draftCore(t)
	ctx := context.Background()
	day := time.Now().UTC().Format(time.DateOnly)
	if ok, err := c.DB.Reserve(ctx, defdraft.BudgetKey, day, draftDailyTokens, draftDailyTokens-500); !ok || err != nil {
		t.Fatalf("spend the day: %v %v", ok, err)
	}
	_, err := c.Drafts().Draft(ctx, "files in my Scans folder become notes")
	msg := scouts.ErrorMessage(err)
	if scouts.ErrorCode(err) != scouts.EUnavailable || !strings.Contains(msg, "budget") || !strings.Contains(msg, "UTC") {
		t.Fatalf("drafting over budget: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times over budget", n)
	}
}
