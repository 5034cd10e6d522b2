package screener

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// Choice is what the person said of a sender: always show it, or always
// screen it.
type Choice string

const (
	Show   Choice = "show"
	Screen Choice = "screen"
)

// ParseChoice reads "show" or "screen".
func ParseChoice(s string) (Choice, error) {
	switch c := Choice(s); c {
	case Show, Screen:
		return c, nil
	}
	return "", scouts.Errorf(scouts.EInvalid, "choice %q: want \"show\" or \"screen\"", s)
}

// Of is what a screener key applies to.
type Of string

const (
	OfSender Of = "sender" // a mail's sender address
	OfList   Of = "list"   // a mail's List-Id: every sender of the list
	OfFolder Of = "folder" // a file's folder, and the folders within it
)

// Key is who (or where) a card comes from, as far as the screener is
// concerned.
type Key struct {
	Of    Of
	Value string
}

func (k Key) String() string { return string(k.Of) + ":" + k.Value }

// hash names the key in a rule's id: eight hex digits of its SHA-256,
// enough to tell a scout's senders apart without spelling an address
// into an id.
func (k Key) hash() string {
	h := sha256.Sum256([]byte(k.String()))
	return hex.EncodeToString(h[:4])
}

// KeyOf is what a card's screener keys apply to: a mail's list when it
// came through one, else its sender; a file's folder. A webhook card has
// no sender the rules can test, so it has none (ok false).
func KeyOf(s scouts.Suggestion) (Key, bool) {
	switch s.SourceType {
	case scouts.KindGmail:
		if l := strings.ToLower(strings.TrimSpace(s.Assessment.ListID)); l != "" {
			return Key{OfList, l}, true
		}
		if a := strings.ToLower(strings.TrimSpace(senderAddress(s.Sender))); a != "" {
			return Key{OfSender, a}, true
		}
	case scouts.KindFolder:
		if s.Path != "" {
			// The folder of the file, as the rules read paths (with /).
			dir := path.Dir(strings.ReplaceAll(s.Path, `\`, "/"))
			return Key{OfFolder, strings.TrimSuffix(dir, "/") + "/"}, true
		}
	}
	return Key{}, false
}

// senderAddress takes the address out of `"Name" <addr>`.
func senderAddress(s string) string {
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		if j := strings.IndexByte(s[i:], '>'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

// ruleIDPattern is a screener rule's id: what it chose, of what, the day
// it was made and the key's hash — so that a card a rule decided can say
// "you screened this sender on 3 Dec" from its rule id alone.
var ruleIDPattern = regexp.MustCompile(`^screener-(show|screen)-(sender|list|folder)-(\d{8})-([0-9a-f]{8})$`)

// RuleID is the id of the screener rule for k made at.
func RuleID(c Choice, k Key, at time.Time) string {
	return fmt.Sprintf("screener-%s-%s-%s-%s", c, k.Of, at.Format("20060102"), k.hash())
}

// Info is what a screener rule's id says.
type Info struct {
	RuleID string
	Choice Choice
	Of     Of
	Since  time.Time // the day the rule was made, at midnight local time
	hash   string
}

// ParseRuleID reads a screener rule's id; ok is false for any other rule.
func ParseRuleID(id string) (Info, bool) {
	m := ruleIDPattern.FindStringSubmatch(id)
	if m == nil {
		return Info{}, false
	}
	day, err := time.ParseInLocation("20060102", m[3], time.Local)
	if err != nil {
		return Info{}, false
	}
	return Info{RuleID: id, Choice: Choice(m[1]), Of: Of(m[2]), Since: day, hash: m[4]}, true
}

// Is reports whether the rule is about k.
func (i Info) Is(k Key) bool { return i.Of == k.Of && i.hash == k.hash() }

// Why is the card's why line for an item the rule decided: "you screened
// this sender on 3 Dec", "you always show this list (since 3 Dec)". The
// year is named when it is not now's.
func (i Info) Why(now time.Time) string {
	day := i.Since.Format("2 Jan")
	if i.Since.Year() != now.Year() {
		day = i.Since.Format("2 Jan 2006")
	}
	if i.Choice == Screen {
		return fmt.Sprintf("you screened this %s on %s", i.Of, day)
	}
	return fmt.Sprintf("you always show this %s (since %s)", i.Of, day)
}

// ruleDoc is the rule the screener writes for k: the first thing the
// scout's rules try, visible and editable like any other.
func ruleDoc(c Choice, k Key, at time.Time) []byte {
	var when map[string]any
	switch k.Of {
	case OfSender:
		when = map[string]any{"from": map[string]any{"equals": k.Value}}
	case OfList:
		when = map[string]any{"list_id": map[string]any{"equals": k.Value}}
	case OfFolder:
		when = map[string]any{"path": map[string]any{"starts_with": k.Value}}
	}
	verb := "Always show"
	if c == Screen {
		verb = "Always screen"
	}
	name := fmt.Sprintf("Screener: %s %s %s (%s)", strings.ToLower(verb), k.Of, k.Value, at.Format("2 Jan 2006"))
	if len(name) > 200 {
		name = strings.ToValidUTF8(name[:197], "") + "…"
	}
	doc, _ := json.Marshal(map[string]any{
		"id":   RuleID(c, k, at),
		"name": name,
		"when": when,
		"then": map[string]any{"verdict": string(c)},
	})
	return doc
}
