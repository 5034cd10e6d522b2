// Package triagetest provides a fake OpenAI-compatible Chat Completions
// server for tests of the triage model step. It checks requests the way
// the real API does (bearer key, path, method, JSON body, model name,
// response_format), answers in the real response shape with usage figures,
// and can be told to misbehave: server errors, rate limits, hangs,
// malformed bodies, invalid verdicts, refusals, truncated answers, and the
// "plain JSON in the content" replies of servers without structured output.
//
// It also speaks tool calling: Script queues answers that call tools
// (finish_reason "tool_calls") and then answer, and every request is
// recorded raw, so tests can check the tool results a client sent back and
// that nothing secret travelled in a body.
package triagetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Fault is one way for the server to misbehave on one request.
type Fault string

const (
	// FaultNone answers normally.
	FaultNone Fault = ""
	// FaultServerError answers 500 with an OpenAI error body.
	FaultServerError Fault = "server-error"
	// FaultUnavailable answers 503.
	FaultUnavailable Fault = "unavailable"
	// FaultRateLimited answers 429 with Retry-After: 7.
	FaultRateLimited Fault = "rate-limited"
	// FaultHang never answers; the client's timeout must end the call.
	FaultHang Fault = "hang"
	// FaultMalformedJSON answers 200 with a body that is not JSON.
	FaultMalformedJSON Fault = "malformed-json"
	// FaultBadVerdict answers 200 with a verdict outside the enum.
	FaultBadVerdict Fault = "bad-verdict"
	// FaultBadConfidence answers 200 with a confidence above 1.
	FaultBadConfidence Fault = "bad-confidence"
	// FaultExtraField answers 200 with a field the schema forbids.
	FaultExtraField Fault = "extra-field"
	// FaultMissingField answers 200 without the reason.
	FaultMissingField Fault = "missing-field"
	// FaultProseContent answers 200 with prose instead of JSON.
	FaultProseContent Fault = "prose-content"
	// FaultRefusal answers 200 with a refusal and no content.
	FaultRefusal Fault = "refusal"
	// FaultTruncated answers 200 with half a JSON object and
	// finish_reason "length".
	FaultTruncated Fault = "truncated"
	// FaultNoChoices answers 200 with an empty choices list.
	FaultNoChoices Fault = "no-choices"
	// FaultPlainJSON behaves like a server without structured output: the
	// verdict comes as JSON in a Markdown fence, response_format ignored.
	FaultPlainJSON Fault = "plain-json"
	// FaultNoUsage answers normally but without the usage object.
	FaultNoUsage Fault = "no-usage"
	// FaultDropConnection closes the connection without an answer.
	FaultDropConnection Fault = "drop-connection"
)

// Verdict is what the fake model answers.
type Verdict struct {
	Verdict    string  `json:"verdict"`
	Reason     string  `json:"reason"`
	Confidence float64 `json:"confidence"`
}

// Request is a request the server received, decoded.
type Request struct {
	Authorization  string
	Model          string
	Messages       []Message
	MaxTokens      int
	Temperature    *float64
	ResponseFormat json.RawMessage
	// Tools are the function tools offered; ToolChoice is the raw
	// tool_choice ("auto", "none", …), nil when absent.
	Tools      []Tool
	ToolChoice json.RawMessage
	// Body is the request body as received, for checks that no secret
	// (an API key, a token) travels in it.
	Body []byte
	// Input is the user message decoded as the triage contract's JSON
	// (source_type, scout_name, item_subject, …), nil if it is not JSON.
	Input map[string]string
}

// Message is one chat message of a request. An assistant message that
// called tools has ToolCalls (and usually no content); a "tool" message
// answers one call, named by ToolCallID.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a model's call of a function tool, as the API carries it.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is a called function's name and its arguments, a JSON text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a function tool a request offers.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// ToolResult is a tool message of a request with the call it answers.
type ToolResult struct {
	CallID    string
	Name      string // the function called
	Arguments string
	Content   string // what the client answered
}

// ToolResults pairs each tool message with the call it answers, in order.
func (r Request) ToolResults() []ToolResult {
	calls := map[string]FunctionCall{}
	var out []ToolResult
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			calls[c.ID] = c.Function
		}
		if m.Role == "tool" {
			c := calls[m.ToolCallID]
			out = append(out, ToolResult{CallID: m.ToolCallID, Name: c.Name, Arguments: c.Arguments, Content: m.Content})
		}
	}
	return out
}

// ToolResult returns the content of the last answer to a call of the
// named tool.
func (r Request) ToolResult(name string) (string, bool) {
	res := r.ToolResults()
	for i := len(res) - 1; i >= 0; i-- {
		if res[i].Name == name {
			return res[i].Content, true
		}
	}
	return "", false
}

// ToolNames lists the names of the tools offered.
func (r Request) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// Turn is one scripted answer of the fake model: it calls tools, or it
// answers with content (Content, or what Answer computes from the
// request, for example from a tool's result).
type Turn struct {
	Calls   []Call
	Content string
	Answer  func(Request) string
}

// Call is a scripted tool call: a function name and its JSON arguments
// ("{}" when empty).
type Call struct {
	Name      string
	Arguments string
}

// Server is the fake. Use New, and Close when done.
type Server struct {
	srv    *httptest.Server
	apiKey string
	model  string
	done   chan struct{}

	mu       sync.Mutex
	faults   []Fault
	turns    []Turn
	calls    int // tool call ids handed out
	judge    func(Request) Verdict
	requests []Request
}

// New starts a server that accepts apiKey (empty: no key required) and
// serves model.
func New(apiKey, model string) *Server {
	s := &Server{apiKey: apiKey, model: model, done: make(chan struct{}), judge: DefaultJudge}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// BaseURL is the API root to give the client ("http://127.0.0.1:port/v1").
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// Close releases hung requests and stops the server.
func (s *Server) Close() {
	close(s.done)
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Fail queues faults, one per coming request, in order; requests beyond
// the queue are answered normally.
func (s *Server) Fail(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// Script queues answers, one per coming request that no fault ends, in
// order; requests beyond the script are judged as verdicts. A turn that
// calls tools is a script error (answered 500) when the request offers no
// tools or says tool_choice "none", since a real model could not call any.
func (s *Server) Script(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Judge replaces the fake model's judgement.
func (s *Server) Judge(f func(Request) Verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.judge = f
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// DefaultJudge calls spam what mentions a few classic spam words in the
// subject or body, and everything else relevant.
func DefaultJudge(r Request) Verdict {
	text := strings.ToLower(r.Input["item_subject"] + " " + r.Input["item_body_truncated_2k"])
	for _, w := range []string{"viagra", "lottery", "winner", "free money", "wire transfer"} {
		if strings.Contains(text, w) {
			return Verdict{Verdict: "spam", Reason: "Looks like an unsolicited offer.", Confidence: 0.92}
		}
	}
	return Verdict{Verdict: "relevant", Reason: "Looks like personal correspondence.", Confidence: 0.8}
}

// next takes the coming request's fault and, unless the fault ends the
// request before any answer is made, its scripted turn.
func (s *Server) next() (Fault, *Turn, func(Request) Verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := FaultNone
	if len(s.faults) > 0 {
		f, s.faults = s.faults[0], s.faults[1:]
	}
	var t *Turn
	if !f.endsRequest() && len(s.turns) > 0 {
		t = &s.turns[0]
		s.turns = s.turns[1:]
	}
	return f, t, s.judge
}

// callID hands out the next tool call id.
func (s *Server) callID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return fmt.Sprintf("call_fake%d", s.calls)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		apiError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "Unknown request URL: "+r.URL.Path)
		return
	}
	if r.Method != http.MethodPost {
		apiError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "Use POST.")
		return
	}
	auth := r.Header.Get("Authorization")
	if s.apiKey != "" && auth != "Bearer "+s.apiKey {
		apiError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_content_type", "Content-Type must be application/json.")
		return
	}
	req, problem := decodeRequest(r)
	req.Authorization = auth
	s.record(req)
	if problem != "" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_request", problem)
		return
	}
	if req.Model != s.model {
		apiError(w, http.StatusNotFound, "invalid_request_error", "model_not_found", fmt.Sprintf("The model %q does not exist.", req.Model))
		return
	}
	fault, turn, judge := s.next()
	s.respond(w, r, req, fault, turn, judge)
}
