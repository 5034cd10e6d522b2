package e2e

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/secrets"
)

const keyringPass = "e2e relay keyring passphrase"

// runCLIStdin is runCLI with standard input.
func runCLIStdin(t *testing.T, home, dataDir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(scoutsBinary(t), append(args, "--data", dataDir)...)
	cmd.Env = testEnv(home)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// keyringToken reads the relay's device token from the agent's file
// keyring as the agent does; "" when there is none.
func keyringToken(t *testing.T, dataDir string) string {
	t.Helper()
	kr, err := secrets.Open(secrets.Options{Backend: secrets.BackendFile, FileDir: filepath.Join(dataDir, "keyring"),
		Passphrase: func() (string, error) { return keyringPass, nil }})
	if err != nil {
		t.Fatal(err)
	}
	b, err := kr.Get("relay:device-token")
	if errors.Is(err, secrets.ErrNotFound) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertNowhere fails if token appears in plain text in any file under
// dir (the database and its WAL, the log, the keyring's encrypted files).
func assertNowhere(t *testing.T, dir, token string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(token)) {
			t.Errorf("%s holds the device token in plain text", p)
		}
		return nil
	})
}

func rawGet(t *testing.T, a *agentProc, path string) string {
	t.Helper()
	tok, _ := os.ReadFile(filepath.Join(a.dataDir, "local-api.token"))
	req, _ := http.NewRequest("GET", a.baseURL+path, nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// loginHint returns the command scouts-relay device add tells the user to
// run on the desktop, with its placeholders filled in, and the token.
func loginHint(t *testing.T, out, relayURL string) ([]string, string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	token := strings.TrimSpace(lines[len(lines)-1])
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 5 && f[0] == "scouts" && f[1] == "relay" {
			args := f[1:]
			for i, a := range args {
				args[i] = strings.NewReplacer("RELAY_URL", relayURL, "TOKEN", token).Replace(a)
			}
			return args, token
		}
	}
	t.Fatalf("device add printed no `scouts relay …` line:\n%s", out)
	return nil, ""
}

// The command device add prints works as printed: a wrong token is
// refused with nothing saved; a good one lands in the keyring only (not
// the database, the log or any answer) and the agent goes online, again
// after a restart; logout deletes it and disconnects; and the token can
// come on standard input, out of the shell's history.
func TestRelayLoginAsDeviceAddSays(t *testing.T) {
	home, data := t.TempDir(), t.TempDir()
	dsn := filepath.Join(t.TempDir(), "relay.db")
	relay := startRelay(t, dsn, "")
	relayAdmin(t, dsn, "user", "add", "ann@example.com")
	hint, token := loginHint(t, relayAdmin(t, dsn, "device", "add", "ann@example.com", "--name", "laptop"), relay.url)
	env := []string{"SCOUTS_KEYRING_PASSPHRASE=" + keyringPass}
	a := startAgentEnv(t, data, home, env, "--keyring", "file")
	events := a.events(t)

	_, stderr, code := runCLI(t, home, data, "relay", "login", relay.url, "sdt_"+strings.Repeat("x", 43))
	if code != 1 || !strings.Contains(stderr, "does not know this device token") || !strings.Contains(stderr, "nothing was saved") {
		t.Fatalf("login with a wrong token: exit %d, %s", code, stderr)
	}
	if got := keyringToken(t, data); got != "" {
		t.Fatal("a refused login left a token in the keyring")
	}
	if out, _, _ := runCLI(t, home, data, "relay", "status"); !strings.Contains(out, "Not logged in to a relay") {
		t.Fatalf("relay status after a refused login:\n%s", out)
	}

	out, stderr, code := runCLI(t, home, data, hint...)
	if code != 0 || !strings.Contains(out, "Logged in to "+relay.url+" as device dv_") {
		t.Fatalf("scouts %s: exit %d\n%s%s", strings.Join(hint[:2], " "), code, out, stderr)
	}
	waitState(t, events, "online after login", online)
	if got := keyringToken(t, data); got != token {
		t.Fatal("the device token is not in the keyring")
	}
	for _, p := range []string{"/api/v1/status", "/api/v1/relay", "/api/v1/settings"} {
		if body := rawGet(t, a, p); strings.Contains(body, token) {
			t.Fatalf("GET %s answers the token", p)
		}
	}
	if strings.Contains(out, token) {
		t.Fatal("login printed the token back")
	}
	if out, _, _ := runCLI(t, home, data, "relay", "status"); !strings.Contains(out, relay.url) || !strings.Contains(out, "online") ||
		!strings.Contains(out, "ann@example.com") {
		t.Fatalf("relay status:\n%s", out)
	}

	// A restart connects from the keyring, without any flag.
	a.stop()
	if strings.Contains(a.stderr.String(), token) {
		t.Fatal("the agent logged the token")
	}
	a = startAgentEnv(t, data, home, env, "--keyring", "file")
	waitState(t, a.events(t), "online after a restart", online)

	events = a.events(t)
	out, stderr, code = runCLI(t, home, data, "relay", "logout")
	if code != 0 || !strings.Contains(out, "Logged out of "+relay.url+": the device token was deleted from the keyring and the agent disconnected") {
		t.Fatalf("logout: exit %d\n%s%s", code, out, stderr)
	}
	waitState(t, events, "no relay after logout", func(st apitype.RelayStatus) bool { return st.State == "none" })
	if got := keyringToken(t, data); got != "" {
		t.Fatal("logout left the token in the keyring")
	}
	if st, err := a.client.Status(t.Context()); err != nil || st.Relay != nil {
		t.Fatalf("status after logout: %+v %v", st.Relay, err)
	}

	// The token on standard input never appears in the command line.
	out, stderr, code = runCLIStdin(t, home, data, token+"\n", "relay", "login", relay.url, "-")
	if code != 0 || !strings.Contains(out, "Logged in to "+relay.url) {
		t.Fatalf("login with the token on stdin: exit %d\n%s%s", code, out, stderr)
	}
	waitState(t, events, "online after login from stdin", online)
	a.stop()
	if strings.Contains(a.stderr.String(), token) {
		t.Fatal("the agent logged the token")
	}
	assertNowhere(t, data, token)
}
