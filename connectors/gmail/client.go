// Package gmail is the Gmail source: a client over Google's gmail/v1 library
// that lists new mail through history.list, reads messages as headers, text
// or sanitised HTML, archives, labels and trashes (never deletes), and keeps
// a push watch alive — plus the sync loop that turns new mail into triage
// verdicts, shared by the relay (relay-triage mode) and the desktop
// (relay-ping and local modes).
//
// Every Google endpoint is configurable so the product runs against the
// fakes in fakegoogle/ or behind a proxy. Errors are classified for the
// callers: *AuthError (reconnect), ErrHistoryGone (resync), and transient
// failures retried here with backoff honouring Retry-After.
package gmail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/oauth2"
	gmailapi "google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// DefaultBaseURL is Google's Gmail API endpoint.
const DefaultBaseURL = "https://gmail.googleapis.com/"

// Options configure a Client.
type Options struct {
	// BaseURL is the Gmail API root (default DefaultBaseURL); point it at a
	// fake or a proxy.
	BaseURL string
	// TokenSource authorises the calls; it should refresh (and persist
	// refreshed tokens) itself. If it is a Refresher, an access token
	// Gmail refuses is refreshed and the call tried once more before the
	// failure counts as an AuthError.
	TokenSource oauth2.TokenSource
	// HTTPClient, if set, carries the calls instead of one built from
	// TokenSource (its transport must then add the Authorization header).
	HTTPClient *http.Client
	// Attempts bounds tries per call on 429 and 5xx (default 4); Backoff is
	// the first wait, doubled each time (default 500ms); MaxWait caps any
	// wait, including a server's Retry-After (default 30s).
	Attempts int
	Backoff  time.Duration
	MaxWait  time.Duration
	Logger   *slog.Logger
}

// Client talks to one mailbox ("me": the account the token belongs to).
type Client struct {
	svc  *gmailapi.Service
	opts Options
	log  *slog.Logger
	// units counts Gmail quota units this client spent, by Google's
	// published per-method costs; it feeds the quota benchmark and metrics.
	units atomic.Int64
}

// Quota units per method (developers.google.com/gmail/api/reference/quota).
const (
	unitsProfile     = 1
	unitsHistoryList = 2
	unitsMessageGet  = 5
	unitsMessageList = 5
	unitsModify      = 5
	unitsTrash       = 5
	unitsWatch       = 100
	unitsStop        = 50
)

// NewClient builds a client; it makes no call.
func NewClient(ctx context.Context, opts Options) (*Client, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	if !strings.HasSuffix(opts.BaseURL, "/") {
		// The generated client joins paths onto the endpoint as a base URL:
		// without the slash its last segment would be dropped.
		opts.BaseURL += "/"
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 4
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 500 * time.Millisecond
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	copts := []option.ClientOption{option.WithEndpoint(opts.BaseURL)}
	switch {
	case opts.HTTPClient != nil:
		copts = append(copts, option.WithHTTPClient(opts.HTTPClient))
	case opts.TokenSource != nil:
		// x/oauth2's transport asks the source for every request, so an
		// access token dropped by Refresher.Invalidate is never reused;
		// the generated client's own token plumbing may cache it.
		copts = append(copts, option.WithHTTPClient(&http.Client{Transport: &oauth2.Transport{Source: opts.TokenSource}}))
	default:
		return nil, errors.New("gmail: a token source or an authorised HTTP client is required")
	}
	svc, err := gmailapi.NewService(ctx, copts...)
	if err != nil {
		return nil, fmt.Errorf("gmail: client: %w", err)
	}
	return &Client{svc: svc, opts: opts, log: opts.Logger}, nil
}

// QuotaUnits reports the quota units spent so far.
func (c *Client) QuotaUnits() int64 { return c.units.Load() }

// ErrHistoryGone means the history cursor is older than Gmail keeps (usually
// a week, sometimes hours): the caller must resynchronise.
var ErrHistoryGone = errors.New("gmail: the history cursor is too old (Gmail answered 404)")

// AuthError means the account's authorisation is gone (revoked, expired,
// password changed): only the user reconnecting fixes it.
type AuthError struct{ Err error }

func (e *AuthError) Error() string {
	return "gmail: access expired or was revoked — reconnect the account: " + e.Err.Error()
}
func (e *AuthError) Unwrap() error { return e.Err }

// IsAuth reports whether err needs the user to reconnect.
func IsAuth(err error) bool {
	var ae *AuthError
	return errors.As(err, &ae)
}

// Refresher is a token source that can be told Gmail refused its access
// token (revoked or ended early by Google while the refresh token is still
// good). Google's advice for a 401 is to refresh and retry; x/oauth2 only
// refreshes once its own clock says the token expired.
type Refresher interface {
	oauth2.TokenSource
	// Invalidate drops the cached access token, so that the next Token
	// refreshes it.
	Invalidate()
}

// TransientError is a failure that outlived this client's retries (429,
// 5xx, a network error): the caller should try again later, after After
// when the server said so.
type TransientError struct {
	After time.Duration
	Err   error
}

func (e *TransientError) Error() string { return "gmail: temporarily unavailable: " + e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// NotFoundError is a message that no longer exists (deleted by the user).
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return "gmail: message " + e.ID + " no longer exists" }

// call runs one API request with the retry policy: 429 and 5xx are retried
// with exponential backoff and jitter, waiting at least the server's
// Retry-After; auth failures and 4xx are returned at once, classified.
func (c *Client) call(ctx context.Context, method string, units int, do func() error) error {
	wait := c.opts.Backoff
	var last error
	refreshed := false
	for attempt := 1; ; attempt++ {
		c.units.Add(int64(units))
		err := do()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("gmail: %s: %w", method, ctx.Err())
		}
		cls, after := classify(err)
		switch cls {
		case errAuth:
			// A refused access token is refreshed and the call retried
			// once; a refused refresh (invalid_grant) or a second 401 is
			// the user's to fix.
			if r, ok := c.opts.TokenSource.(Refresher); ok && !refreshed && isStatus(err, http.StatusUnauthorized) {
				refreshed = true
				c.log.Info("gmail: access token refused; refreshing it and trying again", "method", method)
				r.Invalidate()
				attempt--
				continue
			}
			return &AuthError{Err: fmt.Errorf("%s: %w", method, err)}
		case errPermanent:
			return fmt.Errorf("gmail: %s: %w", method, err)
		}
		last = err
		if attempt >= c.opts.Attempts {
			return &TransientError{After: after, Err: fmt.Errorf("%s after %d attempts: %w", method, attempt, last)}
		}
		d := wait + rand.N(wait/2+1)
		if after > d {
			d = after
		}
		if d > c.opts.MaxWait {
			d = c.opts.MaxWait
		}
		c.log.Debug("gmail: retrying", "method", method, "attempt", attempt, "wait", d, "err", err)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("gmail: %s: %w", method, ctx.Err())
		case <-t.C:
		}
		wait *= 2
	}
}

type errClass int

const (
	errPermanent errClass = iota
	errAuth
	errTransient
)

// classify sorts an error from the generated client or from x/oauth2.
func classify(err error) (errClass, time.Duration) {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		// The token endpoint: invalid_grant is a revoked or expired grant;
		// its 5xx are as transient as the API's.
		if re.ErrorCode == "invalid_grant" || re.ErrorCode == "unauthorized_client" || re.ErrorCode == "invalid_client" {
			return errAuth, 0
		}
		if re.Response != nil && re.Response.StatusCode >= 500 {
			return errTransient, retryAfter(re.Response.Header)
		}
		return errAuth, 0
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		switch {
		case ge.Code == http.StatusUnauthorized:
			return errAuth, 0
		case ge.Code == http.StatusTooManyRequests || ge.Code >= 500:
			return errTransient, retryAfter(ge.Header)
		case ge.Code == http.StatusForbidden && hasReason(ge, "rateLimitExceeded", "userRateLimitExceeded"):
			// Gmail reports per-user rate limits as 403 as well as 429.
			return errTransient, retryAfter(ge.Header)
		}
		return errPermanent, 0
	}
	// Anything else is the network: a reset, a timeout, a refused dial.
	return errTransient, 0
}

func hasReason(ge *googleapi.Error, reasons ...string) bool {
	for _, it := range ge.Errors {
		for _, r := range reasons {
			if it.Reason == r {
				return true
			}
		}
	}
	return false
}

// retryAfter reads Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

func isStatus(err error, code int) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == code
}

// Profile returns the mailbox address and its current history id.
func (c *Client) Profile(ctx context.Context) (email string, historyID uint64, err error) {
	var p *gmailapi.Profile
	err = c.call(ctx, "users.getProfile", unitsProfile, func() (err error) {
		p, err = c.svc.Users.GetProfile("me").Context(ctx).Do()
		return err
	})
	if err != nil {
		return "", 0, err
	}
	return strings.ToLower(p.EmailAddress), p.HistoryId, nil
}

// Watch starts (or renews: calling it again is how a watch is renewed)
// push notifications to a Pub/Sub topic ("projects/P/topics/T") for every
// label change; filtering is done on our side so mail moved by the user's
// filters is not missed.
func (c *Client) Watch(ctx context.Context, topic string) (historyID uint64, expires time.Time, err error) {
	var r *gmailapi.WatchResponse
	err = c.call(ctx, "users.watch", unitsWatch, func() (err error) {
		r, err = c.svc.Users.Watch("me", &gmailapi.WatchRequest{TopicName: topic}).Context(ctx).Do()
		return err
	})
	if err != nil {
		return 0, time.Time{}, err
	}
	return r.HistoryId, time.UnixMilli(r.Expiration).UTC(), nil
}

// StopWatch ends push notifications.
func (c *Client) StopWatch(ctx context.Context) error {
	return c.call(ctx, "users.stop", unitsStop, func() error {
		return c.svc.Users.Stop("me").Context(ctx).Do()
	})
}

// Modify adds and removes label ids on a message.
func (c *Client) Modify(ctx context.Context, id string, add, remove []string) error {
	err := c.call(ctx, "messages.modify", unitsModify, func() error {
		_, err := c.svc.Users.Messages.Modify("me", id, &gmailapi.ModifyMessageRequest{AddLabelIds: add, RemoveLabelIds: remove}).Context(ctx).Do()
		return err
	})
	if isStatus(err, http.StatusNotFound) {
		return &NotFoundError{ID: id}
	}
	return err
}

// Trash moves the message to the Trash, from which Gmail deletes it after
// 30 days; the product never deletes mail itself.
func (c *Client) Trash(ctx context.Context, id string) error {
	err := c.call(ctx, "messages.trash", unitsTrash, func() error {
		_, err := c.svc.Users.Messages.Trash("me", id).Context(ctx).Do()
		return err
	})
	if isStatus(err, http.StatusNotFound) {
		return &NotFoundError{ID: id}
	}
	return err
}

// Labels returns a message's label ids (messages.get, format=minimal).
func (c *Client) Labels(ctx context.Context, id string) ([]string, error) {
	m, err := c.get(ctx, id, "minimal")
	if err != nil {
		return nil, err
	}
	return m.LabelIds, nil
}

// Untrash takes the message out of the Trash and returns its labels after
// (Gmail gives back the labels it had, INBOX for mail trashed from the
// inbox). Untrashing a message that is not in the Trash changes nothing.
func (c *Client) Untrash(ctx context.Context, id string) ([]string, error) {
	var m *gmailapi.Message
	err := c.call(ctx, "messages.untrash", unitsTrash, func() (err error) {
		m, err = c.svc.Users.Messages.Untrash("me", id).Context(ctx).Do()
		return err
	})
	if isStatus(err, http.StatusNotFound) {
		return nil, &NotFoundError{ID: id}
	}
	if err != nil {
		return nil, err
	}
	return m.LabelIds, nil
}

// LabelID returns the id of the user label with this name, creating it if
// it does not exist.
func (c *Client) LabelID(ctx context.Context, name string) (string, error) {
	var list *gmailapi.ListLabelsResponse
	err := c.call(ctx, "labels.list", 1, func() (err error) {
		list, err = c.svc.Users.Labels.List("me").Context(ctx).Do()
		return err
	})
	if err != nil {
		return "", err
	}
	for _, l := range list.Labels {
		if strings.EqualFold(l.Name, name) || l.Id == name {
			return l.Id, nil
		}
	}
	var l *gmailapi.Label
	err = c.call(ctx, "labels.create", 5, func() (err error) {
		l, err = c.svc.Users.Labels.Create("me", &gmailapi.Label{Name: name,
			LabelListVisibility: "labelShow", MessageListVisibility: "show"}).Context(ctx).Do()
		return err
	})
	if err != nil {
		return "", err
	}
	return l.Id, nil
}
