// Package llm is the model step of triage: a client for any server that
// speaks OpenAI's Chat Completions API (OpenAI, Ollama, vLLM, llama.cpp,
// LM Studio, …), asking for a structured verdict on one mail (Classify),
// and, on the desktop, what an item should become (Categorise: tool calls
// over the person's local data, then a structured proposal).
//
// The client sends only what the triage contract allows (source type,
// scout name and purpose, subject, sender, body cut to 2,000 characters),
// asks for JSON matching a schema (response_format json_schema), accepts
// plain JSON in the message content from servers that ignore the schema,
// and validates the answer strictly: anything else is an error, never a
// guess. Errors carry no secrets and no mail content: not the API key, not
// the URL's query or credentials, not the server's error text (which may
// echo the prompt), only status codes and error codes.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Defaults.
const (
	DefaultTimeout             = 30 * time.Second
	DefaultMaxCompletionTokens = 256
	maxResponseBytes           = 1 << 20
	maxKeyFileBytes            = 4096
)

// Config configures a client.
type Config struct {
	// BaseURL is the API root, to which "/chat/completions" is appended:
	// "https://api.openai.com/v1", "http://localhost:11434/v1".
	BaseURL string
	Model   string
	// APIKey is sent as a bearer token; empty for local servers that need
	// none. Read it from a file with ReadKeyFile, never from a flag.
	APIKey string
	// APIKeyFunc, used when APIKey is empty, reads the key at each request
	// (from the OS keyring, so that a key set or changed there applies at
	// once); "" sends none.
	APIKeyFunc func(ctx context.Context) (string, error)
	// Timeout bounds each call, connection included (default 30 s).
	Timeout time.Duration
	// MaxCompletionTokens caps the answer (default 256; a verdict needs
	// about 60).
	MaxCompletionTokens int
	// HTTPClient is optional (tests, proxies). Its own Timeout, if any,
	// also applies.
	HTTPClient *http.Client
}

// Client is a triage.Model over HTTP. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string // full URL of chat/completions
	where    string // the endpoint as errors show it: no credentials, no query
	http     *http.Client
}

// New checks the configuration and returns a client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, scouts.Errorf(scouts.EInvalid, "model URL must be an http or https URL like https://api.openai.com/v1")
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, scouts.Errorf(scouts.EInvalid, "model name is required")
	}
	if strings.ContainsAny(cfg.APIKey, "\r\n") {
		return nil, scouts.Errorf(scouts.EInvalid, "model API key must be a single line")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxCompletionTokens <= 0 {
		cfg.MaxCompletionTokens = DefaultMaxCompletionTokens
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
		}}
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/chat/completions"
	where := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return &Client{cfg: cfg, endpoint: u.String(), where: where.String(), http: hc}, nil
}

// ReadKeyFile reads an API key from a file: one line, surrounding space
// removed. Errors name the file, never its content.
func ReadKeyFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", scouts.Errorf(scouts.EInvalid, "model API key file: %v", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	if err != nil {
		return "", scouts.Errorf(scouts.EInvalid, "model API key file %s: %v", path, err)
	}
	key := strings.TrimSpace(string(b))
	switch {
	case len(b) > maxKeyFileBytes:
		return "", scouts.Errorf(scouts.EInvalid, "model API key file %s is larger than %d bytes; is it the right file?", path, maxKeyFileBytes)
	case key == "":
		return "", scouts.Errorf(scouts.EInvalid, "model API key file %s is empty", path)
	case strings.ContainsAny(key, "\r\n"):
		return "", scouts.Errorf(scouts.EInvalid, "model API key file %s has more than one line", path)
	}
	return key, nil
}

// Name is the model's name, for decision paths.
func (c *Client) Name() string { return c.cfg.Model }

// MaxTokens bounds the tokens of one call: every byte of the prompt counts
// as a token (byte-level tokenisers never produce more tokens than bytes),
// plus the chat template's overhead and the completion cap.
func (c *Client) MaxTokens(in triage.ModelInput) int {
	req := c.verdictRequest(in)
	n := c.cfg.MaxCompletionTokens + len(schemaJSON)
	for _, m := range req.Messages {
		n += len(*m.Content) + perMessageOverhead
	}
	return n
}

// perMessageOverhead covers the role markers a chat template adds.
const perMessageOverhead = 16

// Classify asks the model for a verdict. Every failure is an error; the
// answer's Tokens is set whenever the server reported usage.
func (c *Client) Classify(ctx context.Context, in triage.ModelInput) (triage.ModelAnswer, error) {
	body, err := json.Marshal(c.verdictRequest(in))
	if err != nil {
		return triage.ModelAnswer{}, c.fail(err)
	}
	raw, err := c.post(ctx, body)
	if err != nil {
		return triage.ModelAnswer{}, c.fail(err)
	}
	ans, err := parseResponse(raw)
	if err != nil {
		return ans, c.fail(err) // ans.Tokens may be set: the call was billed
	}
	return ans, nil
}

// post sends one request body and returns the body of a 200 answer. Its
// errors carry no URL and no server message.
func (c *Client) post(ctx context.Context, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	key := c.cfg.APIKey
	if key == "" && c.cfg.APIKeyFunc != nil {
		if key, err = c.cfg.APIKeyFunc(ctx); err != nil {
			return nil, fmt.Errorf("the model's API key could not be read: %w", err)
		}
		if strings.ContainsAny(key, "\r\n") {
			return nil, errors.New("the model's API key is not a single line")
		}
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, transportError(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the response: %w", transportError(err))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(resp, raw)
	}
	if len(raw) > maxResponseBytes {
		return nil, errors.New("response larger than 1 MiB")
	}
	return raw, nil
}

// fail wraps an error with the model and endpoint, nothing more.
func (c *Client) fail(err error) error {
	return &Error{Model: c.cfg.Model, Endpoint: c.where, Err: err}
}

// transportError drops the URL that net/http puts in its errors (it may
// hold credentials or a query) and keeps the cause.
func transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
