package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"golang.org/x/oauth2"
	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// start runs the command until the test ends and returns its base URL.
func start(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, args, pw, io.Discard)
		pw.CloseWithError(errors.New("command exited"))
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the first line: %v", err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	// Keep draining so that later writes never block the command.
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return url
}

func admin(t *testing.T, method, url string, body string, out any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("%s %s: %s %s", method, url, res.Status, b)
	}
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCommand(t *testing.T) {
	const ann, bob = "ann@example.com", "bob@example.com"
	base := start(t, "--mailbox", ann, "--mailbox", bob, "--pubsub-emulator", "")

	var d struct{ ID, HistoryID string }
	admin(t, "POST", base+"/_fake/deliver?email="+ann, "Subject: hi\r\n\r\nHello.\r\n", &d)
	if d.ID == "" || d.HistoryID == "" {
		t.Fatalf("deliver answered %+v", d)
	}

	svc, err := gmail.NewService(context.Background(), option.WithEndpoint(base+"/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "fake-token-for:" + ann})))
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Users.Messages.Get("me", d.ID).Do()
	if err != nil || m.Snippet != "Hello." {
		t.Fatalf("get: %+v %v", m, err)
	}

	admin(t, "POST", base+"/_fake/fail?email="+ann+"&method=messages.get&status=429&times=1&retryAfter=7", "", nil)
	_, err = svc.Users.Messages.Get("me", d.ID).Do()
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != 429 || ge.Header.Get("Retry-After") != "7" {
		t.Fatalf("injected fault: %v", err)
	}

	var q struct {
		Units int
		Calls map[string]int
	}
	admin(t, "GET", base+"/_fake/quota?email="+ann, "", &q)
	if q.Units != 5 || q.Calls["messages.get"] != 2 {
		t.Errorf("quota %+v", q)
	}
	var labels struct{ LabelIDs []string }
	admin(t, "GET", base+"/_fake/message?email="+ann+"&id="+d.ID, "", &labels)
	if strings.Join(labels.LabelIDs, ",") != "INBOX,UNREAD" {
		t.Errorf("labels %v", labels.LabelIDs)
	}

	admin(t, "POST", base+"/_fake/revoke?email="+ann, "", nil)
	if _, err := svc.Users.GetProfile("me").Do(); !errors.As(err, &ge) || ge.Code != 401 {
		t.Errorf("after revoke: %v", err)
	}
}

func TestFlags(t *testing.T) {
	c, err := parseFlags([]string{"--corpus", "--limit", "20"}, io.Discard)
	if err != nil || !c.corpus || c.limit != 20 || c.listen != "127.0.0.1:0" || len(c.mailboxes) != 1 {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := parseFlags([]string{"extra"}, io.Discard); err == nil {
		t.Error("a stray argument was accepted")
	}
}

// With --oauth the fake is Google's OAuth too: a token from its
// authorization-code flow reads the mailbox, a made-up one does not; the
// admin API tells by name what a client did to a message.
func TestOAuthAndModifications(t *testing.T) {
	const ann = "ann@example.com"
	ctx := context.Background()
	base := start(t, "--oauth", "--mailbox", ann)
	ep := oauthfake.EndpointsAt(base + "/oauth")
	conf := &oauth2.Config{ClientID: oauthfake.DefaultClientID, ClientSecret: oauthfake.DefaultClientSecret,
		Endpoint: oauth2.Endpoint{AuthURL: ep.Auth, TokenURL: ep.Token}, RedirectURL: "http://127.0.0.1:1/callback",
		Scopes: []string{gmail.GmailModifyScope}}
	verifier := oauth2.GenerateVerifier()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(conf.AuthCodeURL("st", oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier)))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("consent answered %s, to %q", res.Status, res.Header.Get("Location"))
	}
	tok, err := conf.Exchange(ctx, loc.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := gmail.NewService(ctx, option.WithEndpoint(base+"/"), option.WithTokenSource(conf.TokenSource(ctx, tok)))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := svc.Users.GetProfile("me").Do(); err != nil || p.EmailAddress != ann {
		t.Fatalf("profile with the OAuth token: %+v %v", p, err)
	}
	forged, err := gmail.NewService(ctx, option.WithEndpoint(base+"/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "fake-token-for:" + ann})))
	if err != nil {
		t.Fatal(err)
	}
	var ge *googleapi.Error
	if _, err := forged.Users.GetProfile("me").Do(); !errors.As(err, &ge) || ge.Code != 401 {
		t.Fatalf("a token the OAuth fake never issued: %v", err)
	}

	var d struct{ ID string }
	admin(t, "POST", base+"/_fake/deliver?email="+ann, "Subject: hi\r\n\r\nHello.\r\n", &d)
	label, err := svc.Users.Labels.Create("me", &gmail.Label{Name: "Scouts"}).Do()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second changes nothing: counted as a call only
		req := &gmail.ModifyMessageRequest{AddLabelIds: []string{label.Id}, RemoveLabelIds: []string{"INBOX"}}
		if _, err := svc.Users.Messages.Modify("me", d.ID, req).Do(); err != nil {
			t.Fatal(err)
		}
	}
	var mods struct {
		Calls          int
		Added, Removed map[string]int
	}
	admin(t, "GET", base+"/_fake/modifications?email="+ann+"&id="+d.ID, "", &mods)
	if mods.Calls != 2 || mods.Added["Scouts"] != 1 || len(mods.Added) != 1 || mods.Removed["INBOX"] != 1 || len(mods.Removed) != 1 {
		t.Errorf("modifications %+v", mods)
	}
	var m struct{ LabelIDs, Labels []string }
	admin(t, "GET", base+"/_fake/message?email="+ann+"&id="+d.ID, "", &m)
	if strings.Join(m.Labels, ",") != "UNREAD,Scouts" || strings.Join(m.LabelIDs, ",") != "UNREAD,"+label.Id {
		t.Errorf("message %+v", m)
	}
}
