package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

var paris = time.FixedZone("CET", 3600)

// wednesday is "today" in the tests: Wednesday 25 November 2026, 09:00 CET.
var wednesday = time.Date(2026, 11, 25, 9, 0, 0, 0, paris)

func catInput() llm.CategoriseInput {
	return llm.CategoriseInput{SourceType: "gmail", Subject: "Relaunch: homepage copy",
		Sender: `"Ann" <ann@example.com>`, Body: "Could you send the homepage copy by Friday?", Now: wednesday, Zone: paris}
}

// localData is the person's data the tools read, and what they were asked.
type localData struct {
	projects []llm.Project
	tasks    []llm.Task
	notes    []string
	queries  []string
}

func (d *localData) tools() llm.Tools {
	return llm.Tools{
		ListProjects: func(context.Context) ([]llm.Project, error) { return d.projects, nil },
		RecentTasks:  func(context.Context) ([]llm.Task, error) { return d.tasks, nil },
		SearchNotes: func(_ context.Context, q string) ([]string, error) {
			d.queries = append(d.queries, q)
			return d.notes, nil
		},
	}
}

func sampleData() *localData {
	return &localData{
		projects: []llm.Project{{ID: "pj_garden", Name: "Garden"}, {ID: "pj_web", Name: "Website relaunch"}},
		tasks:    []llm.Task{{Title: "Draft the sitemap", ProjectID: "pj_web", Due: time.Date(2026, 11, 20, 0, 0, 0, 0, paris)}},
		notes:    []string{"Relaunch tone of voice"},
	}
}

func allowance(b triage.Budget, daily int) llm.Allowance {
	return llm.Allowance{Budget: b, Scout: "sc_1", DailyTokens: daily}
}

// projectByName answers from list_projects' result, as a model reading it
// would.
func projectByName(name string) func(triagetest.Request) string {
	return func(r triagetest.Request) string {
		got, _ := r.ToolResult("list_projects")
		var res struct {
			Projects []llm.Project `json:"projects"`
		}
		json.Unmarshal([]byte(got), &res)
		id := "none-found"
		for _, p := range res.Projects {
			if p.Name == name {
				id = p.ID
			}
		}
		return `{"kind":"task","title":"Send the homepage copy","due":"2026-11-27","starts_at":null,"ends_at":null,"project_id":"` + id + `"}`
	}
}

// The model looks at the person's projects and notes through the tools,
// then proposes a task due Friday in the project it found by name; the
// results go back as tool messages, the answer is structured, and nothing
// secret travels in any request body.
func TestCategoriseWithTools(t *testing.T) {
	srv, c := setup(t, llm.Config{})
	data := sampleData()
	srv.Script(
		triagetest.Turn{Calls: []triagetest.Call{{Name: "list_projects"}, {Name: "search_notes", Arguments: `{"query":"relaunch"}`}}},
		triagetest.Turn{Calls: []triagetest.Call{{Name: "recent_tasks"}}},
		triagetest.Turn{Answer: projectByName("Website relaunch")},
	)
	budget := triage.NewMemoryBudget(nil)
	in := catInput()
	in.Body = strings.Repeat("é", 3000)
	p, err := c.Categorise(context.Background(), in, data.tools(), allowance(budget, 100_000))
	if err != nil {
		t.Fatal(err)
	}
	friday := time.Date(2026, 11, 27, 0, 0, 0, 0, paris)
	if p.Kind != scouts.EntityTask || p.Title != "Send the homepage copy" || !p.Due.Equal(friday) || !p.AllDay ||
		p.ProjectID != "pj_web" || p.ProjectName != "Website relaunch" || p.ToolCalls != 3 {
		t.Fatalf("proposal %+v", p)
	}
	if p.Tokens <= 0 || budget.Used("sc_1") != p.Tokens {
		t.Fatalf("tokens %d, budget counts %d", p.Tokens, budget.Used("sc_1"))
	}
	if len(data.queries) != 1 || data.queries[0] != "relaunch" {
		t.Fatalf("note searches %q", data.queries)
	}

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.Authorization != "Bearer "+testKey || bytes.Contains(r.Body, []byte(testKey)) || bytes.Contains(r.Body, []byte("SECRET")) {
			t.Fatalf("request %d: the key must travel in the header only", i)
		}
		if strings.Join(r.ToolNames(), ",") != "list_projects,recent_tasks,search_notes" || string(r.ToolChoice) != `"auto"` {
			t.Fatalf("request %d offers %v with tool_choice %s", i, r.ToolNames(), r.ToolChoice)
		}
		var rf struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string `json:"name"`
				Strict bool   `json:"strict"`
			} `json:"json_schema"`
		}
		if json.Unmarshal(r.ResponseFormat, &rf) != nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "categorisation" || !rf.JSONSchema.Strict {
			t.Fatalf("request %d response_format %s", i, r.ResponseFormat)
		}
	}
	first := reqs[0].Input
	if first["item_subject"] != in.Subject || first["source_type"] != "gmail" || first["today"] != "2026-11-25" ||
		first["weekday"] != "Wednesday" || first["time_zone"] != "CET, UTC+01:00" || utf8.RuneCountInString(first["item_body_truncated_2k"]) != triage.ModelBodyRunes {
		t.Fatalf("input %v", first)
	}
	res := reqs[2].ToolResults()
	if len(res) != 3 {
		t.Fatalf("tool results %+v", res)
	}
	want := map[string]string{
		"list_projects": `{"projects":[{"id":"pj_garden","name":"Garden"},{"id":"pj_web","name":"Website relaunch"}]}`,
		"search_notes":  `{"notes":["Relaunch tone of voice"]}`,
		"recent_tasks":  `{"tasks":[{"title":"Draft the sitemap","project_id":"pj_web","due":"2026-11-20T00:00:00+01:00"}]}`,
	}
	for _, r := range res {
		if r.Content != want[r.Name] {
			t.Fatalf("%s answered %s, want %s", r.Name, r.Content, want[r.Name])
		}
	}
}

// An event with times, a note, and the plain-JSON fallback of servers
// without structured output.
func TestCategoriseEventsNotesAndPlainJSON(t *testing.T) {
	srv, c := setup(t, llm.Config{})
	srv.Script(triagetest.Turn{Content: `{"kind":"event","title":"Call with Ann","due":null,"starts_at":"2026-11-26T14:00:00+01:00","ends_at":"2026-11-26T14:30:00+01:00","project_id":null}`})
	p, err := c.Categorise(context.Background(), catInput(), sampleData().tools(), allowance(triage.NewMemoryBudget(nil), 100_000))
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != scouts.EntityEvent || p.AllDay || p.StartsAt.UTC().Hour() != 13 || p.EndsAt.Sub(p.StartsAt) != 30*time.Minute {
		t.Fatalf("event %+v", p)
	}
	srv.Fail(triagetest.FaultPlainJSON)
	srv.Script(triagetest.Turn{Content: `{"kind":"note","title":"Tone of voice"}`}) // nulls left out
	p, err = c.Categorise(context.Background(), catInput(), sampleData().tools(), allowance(triage.NewMemoryBudget(nil), 100_000))
	if err != nil || p.Kind != scouts.EntityNote || p.Title != "Tone of voice" || !p.Due.IsZero() || p.ProjectID != "" {
		t.Fatalf("note %+v, %v", p, err)
	}
}

// Invalid answers are errors, never mended: a project id no tool returned
// (or returned by a tool that was not called), a kind outside the set,
// dates in other forms or on kinds without dates, an overlong title, extra
// fields, prose. The error quotes nothing of the answer.
func TestCategoriseRejectsInvalidAnswers(t *testing.T) {
	long := strings.Repeat("x", 201)
	cases := map[string]struct {
		listFirst bool
		content   string
	}{
		"unknown project":       {true, `{"kind":"task","title":"T","due":null,"starts_at":null,"ends_at":null,"project_id":"pj_MARKER"}`},
		"project not looked up": {false, `{"kind":"task","title":"T","due":null,"starts_at":null,"ends_at":null,"project_id":"pj_web"}`},
		"bad kind":              {false, `{"kind":"MARKER","title":"T","due":null,"starts_at":null,"ends_at":null,"project_id":null}`},
		"prose date":            {false, `{"kind":"task","title":"T","due":"MARKER Friday","starts_at":null,"ends_at":null,"project_id":null}`},
		"date without zone":     {false, `{"kind":"task","title":"T","due":"2026-11-27T10:00:00","starts_at":null,"ends_at":null,"project_id":null}`},
		"due on a note":         {false, `{"kind":"note","title":"T","due":"2026-11-27","starts_at":null,"ends_at":null,"project_id":null}`},
		"project on a note":     {true, `{"kind":"note","title":"T","due":null,"starts_at":null,"ends_at":null,"project_id":"pj_web"}`},
		"event without start":   {false, `{"kind":"event","title":"T","due":null,"starts_at":null,"ends_at":"2026-11-27","project_id":null}`},
		"event ends first":      {false, `{"kind":"event","title":"T","due":null,"starts_at":"2026-11-27T10:00:00Z","ends_at":"2026-11-27T09:00:00Z","project_id":null}`},
		"mixed date and time":   {false, `{"kind":"event","title":"T","due":null,"starts_at":"2026-11-27","ends_at":"2026-11-27T09:00:00Z","project_id":null}`},
		"title too long":        {false, `{"kind":"note","title":"` + long + `","due":null,"starts_at":null,"ends_at":null,"project_id":null}`},
		"empty title":           {false, `{"kind":"note","title":"  ","due":null,"starts_at":null,"ends_at":null,"project_id":null}`},
		"no title":              {false, `{"kind":"note","due":null}`},
		"extra field":           {false, `{"kind":"note","title":"T","due":null,"starts_at":null,"ends_at":null,"project_id":null,"priority":"MARKER"}`},
		"prose":                 {false, `It is a task, MARKER.`},
		"two objects":           {false, `{"kind":"note","title":"T"} {"kind":"note","title":"U"}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, c := setup(t, llm.Config{})
			if tc.listFirst {
				srv.Script(triagetest.Turn{Calls: []triagetest.Call{{Name: "list_projects"}}})
			}
			srv.Script(triagetest.Turn{Content: tc.content})
			budget := triage.NewMemoryBudget(nil)
			p, err := c.Categorise(context.Background(), catInput(), sampleData().tools(), allowance(budget, 100_000))
			if !errors.Is(err, llm.ErrBadProposal) {
				t.Fatalf("err %v, proposal %+v", err, p)
			}
			if strings.Contains(err.Error(), "MARKER") || strings.Contains(err.Error(), long) {
				t.Fatalf("the error quotes the answer: %v", err)
			}
			if p.Tokens <= 0 || budget.Used("sc_1") != p.Tokens {
				t.Fatalf("a billed answer is counted even when invalid: tokens %d, budget %d", p.Tokens, budget.Used("sc_1"))
			}
		})
	}
}

// A model that keeps calling tools gets four rounds, then a request with
// tool_choice "none" that it must answer; a call of a tool that does not
// exist, or with bad arguments, is answered with an error it can read.
func TestCategoriseBoundsToolRounds(t *testing.T) {
	srv, c := setup(t, llm.Config{})
	calls := func(cs ...triagetest.Call) triagetest.Turn { return triagetest.Turn{Calls: cs} }
	srv.Script(
		calls(triagetest.Call{Name: "read_mailbox"}),
		calls(triagetest.Call{Name: "search_notes", Arguments: `{"q":"x"}`}),
		calls(triagetest.Call{Name: "search_notes", Arguments: `not json`}),
		calls(triagetest.Call{Name: "list_projects"}),
		triagetest.Turn{Content: `{"kind":"note","title":"T","due":null,"starts_at":null,"ends_at":null,"project_id":null}`},
	)
	p, err := c.Categorise(context.Background(), catInput(), sampleData().tools(), allowance(triage.NewMemoryBudget(nil), 100_000))
	if err != nil || p.Kind != scouts.EntityNote || p.ToolCalls != 4 {
		t.Fatalf("proposal %+v, %v", p, err)
	}
	reqs := srv.Requests()
	if len(reqs) != llm.MaxToolRounds+1 || string(reqs[len(reqs)-1].ToolChoice) != `"none"` || string(reqs[len(reqs)-2].ToolChoice) != `"auto"` {
		t.Fatalf("%d requests, last tool_choice %s", len(reqs), reqs[len(reqs)-1].ToolChoice)
	}
	res := reqs[len(reqs)-1].ToolResults()
	if len(res) != 4 || !strings.Contains(res[0].Content, "no such tool") || !strings.Contains(res[1].Content, "needs a query") ||
		!strings.Contains(res[2].Content, "not a JSON object") || !strings.Contains(res[3].Content, "pj_web") {
		t.Fatalf("tool results %+v", res)
	}
}

// Without tools the request offers none and says no tool_choice.
func TestCategoriseWithoutTools(t *testing.T) {
	srv, c := setup(t, llm.Config{})
	srv.Script(triagetest.Turn{Content: `{"kind":"task","title":"T","due":"2026-11-27T17:00:00+01:00","starts_at":null,"ends_at":null,"project_id":null}`})
	p, err := c.Categorise(context.Background(), catInput(), llm.Tools{}, allowance(triage.NewMemoryBudget(nil), 100_000))
	if err != nil || p.AllDay || p.Due.UTC().Hour() != 16 {
		t.Fatalf("proposal %+v, %v", p, err)
	}
	if r := srv.Requests()[0]; len(r.Tools) != 0 || r.ToolChoice != nil {
		t.Fatalf("tools %v, tool_choice %s", r.ToolNames(), r.ToolChoice)
	}
}

// Categorisation spends the scout's daily cap, shared with verdicts: a
// request is made only when its worst case fits what is left, the day's
// total never passes the cap, and a spent budget is ErrBudgetSpent.
func TestCategoriseSpendsTheDailyCap(t *testing.T) {
	srv, c := setup(t, llm.Config{})
	budget := triage.NewMemoryBudget(nil)
	if _, ok, _ := budget.Reserve(context.Background(), "sc_1", 100_000, 99_000); !ok {
		t.Fatal("reserve")
	}
	_, err := c.Categorise(context.Background(), catInput(), sampleData().tools(), allowance(budget, 100_000))
	if !errors.Is(err, llm.ErrBudgetSpent) || len(srv.Requests()) != 0 {
		t.Fatalf("err %v after %d requests", err, len(srv.Requests()))
	}

	// Room for one round and not two: the first request is made, the
	// second is not, and the count stays under the cap. The rounds'
	// reservations are measured on a run without a cap.
	script := func() {
		srv.Script(triagetest.Turn{Calls: []triagetest.Call{{Name: "list_projects"}}},
			triagetest.Turn{Content: `{"kind":"note","title":"T"}`})
	}
	script()
	rec := &recordingBudget{Budget: triage.NewMemoryBudget(nil)}
	if _, err := c.Categorise(context.Background(), catInput(), sampleData().tools(), allowance(rec, 100_000)); err != nil || len(rec.reserved) != 2 {
		t.Fatalf("%v, reservations %v", err, rec.reserved)
	}
	daily := rec.reserved[0]
	script()
	budget = triage.NewMemoryBudget(nil)
	before := len(srv.Requests())
	_, err = c.Categorise(context.Background(), catInput(), sampleData().tools(), allowance(budget, daily))
	if !errors.Is(err, llm.ErrBudgetSpent) || len(srv.Requests()) != before+1 || budget.Used("sc_1") > daily || budget.Used("sc_1") == 0 {
		t.Fatalf("err %v, %d requests, %d tokens counted of %d", err, len(srv.Requests())-before, budget.Used("sc_1"), daily)
	}

	// A verdict and a categorisation of the same scout count together.
	srv, c = setup(t, llm.Config{}) // the last script's answer is left over
	budget = triage.NewMemoryBudget(nil)
	ans, err := c.Classify(context.Background(), input())
	if err != nil {
		t.Fatal(err)
	}
	budget.Commit(context.Background(), mustReserve(t, budget, ans.Tokens), ans.Tokens)
	srv.Script(triagetest.Turn{Content: `{"kind":"note","title":"T"}`})
	p, err := c.Categorise(context.Background(), catInput(), sampleData().tools(), allowance(budget, 100_000))
	if err != nil || budget.Used("sc_1") != ans.Tokens+p.Tokens {
		t.Fatalf("counted %d, want %d + %d (%v)", budget.Used("sc_1"), ans.Tokens, p.Tokens, err)
	}

	// One item never reserves more than its own bound.
	a := allowance(triage.NewMemoryBudget(nil), 100_000)
	a.ItemTokens = 1_000
	if _, err := c.Categorise(context.Background(), catInput(), sampleData().tools(), a); err == nil || !strings.Contains(err.Error(), "bound of 1000 tokens") {
		t.Fatalf("item bound: %v", err)
	}
}

func mustReserve(t *testing.T, b triage.Budget, n int) triage.Reservation {
	t.Helper()
	r, ok, err := b.Reserve(context.Background(), "sc_1", 100_000, n)
	if !ok || err != nil {
		t.Fatal("reserve", ok, err)
	}
	return r
}

// A server that never answers is a timeout error, charged nothing; errors
// name neither the key nor the mail.
func TestCategoriseTimeoutAndFailures(t *testing.T) {
	srv, c := setup(t, llm.Config{Timeout: 200 * time.Millisecond})
	srv.Fail(triagetest.FaultHang)
	budget := triage.NewMemoryBudget(nil)
	_, err := c.Categorise(context.Background(), catInput(), sampleData().tools(), allowance(budget, 100_000))
	if !errors.Is(err, context.DeadlineExceeded) || budget.Used("sc_1") != 0 {
		t.Fatalf("err %v, %d tokens counted", err, budget.Used("sc_1"))
	}
	for _, f := range []triagetest.Fault{triagetest.FaultServerError, triagetest.FaultRefusal, triagetest.FaultTruncated, triagetest.FaultMalformedJSON} {
		srv.Fail(f)
		_, err := c.Categorise(context.Background(), catInput(), sampleData().tools(), allowance(budget, 100_000))
		if err == nil {
			t.Fatalf("%s: no error", f)
		}
		for _, secret := range []string{testKey, "homepage copy", "Relaunch"} {
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("%s: error %q names %q", f, err, secret)
			}
		}
	}
	if _, err := c.Categorise(context.Background(), catInput(), llm.Tools{}, llm.Allowance{}); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Fatalf("without a budget: %v", err)
	}
}

// recordingBudget records the size of each reservation.
type recordingBudget struct {
	triage.Budget
	reserved []int
}

func (b *recordingBudget) Reserve(ctx context.Context, scout string, dailyCap, tokens int) (triage.Reservation, bool, error) {
	b.reserved = append(b.reserved, tokens)
	return b.Budget.Reserve(ctx, scout, dailyCap, tokens)
}
