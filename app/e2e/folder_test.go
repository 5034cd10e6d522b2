package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// dropFiles writes the scenario's files into dir and returns how many of
// them should become suggestions, keyed by the title each should get.
func dropTwenty(t *testing.T, dir, outside string) map[string]string {
	t.Helper()
	want := map[string]string{} // title → proposed kind
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 8 {
		title := fmt.Sprintf("Call supplier %d about the order", i)
		write(fmt.Sprintf("call-%d.txt", i), title+"\nThey promised delivery by Friday.\n")
		// A request with a date: the content proposes a task (a text
		// file alone would be a note).
		want[title] = "task"
	}
	for i := range 6 {
		title := fmt.Sprintf("Meeting notes %d", i)
		write(fmt.Sprintf("meeting-%d.md", i), "# "+title+"\n\nDecided to ship on Monday.\n")
		want[title] = "note"
	}
	write("sub/deeper/plan.md", "Plan\n====\n\nSetext heading in a subdirectory.\n")
	want["Plan"] = "note"
	write("invoice.pdf", "%PDF-1.4\x00\x01\x02binary invoice")
	want["invoice.pdf"] = "task"
	write("photo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	want["photo.png"] = "task"
	// A file name that is not valid UTF-8 (Linux allows any bytes).
	write("bad\xffname.txt", "Odd name but fine content\n")
	want["Odd name but fine content"] = "note"
	// Hidden files are excluded by default.
	write(".hidden.txt", "should never be suggested\n")
	// A symbolic link to a file outside the watched folder: never followed.
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("outside the root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link-out.txt")); err != nil {
		t.Fatal(err)
	}
	// 8 + 6 + 1 + 2 + 1 + 1 + 1 = 20 entries, 18 of which become suggestions.
	return want
}

func titles(list []apitype.Suggestion) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Title)
	}
	sort.Strings(out)
	return out
}

func TestFolderScoutApprovalLoopSurvivesSIGKILL(t *testing.T) {
	watchtest.Need(t)
	home := t.TempDir()
	data := filepath.Join(t.TempDir(), "data")
	watched := filepath.Join(t.TempDir(), "watched")
	outside := t.TempDir()
	if err := os.MkdirAll(watched, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	a := startAgent(t, data, home)
	stream := a.events(t)
	review := true
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: watched, Review: &review})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Path != watched || !sc.Review || !sc.Enabled {
		t.Fatalf("scout = %+v", sc)
	}

	want := dropTwenty(t, watched, outside)
	live := collectOr(t, stream, "suggestion.created", len(want), func(got []apitype.Suggestion) string {
		pending, err := a.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "pending"})
		return fmt.Sprintf("events for %q; the API has %d pending %q (%v)", titles(got), len(pending), titles(pending), err)
	})
	pending, err := a.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "pending"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != len(want) {
		t.Fatalf("%d pending suggestions, want %d: %q", len(pending), len(want), titles(pending))
	}
	if got, gotLive := titles(pending), titles(live); strings.Join(got, "|") != strings.Join(gotLive, "|") {
		t.Fatalf("API and stream disagree:\n api    %q\n stream %q", got, gotLive)
	}
	byTitle := map[string]apitype.Suggestion{}
	for _, s := range pending {
		kind, ok := want[s.Title]
		if !ok {
			t.Errorf("unexpected suggestion %q (%s)", s.Title, s.Path)
			continue
		}
		if s.ProposedKind != kind {
			t.Errorf("%q proposed as %s, want %s", s.Title, s.ProposedKind, kind)
		}
		if s.ScoutID != sc.ID || s.TraceID == "" || s.Status != "pending" || s.CreatedAt.IsZero() || s.Reason == "" {
			t.Errorf("suggestion %q is incomplete: %+v", s.Title, s)
		}
		byTitle[s.Title] = s
	}
	if s := byTitle["Meeting notes 0"]; !strings.Contains(s.Excerpt, "Decided to ship on Monday") {
		t.Errorf("excerpt of a Markdown file = %q", s.Excerpt)
	}
	if s := byTitle["Odd name but fine content"]; !strings.Contains(s.Path, "bad\uFFFDname.txt") {
		t.Errorf("path of the invalid-UTF-8 file = %q", s.Path)
	}

	// The link out of the root left a clear audit entry.
	all, err := a.client.Audit(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range all {
		if e.Type == "item.skipped" && strings.Contains(e.Summary, "outside") {
			found = true
		}
	}
	if !found {
		t.Error("no audit entry for the symbolic link pointing outside the watched folder")
	}

	// Decide three cards through the API.
	taskSrc, noteSrc, rejected := byTitle["invoice.pdf"], byTitle["Meeting notes 1"], byTitle["photo.png"]
	task, err := a.client.Approve(ctx, taskSrc.ID, apitype.Approve{As: "task"})
	if err != nil {
		t.Fatal(err)
	}
	note, err := a.client.Approve(ctx, noteSrc.ID, apitype.Approve{As: "note"})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := a.client.Approve(ctx, taskSrc.ID, apitype.Approve{As: "task"}); err != nil || again.ID != task.ID {
		t.Fatalf("approving twice: %v, id %s want %s", err, again.ID, task.ID)
	}
	if _, err := a.client.Reject(ctx, rejected.ID); err != nil {
		t.Fatal(err)
	}
	// The approval answered with the card's excerpt; the file's text
	// comes from the outbox afterwards (entity.fill_body), announced by
	// entity.updated.
	if !note.BodyPending {
		t.Errorf("the note answered %+v: want its text to come", note)
	}
	// Before the crash, each approval's step that reads the file's text
	// is recorded done (not only its entity updated: the step is recorded
	// done just after, and a kill in between leaves it interrupted and
	// run again after the restart, which the trails below do not expect).
	stepsDone := map[string]bool{}
	for resolved, filled := 0, false; resolved < 3 || !filled || !stepsDone[taskSrc.ID] || !stepsDone[noteSrc.ID]; {
		select {
		case ev := <-stream:
			var e apitype.Entity
			var act apitype.PlanAction
			switch {
			case ev.Type == "suggestion.resolved":
				resolved++
			case ev.Type == "entity.updated" && json.Unmarshal(ev.Data, &e) == nil && e.ID == note.ID:
				filled = true
				if !strings.Contains(e.Body, "Decided to ship on Monday") || e.BodyPending {
					t.Errorf("note = %+v, want the file's text", e)
				}
			case ev.Type == "action.updated" && json.Unmarshal(ev.Data, &act) == nil && act.State == "done" && act.Action == engine.FillBody:
				// The fill step itself: the approval announces its other
				// steps too, some already done (the entity's creation).
				stepsDone[act.SuggestionID] = true
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("within 30s: %d of 3 cards resolved, the note's text came: %v, steps done: %v", resolved, filled, stepsDone)
		}
	}

	// Crash, then five files arrive while nobody watches.
	a.kill()
	for i := range 5 {
		p := filepath.Join(watched, fmt.Sprintf("while-down-%d.md", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# Arrived while down %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := startAgent(t, data, home)
	stream = b.events(t)
	pendingAfter := func() []apitype.Suggestion {
		list, err := b.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "pending"})
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	// The restart's catch-up scan may create suggestions before the stream
	// opened, or between its opening and the API's answer (then they are
	// both listed and streamed): count distinct ids from both.
	awaitPending(t, stream, pendingAfter(), len(want)-3+5)
	allSug, err := b.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "all", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(allSug) != len(want)+5 {
		t.Fatalf("%d suggestions after restart, want %d: %q", len(allSug), len(want)+5, titles(allSug))
	}
	seen := map[string]bool{}
	for _, s := range allSug {
		if seen[s.Title] {
			t.Errorf("%q suggested twice", s.Title)
		}
		seen[s.Title] = true
	}
	for i := range 5 {
		if !seen[fmt.Sprintf("Arrived while down %d", i)] {
			t.Errorf("file written while the agent was down was not suggested: %d", i)
		}
	}

	// The two entities exist once each, linked to their cards.
	tasks, _ := b.client.Entities(ctx, "task")
	notes, _ := b.client.Entities(ctx, "note")
	if len(tasks) != 1 || tasks[0].ID != task.ID || tasks[0].SourceSuggestionID != taskSrc.ID {
		t.Fatalf("tasks after restart = %+v", tasks)
	}
	if len(notes) != 1 || notes[0].ID != note.ID || notes[0].SourceSuggestionID != noteSrc.ID {
		t.Fatalf("notes after restart = %+v", notes)
	}

	// Each decided item's whole story is in its trail, in order.
	for _, c := range []struct {
		s    apitype.Suggestion
		want []string
	}{
		// action.*: the step that read the file's text into the entity.
		{taskSrc, []string{"item.detected", "suggestion.created", "suggestion.approved", "entity.created", "action.queued", "action.attempt", "action.done"}},
		{noteSrc, []string{"item.detected", "suggestion.created", "suggestion.approved", "entity.created", "action.queued", "action.attempt", "action.done"}},
		{rejected, []string{"item.detected", "suggestion.created", "suggestion.rejected"}},
	} {
		trail, err := b.client.Audit(ctx, c.s.TraceID)
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, e := range trail {
			types = append(types, e.Type)
		}
		if strings.Join(types, ",") != strings.Join(c.want, ",") {
			t.Errorf("trail of %q = %v, want %v", c.s.Title, types, c.want)
		}
	}
	b.stop()
}

// awaitPending waits until n distinct suggestions are pending: those in
// listed (read after the stream was opened) and those the stream creates.
func awaitPending(t *testing.T, stream <-chan apitype.StreamEvent, listed []apitype.Suggestion, n int) {
	t.Helper()
	ids := map[string]bool{}
	for _, s := range listed {
		ids[s.ID] = true
	}
	for len(ids) < n {
		for _, s := range collect[apitype.Suggestion](t, stream, "suggestion.created", 1) {
			ids[s.ID] = true
		}
	}
}
