package localclient

import (
	"context"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Keyring says where the agent keeps its tokens, or why it cannot.
func (c *Client) Keyring(ctx context.Context) (apitype.Keyring, error) {
	var out apitype.Keyring
	err := c.call(ctx, "GET", "/api/v1/keyring", nil, &out)
	return out, err
}

// UseFileKeyring switches the running agent to its encrypted file keyring.
func (c *Client) UseFileKeyring(ctx context.Context) (apitype.Keyring, error) {
	var out apitype.Keyring
	err := c.call(ctx, "POST", "/api/v1/keyring/file", nil, &out)
	return out, err
}
