package e2e

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
)

// oneClickReceiver is a list's RFC 8058 endpoint: it records each POST.
type oneClickReceiver struct {
	mu    sync.Mutex
	posts []string // "METHOD content-type body"
}

func (o *oneClickReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	o.mu.Lock()
	o.posts = append(o.posts, r.Method+" "+r.Header.Get("Content-Type")+" "+string(b))
	o.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (o *oneClickReceiver) got() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.posts)
}

// listMail is a mail of a mailing list with its List-Unsubscribe headers.
func listMail(list, from, unsub, post string, n int) []byte {
	hdr := "List-Id: Letters <" + list + ">\r\nList-Unsubscribe: " + unsub + "\r\n"
	if post != "" {
		hdr += "List-Unsubscribe-Post: " + post + "\r\n"
	}
	return []byte(fmt.Sprintf("From: %s\r\nTo: %s\r\n%sSubject: Issue %d of %s\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\nMessage-ID: <l-%d-%s>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThis week in %s, issue %d.\r\n",
		from, gmailUser, hdr, n, list, n, list, list, n))
}

// TestUnsubscribeOnceAcrossAKill: two lists the person keeps rejecting,
// unsubscribed from and screened in one request over the real binary
// (`scouts unsubscribe SCOUT list:A list:B`) — one by RFC 8058 one-click
// against a local HTTPS endpoint named in its List-Unsubscribe header
// (the agent trusts its certificate through SSL_CERT_FILE, as any
// program does), the other by mail to its mailto: address, sent through
// the fake Gmail. The agent is SIGKILLed while the first unsubscription
// is running (its read of the mail's headers held at the fake's door)
// and started again: the endpoint is POSTed once, with the RFC's body,
// and one mail goes to the list; asking again queues nothing; the next
// mail of each list is screened by the rule.
func TestUnsubscribeOnceAcrossAKill(t *testing.T) {
	ctx := context.Background()
	rcv := &oneClickReceiver{}
	ep := httptest.NewTLSServer(rcv)
	defer ep.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ep.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	w := startGmailWorld(t, "local", "")
	g := w.g
	oneClick := "<https://" + strings.TrimPrefix(ep.URL, "https://") + "/unsub?u=ann-7f3>, <mailto:leave@weekly.example>"
	mailto := "<mailto:leave@digest.example?subject=unsubscribe%20me>"
	deliver := func(raw []byte) string {
		t.Helper()
		id, _, err := g.gmail.Deliver(gmailUser, raw)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	var ids []string
	for i := range 3 {
		ids = append(ids, deliver(listMail("weekly.letters.example", "Weekly <news@weekly.example>", oneClick, "List-Unsubscribe=One-Click", i)))
	}
	for i := range 2 {
		ids = append(ids, deliver(listMail("digest.example", "Digest <digest@digest.example>", mailto, "", 10+i)))
	}
	ids = append(ids, deliver(personalMail(1, "unsubscribe")))
	cards := waitGmailSuggestions(t, w.a, w.a.events(t), w.scout, ids)
	// The person keeps rejecting the lists, and approves one of the other
	// mail.
	for _, c := range cards {
		if strings.HasPrefix(c.Title, "Issue ") {
			if _, err := w.a.client.Reject(ctx, c.ID); err != nil {
				t.Fatal(err)
			}
		}
	}

	out, errOut, code := runCLI(t, w.home, w.a.dataDir, "senders", w.scout, "--json")
	if code != 0 {
		t.Fatalf("scouts senders: %d %s", code, errOut)
	}
	var list apitype.SenderList
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Senders) < 3 || list.Senders[0].Key != "list:weekly.letters.example" {
		t.Fatalf("senders, most cards first: %s", out)
	}
	weekly := list.Senders[0]
	if weekly.Cards != 3 || weekly.Rejected != 3 || weekly.ApproveRate == nil || *weekly.ApproveRate != 0 || weekly.Unsubscribe != "one-click" ||
		weekly.LastApproval != nil || weekly.Screened != nil || weekly.Unsubscribed != nil {
		t.Fatalf("the weekly list: %+v", weekly)
	}
	if d := list.Senders[1]; d.Key != "list:digest.example" || d.Unsubscribe != "mailto" {
		t.Fatalf("the digest: %+v", d)
	}

	// Unsubscribe from both; the first unsubscription's read of its mail
	// waits at the fake's door, and the agent is killed there.
	release := g.gmail.Hold("messages.get")
	out, errOut, code = runCLI(t, w.home, w.a.dataDir, "unsubscribe", w.scout, "list:weekly.letters.example", "list:digest.example", "--json")
	if code != 0 {
		release()
		t.Fatalf("scouts unsubscribe: %d %s", code, errOut)
	}
	var res apitype.UnsubscribeResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Outcomes) != 2 || !res.Outcomes[0].Queued || !res.Outcomes[1].Queued || res.Outcomes[0].Rule == nil || res.Outcomes[1].Rule == nil {
		release()
		t.Fatalf("unsubscribe and screen: %s", out)
	}
	waitOn(t, on(g.gmail.Next), "the unsubscription to read its mail", func() bool { return g.gmail.Waiting("messages.get") > 0 })
	a := w.a
	a.kill()
	release()
	if n := len(rcv.got()); n != 0 {
		t.Fatalf("%d POSTs before the kill, want none (its read was held)", n)
	}

	w.a = startAgentEnv(t, a.dataDir, w.home, append(slices.Clone(w.env), "SSL_CERT_FILE="+caFile), w.flags...)
	a = w.a
	var senders apitype.SenderList
	waitOn(t, on(a.changed()), "both unsubscriptions to be done", func() bool {
		var err error
		senders, err = a.client.Senders(ctx, w.scout)
		if err != nil {
			return false
		}
		done := 0
		for _, s := range senders.Senders {
			if u := s.Unsubscribed; u != nil && u.State == "done" {
				done++
			}
		}
		return done == 2
	}, func() string { b, _ := json.Marshal(senders); return string(b) })
	if got := rcv.got(); len(got) != 1 || got[0] != "POST application/x-www-form-urlencoded List-Unsubscribe=One-Click" {
		t.Fatalf("the list's endpoint got %q, want one one-click POST", got)
	}
	sent := g.gmail.Sent(gmailUser)
	if len(sent) != 1 {
		t.Fatalf("%d mails sent, want one to the digest's unsubscribe address", len(sent))
	}
	m, err := mailtext.Parse(sent[0], mailtext.Options{})
	if err != nil || len(m.To) != 1 || m.To[0].Addr != "leave@digest.example" || m.Subject != "unsubscribe me" {
		t.Fatalf("the unsubscribe mail: to %v subject %q (%v)", m.To, m.Subject, err)
	}
	for _, s := range senders.Senders[:2] {
		if s.Screened == nil || s.Screened.Choice != "screen" || s.Pending != 0 {
			t.Fatalf("%s after unsubscribe and screen: %+v", s.Key, s)
		}
	}
	// The trail of the killed attempt says it ran again.
	weeklyRun := senders.Senders[0].Unsubscribed
	card, err := a.client.Suggestion(ctx, weeklyRun.SuggestionID)
	if err != nil {
		t.Fatal(err)
	}
	trail, err := a.client.Audit(ctx, card.TraceID)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range trail {
		types = append(types, e.Type)
	}
	if !slices.Contains(types, "action.interrupted") || !slices.Contains(types, "action.done") {
		t.Fatalf("the trail of %s: %v", card.ID, types)
	}

	// Asking again changes nothing.
	again, err := a.client.Unsubscribe(ctx, w.scout, []string{"list:weekly.letters.example"})
	if err != nil || len(again.Outcomes) != 1 || again.Outcomes[0].Queued || !again.Outcomes[0].AlreadyScreened {
		t.Fatalf("unsubscribing again: %+v, %v", again, err)
	}

	// The lists' next mail is screened.
	next := []string{
		deliver(listMail("weekly.letters.example", "Weekly <news@weekly.example>", oneClick, "List-Unsubscribe=One-Click", 3)),
		deliver(listMail("digest.example", "Digest <digest@digest.example>", mailto, "", 12)),
	}
	for _, c := range waitGmailSuggestions(t, a, a.events(t), w.scout, append(ids, next...)) {
		if !slices.Contains(next, c.SourceRef) {
			continue
		}
		if c.Lane != "screened" || c.Screener == nil || !strings.HasPrefix(c.Screener.Why, "you screened this list on ") {
			t.Fatalf("the next mail %q: %s in %s, screener %+v", c.Title, c.Status, c.Lane, c.Screener)
		}
	}
	if got := rcv.got(); len(got) != 1 {
		t.Fatalf("the endpoint got %d POSTs in the end, want 1", len(got))
	}
	if n := len(g.gmail.Sent(gmailUser)); n != 1 {
		t.Fatalf("%d unsubscribe mails in the end, want 1", n)
	}
}
