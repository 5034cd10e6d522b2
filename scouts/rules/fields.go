package rules

import (
	"slices"
	"strings"
)

// Type is what a field holds, which decides the operators that fit it.
type Type string

const (
	// TypeString is one text: an address, a subject, a path.
	TypeString Type = "string"
	// TypeList is several texts (a mail's recipients, its labels): a
	// string operator matches when it matches any of them.
	TypeList Type = "list"
	// TypeNumber is a number (a file's size in bytes).
	TypeNumber Type = "number"
	// TypeBool is true or false (a mail has an attachment).
	TypeBool Type = "bool"
	// TypeJSON is a value inside a webhook's JSON body (body.x): its type
	// is only known when an item arrives, so string operators apply when
	// it is a string, numeric ones when it is a number.
	TypeJSON Type = "json"
)

// Field is one thing a rule can test about an item of a scout kind.
type Field struct {
	Name string `json:"name"`
	Type Type   `json:"type"`
	// Doc says what the field holds, for the documentation and the editor.
	Doc string `json:"doc"`
	// MaxBytes is how much of the field's text a rule reads (longer values
	// are cut), 0 for non-text fields.
	MaxBytes int `json:"max_bytes,omitempty"`
}

// Kinds of scout with rules. They are the scout kinds' names
// (scouts.KindGmail, …), repeated here so that the grammar needs nothing
// but itself.
const (
	KindGmail   = "gmail"
	KindFolder  = "folder"
	KindWebhook = "webhook"
	KindAgent   = "agent"
)

// Limits on what a rule reads of an item, so that evaluation costs bounded
// time whatever arrives.
const (
	// MaxShortField caps short texts (addresses, subjects, names).
	MaxShortField = 2 << 10
	// MaxTextField caps long texts (a file's text, a webhook's body).
	MaxTextField = 64 << 10
	// MaxListItems caps list fields (recipients, labels).
	MaxListItems = 100
	// maxListEntry caps one entry of a list field (the longest address).
	maxListEntry = 256
	// BodyFieldPrefix starts a webhook's JSON body fields: body.amount.
	BodyFieldPrefix = "body."
	// maxBodyPathDepth caps how deep body.a.b.c reaches.
	maxBodyPathDepth = 8
)

var kindFields = map[string][]Field{
	KindGmail: {
		{Name: "from", Type: TypeString, MaxBytes: MaxShortField, Doc: "the sender's address, lower case (bob@example.com)"},
		{Name: "domain", Type: TypeString, MaxBytes: MaxShortField, Doc: "the sender's domain, lower case (mail.example.com); use ends_with \".example.com\" for subdomains"},
		{Name: "to", Type: TypeList, MaxBytes: maxListEntry, Doc: "the addresses in To and Cc, lower case"},
		{Name: "subject", Type: TypeString, MaxBytes: MaxShortField, Doc: "the subject"},
		{Name: "list_id", Type: TypeString, MaxBytes: MaxShortField, Doc: "the mailing list's id from List-Id, lower case, without angle brackets (dev.lists.example.org); empty when the mail is not from a list"},
		{Name: "labels", Type: TypeList, MaxBytes: maxListEntry, Doc: "the Gmail label ids (INBOX, CATEGORY_PROMOTIONS, IMPORTANT, Label_12, …)"},
		{Name: "has_attachment", Type: TypeBool, Doc: "whether the mail carries an attachment"},
	},
	KindFolder: {
		{Name: "path", Type: TypeString, MaxBytes: MaxShortField, Doc: "the file's path as the card shows it, relative to the watched folder (invoices/2024/acme.pdf)"},
		{Name: "name", Type: TypeString, MaxBytes: MaxShortField, Doc: "the file's name (acme.pdf)"},
		{Name: "ext", Type: TypeString, MaxBytes: MaxShortField, Doc: "the extension, lower case, without the dot (pdf); empty when there is none"},
		{Name: "size", Type: TypeNumber, Doc: "the file's size in bytes"},
		{Name: "text", Type: TypeString, MaxBytes: MaxTextField, Doc: "the text read from the start of the file (its first 64 KiB at most)"},
	},
	KindWebhook: {
		{Name: "title", Type: TypeString, MaxBytes: MaxShortField, Doc: "the item's title"},
		{Name: "body", Type: TypeString, MaxBytes: MaxTextField, Doc: "the body as text (its first 64 KiB)"},
		{Name: "body.*", Type: TypeJSON, MaxBytes: MaxShortField, Doc: "a field of a JSON body: body.amount, body.customer.email (up to 8 levels); absent when the body is not a JSON object or lacks the field"},
	},
	KindAgent: {
		{Name: "client", Type: TypeString, MaxBytes: MaxShortField, Doc: "the AI agent's name as it gave it when it connected (claude-code); what it says it is, not proven"},
		{Name: "kind", Type: TypeString, MaxBytes: MaxShortField, Doc: "what the agent proposes: task, note, event or project"},
		{Name: "title", Type: TypeString, MaxBytes: MaxShortField, Doc: "the proposal's title"},
		{Name: "body", Type: TypeString, MaxBytes: MaxTextField, Doc: "the proposal's body (its first 64 KiB)"},
		{Name: "url", Type: TypeString, MaxBytes: MaxShortField, Doc: "the link the agent gave; empty when none"},
		{Name: "action", Type: TypeString, MaxBytes: MaxShortField, Doc: "the action the agent proposes with it (webhook.post, mcp.fs.write_file); empty when none"},
	},
}

// Kinds returns the scout kinds that have rules.
func Kinds() []string { return []string{KindGmail, KindFolder, KindWebhook, KindAgent} }

// Fields returns the fields rules can test for a scout kind, nil for an
// unknown kind.
func Fields(kind string) []Field { return slices.Clone(kindFields[kind]) }

// lookupField finds a field of kind by name; body.x resolves to the
// webhook's JSON body field.
func lookupField(kind, name string) (Field, bool) {
	for _, f := range kindFields[kind] {
		if f.Name == name {
			return f, true
		}
	}
	if kind == KindWebhook && strings.HasPrefix(name, BodyFieldPrefix) {
		path := strings.Split(strings.TrimPrefix(name, BodyFieldPrefix), ".")
		if len(path) > maxBodyPathDepth {
			return Field{}, false
		}
		for _, p := range path {
			if p == "" {
				return Field{}, false
			}
		}
		return Field{Name: name, Type: TypeJSON, MaxBytes: MaxShortField}, true
	}
	return Field{}, false
}

// fieldNames lists a kind's field names for error messages.
func fieldNames(kind string) string {
	var names []string
	for _, f := range kindFields[kind] {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}
