package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

const (
	testKey   = "sk-test-SECRET-0123456789"
	testModel = "gpt-4o-mini"
)

func setup(t *testing.T, cfg llm.Config) (*triagetest.Server, *llm.Client) {
	t.Helper()
	srv := triagetest.New(testKey, testModel)
	t.Cleanup(srv.Close)
	if cfg.BaseURL == "" {
		cfg.BaseURL = srv.BaseURL()
	}
	if cfg.Model == "" {
		cfg.Model = testModel
	}
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func input() triage.ModelInput {
	return triage.ModelInput{SourceType: "gmail", ScoutName: "Invoices", ScoutPurpose: "bills to pay",
		Subject: "Invoice 42", Sender: `"Ann" <ann@example.com>`, Body: "Please pay by Friday."}
}

// The request is what the contract says: structured output with a strict
// schema, temperature 0, the bearer key, the six input fields, and nothing
// else of the mail.
func TestStructuredOutput(t *testing.T) {
	srv, c := setup(t, llm.Config{})
	in := input()
	in.Body = strings.Repeat("é", 3000) // the client cuts too, whoever calls it
	ans, err := c.Classify(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Verdict != triage.Relevant || ans.Reason == "" || ans.Confidence != 0.8 || ans.Tokens <= 0 {
		t.Fatalf("answer %+v", ans)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Authorization != "Bearer "+testKey || r.Model != testModel || r.Temperature == nil || *r.Temperature != 0 || r.MaxTokens != llm.DefaultMaxCompletionTokens {
		t.Fatalf("request %+v", r)
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" {
		t.Fatalf("messages %+v", r.Messages)
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string `json:"name"`
			Strict bool   `json:"strict"`
			Schema struct {
				Required []string `json:"required"`
			} `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(r.ResponseFormat, &rf); err != nil || rf.Type != "json_schema" || !rf.JSONSchema.Strict ||
		strings.Join(rf.JSONSchema.Schema.Required, ",") != "verdict,reason,confidence" {
		t.Fatalf("response_format %s (%v)", r.ResponseFormat, err)
	}
	want := map[string]string{"source_type": "gmail", "scout_name": "Invoices", "scout_purpose": "bills to pay",
		"item_subject": "Invoice 42", "item_sender": `"Ann" <ann@example.com>`}
	for k, v := range want {
		if r.Input[k] != v {
			t.Errorf("input %s = %q, want %q", k, r.Input[k], v)
		}
	}
	if len(r.Input) != 6 {
		t.Errorf("input has %d fields: %v", len(r.Input), r.Input)
	}
	if n := utf8.RuneCountInString(r.Input["item_body_truncated_2k"]); n != triage.ModelBodyRunes {
		t.Errorf("body sent: %d runes", n)
	}
	// The reservation covers what was used.
	if ans.Tokens > c.MaxTokens(in) {
		t.Errorf("used %d tokens, more than the bound %d", ans.Tokens, c.MaxTokens(in))
	}
}

func TestSpamVerdict(t *testing.T) {
	_, c := setup(t, llm.Config{})
	in := input()
	in.Subject = "You are a WINNER"
	ans, err := c.Classify(context.Background(), in)
	if err != nil || ans.Verdict != triage.Spam || ans.Confidence != 0.92 {
		t.Fatalf("got %+v, %v", ans, err)
	}
}

// Servers without structured output return the JSON in the content,
// often fenced: accepted, and validated just as strictly.
func TestPlainJSONFallback(t *testing.T) {
	srv, c := setup(t, llm.Config{})
	srv.Fail(triagetest.FaultPlainJSON)
	ans, err := c.Classify(context.Background(), input())
	if err != nil || ans.Verdict != triage.Relevant {
		t.Fatalf("got %+v, %v", ans, err)
	}
	srv.Judge(func(triagetest.Request) triagetest.Verdict {
		return triagetest.Verdict{Verdict: "spam", Reason: "Scam.", Confidence: 0.99}
	})
	srv.Fail(triagetest.FaultPlainJSON)
	if ans, err := c.Classify(context.Background(), input()); err != nil || ans.Verdict != triage.Spam {
		t.Fatalf("got %+v, %v", ans, err)
	}
}

// Every fault is an error (never a guessed verdict), and through the
// pipeline it becomes a RetryError.
func TestFaults(t *testing.T) {
	cases := []struct {
		fault  triagetest.Fault
		target error // errors.Is target, or nil
		status int   // StatusError status, or 0
	}{
		{triagetest.FaultServerError, nil, 500},
		{triagetest.FaultUnavailable, nil, 503},
		{triagetest.FaultRateLimited, nil, 429},
		{triagetest.FaultHang, context.DeadlineExceeded, 0},
		{triagetest.FaultDropConnection, nil, 0},
		{triagetest.FaultMalformedJSON, llm.ErrBadAnswer, 0},
		{triagetest.FaultBadVerdict, llm.ErrBadAnswer, 0},
		{triagetest.FaultBadConfidence, llm.ErrBadAnswer, 0},
		{triagetest.FaultExtraField, llm.ErrBadAnswer, 0},
		{triagetest.FaultMissingField, llm.ErrBadAnswer, 0},
		{triagetest.FaultProseContent, llm.ErrBadAnswer, 0},
		{triagetest.FaultTruncated, llm.ErrBadAnswer, 0},
		{triagetest.FaultNoChoices, llm.ErrBadAnswer, 0},
		{triagetest.FaultRefusal, llm.ErrRefused, 0},
	}
	for _, c := range cases {
		t.Run(string(c.fault), func(t *testing.T) {
			srv, client := setup(t, llm.Config{Timeout: 300 * time.Millisecond})
			srv.Fail(c.fault)
			start := time.Now()
			ans, err := client.Classify(context.Background(), input())
			if err == nil {
				t.Fatalf("no error, answer %+v", ans)
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("took %s: the per-call timeout did not hold", time.Since(start))
			}
			if c.target != nil && !errors.Is(err, c.target) {
				t.Errorf("error %v is not %v", err, c.target)
			}
			var se *llm.StatusError
			if c.status != 0 && (!errors.As(err, &se) || se.Status != c.status) {
				t.Errorf("error %v, want status %d", err, c.status)
			}
			assertDiscreet(t, err)

			// The same fault through the pipeline: a RetryError, no decision.
			srv.Fail(c.fault)
			p, perr := triage.New(triage.Config{Scout: "s", Model: client, Budget: triage.NewMemoryBudget(nil), DailyTokens: 100_000, Heuristics: []triage.Heuristic{}})
			if perr != nil {
				t.Fatal(perr)
			}
			d, err := p.Triage(context.Background(), triage.Message{ID: "m1", From: triage.Address{Addr: "ann@example.com"}, Subject: "Invoice 42"})
			re, ok := triage.IsRetry(err)
			if !ok || d != (triage.Decision{}) || scouts.ErrorCode(err) != scouts.EUnavailable {
				t.Fatalf("pipeline: %+v, %v", d, err)
			}
			if c.fault == triagetest.FaultRateLimited && re.After != 7*time.Second {
				t.Errorf("Retry-After not passed on: %s", re.After)
			}
		})
	}
}

// assertDiscreet checks that an error shows neither the key nor the mail.
func assertDiscreet(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	for _, secret := range []string{testKey, "SECRET", "Invoice 42", "Please pay", "ann@example.com"} {
		if strings.Contains(msg, secret) {
			t.Errorf("error leaks %q: %s", secret, msg)
		}
	}
}

func TestWrongKeyAndModel(t *testing.T) {
	srv, _ := setup(t, llm.Config{})
	for _, cfg := range []llm.Config{
		{BaseURL: srv.BaseURL(), Model: testModel, APIKey: "sk-wrong-SECRET"},
		{BaseURL: srv.BaseURL(), Model: "no-such-model", APIKey: testKey},
	} {
		c, err := llm.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Classify(context.Background(), input())
		var se *llm.StatusError
		if !errors.As(err, &se) || (se.Status != 401 && se.Status != 404) || se.Code == "" {
			t.Fatalf("got %v", err)
		}
		assertDiscreet(t, err)
	}
}

// Credentials or a query in the base URL never appear in errors.
func TestURLSecretsNotInErrors(t *testing.T) {
	c, err := llm.New(llm.Config{BaseURL: "http://user:SECRET@127.0.0.1:1/v1?key=SECRET", Model: "m", APIKey: testKey, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Classify(context.Background(), input())
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	assertDiscreet(t, err)
}

// Without usage in the answer, Tokens is 0 and the pipeline charges the
// worst case.
func TestNoUsage(t *testing.T) {
	srv, c := setup(t, llm.Config{})
	srv.Fail(triagetest.FaultNoUsage)
	ans, err := c.Classify(context.Background(), input())
	if err != nil || ans.Tokens != 0 {
		t.Fatalf("got %+v, %v", ans, err)
	}
}

// The hard cap holds end to end: real client, fake server, reported usage.
func TestTokenCapEndToEnd(t *testing.T) {
	srv, c := setup(t, llm.Config{})
	budget := triage.NewMemoryBudget(nil)
	cap := 3*c.MaxTokens(input()) + 10
	p, err := triage.New(triage.Config{Scout: "s1", Model: c, Budget: budget, DailyTokens: cap})
	if err != nil {
		t.Fatal(err)
	}
	m := triage.Message{ID: "m", From: triage.Address{Addr: "ann@example.com"}, To: []triage.Address{{Addr: "you@example.org"}},
		Subject: "Invoice 42", Body: "Please pay by Friday."}
	exhausted := 0
	for i := 0; i < 50; i++ {
		d, err := p.Triage(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if d.Path == "default (model budget exhausted)" {
			exhausted++
		} else if d.Path != "model:"+testModel {
			t.Fatalf("path %s", d.Path)
		}
		if budget.Used("s1") > cap {
			t.Fatalf("used %d > cap %d", budget.Used("s1"), cap)
		}
	}
	if exhausted == 0 || len(srv.Requests()) == 0 || len(srv.Requests())+exhausted != 50 {
		t.Fatalf("%d calls, %d exhausted", len(srv.Requests()), exhausted)
	}
	t.Logf("cap %d tokens: %d model calls, %d tokens used, then %d decisions without the model", cap, len(srv.Requests()), budget.Used("s1"), exhausted)
}

func TestNewValidation(t *testing.T) {
	for _, cfg := range []llm.Config{
		{BaseURL: "", Model: "m"},
		{BaseURL: "ftp://x/v1", Model: "m"},
		{BaseURL: "http:///v1", Model: "m"},
		{BaseURL: "http://localhost:11434/v1", Model: " "},
		{BaseURL: "http://localhost:11434/v1", Model: "m", APIKey: "a\nb"},
	} {
		if _, err := llm.New(cfg); scouts.ErrorCode(err) != scouts.EInvalid {
			t.Errorf("New(%+v) = %v", cfg, err)
		}
	}
}

func TestReadKeyFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	if k, err := llm.ReadKeyFile(write("ok", "  sk-abc\n")); err != nil || k != "sk-abc" {
		t.Fatalf("got %q, %v", k, err)
	}
	for name, content := range map[string]string{"empty": " \n", "two": "sk-SECRET\nsk-SECRET2\n", "big": strings.Repeat("SECRET", 1000)} {
		_, err := llm.ReadKeyFile(write(name, content))
		if scouts.ErrorCode(err) != scouts.EInvalid || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := llm.ReadKeyFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file accepted")
	}
}
