package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

const (
	catKey   = "sk-categorise-SECRET-4242"
	catModel = "fake-model"
)

// modelDesk is a desktop core with a model on the fake server.
type modelDesk struct {
	srv    *triagetest.Server
	c      *core.Core
	sub    *bus.Subscription
	budget *triage.MemoryBudget
	dir    string // the folder the scout watches
}

func newModelDesk(t *testing.T, timeout time.Duration, dailyTokens int) *modelDesk {
	t.Helper()
	srv := triagetest.New(catKey, catModel)
	t.Cleanup(srv.Close)
	m, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: catModel, APIKey: catKey, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	budget := triage.NewMemoryBudget(nil)
	c, sub := openCoreWith(t, core.Config{DataDir: t.TempDir(), Model: m, ModelBudget: budget, ModelDailyTokens: dailyTokens})
	return &modelDesk{srv: srv, c: c, sub: sub, budget: budget, dir: t.TempDir()}
}

func (d *modelDesk) write(t *testing.T, name, text string) {
	t.Helper()
	dropFile(t, d.dir, name, text)
}

// watch creates a folder scout over the desk's folder, files already there
// included.
func (d *modelDesk) watch(t *testing.T) scouts.Scout {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"path": d.dir, "include_existing": true, "settle": "1ms"})
	cr, err := d.c.CreateScout(context.Background(), core.NewScout{Kind: scouts.KindFolder, Name: "Inbox folder", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return cr.Scout
}

func (d *modelDesk) card(t *testing.T, name string) scouts.Suggestion {
	t.Helper()
	return waitFor(t, d.sub, "the card of "+name, suggestedPath(name)).Data.(scouts.Suggestion)
}

func (d *modelDesk) notes(t *testing.T, s scouts.Suggestion) []string {
	t.Helper()
	evs, err := d.c.DB.ListAudit(context.Background(), localdb.AuditFilter{TraceID: s.TraceID})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		if e.Type == scouts.AuditItemNote {
			out = append(out, e.Summary)
		}
	}
	return out
}

// noSecrets checks that no request carried the API key in its body.
func (d *modelDesk) noSecrets(t *testing.T) {
	t.Helper()
	for i, r := range d.srv.Requests() {
		if bytes.Contains(r.Body, []byte(catKey)) || bytes.Contains(r.Body, []byte("SECRET")) || bytes.Contains(r.Body, []byte("Bearer")) {
			t.Fatalf("request %d carries the key in its body", i)
		}
	}
}

func (d *modelDesk) entity(t *testing.T, e scouts.Entity) scouts.Entity {
	t.Helper()
	e, err := d.c.CreateEntity(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// projectNamed answers with a task due 27 November in the project that
// list_projects returned under that name, as a model reading it would.
func projectNamed(name string) func(triagetest.Request) string {
	return func(r triagetest.Request) string {
		got, _ := r.ToolResult("list_projects")
		var res struct {
			Projects []llm.Project `json:"projects"`
		}
		json.Unmarshal([]byte(got), &res)
		id := "not-listed"
		for _, p := range res.Projects {
			if p.Name == name {
				id = p.ID
			}
		}
		return `{"kind":"task","title":"Send the homepage copy","due":"2026-11-27","starts_at":null,"ends_at":null,"project_id":"` + id + `"}`
	}
}

// With a model, a new file is proposed as what the model says after
// looking at the person's open projects, recent tasks and notes: a task
// due Friday in the project it found, the why saying so, the subject kept
// beside the proposed title. The tools read the local database (a done
// project is not offered), the tokens count against the scout's daily
// cap, and the key never travels in a body.
func TestModelCategorisesWithLocalData(t *testing.T) {
	d := newModelDesk(t, 0, 100_000)
	web := d.entity(t, scouts.Entity{Kind: scouts.EntityProject, Title: "Website relaunch"})
	d.entity(t, scouts.Entity{Kind: scouts.EntityProject, Title: "Old intranet", Done: true})
	d.entity(t, scouts.Entity{Kind: scouts.EntityTask, Title: "Draft the sitemap", ProjectID: web.ID})
	d.entity(t, scouts.Entity{Kind: scouts.EntityNote, Title: "Relaunch tone of voice", Body: "short sentences"})
	d.entity(t, scouts.Entity{Kind: scouts.EntityNote, Title: "Garden plan", Body: "tomatoes"})
	d.srv.Script(
		triagetest.Turn{Calls: []triagetest.Call{{Name: "list_projects"}, {Name: "recent_tasks"}, {Name: "search_notes", Arguments: `{"query":"relaunch voice"}`}}},
		triagetest.Turn{Answer: projectNamed("Website relaunch")},
	)
	d.write(t, "copy.md", "# Homepage copy for the relaunch\n\nCould you send the homepage copy by Friday?\n")
	s := d.watch(t)
	card := d.card(t, "copy.md")

	a := card.Assessment
	if card.ProposedKind != scouts.EntityTask || a.KindFrom != "model" || a.ProjectID != web.ID || !a.AllDay ||
		a.Due.In(time.Local).Format(time.DateOnly) != "2026-11-27" {
		t.Fatalf("card: %s from %s, project %q, due %v (all day %v)", card.ProposedKind, a.KindFrom, a.ProjectID, a.Due, a.AllDay)
	}
	if card.Title != "Homepage copy for the relaunch" || a.ProposedTitle != "Send the homepage copy" {
		t.Fatalf("title %q, proposed %q", card.Title, a.ProposedTitle)
	}
	if !slices.Contains(a.Why, "the model: a task for project “Website relaunch” (due 27 Nov)") {
		t.Fatalf("why %q", a.Why)
	}
	if n := d.notes(t, card); len(n) != 0 {
		t.Fatalf("notes %q", n)
	}

	reqs := d.srv.Requests()
	if len(reqs) != 2 || reqs[0].Input["item_subject"] != "Homepage copy for the relaunch" || reqs[0].Input["source_type"] != "folder" ||
		!strings.Contains(reqs[0].Input["item_body_truncated_2k"], "by Friday") {
		t.Fatalf("%d requests; first input %v", len(reqs), reqs[0].Input)
	}
	results := map[string]string{}
	for _, r := range reqs[1].ToolResults() {
		results[r.Name] = r.Content
	}
	if p := results["list_projects"]; !strings.Contains(p, web.ID) || strings.Contains(p, "Old intranet") {
		t.Fatalf("list_projects answered %s", p)
	}
	if r := results["recent_tasks"]; !strings.Contains(r, `"title":"Draft the sitemap","project_id":"`+web.ID+`"`) {
		t.Fatalf("recent_tasks answered %s", r)
	}
	if n := results["search_notes"]; n != `{"notes":["Relaunch tone of voice"]}` {
		t.Fatalf("search_notes answered %s", n)
	}
	if used := d.budget.Used(s.ID); used <= 0 {
		t.Fatalf("the scout's budget counts %d tokens", used)
	}
	d.noSecrets(t)
}

// A model that answers out of contract (a project no tool returned, a
// kind outside the set) or does not answer in time never costs an item:
// the card is recorded with what the content proposes, and its trail
// says why the model was skipped. After a timeout the model is left alone
// for a while, so the next item does not wait again.
func TestModelFailuresNeverLoseTheItem(t *testing.T) {
	cases := []struct {
		name  string
		setup func(d *modelDesk)
		want  string // in the note
	}{
		{"unknown project", func(d *modelDesk) {
			d.srv.Script(triagetest.Turn{Calls: []triagetest.Call{{Name: "list_projects"}}}, triagetest.Turn{Answer: projectNamed("No such project")})
		}, "project_id is not one list_projects returned"},
		{"bad kind", func(d *modelDesk) {
			d.srv.Script(triagetest.Turn{Content: `{"kind":"reminder","title":"T","due":null,"starts_at":null,"ends_at":null,"project_id":null}`})
		}, "kind is not task, note, event or project"},
		{"refusal", func(d *modelDesk) { d.srv.Fail(triagetest.FaultRefusal) }, "refused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newModelDesk(t, 0, 100_000)
			d.entity(t, scouts.Entity{Kind: scouts.EntityProject, Title: "Website relaunch"})
			tc.setup(d)
			d.write(t, "copy.md", "# Homepage copy\n\nCould you send the homepage copy by Friday?\n")
			d.watch(t)
			card := d.card(t, "copy.md")
			if card.Status != scouts.StatusPending || card.Lane != scouts.LaneInbox || card.Assessment.KindFrom == "model" || card.Assessment.ProjectID != "" {
				t.Fatalf("card %s in %s, kind %s from %s, project %q", card.Status, card.Lane, card.ProposedKind, card.Assessment.KindFrom, card.Assessment.ProjectID)
			}
			n := d.notes(t, card)
			if len(n) != 1 || !strings.HasPrefix(n[0], "categorisation skipped: ") || !strings.Contains(n[0], tc.want) {
				t.Fatalf("notes %q; want one saying %q", n, tc.want)
			}
			d.noSecrets(t)
		})
	}

	t.Run("timeout", func(t *testing.T) {
		d := newModelDesk(t, 300*time.Millisecond, 100_000)
		d.srv.Fail(triagetest.FaultHang)
		d.write(t, "a.md", "# First\n")
		d.write(t, "b.md", "# Second\n")
		d.watch(t)
		cards := map[string]scouts.Suggestion{}
		waitFor(t, d.sub, "both cards", func(e scouts.Event) bool {
			if s, ok := e.Data.(scouts.Suggestion); ok && e.Type == scouts.EventSuggestionCreated {
				cards[filepath.Base(s.Path)] = s
			}
			return len(cards) == 2
		})
		var notes []string
		for _, name := range []string{"a.md", "b.md"} {
			card := cards[name]
			if card.Status != scouts.StatusPending || card.Assessment.KindFrom == "model" {
				t.Fatalf("%s: %s, kind from %s", name, card.Status, card.Assessment.KindFrom)
			}
			n := d.notes(t, card)
			if len(n) != 1 {
				t.Fatalf("%s: notes %q", name, n)
			}
			notes = append(notes, n[0])
		}
		slices.Sort(notes)
		if !strings.Contains(notes[0], "deadline exceeded") || !strings.Contains(notes[1], "the model failed a moment ago (timed out)") {
			t.Fatalf("notes %q", notes)
		}
		if n := len(d.srv.Requests()); n != 1 {
			t.Fatalf("%d requests; the second item must not wait for the model again", n)
		}
	})

	t.Run("budget spent", func(t *testing.T) {
		d := newModelDesk(t, 0, 500) // less than one request's worst case
		d.write(t, "a.md", "# First\n")
		s := d.watch(t)
		card := d.card(t, "a.md")
		if n := d.notes(t, card); len(n) != 1 || !strings.Contains(n[0], "model budget is spent") {
			t.Fatalf("notes %q", n)
		}
		if len(d.srv.Requests()) != 0 || d.budget.Used(s.ID) != 0 {
			t.Fatalf("%d requests, %d tokens counted", len(d.srv.Requests()), d.budget.Used(s.ID))
		}
	})
}
