// Package triagetest provides a fake OpenAI-compatible Chat Completions
// server for tests of the triage model step. It checks requests the way
// the real API does (bearer key, path, method, JSON body, model name,
// response_format), answers in the real response shape with usage figures,
// and can be told to misbehave: server errors, rate limits, hangs,
// malformed bodies, invalid verdicts, refusals, truncated answers, and the
// "plain JSON in the content" replies of servers without structured output.
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
	// Input is the user message decoded as the triage contract's JSON
	// (source_type, scout_name, item_subject, …), nil if it is not JSON.
	Input map[string]string
}

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Server is the fake. Use New, and Close when done.
type Server struct {
	srv    *httptest.Server
	apiKey string
	model  string
	done   chan struct{}

	mu       sync.Mutex
	faults   []Fault
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

func (s *Server) next() (Fault, func(Request) Verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := FaultNone
	if len(s.faults) > 0 {
		f, s.faults = s.faults[0], s.faults[1:]
	}
	return f, s.judge
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
	fault, judge := s.next()
	s.respond(w, r, req, fault, judge)
}
