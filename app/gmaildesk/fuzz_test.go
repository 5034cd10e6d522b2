package gmaildesk

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/scouts"
)

// FuzzConfig: a Gmail scout's settings, as the local API and the
// database hand them in, never panic the parser; bad ones are an EInvalid
// error with a readable message; good ones are normalised (a known mode,
// a lower-case address), and what is stored (their JSON) parses back to
// the same settings.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		`{"email":"ann@example.com","mode":"local"}`,
		`{"email":" Ann@Example.COM ","mode":"relay-triage","auto_trash_spam":true,"inactivity_pause_days":30}`,
		`{"email":"ann@example.com","mode":"relay-ping","push_topic":"projects/p/topics/t"}`,
		`{"email":"ann@example.com","rules":[{"id":"shops","action":"deny","domains":["shop.example"]},{"id":"vip","action":"allow","senders":["boss@example.com"],"subject_words":["urgent"]}]}`,
		`{"email":"ann@example.com","rules":[{"id":"x","action":"ignore","list_ids":["<dev.lists.example.org>"]},{"id":"x","action":"deny","domains":["a.b"]}]}`,
		`{"email":"ann@example.com","baseline":{"history_id":"987600","at":"2026-11-22T09:30:00Z"}}`,
		`{"email":"ann@example.com","baseline":{"history_id":987600}}`,
		`{"email":"ann@example.com","baseline":null,"rules":null}`,
		`{"email":"ann@example.com","mode":"imap"}`, `{"email":"nobody"}`, `{"email":"ann@example.com","inactivity_pause_days":-1}`,
		`{"email":"ann@example.com","emial":"x"}`, `{}`, ``, `null`, `[]`, `"ann@example.com"`,
		`{"email":"ann@example.com"} {"email":"bob@example.com"}`, `{"email":"\u00c5NN@EXAMPLE.COM"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		g, err := ParseConfig(raw)
		if err != nil {
			if scouts.ErrorCode(err) != scouts.EInvalid || strings.TrimSpace(scouts.ErrorMessage(err)) == "" || !utf8.ValidString(err.Error()) {
				t.Fatalf("ParseConfig(%q) = %v; want EInvalid with a readable message", raw, err)
			}
			return
		}
		switch g.Mode {
		case Local, RelayPing, RelayTriage:
		default:
			t.Fatalf("ParseConfig(%q): mode %q", raw, g.Mode)
		}
		if !strings.Contains(g.Email, "@") || g.Email != strings.ToLower(strings.TrimSpace(g.Email)) {
			t.Fatalf("ParseConfig(%q): email %q is not normalised", raw, g.Email)
		}
		stored, err := json.Marshal(g)
		if err != nil {
			t.Fatalf("ParseConfig(%q) = %+v, which does not encode: %v", raw, g, err)
		}
		g2, err := ParseConfig(stored)
		if err != nil {
			t.Fatalf("the stored form %s of %q does not parse: %v", stored, raw, err)
		}
		if again, _ := json.Marshal(g2); !bytes.Equal(again, stored) {
			t.Fatalf("the stored form drifts: %s then %s", stored, again)
		}
	})
}
