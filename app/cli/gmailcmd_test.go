package cli

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/agent"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
	"github.com/scouts-hq/scouts/app/secrets"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
)

// gmailAgent starts an agent whose Google is the fakes, on a machine
// where no browser opens (the person opens the printed link).
func gmailAgent(t *testing.T, g *gmailtest.Google) string {
	ep := g.Endpoints()
	return startAgentWith(t, agent.Config{Gmail: &agent.GmailConfig{
		ClientID: oauthfake.DefaultClientID, ClientSecret: oauthfake.DefaultClientSecret,
		AuthURL: ep.Auth, TokenURL: ep.Token, RevokeURL: ep.Revoke, APIURL: g.GmailURL, Keyring: secrets.BackendFile,
		Getenv: func(k string) string {
			if k == secrets.EnvPassphrase {
				return "a long random test passphrase"
			}
			return ""
		},
		OpenBrowser: func(string) error { return nil },
	}})
}

// `scouts gmail connect` is the tray's "Connect Gmail…" from a terminal:
// it prints the sign-in link (no browser opened here), waits for the
// sign-in, and says which account was connected and which scout it got.
func TestGmailConnectFromTheCommandLine(t *testing.T) {
	g := gmailtest.NewGoogle(t)
	dir := gmailAgent(t, g)
	out, _, code := cli(t, dir, "gmail")
	if code != 0 || !strings.Contains(out, "No Gmail account connected. Connect one with: scouts gmail connect") {
		t.Fatalf("gmail accounts before: exit %d\n%s", code, out)
	}

	pr, pw := io.Pipe()
	var errOut strings.Builder
	done := make(chan int, 1)
	go func() {
		code := Main([]string{"gmail", "connect", "--data", dir}, Env{Stdout: pw, Stderr: &errOut, Version: "test"})
		pw.Close()
		done <- code
	}()
	var printed strings.Builder
	sc := bufio.NewScanner(pr)
	link := ""
	for sc.Scan() {
		line := sc.Text()
		printed.WriteString(line + "\n")
		if u, ok := strings.CutPrefix(line, "  "); ok && strings.HasPrefix(u, "http") && link == "" {
			link = u
			// The person opens the link in a browser and consents.
			go func() {
				if _, err := g.OAuth.Consent(context.Background(), link); err != nil {
					t.Errorf("consent: %v", err)
				}
			}()
		}
	}
	if code := <-done; code != 0 || link == "" {
		t.Fatalf("gmail connect: exit %d, link %q\n%s%s", code, link, printed.String(), errOut.String())
	}
	text := printed.String()
	for _, want := range []string{"If none opened, open this link", "forward that port first (ssh -L ",
		"Connected " + gmailtest.Account + ". Added Gmail scout sc_", "local mode"} {
		if !strings.Contains(text, want) {
			t.Errorf("gmail connect said no %q:\n%s", want, text)
		}
	}
	out, _, _ = cli(t, dir, "gmail", "accounts")
	if !strings.Contains(out, gmailtest.Account) {
		t.Errorf("gmail accounts after:\n%s", out)
	}
	out, _, _ = cli(t, dir, "scouts")
	if !strings.Contains(out, "gmail") {
		t.Errorf("no Gmail scout:\n%s", out)
	}
}
