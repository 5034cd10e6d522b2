package triage

import "testing"

func TestParseUnsubscribe(t *testing.T) {
	cases := []struct {
		name, header, post string
		want               Unsubscribe
		method             string
	}{
		{"one-click with mailto", "<mailto:leave@lists.example?subject=unsubscribe>, <https://lists.example/u/abc>", "List-Unsubscribe=One-Click",
			Unsubscribe{OneClick: "https://lists.example/u/abc", Mailto: "mailto:leave@lists.example?subject=unsubscribe", Link: "https://lists.example/u/abc"}, UnsubscribeOneClick},
		{"https without the Post header is a link to open", "<https://lists.example/u/abc>", "",
			Unsubscribe{Link: "https://lists.example/u/abc"}, UnsubscribeLink},
		{"http is never one-click", "<http://lists.example/u/abc>", "List-Unsubscribe=One-Click",
			Unsubscribe{Link: "http://lists.example/u/abc"}, UnsubscribeLink},
		{"mailto beats a link", "<http://lists.example/u>, <mailto:leave@lists.example>", "",
			Unsubscribe{Mailto: "mailto:leave@lists.example", Link: "http://lists.example/u"}, UnsubscribeMailto},
		{"credentials in the URI are refused", "<https://u:p@lists.example/u>", "List-Unsubscribe=One-Click", Unsubscribe{}, ""},
		{"not in angle brackets", "https://lists.example/u", "List-Unsubscribe=One-Click", Unsubscribe{}, ""},
		{"other schemes", "<javascript:alert(1)>, <ftp://x/y>", "List-Unsubscribe=One-Click", Unsubscribe{}, ""},
		{"none", "", "", Unsubscribe{}, ""},
	}
	for _, c := range cases {
		got := ParseUnsubscribe(c.header, c.post)
		if got != c.want || got.Method() != c.method {
			t.Errorf("%s: got %+v (%q), want %+v (%q)", c.name, got, got.Method(), c.want, c.method)
		}
	}
}
