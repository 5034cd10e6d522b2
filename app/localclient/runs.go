package localclient

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Secrets lists the names of the secrets kept in the OS keyring.
func (c *Client) Secrets(ctx context.Context) ([]string, error) {
	var out apitype.Secrets
	err := c.call(ctx, http.MethodGet, "/api/v1/secrets", nil, &out)
	return out.Names, err
}

// SetSecret keeps a secret's value in the OS keyring.
func (c *Client) SetSecret(ctx context.Context, name, value string) error {
	return c.call(ctx, http.MethodPut, "/api/v1/secrets/"+url.PathEscape(name), apitype.SecretValue{Value: value}, nil)
}

// DeleteSecret removes a secret from the OS keyring.
func (c *Client) DeleteSecret(ctx context.Context, name string) error {
	return c.call(ctx, http.MethodDelete, "/api/v1/secrets/"+url.PathEscape(name), nil, nil)
}

// Revive brings an expired suggestion back to pending.
func (c *Client) Revive(ctx context.Context, id string) (apitype.Suggestion, error) {
	var out apitype.Suggestion
	err := c.call(ctx, http.MethodPost, "/api/v1/suggestions/"+url.PathEscape(id)+"/revive", nil, &out)
	return out, err
}

// ScoutRuns returns a scout's latest runs, newest first (limit 0: the
// agent's default).
func (c *Client) ScoutRuns(ctx context.Context, scoutID string, limit int) ([]apitype.Run, error) {
	path := "/api/v1/scouts/" + url.PathEscape(scoutID) + "/runs"
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	var out []apitype.Run
	err := c.call(ctx, http.MethodGet, path, nil, &out)
	return out, err
}
