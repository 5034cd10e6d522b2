package triagetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
)

// decodeRequest reads and checks a request body as the real API does;
// problem says what is wrong, "" when nothing is.
func decodeRequest(r *http.Request) (Request, string) {
	var body struct {
		Model          string          `json:"model"`
		Messages       []Message       `json:"messages"`
		MaxTokens      int             `json:"max_tokens"`
		Temperature    *float64        `json:"temperature"`
		ResponseFormat json.RawMessage `json:"response_format"`
		Stream         bool            `json:"stream"`
		Tools          []Tool          `json:"tools"`
		ToolChoice     json.RawMessage `json:"tool_choice"`
	}
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, 1<<20))
	if err != nil || json.Unmarshal(raw, &body) != nil {
		return Request{Body: raw}, "We could not parse the JSON body of your request."
	}
	req := Request{Model: body.Model, Messages: body.Messages, MaxTokens: body.MaxTokens,
		Temperature: body.Temperature, ResponseFormat: body.ResponseFormat,
		Tools: body.Tools, ToolChoice: body.ToolChoice, Body: raw}
	for _, m := range body.Messages {
		if m.Role == "user" {
			var in map[string]string
			if json.Unmarshal([]byte(m.Content), &in) == nil {
				req.Input = in
			}
		}
	}
	switch {
	case body.Model == "":
		return req, "you must provide a model parameter"
	case len(body.Messages) == 0:
		return req, "'messages' must contain at least one message"
	case body.Stream:
		return req, "this fake does not stream"
	case body.MaxTokens < 0:
		return req, "max_tokens must be positive"
	case body.Temperature != nil && (*body.Temperature < 0 || *body.Temperature > 2):
		return req, "temperature must be between 0 and 2"
	}
	if p := checkMessages(body.Messages); p != "" {
		return req, p
	}
	if p := checkTools(body.Tools, body.ToolChoice); p != "" {
		return req, p
	}
	if len(body.ResponseFormat) > 0 {
		if p := checkResponseFormat(body.ResponseFormat); p != "" {
			return req, p
		}
	}
	return req, ""
}

func checkResponseFormat(raw json.RawMessage) string {
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Strict bool            `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return "response_format must be an object"
	}
	switch rf.Type {
	case "text", "json_object":
		return ""
	case "json_schema":
	default:
		return fmt.Sprintf("invalid response_format type %q", rf.Type)
	}
	if rf.JSONSchema == nil || rf.JSONSchema.Name == "" || len(rf.JSONSchema.Schema) == 0 {
		return "response_format json_schema needs a name and a schema"
	}
	var schema struct {
		Type                 string          `json:"type"`
		Required             []string        `json:"required"`
		Properties           map[string]any  `json:"properties"`
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	if err := json.Unmarshal(rf.JSONSchema.Schema, &schema); err != nil || schema.Type != "object" {
		return "the schema must be a JSON object schema"
	}
	if rf.JSONSchema.Strict {
		// Strict mode: every property required, additionalProperties false.
		if string(schema.AdditionalProperties) != "false" || len(schema.Required) != len(schema.Properties) {
			return "strict schemas need additionalProperties false and every property required"
		}
	}
	return ""
}

// checkMessages checks roles and the pairing of tool calls and tool
// messages as the real API does: every call of an assistant message is
// answered by a tool message right after it, and a tool message answers a
// call of the assistant message before it.
func checkMessages(msgs []Message) string {
	open := map[string]bool{} // calls of the last assistant message not yet answered
	for _, m := range msgs {
		if m.Role != "tool" && len(open) > 0 {
			return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'."
		}
		switch m.Role {
		case "system", "user", "developer":
		case "assistant":
			for _, c := range m.ToolCalls {
				if c.ID == "" || c.Type != "function" || c.Function.Name == "" || !json.Valid([]byte(c.Function.Arguments)) {
					return "assistant tool_calls need an id, type function, a name and JSON arguments"
				}
				open[c.ID] = true
			}
		case "tool":
			if !open[m.ToolCallID] {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
			}
			delete(open, m.ToolCallID)
		default:
			return fmt.Sprintf("invalid role %q", m.Role)
		}
	}
	if len(open) > 0 {
		return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'."
	}
	return ""
}

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkTools checks the function tools and tool_choice.
func checkTools(tools []Tool, choice json.RawMessage) string {
	names := map[string]bool{}
	for _, t := range tools {
		if t.Type != "function" {
			return fmt.Sprintf("invalid tool type %q", t.Type)
		}
		if !toolName.MatchString(t.Function.Name) {
			return fmt.Sprintf("invalid function name %q: letters, digits, underscores and dashes, at most 64", t.Function.Name)
		}
		if names[t.Function.Name] {
			return fmt.Sprintf("duplicate function name %q", t.Function.Name)
		}
		names[t.Function.Name] = true
		if len(t.Function.Parameters) > 0 {
			var schema struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(t.Function.Parameters, &schema) != nil || schema.Type != "object" {
				return fmt.Sprintf("the parameters of %q must be a JSON object schema", t.Function.Name)
			}
		}
	}
	if len(choice) == 0 || string(choice) == "null" {
		return ""
	}
	if len(tools) == 0 {
		return "tool_choice is only allowed when 'tools' are specified"
	}
	var mode string
	if json.Unmarshal(choice, &mode) == nil {
		switch mode {
		case "none", "auto", "required":
			return ""
		}
		return fmt.Sprintf("invalid tool_choice %q", mode)
	}
	var named struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(choice, &named) != nil || named.Type != "function" || !names[named.Function.Name] {
		return "tool_choice must be none, auto, required or a function that the tools offer"
	}
	return ""
}
