package service

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzz target of the Pub/Sub push's body. `make fuzz` runs it
// briefly; plain `go test` runs its seeds.

// pushBody wraps a Gmail notification as Pub/Sub pushes it.
func pushBody(data string) []byte {
	b, _ := json.Marshal(map[string]any{"message": map[string]string{"data": base64.StdEncoding.EncodeToString([]byte(data)),
		"messageId": "1"}, "subscription": "projects/scouts-test/subscriptions/push"})
	return b
}

// FuzzGmailPush: a push body never panics the decoder; a malformed one is
// an error that says what is wrong; what decodes is exactly what the
// notification holds — the address (lower-cased) and the history id,
// which Gmail writes as a number and some libraries as a string — and
// every well-formed notification decodes.
func FuzzGmailPush(f *testing.F) {
	for _, n := range []string{
		`{"emailAddress":"ann@example.com","historyId":9876543210}`,
		`{"emailAddress":"Ann@Example.com","historyId":"9876543210"}`,
		`{"emailAddress":"ann@example.com","historyId":"18446744073709551615"}`,
		`{"emailAddress":"ann@example.com","historyId":18446744073709551616}`,
		`{"emailAddress":"ann@example.com","historyId":-1}`, `{"emailAddress":"ann@example.com","historyId":1.5e3}`,
		`{"emailAddress":"ann@example.com","historyId":"12\u0033"}`, `{"emailAddress":"ann@example.com","historyId":null}`,
		`{"emailAddress":"ann@example.com"}`, `{"historyId":1}`, `{"emailAddress":7,"historyId":1}`, `[]`, ``, `"x"`,
	} {
		f.Add(pushBody(n))
	}
	for _, s := range []string{`{}`, `{"message":{"data":"!!"}}`, `{"message":{"data":"e30"}}`, `{"message":null}`, `[`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		email, hid, err := decodePush(body)
		wantEmail, wantHID, ok := notificationOf(body)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" || !utf8.ValidString(err.Error()) {
				t.Fatalf("decodePush(%q): error %q says nothing readable", body, err)
			}
			if ok {
				t.Fatalf("decodePush(%q) refused a well-formed notification (%s, %d): %v", body, wantEmail, wantHID, err)
			}
			return
		}
		if !strings.Contains(email, "@") || email != strings.ToLower(email) {
			t.Fatalf("decodePush(%q) = %q, not a lower-case address", body, email)
		}
		if ok && (email != wantEmail || hid != wantHID) {
			t.Fatalf("decodePush(%q) = %s, %d; the notification holds %s, %d", body, email, hid, wantEmail, wantHID)
		}
	})
}

// notificationOf decodes a push the plain way, accepting only the forms
// Gmail and the client libraries write: a history id of decimal digits,
// as a number or a string.
func notificationOf(body []byte) (email string, hid uint64, ok bool) {
	var env struct {
		Message struct {
			Data string `json:"data"`
		} `json:"message"`
	}
	if json.Unmarshal(body, &env) != nil {
		return "", 0, false
	}
	data, err := base64.StdEncoding.DecodeString(env.Message.Data)
	if err != nil {
		return "", 0, false
	}
	var n struct {
		EmailAddress string          `json:"emailAddress"`
		HistoryID    json.RawMessage `json:"historyId"`
	}
	if json.Unmarshal(data, &n) != nil || !strings.Contains(n.EmailAddress, "@") {
		return "", 0, false
	}
	digits := strings.TrimSpace(string(n.HistoryID))
	if len(digits) >= 2 && digits[0] == '"' && digits[len(digits)-1] == '"' {
		digits = digits[1 : len(digits)-1]
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", 0, false
	}
	hid, err = strconv.ParseUint(digits, 10, 64)
	return strings.ToLower(n.EmailAddress), hid, err == nil
}
