package core

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/scouts"
)

// RelayKeyring keeps the device token of the relay the user logged in to
// (the agent's is the OS keyring, app/secrets). Its errors carry scouts
// codes: ENotFound when no token is stored, EUnavailable when the keyring
// cannot be used, with a message saying what to do.
type RelayKeyring interface {
	RelayToken(ctx context.Context) (string, error)
	SetRelayToken(ctx context.Context, token string) error
	DeleteRelayToken(ctx context.Context) error
}

// Settings keys: the relay logged in to, and the account whose sequence
// the cursor (relaySeqKey) counts.
const (
	relaySettingKey = "relay"
	relayAccountKey = "relay_account"
)

// savedRelayConfig is what the settings keep of a login: never the token.
type savedRelayConfig struct {
	URL string `json:"url"`
}

// relayAccount is the account whose sequence numbers the cursor counts:
// sequences are per user and per relay.
type relayAccount struct {
	URL       string `json:"url"`
	UserEmail string `json:"user_email"`
}

// loginSettleTimeout bounds how long a login waits for the new link to be
// online before answering with whatever state it is in.
const loginSettleTimeout = 10 * time.Second

func (c *Core) savedRelay(ctx context.Context) (savedRelayConfig, error) {
	var out savedRelayConfig
	v, ok, err := c.DB.Setting(ctx, relaySettingKey)
	if err != nil || !ok {
		return out, err
	}
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		return out, fmt.Errorf("core: the stored relay setting is corrupt: %w", err)
	}
	return out, nil
}

func (c *Core) keyringRelayToken(ctx context.Context) (string, error) {
	if c.cfg.RelayKeyring == nil {
		return "", scouts.Errorf(scouts.EUnavailable, "this agent has no keyring for the relay's device token")
	}
	return c.cfg.RelayKeyring.RelayToken(ctx)
}

// recordRelayAccount remembers which account the cursor counts for.
func (c *Core) recordRelayAccount(ctx context.Context, a relayAccount) {
	if prev, ok := c.relayAccount(ctx); ok && prev == a {
		return
	}
	b, _ := json.Marshal(a)
	if err := c.DB.SetSetting(ctx, relayAccountKey, string(b)); err != nil {
		c.log.Warn("relay: record the account", "err", err)
	}
}

func (c *Core) relayAccount(ctx context.Context) (relayAccount, bool) {
	var a relayAccount
	v, ok, err := c.DB.Setting(ctx, relayAccountKey)
	if err != nil || !ok || json.Unmarshal([]byte(v), &a) != nil {
		return a, false
	}
	return a, true
}

// NormalizeRelayURL checks a relay's address and returns it as
// scheme://host[:port]. A relay serves at its root, so a path, a query, a
// fragment or credentials are refused rather than guessed at.
func NormalizeRelayURL(raw string) (string, error) {
	bad := func(why string) error {
		return scouts.Errorf(scouts.EInvalid, "relay URL %q: %s; want the relay's address, like https://relay.example.com", raw, why)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return "", bad("not a URL")
	case u.Scheme != "https" && u.Scheme != "http":
		return "", bad("it must start with https:// (or http://)")
	case u.Opaque != "" || u.Hostname() == "":
		return "", bad("it names no host")
	case u.User != nil:
		return "", bad("it must not carry a user name or password")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", bad("it must not have a query or a fragment")
	case (u.Path != "" && u.Path != "/") || u.RawPath != "":
		return "", bad("it must not have a path (the relay serves at its root)")
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

// checkDeviceToken refuses what cannot be a token, without ever repeating
// it (it is a credential).
func checkDeviceToken(tok string) error {
	if tok == "" {
		return scouts.Errorf(scouts.EInvalid, "the device token is empty: give the token scouts-relay device add printed on its last line")
	}
	if len(tok) > 512 || strings.IndexFunc(tok, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return scouts.Errorf(scouts.EInvalid, "the device token has spaces or line breaks inside: give only the token scouts-relay device add printed on its last line")
	}
	return nil
}

// RelayLogin connects this desktop to a relay for good: it checks the
// URL, checks the token by connecting with it, keeps the token in the
// keyring and the URL in the settings, and replaces the running link. A
// wrong URL or token, an unreachable relay or an unusable keyring is an
// error and changes nothing.
func (c *Core) RelayLogin(ctx context.Context, rawURL, token string) (RelayStatus, error) {
	if c.cfg.RelayURL != "" {
		return RelayStatus{}, scouts.Errorf(scouts.EConflict,
			"this agent was started with --relay and --device-token-file, which decide its relay: restart it without them to log in")
	}
	if c.cfg.RelayKeyring == nil {
		return RelayStatus{}, scouts.Errorf(scouts.EUnavailable, "this agent has no keyring to keep a device token in")
	}
	u, err := NormalizeRelayURL(rawURL)
	if err != nil {
		return RelayStatus{}, err
	}
	token = strings.TrimSpace(token)
	if err := checkDeviceToken(token); err != nil {
		return RelayStatus{}, err
	}
	c.loginMu.Lock()
	defer c.loginMu.Unlock()
	c.relayMu.Lock()
	started := c.runCtx != nil
	c.relayMu.Unlock()
	if !started {
		return RelayStatus{}, scouts.Errorf(scouts.EUnavailable, "the agent is still starting: try again in a moment")
	}

	id, err := client.Probe(ctx, u, token, "scouts/"+c.cfg.Version)
	if err != nil {
		switch state, _ := client.Refused(err); state {
		case client.StateUnauthorized:
			return RelayStatus{}, scouts.Errorf(scouts.EInvalid,
				"the relay at %s does not know this device token (check that it was copied whole: it is the last line scouts-relay device add printed); nothing was saved", u)
		case client.StateRevoked:
			return RelayStatus{}, scouts.Errorf(scouts.EInvalid,
				"this device token was revoked on the relay at %s: ask for a new one (scouts-relay device add); nothing was saved", u)
		}
		return RelayStatus{}, scouts.Errorf(scouts.EUnavailable, "cannot reach the relay at %s: %v; check the URL (nothing was saved)", u, err)
	}
	if err := c.cfg.RelayKeyring.SetRelayToken(ctx, token); err != nil {
		return RelayStatus{}, err
	}
	c.stopRelay()
	// Sequences are per account: resuming another account's stream after
	// this one's cursor would acknowledge rows this desktop never saw.
	next := relayAccount{URL: u, UserEmail: id.UserEmail}
	if prev, ok := c.relayAccount(ctx); ok && prev != next {
		if err := c.DB.ResetSyncSeq(ctx, relaySeqKey); err != nil {
			return RelayStatus{}, err
		}
		c.log.Info("relay: another account than before; its stream is read from the start", "url", u)
	}
	c.recordRelayAccount(ctx, next)
	b, _ := json.Marshal(savedRelayConfig{URL: u})
	if err := c.DB.SetSetting(ctx, relaySettingKey, string(b)); err != nil {
		return RelayStatus{}, err
	}
	c.log.Info("relay: logged in", "url", u, "device", id.DeviceID, "user", id.UserEmail)
	l := c.startLink(u, RelaySourceLogin, id, func(context.Context) (string, error) { return token, nil })
	t := time.NewTimer(loginSettleTimeout)
	defer t.Stop()
	select {
	case <-l.settled:
	case <-t.C:
	case <-ctx.Done():
	}
	return c.RelayStatus(ctx), nil
}

// RelayLogout is what a logout forgot.
type RelayLogout struct {
	URL          string // the relay logged out of; "" when there was none
	TokenDeleted bool   // a device token was in the keyring and is gone
}

// RelayLogout forgets the relay logged in to: the token leaves the
// keyring, the URL the settings, and the link is closed. A keyring that
// cannot be used is an error that changes nothing.
func (c *Core) RelayLogout(ctx context.Context) (RelayLogout, error) {
	if c.cfg.RelayURL != "" {
		return RelayLogout{}, scouts.Errorf(scouts.EConflict,
			"this agent was started with --relay and --device-token-file, which decide its relay: restart it without them instead")
	}
	c.loginMu.Lock()
	defer c.loginMu.Unlock()
	saved, err := c.savedRelay(ctx)
	if err != nil {
		return RelayLogout{}, err
	}
	out := RelayLogout{URL: saved.URL}
	if c.cfg.RelayKeyring != nil {
		err := c.cfg.RelayKeyring.DeleteRelayToken(ctx)
		switch {
		case err == nil:
			out.TokenDeleted = true
		case scouts.ErrorCode(err) != scouts.ENotFound:
			return RelayLogout{}, err
		}
	}
	if err := c.DB.DeleteSetting(ctx, relaySettingKey); err != nil {
		return out, err
	}
	c.stopRelay()
	c.log.Info("relay: logged out", "url", saved.URL, "token_deleted", out.TokenDeleted)
	c.Bus.Publish(scouts.Event{Type: EventRelayState, Data: c.RelayStatus(ctx)})
	return out, nil
}
