package definition_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/definition"
)

const commented = `# Scans from the office printer.
version: 1
kind: folder
name: Scans   # what the window calls it
review: true
source:
    # The printer's share.
    path: /home/me/Scans
    include: ["*.pdf"]   # nothing else
rules:
    # Invoices become tasks.
    - id: invoices
      when: {name: {contains: invoice}}
      then: {verdict: show, kind: task}
    # Drafts are never shown.
    - id: drafts
      when: {name: {contains: draft}}
      then: {verdict: skip}
learning: {cold_start: 30, screen_below: 0.3, spam_above: 0.9, min_spam: 10}
`

// reparsed reads text as a definition file and gives it back as JSON.
func reparsed(t *testing.T, text []byte) []byte {
	t.Helper()
	d, err := definition.Parse("scans.yaml", text)
	if err != nil {
		t.Fatalf("the written file does not read (%v):\n%s", err, text)
	}
	b, err := definition.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A change written to a YAML file keeps the person's comments, key order
// and styles wherever the keys stay, and the file read again is the new
// definition.
func TestMergeYAMLKeepsComments(t *testing.T) {
	old, err := definition.Parse("scans.yaml", []byte(commented))
	if err != nil {
		t.Fatal(err)
	}
	// The change: not reviewed, another include, the drafts rule switched
	// off, a new rule, the schedule set; the name's comment stays with it.
	d := old
	d.Review = false
	d.Source = []byte(`{"path":"/home/me/Scans","include":["*.pdf","*.png"]}`)
	d.Rules = append(d.Rules[:1:1],
		[]byte(`{"id":"drafts","enabled":false,"when":{"name":{"contains":"draft"}},"then":{"verdict":"skip"}}`),
		[]byte(`{"id":"photos","when":{"ext":{"equals":"png"}},"then":{"verdict":"show","kind":"note"}}`))
	d.Schedule = &definition.Schedule{Cron: "@hourly"}
	doc, err := definition.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	out, err := definition.MergeYAML([]byte(commented), doc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := reparsed(t, out), reparsed(t, doc); !bytes.Equal(got, want) {
		t.Fatalf("the file reads as\n%s\nwant\n%s\nfile:\n%s", got, want, out)
	}
	text := string(out)
	for _, c := range []string{"# Scans from the office printer.", "# what the window calls it", "# The printer's share.",
		"# nothing else", "# Invoices become tasks.", "# Drafts are never shown."} {
		if !strings.Contains(text, c) {
			t.Errorf("comment %q lost:\n%s", c, text)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") {
		t.Fatalf("written as JSON:\n%s", text)
	}
	// The person's order and styles: source before rules, the learning
	// thresholds on one line, four spaces; new keys after.
	for _, s := range []string{"learning: {cold_start: 30", "    path: /home/me/Scans", "review: false"} {
		if !strings.Contains(text, s) {
			t.Errorf("%q not in\n%s", s, text)
		}
	}
	if strings.Index(text, "source:") > strings.Index(text, "rules:") || strings.Index(text, "schedule:") < strings.Index(text, "learning:") {
		t.Errorf("keys out of the file's order:\n%s", text)
	}
	if strings.Index(text, "# Drafts are never shown.") > strings.Index(text, "id: photos") {
		t.Errorf("the drafts rule's comment moved:\n%s", text)
	}

	// A rule removed takes its comment with it; the others keep theirs.
	d.Rules = d.Rules[1:]
	doc, _ = definition.Marshal(d)
	out2, err := definition.MergeYAML(out, doc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := reparsed(t, out2), reparsed(t, doc); !bytes.Equal(got, want) {
		t.Fatalf("after a rule removed the file reads as\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(string(out2), "Invoices become tasks") || !strings.Contains(string(out2), "# Drafts are never shown.") {
		t.Fatalf("after the invoices rule removed:\n%s", out2)
	}
}

// A file that is not YAML in block style (one the agent wrote as JSON,
// an empty one, several documents) is written as plain YAML, never JSON.
func TestMergeYAMLFallsBackToPlainYAML(t *testing.T) {
	d, err := definition.Parse("scans.yaml", []byte(commented))
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := definition.Marshal(d)
	for name, old := range map[string]string{
		"json":      string(doc),
		"empty":     "",
		"broken":    "version: [1\n",
		"two":       commented + "---\n" + commented,
		"not a map": "- a\n- b\n",
	} {
		out, err := definition.MergeYAML([]byte(old), doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plain, _ := definition.YAML(doc)
		if !bytes.Equal(out, plain) {
			t.Errorf("%s: got\n%s\nwant the plain YAML\n%s", name, out, plain)
		}
	}
}
