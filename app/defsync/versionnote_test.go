package defsync_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts"
)

// A version made by changing a scout's settings says what changed; it had
// no note (blank in scouts definition history, "Changed" in the window).
func TestSettingsVersionsSayWhatChanged(t *testing.T) {
	c, _ := openCoreIn(t, t.TempDir())
	ctx := defsync.WithActor(context.Background(), "cli")
	cfg, _ := json.Marshal(map[string]any{"path": t.TempDir()})
	cr, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "In", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.Scout.ID
	sched := scouts.Schedule{Cron: "0 9 * * *"}
	budget := scouts.Budget{DayTokens: 5000}
	name, off := "Inbox", false
	for _, step := range []struct {
		patch core.ScoutPatch
		note  string
	}{
		{core.ScoutPatch{Schedule: &sched}, "schedule changed"},
		{core.ScoutPatch{Budget: &budget}, "budget changed"},
		{core.ScoutPatch{Schedule: &scouts.Schedule{}, Budget: &scouts.Budget{}}, "schedule and budget changed"},
		{core.ScoutPatch{Name: &name}, "name changed"},
		{core.ScoutPatch{Enabled: &off}, "switched off"},
	} {
		if _, err := c.UpdateScout(ctx, id, step.patch); err != nil {
			t.Fatal(err)
		}
		if _, _, note, _ := newestVersion(t, c, id); note != step.note {
			t.Errorf("after %+v the version's note is %q, want %q", step.patch, note, step.note)
		}
	}
}

// A definitions file's versions name the file.
func TestDefinitionsFileVersionsNameTheFile(t *testing.T) {
	_, c, defs := unstartedWithDefinitions(t)
	watched := t.TempDir()
	file := filepath.Join(defs, "scans.yaml")
	for i, step := range []struct{ doc, note string }{
		{folderDef(t, "Scans", watched), "created from file scans.yaml"},
		{folderDef(t, "Scans", watched) + "schedule:\n  cron: 0 9 * * *\n", "file scans.yaml changed"},
	} {
		v, _, note, _ := newestVersion(t, c, writeDefinition(t, c, file, step.doc))
		if v != i+1 || note != step.note {
			t.Errorf("version %d's note is %q, want version %d with %q", v, note, i+1, step.note)
		}
	}
}
