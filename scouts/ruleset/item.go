// Package ruleset applies a scout's rules (the grammar of scouts/rules) to
// the engine's items: it reads an item's fields for its kind, gives the
// engine the first matching rule's outcome, and converts between the
// grammar and the Gmail triage's allow/deny rules (the migration of the
// old lists, and what the relay can apply itself).
package ruleset

import (
	"encoding/json"
	"path"
	"path/filepath"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// ItemFromMetadata is what rules read of an item as the engine receives
// it. Fields the source did not read stay unknown: a mail triaged on the
// relay has no labels, recipients or List-Id here.
func ItemFromMetadata(kind scouts.Kind, meta scouts.ItemMetadata) rules.Item {
	it := rules.NewItem(string(kind))
	it.Received = meta.ReceivedAt
	f := meta.Facts
	switch kind {
	case scouts.KindGmail:
		switch ev := meta.Evidence; {
		case ev != nil:
			setSender(&it, ev.Sender)
			subject := ev.Subject
			if subject == "" {
				subject = meta.Title
			}
			it.SetString("subject", subject)
			it.SetString("list_id", strings.ToLower(ev.ListID))
		case meta.Sender != "":
			// A card read on the relay: its sender and subject, nothing
			// else. (A mail skipped unread has no sender, and its title
			// is a placeholder, not a subject.)
			setSender(&it, senderAddress(meta.Sender))
			it.SetString("subject", meta.Title)
		}
		if f != nil {
			it.SetList("to", lowerAll(f.To))
			it.SetList("labels", f.Labels)
			if f.HasAttachment != nil {
				it.SetBool("has_attachment", *f.HasAttachment)
			}
		}
	case scouts.KindFolder:
		setPath(&it, meta.Path)
		if f != nil {
			it.SetNumber("size", float64(f.Size))
			it.SetString("text", f.Text)
		}
	case scouts.KindWebhook:
		if meta.Body != "" || f != nil && f.ContentRead {
			it.SetString("title", meta.Title)
			it.SetBody(meta.Body)
		}
	case scouts.KindAgent:
		action := ""
		if len(meta.Actions) > 0 {
			action = meta.Actions[0].Action
		}
		setAgent(&it, meta.Sender, string(meta.ProposedKind), meta.Title, meta.Body, meta.URL, action)
	}
	return it
}

// setAgent records an AI agent's proposal: every field is what the agent
// sent, so all are known (an absent URL or action is empty).
func setAgent(it *rules.Item, client, kind, title, body, url, action string) {
	it.SetString("client", client)
	it.SetString("kind", kind)
	it.SetString("title", title)
	it.SetString("body", body)
	it.SetString("url", url)
	it.SetString("action", action)
}

// ItemFromSuggestion is what rules can read of a stored suggestion, for
// the preview of a rule on a scout's recent items: the card's fields.
// What a card does not keep (a mail's labels, recipients, List-Id and
// body; a file's size and text) is unknown, never guessed.
func ItemFromSuggestion(s scouts.Suggestion) rules.Item {
	it := rules.NewItem(string(s.SourceType))
	it.Received = s.CreatedAt
	title := s.Title
	if s.Assessment.SourceTitle != "" {
		title = s.Assessment.SourceTitle // a rule replaced it; the source's is the subject
	}
	switch s.SourceType {
	case scouts.KindGmail:
		if s.Sender != "" {
			setSender(&it, senderAddress(s.Sender))
			it.SetString("subject", title)
		}
	case scouts.KindFolder:
		setPath(&it, s.Path)
	case scouts.KindWebhook:
		var p struct {
			Body *string `json:"body"`
		}
		if len(s.Payload) > 0 && json.Unmarshal(s.Payload, &p) == nil && p.Body != nil {
			it.SetString("title", title)
			it.SetBody(*p.Body)
		}
	case scouts.KindAgent:
		var p struct {
			Body string `json:"body"`
		}
		if len(s.Payload) > 0 {
			_ = json.Unmarshal(s.Payload, &p) // no body stored: an empty one
		}
		// The proposed action is in the card's plan, not the card: it
		// stays unknown here rather than guessed empty.
		setAgent(&it, s.Sender, string(s.ProposedKind), title, p.Body, s.URL, "")
		delete(it.Fields, "action")
	}
	return it
}

func setSender(it *rules.Item, addr string) {
	addr = strings.ToLower(strings.TrimSpace(addr))
	if addr == "" {
		return
	}
	it.SetString("from", addr)
	dom := ""
	if at := strings.LastIndexByte(addr, '@'); at >= 0 {
		dom = strings.TrimSuffix(addr[at+1:], ".")
	}
	it.SetString("domain", dom)
}

func setPath(it *rules.Item, p string) {
	if p == "" {
		return
	}
	slashed := filepath.ToSlash(p)
	name := path.Base(slashed)
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		ext = strings.ToLower(name[i+1:])
	}
	it.SetString("path", slashed)
	it.SetString("name", name)
	it.SetString("ext", ext)
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

func lowerAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = strings.ToLower(s)
	}
	return out
}
