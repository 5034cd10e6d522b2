package gmaildesk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// Executors are the actions a Gmail card offers, when Gmail is set up on
// this desktop.
func (d *Desk) Executors() map[string]engine.ActionExecutor {
	if d.o.Auth == nil {
		return nil
	}
	out := map[string]engine.ActionExecutor{}
	for _, a := range []string{actions.GmailArchive, actions.GmailLabel, actions.GmailMarkRead, actions.GmailTrash, actions.GmailRestore, actions.GmailUnsubscribe} {
		out[a] = executor{d: d}
	}
	return out
}

// executor changes a Gmail card's email through the scout's account.
// Gmail's modify is idempotent (adding a label twice, removing one that is
// gone, change nothing) and so is trash, so a run repeated after a crash
// changes nothing twice; restore looks before it acts (restore), so a run
// repeated calls nothing that changes the mailbox.
type executor struct{ d *Desk }

type labelParams struct {
	Label string `json:"label"`
}

func (x executor) Check(ctx context.Context, inv engine.Invocation) error {
	if inv.Scout.Kind != scouts.KindGmail {
		return scouts.Errorf(scouts.EInvalid, "%s applies to Gmail cards only", inv.Action)
	}
	if _, err := ParseConfig(inv.Scout.Config); err != nil {
		return err
	}
	if inv.Action == actions.GmailLabel {
		return x.labelInScope(ctx, inv)
	}
	return nil
}

// labelInScope refuses a label outside the scout's write scope (its
// labels), on the label as rendered: a rule's template may have taken it
// from the mail, and Gmail takes a label's id as readily as its name
// (TRASH, SPAM). A scout that declares no labels may add those below
// Scouts. The label the person chose for every Gmail card in Settings →
// Policies is always allowed: it is their own choice for all their mail,
// not something a scout's rule or template wrote.
func (x executor) labelInScope(ctx context.Context, inv engine.Invocation) error {
	var p labelParams
	if err := json.Unmarshal(inv.Params, &p); err != nil || strings.TrimSpace(p.Label) == "" {
		return scouts.Errorf(scouts.EInvalid, "gmail.label needs a label")
	}
	labels, isDefault := inv.Scout.WriteScope.Effective(scouts.ScopeLabels)
	if scouts.MatchLabel(labels, p.Label) {
		return nil
	}
	mine := ""
	if x.d.o.DB != nil {
		defs, err := x.d.o.DB.PlanDefaults(ctx)
		if err != nil {
			return err
		}
		if mine = strings.TrimSpace(defs.GmailLabel); mine != "" && scouts.MatchLabel([]string{mine}, p.Label) {
			return nil
		}
	}
	also := ""
	if mine != "" {
		also = fmt.Sprintf(", nor your label for Gmail cards (%s)", clip(mine))
	}
	return scouts.Errorf(scouts.EInvalid, "gmail.label: the label %q is outside the scout's write scope %s%s: this scout adds only those labels (write_scope.labels in its definition)",
		clip(p.Label), scouts.ScopeWords(labels, isDefault), also)
}

// clip shortens a label quoted in an error: a template may have filled it
// with a mail's subject.
func clip(s string) string {
	if r := []rune(s); len(r) > 100 {
		return string(r[:100]) + "…"
	}
	return s
}

func (x executor) Execute(ctx context.Context, inv engine.Invocation) (json.RawMessage, error) {
	cfg, err := ParseConfig(inv.Scout.Config)
	if err != nil {
		return nil, err
	}
	client, err := x.d.client(ctx, cfg.Email)
	if err != nil {
		return nil, err
	}
	id := inv.Suggestion.SourceRef
	switch inv.Action {
	case actions.GmailArchive:
		err = client.Modify(ctx, id, nil, []string{"INBOX"})
	case actions.GmailMarkRead:
		err = client.Modify(ctx, id, nil, []string{"UNREAD"})
	case actions.GmailTrash:
		err = client.Trash(ctx, id)
	case actions.GmailRestore:
		var untrashed bool
		if untrashed, err = restore(ctx, client, id); err == nil {
			return json.RawMessage(`{"message_id":` + jsonString(id) + `,"untrashed":` + strconv.FormatBool(untrashed) + `}`), nil
		}
	case actions.GmailUnsubscribe:
		var out json.RawMessage
		if out, err = x.unsubscribe(ctx, client, cfg.Email, inv); err == nil {
			return out, nil
		}
	case actions.GmailLabel:
		// Checked here too, not only by the outbox before it calls
		// Execute: the scope is what keeps a label out of the mailbox.
		if err := x.labelInScope(ctx, inv); err != nil {
			return nil, err
		}
		var p labelParams
		if err := json.Unmarshal(inv.Params, &p); err != nil || p.Label == "" {
			return nil, scouts.Errorf(scouts.EInvalid, "gmail.label needs a label")
		}
		var label string
		if label, err = client.LabelID(ctx, p.Label); err == nil {
			err = client.Modify(ctx, id, []string{label}, nil)
		}
	default:
		return nil, scouts.Errorf(scouts.EInvalid, "not a Gmail action: %s", inv.Action)
	}
	var nf *gmail.NotFoundError
	switch {
	case err == nil:
		return json.RawMessage(`{"message_id":` + jsonString(id) + `}`), nil
	case errors.As(err, &nf):
		return nil, scouts.Errorf(scouts.ENotFound, "the email is no longer in %s's mailbox", cfg.Email)
	case gmail.IsAuth(err):
		// Retrying cannot help until the account is connected again; the
		// person retries the action then.
		return nil, scouts.Errorf(scouts.EConflict, "Gmail access for %s has expired or was revoked: reconnect the account, then retry", cfg.Email)
	}
	return nil, err
}

// restore takes a message out of the Trash (messages.untrash) and puts it
// back in the inbox (modify: INBOX added, SPAM removed) when it is not
// there, reading its labels first: a run repeated after a crash, or a mail
// the person took out of the Trash in Gmail already, calls nothing that
// changes the mailbox. It reports whether it untrashed the message.
func restore(ctx context.Context, client *gmail.Client, id string) (bool, error) {
	labels, err := client.Labels(ctx, id)
	if err != nil {
		return false, err
	}
	untrashed := false
	if slices.Contains(labels, "TRASH") {
		if labels, err = client.Untrash(ctx, id); err != nil {
			return false, err
		}
		untrashed = true
	}
	var remove []string
	if slices.Contains(labels, "SPAM") {
		remove = []string{"SPAM"}
	}
	if !slices.Contains(labels, "INBOX") || remove != nil {
		if err := client.Modify(ctx, id, []string{"INBOX"}, remove); err != nil {
			return untrashed, err
		}
	}
	return untrashed, nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
