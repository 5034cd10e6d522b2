package triagetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// endsRequest reports a fault that ends the request before any answer is
// made: a scripted turn waits for the next request.
func (f Fault) endsRequest() bool {
	switch f {
	case FaultServerError, FaultUnavailable, FaultRateLimited, FaultHang,
		FaultDropConnection, FaultMalformedJSON, FaultNoChoices:
		return true
	}
	return false
}

// respond answers a checked request, misbehaving as the fault says. The
// 500 answer quotes the prompt, as real servers sometimes do, so that tests
// can check that clients never repeat a server's message.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, req Request, fault Fault, turn *Turn, judge func(Request) Verdict) {
	switch fault {
	case FaultServerError:
		apiError(w, http.StatusInternalServerError, "server_error", "", "The server had an error while processing your request. Your prompt: "+req.Input["item_subject"])
		return
	case FaultUnavailable:
		apiError(w, http.StatusServiceUnavailable, "server_error", "overloaded", "The engine is currently overloaded.")
		return
	case FaultRateLimited:
		w.Header().Set("Retry-After", "7")
		apiError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached.")
		return
	case FaultHang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		case <-time.After(time.Minute):
		}
		return
	case FaultDropConnection:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case FaultMalformedJSON:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": "chatcmpl-x", "choices": [ {"message": `)
		return
	case FaultNoChoices:
		writeCompletion(w, req, nil, "stop", true)
		return
	}
	if turn != nil && len(turn.Calls) > 0 {
		if !req.mayCallTools() {
			apiError(w, http.StatusInternalServerError, "server_error", "fake_script",
				"fake: the script calls tools but the request offers none or says tool_choice none")
			return
		}
		c := &choice{}
		for _, call := range turn.Calls {
			args := call.Arguments
			if args == "" {
				args = "{}"
			}
			c.calls = append(c.calls, ToolCall{ID: s.callID(), Type: "function", Function: FunctionCall{Name: call.Name, Arguments: args}})
		}
		writeCompletion(w, req, c, "tool_calls", fault != FaultNoUsage)
		return
	}
	var content string
	switch {
	case turn != nil && turn.Answer != nil:
		content = turn.Answer(req)
	case turn != nil:
		content = turn.Content
	default:
		verdict, _ := json.Marshal(judge(req))
		content = string(verdict)
	}
	finish := "stop"
	var refusal *string
	switch fault {
	case FaultBadVerdict:
		content = `{"verdict": "maybe", "reason": "Unsure.", "confidence": 0.5}`
	case FaultBadConfidence:
		content = `{"verdict": "spam", "reason": "Scam.", "confidence": 1.7}`
	case FaultExtraField:
		content = `{"verdict": "spam", "reason": "Scam.", "confidence": 0.9, "category": "phishing"}`
	case FaultMissingField:
		content = `{"verdict": "spam", "confidence": 0.9}`
	case FaultProseContent:
		content = "I think this message is probably fine."
	case FaultRefusal:
		text := "I'm sorry, I can't help with that."
		refusal = &text
		content = ""
	case FaultTruncated:
		content = content[:len(content)/2]
		finish = "length"
	case FaultPlainJSON:
		content = "```json\n" + content + "\n```"
	}
	writeCompletion(w, req, &choice{content: content, refusal: refusal}, finish, fault != FaultNoUsage)
}

// mayCallTools reports whether a model could call a tool in answer to the
// request: tools are offered and tool_choice is not "none".
func (r Request) mayCallTools() bool {
	if len(r.Tools) == 0 {
		return false
	}
	var choice string
	return json.Unmarshal(r.ToolChoice, &choice) != nil || choice != "none"
}

type choice struct {
	content string
	refusal *string
	calls   []ToolCall
}

func writeCompletion(w http.ResponseWriter, req Request, c *choice, finish string, withUsage bool) {
	prompt := 0
	for _, m := range req.Messages {
		prompt += tokens(m.Content) + 4
		for _, tc := range m.ToolCalls {
			prompt += tokens(tc.Function.Name + tc.Function.Arguments)
		}
	}
	type msg struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		Refusal   *string    `json:"refusal"`
		ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	}
	type ch struct {
		Index        int     `json:"index"`
		Message      msg     `json:"message"`
		Logprobs     *string `json:"logprobs"`
		FinishReason string  `json:"finish_reason"`
	}
	choices := []ch{}
	completion := 0
	if c != nil {
		m := msg{Role: "assistant", Refusal: c.refusal, ToolCalls: c.calls}
		if c.refusal == nil && c.calls == nil {
			m.Content = &c.content
		}
		choices = append(choices, ch{Message: m, FinishReason: finish})
		completion = tokens(c.content)
		for _, tc := range c.calls {
			completion += tokens(tc.Function.Name + tc.Function.Arguments)
		}
	}
	resp := map[string]any{
		"id":                 "chatcmpl-fake",
		"object":             "chat.completion",
		"created":            time.Now().Unix(),
		"model":              req.Model,
		"choices":            choices,
		"system_fingerprint": "fp_fake",
	}
	if withUsage {
		resp["usage"] = map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// tokens approximates a tokenizer: one token per four bytes, at least one.
func tokens(s string) int { return len(s)/4 + 1 }

func apiError(w http.ResponseWriter, status int, typ, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var c any
	if code != "" {
		c = code
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": c}})
}
