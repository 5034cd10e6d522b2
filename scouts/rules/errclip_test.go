package rules

import (
	"strings"
	"testing"
)

// A template checked against the largest item of its kind fails with
// text/template's message, which quotes the value: a rule editor showed
// "range can't iterate over xxxx…" with the whole 2 KiB sample name.
func TestTemplateErrorsDoNotQuoteTheSampleItem(t *testing.T) {
	_, err := ParseTemplate("folder", `{{range .name}}x{{end}}`)
	if err == nil {
		t.Fatal("range over a text must be refused")
	}
	msg := err.Error()
	if len(msg) > 300 || strings.Contains(msg, strings.Repeat("x", 50)) {
		t.Fatalf("the error quotes the sample item (%d bytes): %.400s", len(msg), msg)
	}
	if !strings.Contains(msg, "range can't iterate over") {
		t.Fatalf("the reason is lost: %s", msg)
	}
}
