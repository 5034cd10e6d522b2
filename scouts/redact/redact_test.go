package redact_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/redact"
)

func TestStringRedactsCredentialShapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Authorization: Bearer abc.DEF-123_xyz", "Authorization: Bearer [redacted]"},
		{`curl -H "Authorization: token 0123456789abcdef"`, `curl -H "Authorization: token [redacted]"`},
		{"Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789", "Authorization: Bearer [redacted]"},
		{"sent with bearer abcdef0123456789 to the hook", "sent with bearer [redacted] to the hook"},
		{"post to https://bob:hunter2@hooks.example.com/x failed", "post to https://[redacted]@hooks.example.com/x failed"},
		{"https://hooks.example.com/x?token=s3cr3t&page=2#top", "https://hooks.example.com/x?token=[redacted]&page=2#top"},
		{"GET /v1?api_key=AAAA1111&q=cats", "GET /v1?api_key=[redacted]&q=cats"},
		{"https://s3.example.com/o?X-Amz-Credential=AK%2F1&X-Amz-Signature=ab12cd34", "https://s3.example.com/o?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]"},
		{"https://maps.example.com/api?key=abc123&sig=zz9", "https://maps.example.com/api?key=[redacted]&sig=[redacted]"},
		{"config: password=hunter2 user=bob", "config: password=[redacted] user=bob"},
		{`{"client_secret": "abcdef", "name": "x"}`, `{"client_secret": "[redacted]", "name": "x"}`},
		{"key sk-proj-abcdefghijklmnopqrstuvwxyz012345 leaked", "key [redacted] leaked"},
		{"ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[redacted]"},
		{"id AKIAIOSFODNN7EXAMPLE ok", "id [redacted] ok"},
		{"slack xoxb-1234567890-abcdefghij", "slack [redacted]"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end", "jwt [redacted] end"},
		{"AIzaSyA-1234567890abcdefghijklmnopqrstu", "[redacted]"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nafter", "[redacted]\nafter"},
		// Ordinary words stay.
		{"the bearer of bad news", "the bearer of bad news"},
		{"used 1200 tokens; max_tokens=4000", "used 1200 tokens; max_tokens=4000"},
		{"https://example.com/a?page=2&sort=name", "https://example.com/a?page=2&sort=name"},
		{"moved to /home/me/Invoices: done", "moved to /home/me/Invoices: done"},
		{"already [redacted]", "already [redacted]"},
	} {
		if got := redact.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if got := redact.String("the server said my-own-secret-value back", "my-own-secret-value", "ab"); got != "the server said [redacted] back" {
		t.Errorf("known secret: %q", got)
	}
}

func TestKey(t *testing.T) {
	for k, want := range map[string]bool{
		"token": true, "access_token": true, "refreshToken": true, "apiKey": true, "API-KEY": true, "x-api-key": true,
		"password": true, "Authorization": true, "set-cookie": true, "client_secret": true, "privateKey": true, "credentials": true,
		"max_tokens": false, "tokens": false, "key": false, "name": false, "author": false, "status": false, "keywords": false,
	} {
		if got := redact.Key(k); got != want {
			t.Errorf("Key(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestJSONRedactsUnderSecretKeysAndInStrings(t *testing.T) {
	in := `{"status":200,"headers":{"Authorization":"Basic dXNlcjpwYXNz","X-Request":"abc"},"password_set":true,` +
		`"token":null,"echo":"called https://u:p4ss@h.example.com/?sig=123abc","n":12345678901234567890}`
	got, cut := redact.JSON([]byte(in), 8192)
	want := `{"echo":"called https://[redacted]@h.example.com/?sig=[redacted]","headers":{"Authorization":"[redacted]","X-Request":"abc"},` +
		`"n":12345678901234567890,"password_set":true,"status":200,"token":null}`
	if cut || string(got) != want {
		t.Fatalf("got %s (cut %v)\nwant %s", got, cut, want)
	}
}

func TestJSONCutsStructurallyAndSaysWhat(t *testing.T) {
	items := make([]any, 500)
	for i := range items {
		items[i] = map[string]any{"id": i, "name": fmt.Sprintf("item %d", i)}
	}
	big := map[string]any{"items": items, "body": strings.Repeat("é", 10000), "ok": true}
	raw, _ := json.Marshal(big)
	got, cut := redact.JSON(raw, 4096)
	if !cut || len(got) > 4096 || !json.Valid(got) {
		t.Fatalf("cut %v, %d bytes, valid %v", cut, len(got), json.Valid(got))
	}
	var out struct {
		Items []any  `json:"items"`
		Body  string `json:"body"`
		OK    bool   `json:"ok"`
	}
	if err := json.Unmarshal(got, &out); err != nil {
		t.Fatal(err)
	}
	last, _ := out.Items[len(out.Items)-1].(string)
	if !out.OK || !strings.HasPrefix(last, "… ") || !strings.HasSuffix(last, " more items") {
		t.Errorf("items end with %q, ok %v", last, out.OK)
	}
	if kept := len(out.Items) - 1; last != fmt.Sprintf("… %d more items", 500-kept) {
		t.Errorf("kept %d items, marker %q", kept, last)
	}
	if !strings.HasPrefix(out.Body, "éé") || !strings.Contains(out.Body, " more bytes") {
		t.Errorf("body %q", out.Body[:min(len(out.Body), 40)])
	}

	// Long enough to be cut before it is redacted: the counts are still
	// of the whole.
	huge, _ := json.Marshal(map[string]any{"text": strings.Repeat("x", 100000), "ids": make([]int, 10000)})
	got, cut = redact.JSON(huge, 2048)
	var h struct {
		Text string `json:"text"`
		IDs  []any  `json:"ids"`
	}
	if err := json.Unmarshal(got, &h); err != nil || !cut || len(got) > 2048 {
		t.Fatalf("huge: %s (%v)", got, err)
	}
	kept := strings.TrimRight(h.Text[:strings.Index(h.Text, "…")], " ")
	if h.Text != fmt.Sprintf("%s… %d more bytes", kept, 100000-len(kept)) {
		t.Errorf("huge text %q", h.Text)
	}
	if last := h.IDs[len(h.IDs)-1]; last != fmt.Sprintf("… %d more items", 10000-len(h.IDs)+1) {
		t.Errorf("huge array ends %q after %d items", last, len(h.IDs)-1)
	}

	// Small enough: kept exactly, not re-ordered beyond what JSON allows.
	if got, cut := redact.JSON([]byte(`{"a":[1,2,3]}`), 4096); cut || string(got) != `{"a":[1,2,3]}` {
		t.Errorf("small: %s %v", got, cut)
	}
	// Not JSON at all: one string.
	if got, _ := redact.JSON([]byte("oops token=abc123"), 4096); string(got) != `"oops token=[redacted]"` {
		t.Errorf("not JSON: %s", got)
	}
	// Too deep: the deep part says what it was.
	deep := `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":{"k":{"l":[` + strings.Repeat(`"xxxxxxxx",`, 200) + `"y"]}}}}}}}}}}}}}`
	if got, cut := redact.JSON([]byte(deep), 512); !cut || len(got) > 512 || !strings.Contains(string(got), "… ") {
		t.Errorf("deep: %s", got)
	}
}

func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,3],"token":"x"}`), uint16(100))
	f.Add([]byte(`["`+strings.Repeat("ab", 300)+`"]`), uint16(70))
	f.Add([]byte(`{"k`+strings.Repeat("e", 200)+`":{"x":[[[[[[[[1]]]]]]]]}}`), uint16(0))
	f.Add([]byte("not json \xff\xfe"), uint16(64))
	f.Add([]byte(`12345678901234567890123456789012345678901234567890123456789012345678901234567890`), uint16(64))
	f.Fuzz(func(t *testing.T, raw []byte, limit uint16) {
		got, _ := redact.JSON(raw, int(limit))
		if !json.Valid(got) {
			t.Fatalf("not valid JSON: %q", got)
		}
		if n := max(int(limit), redact.MinLimit); len(got) > n {
			t.Fatalf("%d bytes over a limit of %d: %q", len(got), n, got)
		}
	})
}
