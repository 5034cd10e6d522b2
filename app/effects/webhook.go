package effects

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// Webhook posts a card's fields to a URL (webhook.post). Each post
// carries the action's idempotency key in an Idempotency-Key header, the
// same on every attempt, so the receiver applies it once; with a secret
// named, the body is signed with HMAC-SHA256 in X-Scouts-Signature.
type Webhook struct {
	// Client makes the requests; nil is a client with a 30-second
	// timeout.
	Client *http.Client
	// Secret returns a secret's value by name (from the keyring); nil
	// means no secret can be read.
	Secret func(ctx context.Context, name string) ([]byte, error)
	// Version is sent in the User-Agent.
	Version string
}

type webhookParams struct {
	URL    string `json:"url"`
	Secret *struct {
		Name string `json:"secret"`
	} `json:"secret"`
}

// WebhookBody is what webhook.post sends: the card's fields and what its
// approval created, never the item's text.
type WebhookBody struct {
	IdempotencyKey string            `json:"idempotency_key"`
	Action         string            `json:"action"`
	Suggestion     WebhookSuggestion `json:"suggestion"`
}

// WebhookSuggestion is the card as a webhook receives it.
type WebhookSuggestion struct {
	ID        string `json:"id"`
	ScoutID   string `json:"scout_id"`
	Source    string `json:"source"`
	Title     string `json:"title"`
	Kind      string `json:"kind"`
	Status    string `json:"status"`
	URL       string `json:"url,omitempty"`
	TraceID   string `json:"trace_id"`
	EntityID  string `json:"entity_id,omitempty"`
	CreatedAt string `json:"created_at"`
}

// CheckParams checks what needs no item and no keyring: the URL. It is
// what Check and Execute begin with, and what a rule is checked with when
// it is saved or imported: a URL with credentials would otherwise be
// stored, exported and kept in the definition's history.
func (h Webhook) CheckParams(params json.RawMessage) error {
	_, _, err := parseWebhookParams(params)
	return err
}

func parseWebhookParams(params json.RawMessage) (webhookParams, *url.URL, error) {
	var p webhookParams
	if err := json.Unmarshal(params, &p); err != nil {
		return p, nil, scouts.Errorf(scouts.EInvalid, "webhook.post params: %v", err)
	}
	u, err := url.Parse(p.URL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		// Not quoted: an unparsable URL may still hold a password.
		return p, nil, scouts.Errorf(scouts.EInvalid, "webhook.post: the url is not an http(s) URL")
	}
	if u.User != nil {
		// Said before anything that quotes the URL, and never quoting it
		// whole: it holds the credentials.
		return p, nil, scouts.Errorf(scouts.EInvalid, "webhook.post: %s has credentials in it (user:password@): put credentials in a secret (scouts secrets set NAME) and name it in \"secret\", never in the URL", redactedURL(u))
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return p, nil, scouts.Errorf(scouts.EInvalid, "webhook.post: %s would send the card in clear over the network: use https (plain http is for this machine only)", u.Redacted())
	}
	if hasDotDot(u.Path) {
		// A rule's template may fill the path from the item: "..".
		return p, nil, scouts.Errorf(scouts.EInvalid, "webhook.post: the path of %s has a \"..\" segment: a URL names its endpoint directly (a rule's template may have taken it from the item)", u.Redacted())
	}
	return p, u, nil
}

// redactedURL is u with no user information at all: Redacted keeps the
// user name, which may be a token too.
func redactedURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.Scheme + "://…@" + strings.TrimPrefix(c.String(), c.Scheme+"://")
}

func (h Webhook) params(ctx context.Context, inv engine.Invocation) (*url.URL, []byte, error) {
	p, u, err := parseWebhookParams(inv.Params)
	if err != nil {
		return nil, nil, err
	}
	// The scout's write scope, on the URL as rendered: a rule's template
	// may have taken the host from the item.
	hosts, isDefault := inv.Scout.WriteScope.Effective(scouts.ScopeHosts)
	if !scouts.MatchHost(hosts, u.Hostname()) {
		return nil, nil, scouts.Errorf(scouts.EInvalid, "webhook.post: %s is outside the scout's write scope %s: this scout posts only to those hosts (write_scope.hosts in its definition)",
			clipParam(u.Hostname()), scouts.ScopeWords(hosts, isDefault))
	}
	if p.Secret == nil {
		return u, nil, nil
	}
	if h.Secret == nil {
		return nil, nil, scouts.Errorf(scouts.EInvalid, "webhook.post: the secret %q cannot be read: this agent has no keyring", p.Secret.Name)
	}
	key, err := h.Secret(ctx, p.Secret.Name)
	if err != nil {
		if scouts.ErrorCode(err) == scouts.ENotFound {
			return nil, nil, scouts.Errorf(scouts.EInvalid, "webhook.post: no secret named %q in the keyring: store it first (scouts secrets set %s)", p.Secret.Name, p.Secret.Name)
		}
		return nil, nil, err
	}
	return u, key, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Check validates the URL and that a named secret exists.
func (h Webhook) Check(ctx context.Context, inv engine.Invocation) error {
	_, _, err := h.params(ctx, inv)
	return err
}

// Execute posts once. 2xx is done; 408, 429 and 5xx (and network errors)
// are retried by the outbox with the same key; any other answer is the
// receiver refusing the request, which retrying cannot change.
func (h Webhook) Execute(ctx context.Context, inv engine.Invocation) (json.RawMessage, error) {
	u, secret, err := h.params(ctx, inv)
	if err != nil {
		return nil, err
	}
	s := inv.Suggestion
	kind := s.ProposedKind
	if s.ResolvedKind != "" {
		kind = s.ResolvedKind
	}
	body, _ := json.Marshal(WebhookBody{IdempotencyKey: inv.Key, Action: inv.Action, Suggestion: WebhookSuggestion{
		ID: s.ID, ScoutID: s.ScoutID, Source: string(s.SourceType), Title: s.Title, Kind: string(kind), Status: string(s.Status),
		URL: s.URL, TraceID: s.TraceID, EntityID: s.ResolvedEntityID, CreatedAt: s.CreatedAt.UTC().Format(time.RFC3339)}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, scouts.Errorf(scouts.EInvalid, "webhook.post: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", inv.Key)
	req.Header.Set("User-Agent", "scouts/"+h.Version)
	if secret != nil {
		mac := hmac.New(sha256.New, secret)
		mac.Write(body)
		req.Header.Set("X-Scouts-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("webhook.post to %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		out, _ := json.Marshal(map[string]int{"status": c})
		return out, nil
	case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500:
		return nil, fmt.Errorf("webhook.post to %s: the receiver answered %s", u.Redacted(), resp.Status)
	default:
		return nil, scouts.Errorf(scouts.EInvalid, "webhook.post to %s: the receiver refused it (%s)", u.Redacted(), resp.Status)
	}
}
