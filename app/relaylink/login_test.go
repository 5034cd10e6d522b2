package relaylink_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/relaylink"
	"github.com/scouts-hq/scouts/scouts"
)

// memKeyring is the keyring as the core sees it; failing makes every call
// answer as a locked keyring does.
type memKeyring struct {
	mu      sync.Mutex
	token   string
	failing error
}

func (k *memKeyring) RelayToken(context.Context) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.failing != nil {
		return "", k.failing
	}
	if k.token == "" {
		return "", scouts.Errorf(scouts.ENotFound, "no relay device token in the keyring")
	}
	return k.token, nil
}

func (k *memKeyring) SetRelayToken(_ context.Context, tok string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.failing != nil {
		return k.failing
	}
	k.token = tok
	return nil
}

func (k *memKeyring) DeleteRelayToken(context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.failing != nil {
		return k.failing
	}
	if k.token == "" {
		return scouts.Errorf(scouts.ENotFound, "no relay device token in the keyring")
	}
	k.token = ""
	return nil
}

func (k *memKeyring) get() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.token
}

func (k *memKeyring) fail(err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.failing = err
}

// openLoginCore starts a core without relay flags on dir, with kr as its
// keyring; stop closes it as an agent's shutdown would.
func openLoginCore(t *testing.T, dir string, kr relaylink.Keyring) (c *core.Core, sub *bus.Subscription, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := core.Open(ctx, core.Config{DataDir: dir, RelayKeyring: kr})
	if err != nil {
		t.Fatal(err)
	}
	sub, _, _ = c.Bus.Subscribe(0, 4096)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); c.Close() }) }
	t.Cleanup(stop)
	return c, sub, stop
}

// A wrong token is refused before anything is saved; a good one goes to
// the keyring (the settings keep only the URL), connects, and connects
// again after a restart; logging out deletes it and disconnects.
func TestRelayLoginKeepsTheTokenInTheKeyring(t *testing.T) {
	ctx := context.Background()
	r := newRelay(t)
	relayURL := "http://" + r.addr
	kr := &memKeyring{}
	dir := t.TempDir()
	c, sub, stop := openLoginCore(t, dir, kr)

	if st := c.Relay().Status(ctx); st.Configured || st.State != relaylink.StateNone {
		t.Fatalf("status before login: %+v", st)
	}
	_, err := c.Relay().Login(ctx, relayURL, "sdt_not-a-token-the-relay-knows")
	if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "does not know this device token") ||
		!strings.Contains(err.Error(), "nothing was saved") {
		t.Fatalf("login with a wrong token: %v", err)
	}
	if strings.Contains(err.Error(), "sdt_not-a-token") {
		t.Fatalf("the error repeats the token: %v", err)
	}
	if kr.get() != "" || c.Relay().Status(ctx).Configured {
		t.Fatalf("a refused login saved something: keyring %q, status %+v", kr.get(), c.Relay().Status(ctx))
	}

	st, err := c.Relay().Login(ctx, relayURL+"/", r.token)
	if err != nil {
		t.Fatal(err)
	}
	if st.URL != relayURL || st.Source != relaylink.SourceLogin || st.UserEmail != "ann@example.com" {
		t.Fatalf("status after login: %+v", st)
	}
	waitFor(t, sub, "online after login", relayState("online", -1))
	if kr.get() != r.token {
		t.Fatal("the token is not in the keyring")
	}
	assertTokenNotInSettings(t, c, r.token)

	stop()
	c, sub, stop = openLoginCore(t, dir, kr)
	waitFor(t, sub, "online after a restart", relayState("online", -1))
	if st := c.Relay().Status(ctx); st.URL != relayURL || st.Source != relaylink.SourceLogin {
		t.Fatalf("status after restart: %+v", st)
	}

	out, err := c.Relay().Logout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out.URL != relayURL || !out.TokenDeleted {
		t.Fatalf("logout: %+v", out)
	}
	waitFor(t, sub, "no relay after logout", relayState(relaylink.StateNone, -1))
	if kr.get() != "" || c.Relay().Status(ctx).Configured {
		t.Fatalf("after logout: keyring %q, status %+v", kr.get(), c.Relay().Status(ctx))
	}
	stop()
	c, _, _ = openLoginCore(t, dir, kr)
	if st := c.Relay().Status(ctx); st.Configured {
		t.Fatalf("a restart after logout connected: %+v", st)
	}
	if out, err := c.Relay().Logout(ctx); err != nil || out.URL != "" || out.TokenDeleted {
		t.Fatalf("a second logout: %+v %v", out, err)
	}
}

func assertTokenNotInSettings(t *testing.T, c *core.Core, token string) {
	t.Helper()
	for _, k := range []string{"relay", "relay_account", "settings"} {
		v, _, err := c.DB.Setting(context.Background(), k)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(v, token) {
			t.Fatalf("setting %s holds the token", k)
		}
	}
}

// A keyring that cannot be read when the agent starts (locked, say) shows
// as offline with the keyring's advice, and the link connects once it can.
func TestRelayWaitsForALockedKeyring(t *testing.T) {
	ctx := context.Background()
	r := newRelay(t)
	kr := &memKeyring{}
	dir := t.TempDir()
	c, _, stop := openLoginCore(t, dir, kr)
	if _, err := c.Relay().Login(ctx, "http://"+r.addr, r.token); err != nil {
		t.Fatal(err)
	}
	stop()

	locked := scouts.Errorf(scouts.EUnavailable, "the Secret Service keyring is locked: unlock it")
	kr.fail(locked)
	c, sub, _ := openLoginCore(t, dir, kr)
	ev := waitFor(t, sub, "offline while locked", relayState("offline", -1))
	if st := ev.Data.(relaylink.Status); !strings.Contains(st.Error, "keyring is locked: unlock it") {
		t.Fatalf("status while the keyring is locked: %+v", st)
	}
	if _, err := c.Relay().Logout(ctx); scouts.ErrorCode(err) != scouts.EUnavailable {
		t.Fatalf("logout with a locked keyring: %v", err)
	}
	kr.fail(nil)
	c.Relay().Sync()
	waitFor(t, sub, "online once unlocked", relayState("online", -1))
}

// Sequences are per account: logging in to another account starts its
// stream from the beginning instead of acknowledging what this desktop
// never received; the same account again keeps the cursor.
func TestRelayLoginToAnotherAccountResetsTheCursor(t *testing.T) {
	ctx := context.Background()
	r := newRelay(t)
	kr := &memKeyring{}
	c, _, _ := openLoginCore(t, t.TempDir(), kr)
	if _, err := c.Relay().Login(ctx, "http://"+r.addr, r.token); err != nil {
		t.Fatal(err)
	}
	if err := c.DB.AdvanceSyncSeq(ctx, "relay_seq", 500); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Relay().Login(ctx, "http://"+r.addr, r.token); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.DB.SyncSeq(ctx, "relay_seq"); n != 500 {
		t.Fatalf("cursor after logging in to the same account again: %d, want 500", n)
	}
	if _, err := r.db.AddUser(ctx, "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	_, bobToken, err := r.db.AddDevice(ctx, "bob@example.com", "laptop")
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Relay().Login(ctx, "http://"+r.addr, bobToken)
	if err != nil {
		t.Fatal(err)
	}
	if st.UserEmail != "bob@example.com" || st.LastSeq != 0 {
		t.Fatalf("status after logging in as another user: %+v", st)
	}
}

// The relay's address is scheme, host and port: anything else is refused
// with the reason, not guessed at.
func TestNormalizeRelayURL(t *testing.T) {
	good := map[string]string{
		"https://relay.example.com":       "https://relay.example.com",
		"https://Relay.Example.com/":      "https://relay.example.com",
		" http://127.0.0.1:8080 ":         "http://127.0.0.1:8080",
		"HTTPS://relay.example.com:8443/": "https://relay.example.com:8443",
		"http://[::1]:9000":               "http://[::1]:9000",
		"https://relay.example.com\n":     "https://relay.example.com", // a pasted line
	}
	for in, want := range good {
		got, err := relaylink.NormalizeURL(in)
		if err != nil || got != want {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                                  "https://",
		"relay.example.com":                 "https://",
		"ftp://relay.example.com":           "https://",
		"wss://relay.example.com":           "https://",
		"https://":                          "no host",
		"https://:8080":                     "no host",
		"https://ann:pw@relay.example.com":  "user name",
		"https://relay.example.com/api":     "path",
		"https://relay.example.com/../x":    "path",
		"https://relay.example.com/%2e%2e/": "path",
		"https://relay.example.com//":       "path",
		"https://relay.example.com?x=1":     "query",
		"https://relay.example.com/#frag":   "fragment",
		"https://relay.example.com:port":    "not a URL",
		"https://relay example.com":         "not a URL",
	}
	for in, why := range bad {
		got, err := relaylink.NormalizeURL(in)
		if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), why) {
			t.Errorf("NormalizeURL(%q) = %q, %v; want an error saying %q", in, got, err, why)
		}
	}
}
