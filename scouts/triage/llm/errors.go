package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error is a failed model call. Its text names the model, the endpoint
// (without credentials or query) and the cause.
type Error struct {
	Model    string
	Endpoint string
	Err      error
}

func (e *Error) Error() string {
	return fmt.Sprintf("model %s at %s: %v", e.Model, e.Endpoint, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// StatusError is a non-200 answer. Type and Code are OpenAI's error type
// and code when the server gave them; the server's message is left out on
// purpose (it can quote the request, that is, the mail).
type StatusError struct {
	Status int
	Type   string
	Code   string
	After  time.Duration // Retry-After, 0 when absent
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	if e.Type != "" || e.Code != "" {
		s += fmt.Sprintf(" (type %q, code %q)", e.Type, e.Code)
	}
	if e.After > 0 {
		s += fmt.Sprintf(", retry after %s", e.After)
	}
	return s
}

// RetryAfter is the server's hint; the triage pipeline passes it on in its
// RetryError.
func (e *StatusError) RetryAfter() time.Duration { return e.After }

// ErrRefused means the model declined to answer (a refusal, or a content
// filter). Retrying later is still what the pipeline does: the caller bounds
// the attempts.
var ErrRefused = errors.New("the model refused to answer")

// ErrBadAnswer means the answer broke the contract (not JSON, wrong fields,
// verdict or confidence out of range, cut short).
var ErrBadAnswer = errors.New("the model's answer is not a valid verdict")

func statusError(resp *http.Response, body []byte) error {
	e := &StatusError{Status: resp.StatusCode, After: parseRetryAfter(resp.Header.Get("Retry-After"))}
	var env struct {
		Error struct {
			Type string          `json:"type"`
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil {
		e.Type = short(env.Error.Type)
		var code string
		if json.Unmarshal(env.Error.Code, &code) == nil {
			e.Code = short(code)
		} else if len(env.Error.Code) > 0 && string(env.Error.Code) != "null" {
			e.Code = short(string(env.Error.Code))
		}
	}
	return e
}

// short keeps identifier-like error codes and drops anything else.
func short(s string) string {
	if len(s) > 64 || strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) >= 0 {
		return ""
	}
	return s
}

func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
		return time.Duration(min(secs, 24*3600)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return min(d, 24*time.Hour)
		}
	}
	return 0
}
