package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// leakyExec is an executor whose answers carry credentials, as a remote
// side's can: it fails once with an error quoting a token, then succeeds
// with a large result that echoes one.
type leakyExec struct{ calls int }

func (*leakyExec) Check(context.Context, engine.Invocation) error { return nil }

func (x *leakyExec) Execute(context.Context, engine.Invocation) (json.RawMessage, error) {
	x.calls++
	if x.calls == 1 {
		return nil, errors.New("post https://hooks.example.com/in?token=tok-0123456789secret: connection reset")
	}
	items := make([]string, 2000)
	for i := range items {
		items[i] = "row"
	}
	return json.Marshal(map[string]any{
		"note":          "sent with Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"access_token":  "ya29.a0AfH6SMBxxxxxxxxxxxxxxxxxxxxxxx",
		"echoed_header": "Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"items":         items,
	})
}

// TestActionOutputIsStoredRedactedAndCut: what an action answers — its
// error, its result, the note its trail entry quotes — is stored with its
// credentials struck and cut to MaxResultBytes, still valid JSON.
func TestActionOutputIsStoredRedactedAndCut(t *testing.T) {
	ctx := context.Background()
	x := &leakyExec{}
	h := newPlanHarness(t, true, func(c *engine.Config) { c.Executors[actions.GmailArchive] = x })
	h.src.add("m1", "Invoice")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask}); err != nil {
		t.Fatal(err)
	}
	failed := h.waitActionWith(s.ID, 2, func(r engine.ActionRun) bool { return r.LastError != "" })
	h.advance(time.Minute)
	h.engine.KickActions()
	done := h.waitAction(s.ID, 2, engine.ActionDone)

	secrets := []string{"tok-0123456789secret", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ya29.a0AfH6SMBxxx"}
	stored := []string{failed.LastError, string(done.Result)}
	for _, e := range h.audit(s.TraceID) {
		stored = append(stored, e.Summary)
		for _, v := range e.Refs {
			stored = append(stored, v)
		}
	}
	for _, text := range stored {
		for _, sec := range secrets {
			if strings.Contains(text, sec) {
				t.Errorf("stored with a credential in it: %.300q", text)
			}
		}
	}
	if !strings.Contains(failed.LastError, "token=[redacted]") {
		t.Errorf("the error lost more than its token: %q", failed.LastError)
	}
	if len(done.Result) > engine.MaxResultBytes || !json.Valid(done.Result) {
		t.Fatalf("result of %d bytes (limit %d), valid %v", len(done.Result), engine.MaxResultBytes, json.Valid(done.Result))
	}
	var res struct {
		Note  string   `json:"note"`
		Items []string `json:"items"`
	}
	if err := json.Unmarshal(done.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.Note != "sent with Authorization: Bearer [redacted]" || len(res.Items) == 0 || !strings.HasSuffix(res.Items[len(res.Items)-1], "more items") {
		t.Errorf("result %s", done.Result)
	}
}
