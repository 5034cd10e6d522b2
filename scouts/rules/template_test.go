package rules

import (
	"strings"
	"testing"
	"time"
)

// TestTemplateFunctions: the allowed functions, over an item's fields.
func TestTemplateFunctions(t *testing.T) {
	it := mail()
	it.Received = time.Date(2026, 5, 1, 15, 4, 0, 0, time.UTC)
	data := TemplateData(it)
	cases := map[string]string{
		`Pay {{.from}}`:                                         "Pay bob@mail.example.com",
		`{{.subject | lower}}`:                                  "invoice 42: payment due friday",
		`{{.subject | upper | truncate 7}}`:                     "INVOIC…",
		`{{truncate 100 .subject}}`:                             "Invoice 42: payment due Friday",
		`[{{"  x  " | trim}}]`:                                  "[x]",
		`{{.list_id | default "no list"}}`:                      "no list",
		`{{.domain | default "none"}}`:                          "mail.example.com",
		`{{date "date" .received}} {{date "15:04" .received}}`:  "2026-05-01 15:04",
		`{{join ", " .to}}`:                                     "ann@example.org, team@example.org",
		`{{.subject | replace "Invoice" "Bill"}}`:               "Bill 42: payment due Friday",
		`{{first .labels}}/{{last .labels}}`:                    "INBOX/CATEGORY_UPDATES",
		`{{len .to}} {{index .to 1}}`:                           "2 team@example.org",
		`{{if .has_attachment}}📎 {{end}}{{.subject}}`:           "📎 Invoice 42: payment due Friday",
		`{{range $i, $a := .to}}{{if $i}};{{end}}{{$a}}{{end}}`: "ann@example.org;team@example.org",
		`{{if and (eq .domain "mail.example.com") (not .list_id)}}direct{{else}}list{{end}}`: "direct",
	}
	for src, want := range cases {
		tp, err := ParseTemplate(KindGmail, src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		got, err := tp.Render(data)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", src, got, err, want)
		}
	}
	h := hook()
	tp, err := ParseTemplate(KindWebhook, `{{.title}}: {{get .json "status"}} ({{get .json "missing" | default "?"}}) {{.json.repo}}`)
	if err == nil {
		t.Fatalf("a webhook body's field that is not in every body must be read with get: %v", tp)
	}
	tp, err = ParseTemplate(KindWebhook, `{{.title}}: {{get .json "status"}} ({{get .json "missing" | default "?"}}), attempt {{get .json "attempt"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tp.Render(TemplateData(h)); err != nil || got != "Build failed: failed (?), attempt 3" {
		t.Fatalf("webhook title: %q, %v", got, err)
	}
	// Unknown fields render empty: the same template works on a mail
	// whose labels the relay never saw.
	partial := NewItem(KindGmail)
	partial.SetString("subject", "Hello")
	tp, _ = ParseTemplate(KindGmail, `{{.subject}}[{{join "," .labels}}]{{.has_attachment}}`)
	if got, err := tp.Render(TemplateData(partial)); err != nil || got != "Hello[]false" {
		t.Fatalf("partial item: %q, %v", got, err)
	}
}

// TestHostileTemplates: every way a template could run away is refused
// when it is parsed (when the rule is saved), with a clear error.
func TestHostileTemplates(t *testing.T) {
	cases := []struct{ kind, src, want string }{
		{KindGmail, strings.Repeat("x", MaxTemplateBytes+1), "bytes, more than"},
		{KindGmail, `{{.subject`, "does not parse"},
		{KindGmail, `{{.nosuch}}`, `no entry for key "nosuch"`},
		{KindGmail, `{{.subject.len}}`, "subject"},
		{KindGmail, `{{printf "%0999999999d" 1}}`, `"printf" is not allowed`},
		{KindGmail, `{{print .subject}}`, `"print" is not allowed`},
		{KindGmail, `{{call .subject}}`, `"call" is not allowed`},
		{KindGmail, `{{html .subject}}`, `"html" is not allowed`},
		{KindGmail, `{{exec "ls"}}`, "does not parse"},
		{KindGmail, `{{define "x"}}{{template "x"}}{{end}}{{template "x"}}`, "define and block"},
		{KindGmail, `{{block "x" .}}{{.subject}}{{end}}`, "define and block"},
		{KindGmail, `{{template "t"}}`, "{{template}} is not allowed"},
		{KindGmail, `{{range 1000000000}}x{{end}}`, "range may only loop over a field"},
		{KindGmail, `{{$n := 1000000000}}{{range $n}}x{{end}}`, "range may only loop over a field"},
		{KindGmail, `{{range len .to}}x{{end}}`, "range may only loop over a field"},
		{KindGmail, `{{range .to}}{{range $.labels}}{{range $.to}}x{{end}}{{end}}{{end}}`, "loops nest"},
		{KindGmail, strings.Repeat(`{{if .subject}}`, maxTemplateDepth+1) + strings.Repeat(`{{end}}`, maxTemplateDepth+1), "nests more than"},
		{KindGmail, strings.Repeat(`{{.subject}}`, maxTemplateNodes), "too large"},
		// Output bombs: 100 × 100 × 2 KiB of subject is 20 MB.
		{KindGmail, `{{range .to}}{{range $.labels}}{{$.subject}}{{end}}{{end}}`, "larger than 1048576 bytes"},
		{KindGmail, `{{range .to}}{{range $.labels}}{{replace "x" "yyyyyyyy" $.subject}}{{end}}{{end}}`, "larger than"},
		{KindGmail, `{{replace "" "x" .subject}}`, "empty"},
		// A slow template: each of 10 000 iterations copies 150 KB; it
		// is stopped by what it copies, not by a clock.
		{KindGmail, `{{range .to}}{{range $.labels}}{{$x := replace "y" "zzzzzzzz" (replace "x" "yyyyyyyy" $.subject)}}{{end}}{{end}}`, "too much work"},
		{KindGmail, `{{range .to}}{{range $.labels}}{{$x := upper $.subject}}{{end}}{{end}}`, "too much work"},
		{KindWebhook, `{{range .json}}{{range .}}{{$.body}}{{end}}{{end}}`, "larger than"},
		{KindFolder, `{{date "date" .text}}`, "RFC 3339"},
	}
	for _, c := range cases {
		_, err := ParseTemplate(c.kind, c.src)
		if err == nil {
			t.Errorf("%.80s: accepted", c.src)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.80s: %v; want it to mention %q", c.src, err, c.want)
		}
	}
}

// TestRenderCaps: a render stops at the output cap, the work cap and the
// time cap, with a clear error, whatever the data.
func TestRenderCaps(t *testing.T) {
	tp, err := ParseTemplate(KindGmail, `{{range .to}}{{$.subject}}{{end}}`)
	if err != nil {
		t.Fatal(err)
	}
	big := TemplateData(SampleItem(KindGmail))
	big["subject"] = strings.Repeat("s", MaxOutputBytes/50)
	if _, err := tp.render(big, time.Hour); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("output cap: %v", err)
	}
	tp, err = ParseTemplate(KindGmail, `{{range .to}}{{$x := lower $.subject}}{{end}}`)
	if err != nil {
		t.Fatal(err)
	}
	big["subject"] = strings.Repeat("s", MaxRenderWork/50)
	if _, err := tp.render(big, time.Hour); err == nil || !strings.Contains(err.Error(), "too much work") {
		t.Fatalf("work cap: %v", err)
	}
	if _, err := tp.render(TemplateData(mail()), time.Nanosecond); err == nil || !strings.Contains(err.Error(), "longer than 100ms") {
		t.Fatalf("time cap: %v", err)
	}
	if out, err := tp.Render(TemplateData(mail())); err != nil || out != "" {
		t.Fatalf("within the caps: %q, %v", out, err)
	}
}
