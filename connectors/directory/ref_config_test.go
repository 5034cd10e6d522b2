package directory_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
)

func TestRefRoundTrip(t *testing.T) {
	const hash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, rel := range []string{
		"a.md", "dir/sub/b.txt", "me@example.com.eml", "a@b@c", "bad\xffname", "\xc3", "back\\slash",
		`literal\x41`, "日本語/ノート.md", "trailing@", "sp ace/x",
	} {
		for _, h := range []string{hash, ""} {
			ref := directory.FormatRef(rel, h)
			if !json.Valid([]byte(`"` + strings.ReplaceAll(strings.ReplaceAll(ref, `\`, `\\`), `"`, `\"`) + `"`)) {
				t.Errorf("ref %q is not valid UTF-8", ref)
			}
			gotRel, gotHash, err := directory.ParseRef(ref)
			if err != nil || gotRel != rel || gotHash != h[:min(len(h), 16)] {
				t.Errorf("ParseRef(FormatRef(%q)) = %q, %q, %v", rel, gotRel, gotHash, err)
			}
		}
	}
	if got := directory.FormatRef("bad\xff", hash); got != `bad\xff@0123456789abcdef` {
		t.Errorf("FormatRef = %q", got)
	}
	for _, bad := range []string{"", "noat", "a@xyz", "a@0123456789ABCDEF", `a\q@`, `a\x4@`, "@0123456789abcdef"} {
		if _, _, err := directory.ParseRef(bad); err == nil {
			t.Errorf("ParseRef(%q) succeeded; want an error", bad)
		}
	}
}

func TestParseConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, nil, 0o644)
	js := func(s string) json.RawMessage { return json.RawMessage(s) }
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }

	c, err := directory.ParseConfig(js(`{"path":` + q(dir+"/") + `,"include":["*.md","notes/**/*.txt"],"exclude":["drafts/"],
		"include_existing":true,"note_extensions":["MD","org"],"rescan_interval":"10m","settle":"1s"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != dir || !c.IncludeExisting || time.Duration(c.RescanInterval) != 10*time.Minute || time.Duration(c.Settle) != time.Second ||
		strings.Join(c.NoteExtensions, ",") != ".md,.org" {
		t.Errorf("parsed %+v", c)
	}
	out, _ := json.Marshal(c)
	if !strings.Contains(string(out), `"rescan_interval":"10m0s"`) {
		t.Errorf("marshalled %s", out)
	}

	for _, tc := range []struct{ cfg, want string }{
		{`{}`, "path is empty"},
		{``, "empty"},
		{`{"path":"relative/dir"}`, "must be absolute"},
		{`{"path":` + q(dir+"/missing") + `}`, "does not exist"},
		{`{"path":` + q(file) + `}`, "is a file, not a folder"},
		{`{"path":` + q(dir) + `,"paht":"x"}`, `unknown setting "paht"`},
		{`{"path":` + q(dir) + `,"include":["[a"]}`, "not a valid glob"},
		{`{"path":` + q(dir) + `,"exclude":["a//b"]}`, "empty"},
		{`{"path":` + q(dir) + `,"exclude":[""]}`, "empty"},
		{`{"path":` + q(dir) + `,"rescan_interval":"soon"}`, "not a duration"},
		{`{"path":` + q(dir) + `,"rescan_interval":300}`, "duration in quotes"},
		{`{"path":` + q(dir) + `,"rescan_interval":"10ms"}`, "too short"},
		{`{"path":` + q(dir) + `,"settle":"-1s"}`, "between 0"},
		{`{"path":` + q(dir) + `,"note_extensions":["a/b"]}`, "not an extension"},
		{`{"path":` + q(dir) + `} {}`, "unexpected data"},
	} {
		_, err := directory.ParseConfig(js(tc.cfg))
		if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%s) = %v; want EInvalid containing %q", tc.cfg, err, tc.want)
		}
	}
}
