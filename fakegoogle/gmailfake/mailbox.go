package gmailfake

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// systemLabels are the labels every Gmail mailbox has, in the order
// labels.list gives them.
var systemLabels = []string{
	"CHAT", "SENT", "INBOX", "IMPORTANT", "TRASH", "DRAFT", "SPAM",
	"CATEGORY_FORUMS", "CATEGORY_UPDATES", "CATEGORY_PERSONAL", "CATEGORY_PROMOTIONS", "CATEGORY_SOCIAL",
	"STARRED", "UNREAD",
}

func isSystemLabel(id string) bool { return slices.Contains(systemLabels, id) }

type message struct {
	id, threadID string
	raw          []byte
	labels       []string
	internalDate int64 // ms since the epoch
	historyID    uint64
	payload      *part
	snippet      string
	// trashed remembers what trash removed, so that untrash can put the
	// message back where it was.
	trashed []string
}

func (m *message) has(label string) bool { return slices.Contains(m.labels, label) }

// Kinds of history record, as history.list's historyTypes names them.
const (
	kindAdded        = "messageAdded"
	kindDeleted      = "messageDeleted"
	kindLabelAdded   = "labelAdded"
	kindLabelRemoved = "labelRemoved"
)

// record is one history record; it concerns one message.
type record struct {
	id              uint64
	msgID, threadID string
	labels          []string // the message's labels after the change
	added, deleted  bool
	labelsAdded     []string
	labelsRemoved   []string
}

func (r *record) kinds() []string {
	var k []string
	if r.added {
		k = append(k, kindAdded)
	}
	if r.deleted {
		k = append(k, kindDeleted)
	}
	if len(r.labelsAdded) > 0 {
		k = append(k, kindLabelAdded)
	}
	if len(r.labelsRemoved) > 0 {
		k = append(k, kindLabelRemoved)
	}
	return k
}

// touches reports whether the record concerns the label, before or after.
func (r *record) touches(label string) bool {
	return slices.Contains(r.labels, label) || slices.Contains(r.labelsRemoved, label)
}

type userLabel struct {
	id, name              string
	messageListVisibility string
	labelListVisibility   string
}

type watch struct {
	topic      string
	labelIDs   []string
	exclude    bool
	expiration time.Time
}

type fault struct {
	status     int
	times      int // < 0: until cleared
	retryAfter time.Duration
}

type notification struct {
	topic string
	data  []byte
}

// mailbox is one user's state. Every field is guarded by Server.mu except
// pubMu, which orders this mailbox's notifications.
type mailbox struct {
	email     string
	historyID uint64
	floor     uint64 // history.list refuses startHistoryId below this
	history   []record
	msgs      map[string]*message
	threadOf  map[string]string // RFC 5322 Message-ID → threadId
	labels    []*userLabel
	nextLabel int
	watch     *watch
	revoked   bool

	faults map[string]*fault
	quota  int
	window quotaWindow
	calls  map[string]int
	// modifies counts messages.modify calls per message id, whether or
	// not they changed anything.
	modifies map[string]int
	drop     int
	dup      bool
	pending  []notification
	pubMu    sync.Mutex
}

func newMailbox(email string, base uint64) *mailbox {
	return &mailbox{
		email: email, historyID: base, floor: base,
		msgs: map[string]*message{}, threadOf: map[string]string{},
		faults: map[string]*fault{}, calls: map[string]int{}, modifies: map[string]int{},
	}
}

// labelExists reports whether id names a system or user label.
func (mb *mailbox) labelExists(id string) bool {
	if isSystemLabel(id) {
		return true
	}
	return slices.ContainsFunc(mb.labels, func(l *userLabel) bool { return l.id == id })
}

// labelByName resolves the label: operand of a query: an id, a system
// label name, or a user label name with spaces written as hyphens.
func (mb *mailbox) labelByName(name string) (string, bool) {
	norm := func(s string) string { return strings.ToLower(strings.NewReplacer(" ", "-", "/", "-").Replace(s)) }
	for _, id := range systemLabels {
		if norm(id) == norm(name) {
			return id, true
		}
	}
	for _, l := range mb.labels {
		if l.id == name || norm(l.name) == norm(name) {
			return l.id, true
		}
	}
	return "", false
}

// nextHistoryID advances the mailbox's history id. Gmail's ids grow with
// gaps; the gaps here make a client that assumes id+1 fail in tests.
func (mb *mailbox) nextHistoryID() uint64 {
	mb.historyID += 1 + uint64(len(mb.history)%3)
	return mb.historyID
}

// appendRecord stamps and stores a change and, when the watch wants it,
// queues a notification; the caller publishes after unlocking.
func (mb *mailbox) appendRecord(r record, now time.Time) {
	r.id = mb.nextHistoryID()
	if m := mb.msgs[r.msgID]; m != nil {
		m.historyID = r.id
	}
	mb.history = append(mb.history, r)
	w := mb.watch
	if w == nil || !now.Before(w.expiration) {
		return
	}
	if len(w.labelIDs) > 0 {
		hit := slices.ContainsFunc(w.labelIDs, r.touches)
		if hit == w.exclude {
			return
		}
	}
	if mb.drop > 0 {
		mb.drop--
		return
	}
	data := fmt.Appendf(nil, `{"emailAddress":%q,"historyId":%d}`, mb.email, r.id)
	n := notification{topic: w.topic, data: data}
	mb.pending = append(mb.pending, n)
	if mb.dup {
		mb.pending = append(mb.pending, n)
	}
}

// relabel applies a label change and records it; no change, no record.
func (mb *mailbox) relabel(m *message, add, remove []string, now time.Time) {
	var added, removed []string
	for _, l := range remove {
		if m.has(l) && !slices.Contains(add, l) {
			m.labels = slices.DeleteFunc(m.labels, func(x string) bool { return x == l })
			removed = append(removed, l)
		}
	}
	for _, l := range add {
		if !m.has(l) {
			m.labels = append(m.labels, l)
			added = append(added, l)
		}
	}
	if len(added) == 0 && len(removed) == 0 {
		return
	}
	mb.appendRecord(record{msgID: m.id, threadID: m.threadID, labels: slices.Clone(m.labels),
		labelsAdded: added, labelsRemoved: removed}, now)
}

// trash moves a message to the trash: Gmail keeps a message in at most
// one of INBOX, SPAM and TRASH.
func (mb *mailbox) trash(m *message, now time.Time) {
	if m.has("TRASH") {
		return
	}
	var out []string
	for _, l := range []string{"INBOX", "SPAM"} {
		if m.has(l) {
			out = append(out, l)
		}
	}
	m.trashed = out
	mb.relabel(m, []string{"TRASH"}, out, now)
}

func (mb *mailbox) untrash(m *message, now time.Time) {
	if !m.has("TRASH") {
		return
	}
	back := m.trashed
	m.trashed = nil
	mb.relabel(m, back, []string{"TRASH"}, now)
}

// threadFor finds the thread a new message replies to, by In-Reply-To and
// References. Gmail also compares subjects; the fake trusts the headers.
func (mb *mailbox) threadFor(p *part) string {
	refs := strings.Fields(p.header("References") + " " + p.header("In-Reply-To"))
	for i := len(refs) - 1; i >= 0; i-- {
		if t, ok := mb.threadOf[refs[i]]; ok {
			return t
		}
	}
	return ""
}

// sorted returns the messages newest first, as messages.list orders them.
func (mb *mailbox) sorted() []*message {
	all := make([]*message, 0, len(mb.msgs))
	for _, m := range mb.msgs {
		all = append(all, m)
	}
	slices.SortFunc(all, func(a, b *message) int {
		if c := cmp.Compare(b.internalDate, a.internalDate); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
	return all
}

func (mb *mailbox) threadCount() int {
	seen := map[string]bool{}
	for _, m := range mb.msgs {
		seen[m.threadID] = true
	}
	return len(seen)
}

func attachmentID(msgID, partID string) string {
	return "ANGjd" + base64.RawURLEncoding.EncodeToString([]byte(msgID+":"+partID))
}

// findPart finds the part an attachment id names.
func (m *message) findPart(attID string) *part {
	var walk func(p *part) *part
	walk = func(p *part) *part {
		if p.parts == nil {
			if p.attachment() && attachmentID(m.id, p.partID) == attID {
				return p
			}
			return nil
		}
		for _, c := range p.parts {
			if f := walk(c); f != nil {
				return f
			}
		}
		return nil
	}
	return walk(m.payload)
}

// wire renders a message in one of messages.get's formats.
func (m *message) wire(format string, metadataHeaders []string) wireMessage {
	w := wireMessage{ID: m.id, ThreadID: m.threadID, LabelIDs: slices.Clone(m.labels), Snippet: m.snippet,
		SizeEstimate: len(m.raw), HistoryID: idString(m.historyID), InternalDate: fmt.Sprint(m.internalDate)}
	switch format {
	case "full":
		w.Payload = m.wirePart(m.payload)
	case "metadata":
		hs := m.payload.headers
		if len(metadataHeaders) > 0 {
			hs = nil
			for _, h := range m.payload.headers {
				if slices.ContainsFunc(metadataHeaders, func(n string) bool { return strings.EqualFold(n, h.Name) }) {
					hs = append(hs, h)
				}
			}
		}
		w.Payload = &wirePart{MimeType: m.payload.mimeType, Headers: nonNil(hs)}
	case "raw":
		w.Raw = base64.RawURLEncoding.EncodeToString(m.raw)
	}
	return w
}

func (m *message) wirePart(p *part) *wirePart {
	w := &wirePart{PartID: p.partID, MimeType: p.mimeType, Filename: p.filename, Headers: nonNil(p.headers), Body: &wireBody{}}
	if p.parts != nil {
		for _, c := range p.parts {
			w.Parts = append(w.Parts, m.wirePart(c))
		}
		return w
	}
	w.Body.Size = len(p.body)
	if len(p.body) > 0 {
		if p.attachment() {
			w.Body.AttachmentID = attachmentID(m.id, p.partID)
		} else {
			w.Body.Data = base64.RawURLEncoding.EncodeToString(p.body)
		}
	}
	return w
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
