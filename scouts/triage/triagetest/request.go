package triagetest

import (
	"encoding/json"
	"fmt"
	"net/http"
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
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(&body); err != nil {
		return Request{}, "We could not parse the JSON body of your request."
	}
	req := Request{Model: body.Model, Messages: body.Messages, MaxTokens: body.MaxTokens,
		Temperature: body.Temperature, ResponseFormat: body.ResponseFormat}
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
	for _, m := range body.Messages {
		switch m.Role {
		case "system", "user", "assistant", "developer":
		default:
			return req, fmt.Sprintf("invalid role %q", m.Role)
		}
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
