package triage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plain is an ordinary personal mail that no heuristic objects to.
func plain() Message {
	return Message{
		From:    Address{Name: "Ann Lee", Addr: "ann@example.com"},
		To:      []Address{{Name: "You", Addr: "you@example.org"}},
		Subject: "Lunch on Friday?",
		Body:    "Are you free?",
	}
}

func decide(t *testing.T, m Message) Decision {
	t.Helper()
	p, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Triage(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestHeuristics(t *testing.T) {
	const gmailPass = "mx.google.com; dkim=pass header.i=@example.com; spf=pass smtp.mailfrom=example.com; dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=example.com"
	cases := []struct {
		name    string
		edit    func(*Message)
		path    string
		verdict Verdict
	}{
		{"nothing to say", func(m *Message) {}, "default", Relevant},
		{"gmail spam label", func(m *Message) { m.Labels = []string{"INBOX", "SPAM"} }, "heuristic:label-spam", Spam},
		{"trash label", func(m *Message) { m.Labels = []string{"TRASH"} }, "heuristic:label-trash", Skip},
		{"promotions label", func(m *Message) { m.Labels = []string{"category_promotions"} }, "heuristic:label-promotions", Skip},
		{"other categories decide nothing", func(m *Message) { m.Labels = []string{"CATEGORY_UPDATES", "CATEGORY_FORUMS", "CATEGORY_SOCIAL"} }, "default", Relevant},
		{"auth all pass", func(m *Message) { m.AuthResults = []string{gmailPass} }, "default", Relevant},
		{"dmarc fail, reject policy", func(m *Message) {
			m.AuthResults = []string{"mx.google.com; dkim=fail; spf=softfail; dmarc=fail (p=REJECT sp=REJECT dis=QUARANTINE) header.from=bank.example"}
		}, "heuristic:auth-fail", Spam},
		{"dmarc fail, quarantine via property", func(m *Message) {
			m.AuthResults = []string{"mx.example.net; dmarc=fail policy.dmarc=quarantine header.from=bank.example"}
		}, "heuristic:auth-fail", Spam},
		{"dmarc fail under p=none (a mailing list) is not spam", func(m *Message) {
			m.AuthResults = []string{"mx.google.com; dkim=fail header.i=@example.com; spf=pass smtp.mailfrom=lists.example.org; dmarc=fail (p=NONE sp=NONE dis=NONE) header.from=example.com"}
		}, "default", Relevant},
		{"spf hard fail, no dkim", func(m *Message) {
			m.AuthResults = []string{"mx.google.com; spf=fail (google.com: domain of x@example.com does not designate 6.6.6.6 as permitted sender) smtp.mailfrom=x@example.com"}
		}, "heuristic:auth-fail", Spam},
		{"spf fail but dkim pass (forwarded mail)", func(m *Message) {
			m.AuthResults = []string{"mx.google.com; dkim=pass header.i=@example.com; spf=fail smtp.mailfrom=x@example.com"}
		}, "default", Relevant},
		{"spf softfail alone", func(m *Message) { m.AuthResults = []string{"mx.google.com; spf=softfail smtp.mailfrom=x@example.com"} }, "default", Relevant},
		{"only the topmost header counts", func(m *Message) {
			m.AuthResults = []string{gmailPass, "forged.example; spf=fail; dmarc=fail (p=REJECT)"}
		}, "default", Relevant},
		{"auto-replied", func(m *Message) { m.AutoSubmitted = "auto-replied" }, "heuristic:auto-reply", Skip},
		{"auto-replied with parameters", func(m *Message) { m.AutoSubmitted = "Auto-Replied; owner=x" }, "heuristic:auto-reply", Skip},
		{"auto-generated is not skipped", func(m *Message) { m.AutoSubmitted = "auto-generated" }, "default", Relevant},
		{"precedence junk", func(m *Message) { m.Precedence = "JUNK" }, "heuristic:precedence-junk", Skip},
		{"precedence bulk alone decides nothing", func(m *Message) { m.Precedence = "bulk" }, "default", Relevant},
		{"precedence list alone decides nothing", func(m *Message) { m.Precedence = "list" }, "default", Relevant},
		{"list headers decide nothing", func(m *Message) {
			m.ListID, m.ListUnsubscribe, m.Precedence = "<dev.example.org>", "<mailto:leave@example.org>", "bulk"
		}, "default", Relevant},
		{"no-reply alone decides nothing", func(m *Message) { m.From.Addr = "no-reply@shop.example" }, "default", Relevant},
		{"no-reply + unsubscribe, not a list", func(m *Message) {
			m.From.Addr, m.ListUnsubscribe = "noreply@shop.example", "<https://shop.example/u>"
		}, "heuristic:automated-bulk", Skip},
		{"no-reply + precedence bulk", func(m *Message) { m.From.Addr, m.Precedence = "do_not_reply@shop.example", "bulk" }, "heuristic:automated-bulk", Skip},
		{"no-reply on a discussion list", func(m *Message) {
			m.From.Addr, m.ListUnsubscribe, m.ListID = "noreply@github.com", "<mailto:u@github.com>", "<repo.owner.github.com>"
		}, "default", Relevant},
		{"one weak sign: shouting", func(m *Message) { m.Subject = "PLEASE READ THIS NOW" }, "default", Relevant},
		{"one weak sign: undisclosed", func(m *Message) { m.To = nil }, "default", Relevant},
		{"two weak signs", func(m *Message) { m.Subject, m.To = "FREE MONEY WAITING FOR YOU", []Address{} }, "heuristic:suspicious-headers", Spam},
		{"display name spoof + bad date", func(m *Message) {
			m.From, m.DateInvalid = Address{Name: "service@paypal.com", Addr: "x@evil.example"}, true
		}, "heuristic:suspicious-headers", Spam},
		{"invalid sender + many recipients", func(m *Message) {
			m.From = Address{Name: "friend@"}
			m.To = nil
			for _, d := range []string{"a.com", "b.net", "c.org", "d.de", "e.fr", "f.it", "g.es", "h.nl", "i.be", "j.ch"} {
				m.To = append(m.To, Address{Addr: "someone@" + d})
			}
		}, "heuristic:suspicious-headers", Spam},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := plain()
			c.edit(&m)
			d := decide(t, m)
			if d.Path != c.path || d.Verdict != c.verdict {
				t.Fatalf("got %s %s (%q), want %s %s", d.Path, d.Verdict, d.Reason, c.path, c.verdict)
			}
			if d.Reason == "" || d.Confidence <= 0 || d.Confidence > 1 {
				t.Fatalf("decision without reason or with confidence %v: %+v", d.Confidence, d)
			}
		})
	}
}

// Heuristics are content-free: the body never changes a decision.
func TestHeuristicsIgnoreTheBody(t *testing.T) {
	for _, h := range DefaultHeuristics() {
		for _, base := range []Message{plain(), {Subject: "FREE!!!", Labels: []string{"SPAM"}}, {From: Address{Addr: "noreply@x.example"}, Precedence: "bulk"}} {
			a, b := base, base
			a.Body, b.Body = "", "viagra lottery winner wire transfer FREE MONEY click here"
			da, oka := h.Check(&a)
			db, okb := h.Check(&b)
			if oka != okb || da != db {
				t.Errorf("%s: the body changed the answer", h.Name)
			}
		}
	}
}

// Every heuristic is documented and named for its path.
func TestHeuristicsDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, h := range DefaultHeuristics() {
		if h.Name == "" || strings.ContainsAny(h.Name, " :()") || seen[h.Name] {
			t.Errorf("bad or duplicate heuristic name %q", h.Name)
		}
		seen[h.Name] = true
		if len(h.Why) < 80 || h.Check == nil {
			t.Errorf("heuristic %s: documentation too short or no check", h.Name)
		}
	}
}

func TestWeakSigns(t *testing.T) {
	names := func(m Message) string {
		var out []string
		for _, s := range WeakSigns(&m) {
			out = append(out, s.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(plain()); got != "" {
		t.Errorf("plain mail shows %s", got)
	}
	m := plain()
	m.To = []Address{{Name: "Undisclosed recipients"}}
	if got := names(m); got != "undisclosed-recipients" {
		t.Errorf("recipient without address: %s", got)
	}
	m = plain()
	m.To, m.Cc = nil, []Address{{Addr: "you@example.org"}}
	if got := names(m); got != "" {
		t.Errorf("Cc only: %s", got)
	}
	m = plain()
	m.From = Address{Addr: "root@localhost"}
	if got := names(m); got != "sender-invalid" {
		t.Errorf("dotless domain: %s", got)
	}
}

func TestShouting(t *testing.T) {
	for s, want := range map[string]bool{
		"Lunch on Friday?":             false,
		"FYI":                          false, // too short to shout
		"URGENT BUSINESS PROPOSAL":     true,
		"Re: URGENT business proposal": false,
		"Wow!!! Look":                  true,
		"ПРИВЕТ ВСЕМ ДРУЗЬЯМ":          true,
		"电话优惠":                         false, // no case: never shouting
		"":                             false,
	} {
		if got := Shouting(s); got != want {
			t.Errorf("Shouting(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestDisplayNameMismatch(t *testing.T) {
	for _, c := range []struct {
		a    Address
		want bool
	}{
		{Address{Name: "service@paypal.com", Addr: "x@evil.example"}, true},
		{Address{Name: "PayPal <service@paypal.com>", Addr: "x@evil.example"}, true},
		{Address{Name: "ann@example.com", Addr: "ann@example.com"}, false},
		{Address{Name: "ann@mail.example.com", Addr: "ann@example.com"}, false}, // same organisation
		{Address{Name: "Ann Lee", Addr: "ann@example.com"}, false},
		{Address{Name: "a@", Addr: "ann@example.com"}, false},
		{Address{Name: "x@y.com"}, false}, // no real address: sender-invalid covers it
	} {
		if got := nameIsOtherAddress(c.a); got != c.want {
			t.Errorf("nameIsOtherAddress(%+v) = %v, want %v", c.a, got, c.want)
		}
	}
}

func TestIsNoReply(t *testing.T) {
	for addr, want := range map[string]bool{
		"no-reply@x.com": true, "noreply+abc@x.com": true, "do-not-reply@x.com": true, "DoNotReply@x.com": true,
		"no.reply@x.com": true, "mailer-daemon@x.com": true, "notifications@github.com": false, "nora@x.com": false,
		"": false,
	} {
		if got := IsNoReply(Address{Addr: addr}); got != want {
			t.Errorf("IsNoReply(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestParseAuthResults(t *testing.T) {
	v := "mx.google.com;\r\n dkim=pass header.i=@example.com header.s=s1 header.b=\"abc;def\";\r\n" +
		" spf=pass (google.com: domain of x@example.com designates 1.2.3.4 as permitted sender; yes) smtp.mailfrom=x@example.com;\r\n" +
		" dmarc=fail (p=QUARANTINE sp=NONE dis=NONE) header.from=example.com; arc/1=none"
	ar := ParseAuthResults(v)
	if ar.ServID != "mx.google.com" || len(ar.Results) != 4 {
		t.Fatalf("got %+v", ar)
	}
	if !ar.Has("dkim", "pass") || !ar.Has("spf", "pass") || !ar.Has("dmarc", "fail") || !ar.Has("arc", "none") {
		t.Fatalf("results %+v", ar.Results)
	}
	if p, d := ar.DMARCPolicy(); p != "quarantine" || d != "none" {
		t.Fatalf("DMARCPolicy = %q %q", p, d)
	}
	if ar := ParseAuthResults("example.net 1; none"); ar.ServID != "example.net" || len(ar.Results) != 0 {
		t.Fatalf("none: %+v", ar)
	}
	if ar := ParseAuthResults(""); ar.ServID != "" || len(ar.Results) != 0 {
		t.Fatalf("empty: %+v", ar)
	}
}

// Printing or logging a Message never shows its subject or body.
func TestMessageIsDiscreet(t *testing.T) {
	m := Message{ID: "m1", From: Address{Addr: "a@example.com"}, Subject: "secret subject", Body: "secret body"}
	for _, s := range []string{m.String(), m.GoString(), m.LogValue().String()} {
		if strings.Contains(s, "secret") {
			t.Errorf("leaks content: %s", s)
		}
	}
}

// docs/triage.md documents every heuristic and every weak sign by name.
func TestHeuristicsInDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "triage.md"))
	if err != nil {
		t.Fatalf("docs/triage.md: %v", err)
	}
	for _, h := range DefaultHeuristics() {
		if !strings.Contains(string(doc), "### `heuristic:"+h.Name+"`") {
			t.Errorf("docs/triage.md has no section for heuristic:%s", h.Name)
		}
	}
	m := Message{Subject: "AAAAAAAAAAAA!!!", From: Address{Name: "a@b.example", Addr: "x@y"}, DateInvalid: true}
	for i := 0; i < 10; i++ {
		m.To = append(m.To, Address{Addr: fmt.Sprintf("u@d%d.example%d", i, i)})
	}
	signs := WeakSigns(&m)
	m.To = nil
	signs = append(signs, WeakSigns(&m)...)
	kinds := map[string]bool{}
	for _, s := range signs {
		kinds[s.Name] = true
	}
	if len(kinds) != 6 {
		t.Fatalf("the crafted mails show %d kinds of sign, want all six: %v", len(kinds), kinds)
	}
	for _, s := range signs {
		if !strings.Contains(string(doc), "`"+s.Name+"`") {
			t.Errorf("docs/triage.md does not describe the weak sign %s", s.Name)
		}
	}
}
