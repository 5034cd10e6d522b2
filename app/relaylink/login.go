package relaylink

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

// Settings keys: the relay logged in to, and the account whose sequence
// the cursor (seqKey) counts.
const (
	relaySettingKey = "relay"
	relayAccountKey = "relay_account"
)

// savedRelayConfig is what the settings keep of a login: never the token.
type savedRelayConfig struct {
	URL string `json:"url"`
}

// account is the account whose sequence numbers the cursor counts:
// sequences are per user and per relay.
type account struct {
	URL       string `json:"url"`
	UserEmail string `json:"user_email"`
}

// loginSettleTimeout bounds how long a login waits for the new link to be
// online before answering with whatever state it is in.
const loginSettleTimeout = 10 * time.Second

func (l *Link) savedRelay(ctx context.Context) (savedRelayConfig, error) {
	var out savedRelayConfig
	v, ok, err := l.db.Setting(ctx, relaySettingKey)
	if err != nil || !ok {
		return out, err
	}
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		return out, fmt.Errorf("relaylink: the stored relay setting is corrupt: %w", err)
	}
	return out, nil
}

func (l *Link) keyringToken(ctx context.Context) (string, error) {
	if l.cfg.Keyring == nil {
		return "", scouts.Errorf(scouts.EUnavailable, "this agent has no keyring for the relay's device token")
	}
	return l.cfg.Keyring.RelayToken(ctx)
}

// recordAccount remembers which account the cursor counts for.
func (l *Link) recordAccount(ctx context.Context, a account) {
	if prev, ok := l.savedAccount(ctx); ok && prev == a {
		return
	}
	b, _ := json.Marshal(a)
	if err := l.db.SetSetting(ctx, relayAccountKey, string(b)); err != nil {
		l.log.Warn("relay: record the account", "err", err)
	}
}

func (l *Link) savedAccount(ctx context.Context) (account, bool) {
	var a account
	v, ok, err := l.db.Setting(ctx, relayAccountKey)
	if err != nil || !ok || json.Unmarshal([]byte(v), &a) != nil {
		return a, false
	}
	return a, true
}

// NormalizeURL checks a relay's address and returns it as
// scheme://host[:port]. A relay serves at its root, so a path, a query, a
// fragment or credentials are refused rather than guessed at.
func NormalizeURL(raw string) (string, error) {
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

// Login connects this desktop to a relay for good: it checks the URL,
// checks the token by connecting with it, keeps the token in the keyring
// and the URL in the settings, and replaces the running connection. A
// wrong URL or token, an unreachable relay or an unusable keyring is an
// error and changes nothing.
func (l *Link) Login(ctx context.Context, rawURL, token string) (Status, error) {
	if l.cfg.URL != "" {
		return Status{}, scouts.Errorf(scouts.EConflict,
			"this agent was started with --relay and --device-token-file, which decide its relay: restart it without them to log in")
	}
	if l.cfg.Keyring == nil {
		return Status{}, scouts.Errorf(scouts.EUnavailable, "this agent has no keyring to keep a device token in")
	}
	u, err := NormalizeURL(rawURL)
	if err != nil {
		return Status{}, err
	}
	token = strings.TrimSpace(token)
	if err := checkDeviceToken(token); err != nil {
		return Status{}, err
	}
	l.loginMu.Lock()
	defer l.loginMu.Unlock()
	l.mu.Lock()
	started := l.runCtx != nil
	l.mu.Unlock()
	if !started {
		return Status{}, scouts.Errorf(scouts.EUnavailable, "the agent is still starting: try again in a moment")
	}

	id, err := client.Probe(ctx, u, token, "scouts/"+l.cfg.Version)
	if err != nil {
		switch state, _ := client.Refused(err); state {
		case client.StateUnauthorized:
			return Status{}, scouts.Errorf(scouts.EInvalid,
				"the relay at %s does not know this device token (check that it was copied whole: it is the last line scouts-relay device add printed); nothing was saved", u)
		case client.StateRevoked:
			return Status{}, scouts.Errorf(scouts.EInvalid,
				"this device token was revoked on the relay at %s: ask for a new one (scouts-relay device add); nothing was saved", u)
		}
		return Status{}, scouts.Errorf(scouts.EUnavailable, "cannot reach the relay at %s: %v; check the URL (nothing was saved)", u, err)
	}
	if err := l.cfg.Keyring.SetRelayToken(ctx, token); err != nil {
		return Status{}, err
	}
	l.disconnect()
	// Sequences are per account: resuming another account's stream after
	// this one's cursor would acknowledge rows this desktop never saw.
	next := account{URL: u, UserEmail: id.UserEmail}
	if prev, ok := l.savedAccount(ctx); ok && prev != next {
		if err := l.db.ResetSyncSeq(ctx, seqKey); err != nil {
			return Status{}, err
		}
		l.log.Info("relay: another account than before; its stream is read from the start", "url", u)
	}
	l.recordAccount(ctx, next)
	b, _ := json.Marshal(savedRelayConfig{URL: u})
	if err := l.db.SetSetting(ctx, relaySettingKey, string(b)); err != nil {
		return Status{}, err
	}
	l.log.Info("relay: logged in", "url", u, "device", id.DeviceID, "user", id.UserEmail)
	c := l.connect(u, SourceLogin, id, func(context.Context) (string, error) { return token, nil })
	t := time.NewTimer(loginSettleTimeout)
	defer t.Stop()
	select {
	case <-c.settled:
	case <-t.C:
	case <-ctx.Done():
	}
	return l.Status(ctx), nil
}

// LoggedOut is what a logout forgot.
type LoggedOut struct {
	URL          string // the relay logged out of; "" when there was none
	TokenDeleted bool   // a device token was in the keyring and is gone
}

// Logout forgets the relay logged in to: the token leaves the keyring, the
// URL the settings, and the connection is closed. A keyring that cannot be
// used is an error that changes nothing.
func (l *Link) Logout(ctx context.Context) (LoggedOut, error) {
	if l.cfg.URL != "" {
		return LoggedOut{}, scouts.Errorf(scouts.EConflict,
			"this agent was started with --relay and --device-token-file, which decide its relay: restart it without them instead")
	}
	l.loginMu.Lock()
	defer l.loginMu.Unlock()
	saved, err := l.savedRelay(ctx)
	if err != nil {
		return LoggedOut{}, err
	}
	out := LoggedOut{URL: saved.URL}
	if l.cfg.Keyring != nil {
		err := l.cfg.Keyring.DeleteRelayToken(ctx)
		switch {
		case err == nil:
			out.TokenDeleted = true
		case scouts.ErrorCode(err) != scouts.ENotFound:
			return LoggedOut{}, err
		}
	}
	if err := l.db.DeleteSetting(ctx, relaySettingKey); err != nil {
		return out, err
	}
	l.disconnect()
	l.log.Info("relay: logged out", "url", saved.URL, "token_deleted", out.TokenDeleted)
	l.publish(ctx)
	return out, nil
}
