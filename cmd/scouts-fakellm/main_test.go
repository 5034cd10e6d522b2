package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
)

// A scripted answer reaches the real model client as the draft it asked
// for, and the admin API counts the request.
func TestScriptedAnswerReachesTheClient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"--key", "k", "--model", "m"}, pw, io.Discard)
		pw.CloseWithError(errors.New("command exited"))
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	rd := bufio.NewReader(pr)
	l1, _ := rd.ReadString('\n')
	l2, _ := rd.ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, rd) }()
	api, ok1 := strings.CutPrefix(strings.TrimSpace(l1), "listening on ")
	adm, ok2 := strings.CutPrefix(strings.TrimSpace(l2), "admin on ")
	if !ok1 || !ok2 {
		t.Fatalf("first lines %q %q", l1, l2)
	}
	res, err := http.Post(adm+"/script", "application/json", strings.NewReader(`["{\"version\": 1, \"kind\": \"webhook\", \"name\": \"Hooks\"}"]`))
	if err != nil || res.StatusCode != http.StatusNoContent {
		t.Fatalf("script: %v %v", res, err)
	}
	c, err := llm.New(llm.Config{BaseURL: api, Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	allow := llm.Allowance{Budget: triage.NewMemoryBudget(nil), Scout: "draft", DailyTokens: 100_000}
	raw, tokens, err := c.Draft(ctx, "a webhook scout", json.RawMessage(`{"type":"object"}`), allow)
	if err != nil || !strings.Contains(string(raw), `"Hooks"`) || tokens <= 0 {
		t.Fatalf("draft: %s %d %v", raw, tokens, err)
	}
	res, err = http.Get(adm + "/requests")
	var n struct{ Count int }
	if err != nil || json.NewDecoder(res.Body).Decode(&n) != nil || n.Count != 1 {
		t.Fatalf("requests: %+v %v", n, err)
	}
}
