package actions

import "encoding/json"

// Names of the built-in actions.
const (
	TaskCreate    = "task.create"
	NoteCreate    = "note.create"
	EventCreate   = "event.create"
	ProjectCreate = "project.create"

	GmailArchive  = "gmail.archive"
	GmailLabel    = "gmail.label"
	GmailMarkRead = "gmail.mark_read"
	GmailTrash    = "gmail.trash"
	// GmailRestore takes a mail out of Gmail's Trash (and Spam) back into
	// the inbox: what bringing back a card whose mail the scout trashed
	// does.
	GmailRestore = "gmail.restore"
	// GmailUnsubscribe takes the person off the mailing list a mail came
	// from (app/gmaildesk, unsubscribe.go).
	GmailUnsubscribe = "gmail.unsubscribe"

	FileMove    = "file.move"
	WebhookPost = "webhook.post"
)

// CreateAction names the local action that creates an entity of kind
// ("task" → task.create).
func CreateAction(kind string) string { return kind + ".create" }

// CreatedKind is the entity kind an action creates, "" for other actions.
func CreatedKind(action string) string {
	switch action {
	case TaskCreate, NoteCreate, EventCreate, ProjectCreate:
		return action[:len(action)-len(".create")]
	}
	return ""
}

// Shared pieces of the entity schemas: the fields a person can edit in the
// approve preview, all optional (absent fields come from the card).
const (
	titleProp = `"title": {"type": "string", "maxLength": 500, "description": "The entity's title; default: the card's"}`
	bodyProp  = `"body": {"type": "string", "maxLength": 1048576, "description": "The entity's text; default: the item's"}`
	dateProp  = `{"type": "string", "maxLength": 40, "description": "RFC 3339 or YYYY-MM-DD"}`
)

func entitySchema(extra string) json.RawMessage {
	props := titleProp + ", " + bodyProp
	if extra != "" {
		props += ", " + extra
	}
	return json.RawMessage(`{"type": "object", "additionalProperties": false, "properties": {` + props + `}}`)
}

var noParams = json.RawMessage(`{"type": "object", "additionalProperties": false, "properties": {}}`)

func builtin() []Def {
	gmail := []string{"gmail"}
	return []Def{
		{Name: TaskCreate, Risk: RiskWrite, Where: Local,
			Description: "Create a task from the item (in the local database, with the decision)",
			Schema:      entitySchema(`"due": ` + dateProp + `, "project_id": {"type": "string", "maxLength": 100}`)},
		{Name: NoteCreate, Risk: RiskWrite, Where: Local,
			Description: "Create a note from the item (in the local database, with the decision)",
			Schema:      entitySchema("")},
		{Name: EventCreate, Risk: RiskWrite, Where: Local,
			Description: "Create an event from the item (in the local database, with the decision)",
			Schema:      entitySchema(`"starts_at": ` + dateProp + `, "ends_at": ` + dateProp + `, "location": {"type": "string", "maxLength": 500}`)},
		{Name: ProjectCreate, Risk: RiskWrite, Where: Local,
			Description: "Create a project from the item (in the local database, with the decision)",
			Schema:      entitySchema("")},

		{Name: GmailArchive, Risk: RiskWrite, Where: Outbox, Kinds: gmail,
			Description: "Archive the email in Gmail (remove it from the Inbox; it stays in All Mail)",
			Schema:      noParams},
		{Name: GmailLabel, Risk: RiskWrite, Where: Outbox, Kinds: gmail,
			Description: "Add a label to the email in Gmail, creating the label if it does not exist",
			Schema: json.RawMessage(`{"type": "object", "additionalProperties": false, "required": ["label"],
				"properties": {"label": {"type": "string", "minLength": 1, "maxLength": 225, "pattern": "\\S",
				"description": "The label's name, e.g. Scouts"}}}`)},
		{Name: GmailMarkRead, Risk: RiskWrite, Where: Outbox, Kinds: gmail,
			Description: "Mark the email as read in Gmail",
			Schema:      noParams},
		{Name: GmailTrash, Risk: RiskDanger, Where: Outbox, Kinds: gmail,
			Description: "Move the email to Gmail's Trash (Gmail deletes it after 30 days; Scouts never deletes mail itself)",
			Schema:      noParams},
		{Name: GmailRestore, Risk: RiskWrite, Where: Outbox, Kinds: gmail,
			Description: "Take the email out of Gmail's Trash (and Spam) and put it back in the Inbox: what bringing back a card whose email the scout trashed as spam does",
			Schema:      noParams},

		{Name: GmailUnsubscribe, Risk: RiskWrite, Where: Outbox, Kinds: gmail,
			Description: "Unsubscribe from the mailing list the email came from, as its List-Unsubscribe header offers: a one-click POST (RFC 8058, https only), else a mail to the list's unsubscribe address sent from your account; a list that offers only a web page has it opened for you",
			Schema:      noParams},

		{Name: FileMove, Risk: RiskWrite, Where: Outbox, Kinds: []string{"folder"},
			Description: "Move the file into a folder you chose, inside your home folder (never out of it, never through a symbolic link)",
			Schema: json.RawMessage(`{"type": "object", "additionalProperties": false, "required": ["to"],
				"properties": {"to": {"type": "string", "minLength": 1, "maxLength": 4096,
				"description": "The destination folder: an absolute path or ~/… inside your home folder"}}}`)},
		{Name: WebhookPost, Risk: RiskWrite, Where: Outbox,
			Description: "POST the card's fields (title, kind, links; never the item's text) to a URL, with an Idempotency-Key header and, when a secret is named, an HMAC-SHA256 signature made with it",
			Schema: json.RawMessage(`{"type": "object", "additionalProperties": false, "required": ["url"],
				"properties": {
					"url": {"type": "string", "maxLength": 2048, "pattern": "^https?://[^\\s]+$",
						"description": "Where to POST (http or https)"},
					"secret": {"type": "object", "additionalProperties": false, "required": ["secret"],
						"description": "A secret by reference: its name in the keyring, never its value",
						"properties": {"secret": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[A-Za-z0-9._-]+$"}}}
				}}`)},
	}
}
