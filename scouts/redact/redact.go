// Package redact strikes values that look like credentials out of what
// Scouts stores about its actions (results, errors, trail summaries, logs),
// and cuts stored JSON to a size limit while keeping it valid.
//
// It works on shapes, not on knowledge: a bearer token, the password of a
// URL, a query parameter named like a secret, a value under a JSON key named
// like one, and the well-known key formats (OpenAI, GitHub, AWS, Slack,
// Google, Stripe, GitLab, npm, JWTs, PEM private keys). Callers that know
// the exact secret values in play (an MCP server's own secrets) pass them
// too. A miss here stores a credential, so the patterns lean towards
// redacting a harmless value rather than keeping a real one.
package redact

import (
	"regexp"
	"strings"
	"unicode"
)

// Marker replaces whatever was redacted.
const Marker = "[redacted]"

// pattern is one shape of credential in free text. The group "v" is
// replaced by Marker and the rest of the match kept ("Bearer [redacted]").
// When the pattern has a group "name", that name must be a secret's (see
// param); ok, when set, must accept the value. When scheme is set, a
// value followed by one already struck is taken for its scheme ("Bearer"
// in "Authorization: Bearer [redacted]") and kept.
type pattern struct {
	re     *regexp.Regexp
	ok     func(value string) bool
	scheme bool
}

// tokenish reports whether a value after "Bearer" looks like a credential
// rather than a word: credentials mix digits or punctuation in, words do
// not.
func tokenish(v string) bool {
	return strings.IndexFunc(v, func(r rune) bool { return unicode.IsDigit(r) || strings.ContainsRune("-_.~+/=", r) }) >= 0
}

// patterns run in order: the specific shapes first, so a later, looser
// one meets "[redacted]" where a value was (and skips it).
var patterns = []pattern{
	// PEM private keys, to their end line (or the end of the text when it
	// was cut before it).
	{re: regexp.MustCompile(`(?s)(?P<v>-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$))`)},
	// Key formats that announce themselves.
	{re: regexp.MustCompile(`\b(?P<v>` + strings.Join([]string{
		`sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}`,           // OpenAI, Anthropic
		`[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}`,                      // Stripe
		`gh[pousr]_[A-Za-z0-9]{30,}`,                                 // GitHub tokens
		`github_pat_[A-Za-z0-9_]{22,}`,                               // GitHub fine-grained tokens
		`(?:AKIA|ASIA)[0-9A-Z]{16}`,                                  // AWS access key IDs
		`xox[abposr]-[A-Za-z0-9-]{10,}`,                              // Slack
		`AIza[0-9A-Za-z_-]{35}`,                                      // Google API keys
		`ya29\.[0-9A-Za-z_-]{20,}`,                                   // Google OAuth access tokens
		`1//0[0-9A-Za-z_-]{30,}`,                                     // Google OAuth refresh tokens
		`glpat-[A-Za-z0-9_-]{20,}`,                                   // GitLab
		`npm_[A-Za-z0-9]{36}`,                                        // npm
		`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`, // JWTs
	}, "|") + `)`)},
	// An Authorization header's value, after its scheme when it has one.
	{re: regexp.MustCompile(`(?i)\b(?:proxy-)?authorization"?\s*[:=]\s*"?(?:[A-Za-z]+\s+)?(?P<v>[^\s"',;\[\]]{4,})`), scheme: true},
	// Bearer tokens wherever else they are written.
	{re: regexp.MustCompile(`(?i)\bbearer\s+(?P<v>[A-Za-z0-9._~+/=-]{8,})`), ok: tokenish},
	// The user information of a URL that carries a password.
	{re: regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://(?P<v>[^/\s:@?#"']+:[^/\s@?#"']*)@`)},
	// Query and form parameters named like secrets. A value stops at the
	// next parameter, so a harmless one never hides the next.
	{re: regexp.MustCompile(`[?&;](?P<name>[A-Za-z0-9_.\-\[\]]{2,40})=(?P<v>[^&#\s"'<>]{3,})`)},
	// name=value and name: value in text (an error quoting a config, a
	// JSON object printed into a message), after the URLs above.
	{re: regexp.MustCompile(`(?:^|[\s{,("'])(?P<name>[A-Za-z0-9_.\-]{2,40})(?:=|"?\s*:\s*"?)(?P<v>[^\s&#"'<>,;}\)\[\]]{3,})`), scheme: true},
}

// String returns s with every credential-looking value, and every one of
// secrets (values shorter than 4 bytes are ignored: they would strike
// ordinary words), replaced by Marker.
func String(s string, secrets ...string) string {
	for _, v := range secrets {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, Marker)
		}
	}
	for _, p := range patterns {
		s = replace(s, p)
	}
	return s
}

// replace strikes the "v" group of each match of p. A match that is let
// be (a harmless name, a word after "Bearer") does not hide what follows
// its name: the search goes on from its value, so "config: password=x"
// still finds the password.
func replace(s string, p pattern) string {
	v, name := p.re.SubexpIndex("v"), p.re.SubexpIndex("name")
	var b strings.Builder
	last, pos := 0, 0
	for pos < len(s) {
		m := p.re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		vs, ve := pos+m[2*v], pos+m[2*v+1]
		val := s[vs:ve]
		keep := val == Marker ||
			(p.scheme && strings.HasPrefix(s[ve:], " "+Marker)) ||
			(name >= 0 && !param(s[pos+m[2*name]:pos+m[2*name+1]])) ||
			(p.ok != nil && !p.ok(val))
		if keep {
			start := pos + m[0]
			pos = vs
			if vs == start {
				pos++ // never the same match twice
			}
			continue
		}
		b.WriteString(s[last:vs])
		b.WriteString(Marker)
		last, pos = ve, ve
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// param reports whether a query parameter or a name in "name=value" text
// names a secret: any key that Key would redact, and the short names
// signed URLs and APIs use (key, sig, auth, code of an OAuth redirect).
func param(name string) bool {
	switch strings.ToLower(strings.Trim(name, "[]")) {
	case "key", "sig", "auth", "code", "pass", "access_key", "x-amz-signature", "x-amz-credential", "x-amz-security-token", "x-goog-signature", "x-goog-credential":
		return true
	}
	return Key(name)
}

// secretWords are words that, anywhere in a key, make its value secret.
var secretWords = map[string]bool{
	"token": true, "secret": true, "password": true, "passwd": true, "pwd": true, "passphrase": true,
	"authorization": true, "cookie": true, "credential": true, "credentials": true, "apikey": true,
	"signature": true, "bearer": true,
}

// secretRuns are runs of letters that make a key secret however its words
// are joined (apiKey, api_key, API-KEY).
var secretRuns = []string{"apikey", "accesskey", "privatekey", "secretkey", "clientsecret", "accesstoken",
	"refreshtoken", "sessiontoken", "authtoken", "idtoken", "password", "setcookie", "sessionid"}

// Key reports whether values under a JSON key or header of this name are
// secret. "tokens" (a count, as in max_tokens) is not; "token" is.
func Key(name string) bool {
	var compact strings.Builder
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			compact.WriteRune(r)
		}
	}
	c := compact.String()
	for _, run := range secretRuns {
		if strings.Contains(c, run) {
			return true
		}
	}
	for _, w := range words(name) {
		if secretWords[w] {
			return true
		}
	}
	return false
}

// words splits a key into its lower-case words at punctuation and at
// camelCase boundaries.
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return out
}
