// Package localclient is the Go client of the agent's local API, used by
// the CLI, the tray, the window and the tests. It speaks the same
// /api/v1 endpoints as the browser, over the agent's Unix socket or its
// loopback TCP port.
package localclient

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
	"strings"
	"syscall"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Client talks to one agent.
type Client struct {
	base   string // e.g. http://127.0.0.1:4000 or http://agent (socket)
	token  string
	hc     *http.Client
	socket string
	// ClientName is sent as X-Scouts-Client so the audit trail says who
	// decided (cli, window, tray).
	ClientName string
	// WriteFile asks, on every change, that a change to a scout a
	// definitions file manages be written to that file too
	// (?write_file=true); without it the agent refuses such changes.
	WriteFile bool
}

// NewSocket returns a client for the agent listening on the Unix socket at
// path.
func NewSocket(path string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}
	// The host is a placeholder: the dialer ignores it.
	return &Client{base: "http://scouts-agent", hc: &http.Client{Transport: tr}, socket: path}
}

// NewTCP returns a client for the agent at baseURL (http://127.0.0.1:PORT)
// with the bearer token from the data directory's local-api.token.
func NewTCP(baseURL, token string) *Client {
	return &Client{base: strings.TrimSuffix(baseURL, "/"), token: token, hc: &http.Client{}}
}

// Error is an error answer from the agent.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// ErrNoAgent is returned when no agent answers: it is not running, or
// runs with another data directory.
var ErrNoAgent = errors.New("no Scouts agent is running")

func (c *Client) newRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	if c.WriteFile && method != http.MethodGet {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		path += sep + "write_file=true"
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.ClientName != "" {
		req.Header.Set("X-Scouts-Client", c.ClientName)
	}
	return req, nil
}

func (c *Client) do(req *http.Request) (*http.Response, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		if isNoAgent(err) {
			where := c.base
			if c.socket != "" {
				where = c.socket
			}
			return nil, fmt.Errorf("%w (nothing answers at %s); start it with: scouts agent", ErrNoAgent, where)
		}
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		var e apitype.Error
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(b))
			if e.Error == "" {
				e.Error = resp.Status
			}
		}
		return nil, &Error{Status: resp.StatusCode, Code: e.Code, Message: e.Error}
	}
	return resp, nil
}

func isNoAgent(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// call sends a request and decodes the JSON answer into out (if non-nil).
func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	req, err := c.newRequest(ctx, method, path, body)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusAccepted {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("localclient: decode %s %s: %w", method, path, err)
	}
	return nil
}

// Status returns the agent's status.
func (c *Client) Status(ctx context.Context) (apitype.Status, error) {
	var s apitype.Status
	return s, c.call(ctx, "GET", "/api/v1/status", nil, &s)
}

// Scouts lists the scouts.
func (c *Client) Scouts(ctx context.Context) ([]apitype.Scout, error) {
	var out []apitype.Scout
	return out, c.call(ctx, "GET", "/api/v1/scouts", nil, &out)
}

// Scout returns one scout.
func (c *Client) Scout(ctx context.Context, id string) (apitype.Scout, error) {
	var out apitype.Scout
	return out, c.call(ctx, "GET", "/api/v1/scouts/"+url.PathEscape(id), nil, &out)
}

// CreateScout creates a scout.
func (c *Client) CreateScout(ctx context.Context, in apitype.CreateScout) (apitype.Scout, error) {
	var out apitype.Scout
	return out, c.call(ctx, "POST", "/api/v1/scouts", in, &out)
}

// PatchScout changes a scout.
func (c *Client) PatchScout(ctx context.Context, id string, p apitype.PatchScout) (apitype.Scout, error) {
	var out apitype.Scout
	return out, c.call(ctx, "PATCH", "/api/v1/scouts/"+url.PathEscape(id), p, &out)
}

// DeleteScout deletes a scout.
func (c *Client) DeleteScout(ctx context.Context, id string) error {
	return c.call(ctx, "DELETE", "/api/v1/scouts/"+url.PathEscape(id), nil, nil)
}

// RunScout asks a scout to look for new items now.
func (c *Client) RunScout(ctx context.Context, id string) error {
	return c.call(ctx, "POST", "/api/v1/scouts/"+url.PathEscape(id)+"/run", nil, nil)
}

// SuggestionQuery filters Suggestions.
type SuggestionQuery struct {
	Status  string // pending (default ""= all), approved, rejected, expired
	ScoutID string
	TraceID string
	// Lane is inbox, screened or spam ("": every lane).
	Lane string
	// Order is oldest (default), newest, or likely: the cards the person
	// most likely approves first.
	Order string
	Limit int
}

// Suggestions lists suggestions.
func (c *Client) Suggestions(ctx context.Context, q SuggestionQuery) ([]apitype.Suggestion, error) {
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	if q.ScoutID != "" {
		v.Set("scout_id", q.ScoutID)
	}
	if q.TraceID != "" {
		v.Set("trace_id", q.TraceID)
	}
	if q.Lane != "" {
		v.Set("lane", q.Lane)
	}
	if q.Order != "" {
		v.Set("order", q.Order)
	}
	if q.Limit > 0 {
		v.Set("limit", fmt.Sprint(q.Limit))
	}
	var out []apitype.Suggestion
	return out, c.call(ctx, "GET", "/api/v1/suggestions?"+v.Encode(), nil, &out)
}

// Suggestion returns one suggestion.
func (c *Client) Suggestion(ctx context.Context, id string) (apitype.Suggestion, error) {
	var out apitype.Suggestion
	return out, c.call(ctx, "GET", "/api/v1/suggestions/"+url.PathEscape(id), nil, &out)
}

// Approve approves a suggestion and returns the entity it became.
func (c *Client) Approve(ctx context.Context, id string, a apitype.Approve) (apitype.Entity, error) {
	var out apitype.Entity
	return out, c.call(ctx, "POST", "/api/v1/suggestions/"+url.PathEscape(id)+"/approve", a, &out)
}

// Reject rejects a suggestion.
func (c *Client) Reject(ctx context.Context, id string) (apitype.Suggestion, error) {
	var out apitype.Suggestion
	return out, c.call(ctx, "POST", "/api/v1/suggestions/"+url.PathEscape(id)+"/reject", struct{}{}, &out)
}

// MarkSpam rejects a suggestion as spam: it goes to the Spam lane and
// teaches the scout's learner (undo takes it back within the undo window).
func (c *Client) MarkSpam(ctx context.Context, id string) (apitype.Suggestion, error) {
	return c.suggestionAction(ctx, id, "spam")
}

// BringBack moves a pending suggestion from Screened or Spam to the inbox
// and teaches the learner that it was wanted.
func (c *Client) BringBack(ctx context.Context, id string) (apitype.Suggestion, error) {
	return c.suggestionAction(ctx, id, "bring-back")
}

// Screen moves a pending suggestion from the inbox to the Screened lane.
func (c *Client) Screen(ctx context.Context, id string) (apitype.Suggestion, error) {
	return c.suggestionAction(ctx, id, "screen")
}

// ScreenSender is a screener key on a card: "show" or "screen" its
// sender (list, folder) from now on, with the rule written and the cards
// from it that were waiting settled.
func (c *Client) ScreenSender(ctx context.Context, id, choice string) (apitype.ScreenSenderResult, error) {
	var out apitype.ScreenSenderResult
	return out, c.call(ctx, "POST", "/api/v1/suggestions/"+url.PathEscape(id)+"/screen-sender", apitype.ScreenSender{Choice: choice}, &out)
}

func (c *Client) suggestionAction(ctx context.Context, id, action string) (apitype.Suggestion, error) {
	var out apitype.Suggestion
	return out, c.call(ctx, "POST", "/api/v1/suggestions/"+url.PathEscape(id)+"/"+action, struct{}{}, &out)
}

func learningPath(scoutID string) string {
	return "/api/v1/scouts/" + url.PathEscape(scoutID) + "/learning"
}

// Learning returns a scout's learner: its state and thresholds.
func (c *Client) Learning(ctx context.Context, scoutID string) (apitype.Learning, error) {
	var out apitype.Learning
	return out, c.call(ctx, "GET", learningPath(scoutID), nil, &out)
}

// SetLearning replaces a scout's learner thresholds.
func (c *Client) SetLearning(ctx context.Context, scoutID string, s apitype.LearnSettings) (apitype.Learning, error) {
	var out apitype.Learning
	return out, c.call(ctx, "PUT", learningPath(scoutID), s, &out)
}

// ResetLearning forgets everything a scout's learner learned.
func (c *Client) ResetLearning(ctx context.Context, scoutID string) (apitype.Learning, error) {
	var out apitype.Learning
	return out, c.call(ctx, "POST", learningPath(scoutID)+"/reset", struct{}{}, &out)
}

func entityPath(kind string) string { return "/api/v1/" + url.PathEscape(kind) + "s" }

// Entities lists the entities of a kind (task, note, event, project).
func (c *Client) Entities(ctx context.Context, kind string) ([]apitype.Entity, error) {
	var out []apitype.Entity
	return out, c.call(ctx, "GET", entityPath(kind), nil, &out)
}

// Entity returns one entity.
func (c *Client) Entity(ctx context.Context, kind, id string) (apitype.Entity, error) {
	var out apitype.Entity
	return out, c.call(ctx, "GET", entityPath(kind)+"/"+url.PathEscape(id), nil, &out)
}

// CreateEntity creates an entity.
func (c *Client) CreateEntity(ctx context.Context, kind string, in apitype.EntityInput) (apitype.Entity, error) {
	var out apitype.Entity
	return out, c.call(ctx, "POST", entityPath(kind), in, &out)
}

// UpdateEntity edits an entity.
func (c *Client) UpdateEntity(ctx context.Context, kind, id string, in apitype.EntityInput) (apitype.Entity, error) {
	var out apitype.Entity
	return out, c.call(ctx, "PATCH", entityPath(kind)+"/"+url.PathEscape(id), in, &out)
}

// DeleteEntity deletes an entity.
func (c *Client) DeleteEntity(ctx context.Context, kind, id string) error {
	return c.call(ctx, "DELETE", entityPath(kind)+"/"+url.PathEscape(id), nil, nil)
}

// Audit returns the audit trail of one item, in order.
func (c *Client) Audit(ctx context.Context, traceID string) ([]apitype.AuditEvent, error) {
	var out []apitype.AuditEvent
	return out, c.call(ctx, "GET", "/api/v1/audit?trace_id="+url.QueryEscape(traceID), nil, &out)
}

// Undo takes back the decision on a suggestion (within the undo window).
func (c *Client) Undo(ctx context.Context, id string) (apitype.Suggestion, error) {
	var out apitype.Suggestion
	return out, c.call(ctx, "POST", "/api/v1/suggestions/"+url.PathEscape(id)+"/undo", struct{}{}, &out)
}

// Content reads a suggestion's item from its source (never stored).
func (c *Client) Content(ctx context.Context, id string) (apitype.Content, error) {
	var out apitype.Content
	return out, c.call(ctx, "GET", "/api/v1/suggestions/"+url.PathEscape(id)+"/content", nil, &out)
}

// SetPaused pauses or resumes every scout.
func (c *Client) SetPaused(ctx context.Context, paused bool) (apitype.Status, error) {
	path := "/api/v1/resume"
	if paused {
		path = "/api/v1/pause"
	}
	var out apitype.Status
	return out, c.call(ctx, "POST", path, struct{}{}, &out)
}

// Sync asks every scout to look for new items now.
func (c *Client) Sync(ctx context.Context) error {
	return c.call(ctx, "POST", "/api/v1/sync", struct{}{}, nil)
}

// Settings returns the user's preferences.
func (c *Client) Settings(ctx context.Context) (apitype.Settings, error) {
	var out apitype.Settings
	return out, c.call(ctx, "GET", "/api/v1/settings", nil, &out)
}

// SetSettings stores the user's preferences.
func (c *Client) SetSettings(ctx context.Context, s apitype.Settings) (apitype.Settings, error) {
	var out apitype.Settings
	return out, c.call(ctx, "PUT", "/api/v1/settings", s, &out)
}

// SuggestionsAfter lists the suggestions after the one with id afterID, in
// detection order (paging through more than one page).
func (c *Client) SuggestionsAfter(ctx context.Context, afterID string) ([]apitype.Suggestion, error) {
	var out []apitype.Suggestion
	return out, c.call(ctx, "GET", "/api/v1/suggestions?limit=1000&after_id="+url.QueryEscape(afterID), nil, &out)
}

// ConnectGmail starts connecting a Gmail account and returns the consent
// URL (the agent also opens it in the browser); the stream's
// gmail.connected event says when the user has consented.
func (c *Client) ConnectGmail(ctx context.Context, in apitype.GmailConnectRequest) (apitype.GmailConnect, error) {
	var out apitype.GmailConnect
	err := c.call(ctx, http.MethodPost, "/api/v1/gmail/connect", in, &out)
	return out, err
}

// GmailAccounts lists the connected Gmail accounts.
func (c *Client) GmailAccounts(ctx context.Context) ([]apitype.GmailAccount, error) {
	var out []apitype.GmailAccount
	err := c.call(ctx, http.MethodGet, "/api/v1/gmail/accounts", nil, &out)
	return out, err
}

// DisconnectGmail revokes and forgets an account.
func (c *Client) DisconnectGmail(ctx context.Context, email string) error {
	return c.call(ctx, http.MethodDelete, "/api/v1/gmail/accounts/"+url.PathEscape(email), nil, nil)
}

// Relay reports the relay connection (state "none" without a relay).
func (c *Client) Relay(ctx context.Context) (apitype.RelayStatus, error) {
	var out apitype.RelayStatus
	return out, c.call(ctx, http.MethodGet, "/api/v1/relay", nil, &out)
}

// RelayLogin logs the agent in to a relay: it checks the token by
// connecting, keeps it in the keyring and connects.
func (c *Client) RelayLogin(ctx context.Context, relayURL, token string) (apitype.RelayStatus, error) {
	var out apitype.RelayStatus
	return out, c.call(ctx, http.MethodPut, "/api/v1/relay", apitype.RelayLogin{URL: relayURL, Token: token}, &out)
}

// RelayLogout forgets the relay: the token leaves the keyring and the
// agent disconnects.
func (c *Client) RelayLogout(ctx context.Context) (apitype.RelayLogout, error) {
	var out apitype.RelayLogout
	return out, c.call(ctx, http.MethodDelete, "/api/v1/relay", nil, &out)
}
