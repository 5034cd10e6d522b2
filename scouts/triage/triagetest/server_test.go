package triagetest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The fake refuses what the real API refuses, in the real API's error
// shape, so a client that passes against it is not passing by accident.
func TestServerChecksRequests(t *testing.T) {
	s := New("sk-key", "m1")
	defer s.Close()
	good := `{"model":"m1","messages":[{"role":"user","content":"{}"}],"response_format":{"type":"json_schema","json_schema":{"name":"v","strict":true,"schema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}}}}`
	cases := []struct {
		name, method, path, key, body string
		status                        int
		code                          string
	}{
		{"ok", "POST", "/v1/chat/completions", "sk-key", good, 200, ""},
		{"wrong path", "POST", "/v1/completions", "sk-key", good, 404, "unknown_url"},
		{"GET", "GET", "/v1/chat/completions", "sk-key", "", 405, "method_not_allowed"},
		{"no key", "POST", "/v1/chat/completions", "", good, 401, "invalid_api_key"},
		{"bad json", "POST", "/v1/chat/completions", "sk-key", "{", 400, "invalid_request"},
		{"no model", "POST", "/v1/chat/completions", "sk-key", `{"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request"},
		{"unknown model", "POST", "/v1/chat/completions", "sk-key", strings.Replace(good, `"m1"`, `"m2"`, 1), 404, "model_not_found"},
		{"bad role", "POST", "/v1/chat/completions", "sk-key", `{"model":"m1","messages":[{"role":"bot","content":"x"}]}`, 400, "invalid_request"},
		{"schema without name", "POST", "/v1/chat/completions", "sk-key", strings.Replace(good, `"name":"v",`, "", 1), 400, "invalid_request"},
		{"strict schema with optional field", "POST", "/v1/chat/completions", "sk-key", strings.Replace(good, `"required":["a"]`, `"required":[]`, 1), 400, "invalid_request"},
		{"unknown format", "POST", "/v1/chat/completions", "sk-key", strings.Replace(good, `"type":"json_schema"`, `"type":"xml"`, 1), 400, "invalid_request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, s.srv.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			if c.key != "" {
				req.Header.Set("Authorization", "Bearer "+c.key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			if c.status == 200 {
				var r struct {
					Object  string `json:"object"`
					Choices []struct {
						Message struct {
							Content string `json:"content"`
						} `json:"message"`
						FinishReason string `json:"finish_reason"`
					} `json:"choices"`
					Usage struct {
						Prompt, Completion, Total int
					} `json:"usage"`
				}
				if err := json.Unmarshal(body, &r); err != nil || r.Object != "chat.completion" || len(r.Choices) != 1 || r.Choices[0].FinishReason != "stop" {
					t.Fatalf("response %s", body)
				}
				return
			}
			var e struct {
				Error struct {
					Type string `json:"type"`
					Code string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != c.code || e.Error.Type == "" {
				t.Fatalf("error body %s", body)
			}
		})
	}
}
