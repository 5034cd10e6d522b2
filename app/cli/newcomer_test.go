package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
)

// run runs the command line exactly as given (cli adds --data at the end).
func run(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := Main(args, Env{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(""), Version: "test"})
	return out.String(), errOut.String(), code
}

// --data stands anywhere on the line, as the help says: before the
// command, between a command and its subcommand, after; --json before the
// command too.
func TestGlobalFlagsAnywhere(t *testing.T) {
	dir, c := startTestAgent(t)
	sc, err := c.CreateScout(context.Background(), apitype.CreateScout{Kind: "folder", Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--data", dir, "scouts"},
		{"--data=" + dir, "scouts"},
		{"-data", dir, "scouts", "list"},
		{"scouts", "--data", dir},
	} {
		out, errOut, code := run(args...)
		if code != 0 || !strings.Contains(out, sc.ID) {
			t.Errorf("%q: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	out, errOut, code := run("scouts", "--data", dir, "schedule", sc.ID)
	if code != 0 || !strings.Contains(out, "no schedule of its own") {
		t.Errorf("--data between a command and its subcommand: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = run("--json", "--data", dir, "status")
	var st apitype.Status
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.DataDir == "" {
		t.Errorf("--json before the command: exit %d\n%s%s", code, out, errOut)
	}
}

// A mistyped command or flag says so in one line, with the nearest
// command, and exits 2; the whole help is behind --help and help.
func TestMistakesAreOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"scoutz"}, `unknown command "scoutz" (did you mean "scouts"?)`},
		{[]string{"sugestions", "--data", "x"}, `(did you mean "suggestions"?)`},
		{[]string{"stauts"}, `(did you mean "status"?)`},
		{[]string{"bring"}, `(did you mean "bring-back"?)`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"; scouts help lists the commands`},
		{[]string{"--bogus", "status"}, "--bogus goes after the command"},
		{[]string{"approve", "sg_1", "--bogus"}, "flag provided but not defined: -bogus (scouts approve --help lists its flags)"},
		{[]string{"--data"}, "--data needs a directory"},
	} {
		out, errOut, code := run(tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, code, out, errOut, tc.want)
		}
		if strings.Contains(errOut, "Talking to a running agent") {
			t.Errorf("%q dumped the help", tc.args)
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		out, _, code := run(args...)
		if code != 0 || !strings.Contains(out, "Talking to a running agent") {
			t.Errorf("%q: exit %d, no help", args, code)
		}
	}
	out, _, code := run("suggestions", "--help")
	if code != 0 || !strings.Contains(out, "Usage of scouts suggestions:") || !strings.Contains(out, "-lane") {
		t.Errorf("suggestions --help: exit %d\n%s", code, out)
	}
	// Every command the help lists is one the command line knows (asked
	// for its help, so that none does anything).
	for _, name := range commandNames() {
		_, errOut, _ := run(name, "--help")
		if strings.Contains(errOut, "unknown command") {
			t.Errorf("the help lists %q, which is an unknown command", name)
		}
	}
}

// Reading the schedule and the budget of a scout a definitions file
// manages is not a change: it is shown, while a change is still refused.
func TestReadingAManagedScoutsScheduleAndBudget(t *testing.T) {
	dir, c := startTestAgent(t)
	file := filepath.Join(dir, "config", "scouts.d", "notes.yaml")
	doc := "version: 1\nkind: folder\nname: Notes\nsource:\n  path: " + t.TempDir() + "\nschedule:\n  cron: \"@hourly\"\n"
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, dir, func() string { out, _, _ := cli(t, dir, "scouts"); return out }, "managed by notes.yaml")
	list, err := c.Scouts(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("scouts: %v %v", list, err)
	}
	id := list[0].ID
	out, errOut, code := cli(t, dir, "scouts", "schedule", id)
	if code != 0 || !strings.Contains(out, "Notes: runs on @hourly") {
		t.Errorf("schedule of a managed scout: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, dir, "scouts", "budget", id)
	if code != 0 || !strings.Contains(out, "Notes: model budget: the agent's daily cap") {
		t.Errorf("budget of a managed scout: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = cli(t, dir, "scouts", "budget", id, "--day", "100")
	if code != 1 || !strings.Contains(errOut, "managed by notes.yaml") {
		t.Errorf("a change to a managed scout's budget: exit %d %s", code, errOut)
	}
}

// Sentences read right: "an event", a budget in words, and errors that
// say "scouts:" once.
func TestWording(t *testing.T) {
	dir, c := startTestAgent(t)
	ctx := context.Background()
	drop := t.TempDir()
	os.WriteFile(filepath.Join(drop, "standup.md"), []byte("# Team meeting\n\nThe team meeting is on 2099-06-02 at 10:00 in room 4.\n"), 0o644)
	sc, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: drop, IncludeExisting: true})
	if err != nil {
		t.Fatal(err)
	}
	card := pendingCards(t, c, 1)[0]
	if card.ProposedKind != "event" {
		t.Fatalf("the card is proposed as %s, want an event (its content names a time)", card.ProposedKind)
	}
	out, errOut, code := cli(t, dir, "plan", card.ID)
	if code != 0 || !strings.Contains(out, "Approving "+card.ID+" as an event will:") {
		t.Errorf("plan: exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = cli(t, dir, "show", card.ID)
	if !strings.Contains(out, "now proposed as an event from its content") || strings.Contains(out, "a event") {
		t.Errorf("show:\n%s", out)
	}
	out, errOut, code = cli(t, dir, "scouts", "budget", sc.ID, "--day", "1000")
	if code != 0 || !strings.Contains(out, "model budget: 1000 tokens a day, no cap per run") {
		t.Errorf("budget: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = cli(t, dir, "scouts", "rm", "sc_nope")
	if code != 1 || !strings.HasPrefix(errOut, "scouts: ") || strings.Contains(errOut, "scouts scouts") {
		t.Errorf("an error: exit %d %q", code, errOut)
	}
}

// Each entity list shows what its kind has: a task's due date, an event's
// time and place; a note is never done.
func TestEntityListsShowWhatEachKindHas(t *testing.T) {
	dir, _ := startTestAgent(t)
	for _, args := range [][]string{
		{"tasks", "add", "Pay rent", "--due", "2026-06-01"},
		{"events", "add", "Dentist", "--starts", "2026-06-02T09:30:00Z", "--ends", "2026-06-02T10:00:00Z", "--location", "Main Street 4"},
		{"notes", "add", "An idea"},
	} {
		if out, errOut, code := cli(t, dir, args...); code != 0 {
			t.Fatalf("%q: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	tasks, _, _ := cli(t, dir, "tasks")
	if !strings.Contains(tasks, "DUE") || !strings.Contains(tasks, "2026-06-01") {
		t.Errorf("tasks show no due date:\n%s", tasks)
	}
	events, _, _ := cli(t, dir, "events")
	when := dayOrTime(mustTime(t, "2026-06-02T09:30:00Z"))
	if !strings.Contains(events, "WHEN") || !strings.Contains(events, when) || !strings.Contains(events, "Main Street 4") || strings.Contains(events, "DONE") {
		t.Errorf("events show no time or place (want %s):\n%s", when, events)
	}
	notes, _, _ := cli(t, dir, "notes")
	if strings.Contains(notes, "DONE") || strings.Contains(notes, "DUE") || !strings.Contains(notes, "An idea") {
		t.Errorf("notes:\n%s", notes)
	}
	_, errOut, code := cli(t, dir, "notes", "add", "Later", "--due", "2026-06-01")
	if code != 2 || !strings.Contains(errOut, "--due is a task's field; a note has none") {
		t.Errorf("--due on a note: exit %d %s", code, errOut)
	}
}

// status counts scouts by health, not by what runs on this machine.
func TestStatusCountsScoutsByHealth(t *testing.T) {
	dir, c := startTestAgent(t)
	ctx := context.Background()
	a, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	awaitAgent(t, c, "the scout's first run", func() bool {
		s, err := c.Scout(ctx, a.ID)
		return err == nil && s.Health.State == "ok"
	})
	out, _, _ := cli(t, dir, "status")
	if !strings.Contains(out, "1 scout, all ok") {
		t.Errorf("status with one healthy scout:\n%s", out)
	}
	off := false
	if _, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: t.TempDir(), Enabled: &off}); err != nil {
		t.Fatal(err)
	}
	out, _, _ = cli(t, dir, "status")
	if !strings.Contains(out, "2 scouts: 1 ok, 1 disabled") || strings.Contains(out, "running of") {
		t.Errorf("status with a disabled scout:\n%s", out)
	}
}

// add-folder offers to create a missing folder (a fresh home has no
// ~/Documents/Scans): without a terminal the error names --create, which
// creates it.
func TestAddFolderCreatesAMissingFolder(t *testing.T) {
	dir, c := startTestAgent(t)
	scans := filepath.Join(t.TempDir(), "Documents", "Scans")
	out, errOut, code := cli(t, dir, "scouts", "add-folder", scans)
	if code != 1 || !strings.Contains(errOut, "the folder "+scans+" does not exist: create it, or run the command again with --create") {
		t.Fatalf("a missing folder: exit %d\n%s%s", code, out, errOut)
	}
	if list, _ := c.Scouts(context.Background()); len(list) != 0 {
		t.Fatalf("a refused folder made a scout: %+v", list)
	}
	out, errOut, code = cli(t, dir, "scouts", "add-folder", scans, "--create")
	if code != 0 || !strings.Contains(out, "Created "+scans) || !strings.Contains(out, "Added scout") {
		t.Fatalf("--create: exit %d\n%s%s", code, out, errOut)
	}
	if fi, err := os.Stat(scans); err != nil || !fi.IsDir() {
		t.Fatalf("the folder was not created: %v", err)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
