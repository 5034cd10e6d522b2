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

// post sends a body to the fake and decodes the answer.
func post(t *testing.T, s *Server, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.BaseURL()+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// A scripted model calls a tool, then answers from the tool's result; the
// server keeps every request raw and pairs tool messages with their calls.
func TestServerScriptsToolCalls(t *testing.T) {
	s := New("sk-key", "m1")
	defer s.Close()
	s.Script(
		Turn{Calls: []Call{{Name: "list_projects"}}},
		Turn{Answer: func(r Request) string {
			got, _ := r.ToolResult("list_projects")
			return `{"seen":` + got + `}`
		}},
	)
	tools := `"tools":[{"type":"function","function":{"name":"list_projects","parameters":{"type":"object","properties":{}}}}],"tool_choice":"auto"`
	status, out := post(t, s, `{"model":"m1","messages":[{"role":"user","content":"hi"}],`+tools+`}`)
	if status != 200 {
		t.Fatalf("status %d: %v", status, out)
	}
	ch := out["choices"].([]any)[0].(map[string]any)
	calls := ch["message"].(map[string]any)["tool_calls"].([]any)
	if ch["finish_reason"] != "tool_calls" || len(calls) != 1 || ch["message"].(map[string]any)["content"] != nil {
		t.Fatalf("first answer %v", ch)
	}
	call := calls[0].(map[string]any)
	id := call["id"].(string)
	if fn := call["function"].(map[string]any); fn["name"] != "list_projects" || fn["arguments"] != "{}" {
		t.Fatalf("call %v", call)
	}
	second := `{"model":"m1","messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"list_projects","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"` + id + `","content":"[1,2]"}],` + tools + `}`
	status, out = post(t, s, second)
	if status != 200 {
		t.Fatalf("status %d: %v", status, out)
	}
	if c := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"]; c != `{"seen":[1,2]}` {
		t.Fatalf("answer %v", c)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || string(reqs[1].Body) != second {
		t.Fatalf("recorded %d requests; the second body is not the one sent", len(reqs))
	}
	res := reqs[1].ToolResults()
	if len(res) != 1 || res[0].Name != "list_projects" || res[0].CallID != id || res[0].Content != "[1,2]" {
		t.Fatalf("tool results %+v", res)
	}
	if n := reqs[1].ToolNames(); len(n) != 1 || n[0] != "list_projects" {
		t.Fatalf("tools %v", n)
	}
}

// Tool calls and tool messages must pair up, and tool_choice needs tools,
// as the real API insists; a script cannot call tools a request forbids.
func TestServerChecksToolMessages(t *testing.T) {
	s := New("sk-key", "m1")
	defer s.Close()
	tools := `"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`
	asst := `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	cases := map[string]string{
		"unanswered call":    `{"model":"m1","messages":[{"role":"user","content":"x"},` + asst + `],` + tools + `}`,
		"orphan tool":        `{"model":"m1","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c9","content":"1"}],` + tools + `}`,
		"choice no tools":    `{"model":"m1","messages":[{"role":"user","content":"x"}],"tool_choice":"auto"}`,
		"bad choice":         `{"model":"m1","messages":[{"role":"user","content":"x"}],` + tools + `,"tool_choice":"always"}`,
		"bad tool name":      `{"model":"m1","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"a b"}}]}`,
		"non-object params":  `{"model":"m1","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"string"}}}]}`,
		"user between pairs": `{"model":"m1","messages":[{"role":"user","content":"x"},` + asst + `,{"role":"user","content":"y"},{"role":"tool","tool_call_id":"c1","content":"1"}],` + tools + `}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			if status, out := post(t, s, body); status != 400 {
				t.Fatalf("status %d: %v", status, out)
			}
		})
	}
	s.Script(Turn{Calls: []Call{{Name: "f"}}})
	status, out := post(t, s, `{"model":"m1","messages":[{"role":"user","content":"x"}],`+tools+`,"tool_choice":"none"}`)
	if status != 500 || !strings.Contains(out["error"].(map[string]any)["message"].(string), "script") {
		t.Fatalf("tool call under tool_choice none: %d %v", status, out)
	}
}
