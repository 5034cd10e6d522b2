package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The one wire layer of OpenAI's Chat Completions API: what verdicts,
// categorisations and drafts send and read. Each asks for its own answer
// and reads the content its own way; the envelope is the same.

// request is the subset of a Chat Completions request the client uses.
type request struct {
	Model          string         `json:"model"`
	Messages       []message      `json:"messages"`
	Temperature    float64        `json:"temperature"`
	MaxTokens      int            `json:"max_tokens"`
	Tools          []toolDef      `json:"tools,omitempty"`
	ToolChoice     string         `json:"tool_choice,omitempty"`
	ResponseFormat responseFormat `json:"response_format"`
	Stream         bool           `json:"stream"`
}

// message is a chat message, which may carry tool calls (assistant) or
// answer one (role "tool"). Content is null in an assistant message that
// only calls tools, as the API writes it.
type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

func text(s string) *string { return &s }

type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type toolDef struct {
	Type     string      `json:"type"`
	Function toolFuncDef `json:"function"`
}

type toolFuncDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// response is the subset of a Chat Completions response the client reads.
type response struct {
	Choices []struct {
		Message struct {
			Content   *string    `json:"content"`
			Refusal   *string    `json:"refusal"`
			ToolCalls []toolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// reply is the first choice of an answer: tool calls, or content.
type reply struct {
	calls   []toolCall
	content *string // nil when the message had none
	tokens  int     // usage reported, 0 when none
}

// parseReply reads a 200 response's first choice. A refusal (or the
// content filter) is ErrRefused; an answer that is not JSON, has no
// choice or was cut short wraps bad, the caller's error for a broken
// answer. tokens is set whenever usage was reported, error or not.
func parseReply(raw []byte, bad error) (reply, error) {
	var resp response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return reply{}, fmt.Errorf("%w: the response is not JSON", bad)
	}
	var r reply
	if resp.Usage != nil && resp.Usage.TotalTokens > 0 {
		r.tokens = resp.Usage.TotalTokens
	}
	if len(resp.Choices) == 0 {
		return r, fmt.Errorf("%w: no choices", bad)
	}
	ch := resp.Choices[0]
	if ch.Message.Refusal != nil && strings.TrimSpace(*ch.Message.Refusal) != "" {
		return r, ErrRefused
	}
	switch ch.FinishReason {
	case "content_filter":
		return r, fmt.Errorf("%w (content filter)", ErrRefused)
	case "length":
		return r, fmt.Errorf("%w: cut short (finish_reason length)", bad)
	}
	r.calls, r.content = ch.Message.ToolCalls, ch.Message.Content
	return r, nil
}

// stripFence removes a ```json … ``` fence around the whole content.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	inner := s[3 : len(s)-3]
	if i := strings.IndexByte(inner, '\n'); i >= 0 && !bytes.ContainsAny([]byte(inner[:i]), "{") {
		inner = inner[i+1:] // the info string: "json"
	}
	return strings.TrimSpace(inner)
}
