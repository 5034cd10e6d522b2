// Package gmailfake is an in-memory Gmail API server that the real client
// (google.golang.org/api/gmail/v1) talks to unmodified, for tests and local
// runs of Scouts:
//
//	srv := gmailfake.New(gmailfake.Options{})
//	srv.AddMailbox("ann@example.com")
//	ts := httptest.NewServer(srv)
//	svc, _ := gmail.NewService(ctx, option.WithEndpoint(ts.URL+"/"),
//		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "fake-token-for:ann@example.com"})))
//
// It keeps Gmail's wire format (64-bit numbers as strings, URL-safe
// base64 without padding, Google-shaped errors), its history semantics
// (ids that grow with gaps, 404 for a too-old startHistoryId), per-method
// quota costs and push notifications, and it lets a test break things:
// faults, latency, lost or doubled notifications, revoked tokens, expired
// history. It never deletes mail, and answers 403 to anything that would.
package gmailfake

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/internal/wake"
)

// Options configures a Server.
type Options struct {
	// Authorize maps a bearer access token to the mailbox address it may
	// use; nil accepts "fake-token-for:<email>".
	Authorize func(accessToken string) (email string, ok bool)
	// Publish is called when a mailbox with an active watch gets a new
	// history record the watch covers, with the watch's topic
	// ("projects/P/topics/T") and the Pub/Sub message data Gmail sends:
	// {"emailAddress":"…","historyId":NUMBER}. It runs on the goroutine
	// that changed the mailbox, before that change's API call or Deliver
	// returns, never under the server's lock (so it may call the Server),
	// in history order per mailbox, and concurrently for different
	// mailboxes. Errors are logged and the notification is lost, as Gmail
	// may lose one. Nil: no notifications.
	Publish func(ctx context.Context, topic string, data []byte) error
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// QuotaPerMinute is the per-user quota in units per rolling minute;
	// 0 is Gmail's 15 000, negative is unlimited.
	QuotaPerMinute int
	// Logf reports what a client cannot see, such as failed publishes;
	// nil discards.
	Logf func(format string, args ...any)
}

// Server is a fake Gmail API; it is an http.Handler.
type Server struct {
	o   Options
	mux *http.ServeMux

	// changed fires after each API call the fake answered and each mail
	// delivered: what a test waiting on the fake's state looks again on.
	changed wake.Wake

	mu        sync.Mutex
	mailboxes map[string]*mailbox // by lower-cased address
	lastID    uint64
	latency   time.Duration
	// holds are the methods Hold keeps at the door, waiting how many
	// calls wait there (hold.go).
	holds   map[string]chan struct{}
	waiting map[string]int
}

// Costs in quota units per method, as Google publishes them.
var costs = map[string]int{
	"profile": 1, "watch": 100, "stop": 50, "history.list": 2,
	"messages.list": 5, "messages.get": 5, "messages.modify": 5, "messages.trash": 5,
	"messages.untrash": 5, "messages.batchModify": 50, "messages.attachments.get": 5,
	"labels.list": 1, "labels.get": 1, "labels.create": 5, "threads.get": 10,
	"messages.send": 100,
}

// New returns a Server with no mailboxes.
func New(o Options) *Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.QuotaPerMinute == 0 {
		o.QuotaPerMinute = 15000
	}
	if o.Authorize == nil {
		o.Authorize = func(tok string) (string, bool) {
			email, ok := strings.CutPrefix(tok, "fake-token-for:")
			return email, ok && email != ""
		}
	}
	s := &Server{o: o, mailboxes: map[string]*mailbox{}}
	s.routes()
	return s
}

func (s *Server) logf(format string, args ...any) {
	if s.o.Logf != nil {
		s.o.Logf(format, args...)
	}
}

// AddMailbox creates an empty mailbox; adding an existing one does nothing.
func (s *Server) AddMailbox(email string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(email)
	if _, ok := s.mailboxes[key]; ok {
		return
	}
	// Each mailbox starts elsewhere, so that history ids mixed up between
	// accounts do not happen to work.
	k := uint64(len(s.mailboxes))
	s.mailboxes[key] = newMailbox(email, 100000*(k+1)+7*k)
}

func (s *Server) mailbox(email string) *mailbox { return s.mailboxes[strings.ToLower(email)] }

// Deliver adds a raw RFC 822 message as if it had just arrived, with the
// given labels (default INBOX and UNREAD; SPAM alone for what Gmail's
// filter caught). It returns the message id and the new history id, after
// any notification has been published.
func (s *Server) Deliver(email string, raw []byte, labels ...string) (id string, historyID uint64, err error) {
	if len(labels) == 0 {
		labels = []string{"INBOX", "UNREAD"}
	}
	payload := parseEntity(raw, "")
	s.mu.Lock()
	mb := s.mailbox(email)
	if mb == nil {
		s.mu.Unlock()
		return "", 0, fmt.Errorf("gmailfake: deliver to %s: no such mailbox", email)
	}
	for _, l := range labels {
		if !mb.labelExists(l) {
			s.mu.Unlock()
			return "", 0, fmt.Errorf("gmailfake: deliver to %s: no label %q", email, l)
		}
	}
	now := s.o.Now()
	id = s.newID(now)
	thread := mb.threadFor(payload)
	if thread == "" {
		thread = id
	}
	if mid := strings.TrimSpace(payload.header("Message-ID")); mid != "" {
		mb.threadOf[mid] = thread
	}
	m := &message{id: id, threadID: thread, raw: slices.Clone(raw), labels: slices.Compact(slices.Clone(labels)),
		internalDate: now.UnixMilli(), payload: payload, snippet: snippet(payload)}
	mb.msgs[id] = m
	mb.appendRecord(record{msgID: id, threadID: thread, labels: slices.Clone(m.labels), added: true}, now)
	historyID = mb.historyID
	s.mu.Unlock()
	s.flush(context.Background(), mb)
	s.changed.Fire()
	return id, historyID, nil
}

// Next returns a channel closed after the next API call the fake answers
// or the next mail delivered: take it before looking at the fake's state
// (Calls, Message, …), and look again when it closes, instead of polling
// (see internal/wake).
func (s *Server) Next() <-chan struct{} { return s.changed.Next() }

// newID makes a Gmail-like message id: 16 hex digits, the millisecond
// clock shifted left 20 bits, unique and increasing on this server.
func (s *Server) newID(now time.Time) string {
	n := uint64(max(now.UnixMilli(), 0)) << 20
	s.lastID = max(s.lastID+1, n)
	return fmt.Sprintf("%016x", s.lastID)
}

// Message returns a message's labels, to check what a client did to it.
func (s *Server) Message(email, id string) (labels []string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mb := s.mailbox(email)
	if mb == nil || mb.msgs[id] == nil {
		return nil, false
	}
	return slices.Clone(mb.msgs[id].labels), true
}

// Modifications reports what was done to a message: how many
// messages.modify calls named it (whether or not they changed anything),
// and how many times each label was in effect added to it or removed from
// it (from the mailbox's history, so it counts changes that ExpireHistory
// has not forgotten).
func (s *Server) Modifications(email, id string) (calls int, added, removed map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	added, removed = map[string]int{}, map[string]int{}
	mb := s.mailbox(email)
	if mb == nil {
		return 0, added, removed
	}
	for _, r := range mb.history {
		if r.msgID != id {
			continue
		}
		for _, l := range r.labelsAdded {
			added[l]++
		}
		for _, l := range r.labelsRemoved {
			removed[l]++
		}
	}
	return mb.modifies[id], added, removed
}

// LabelName returns the name of a label of the mailbox: a user label's
// name, a system label's id; ok is false for a label the mailbox lacks.
// A test reads by name what a client labelled (a label it created has an
// id the test cannot know).
func (s *Server) LabelName(email, id string) (name string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mb := s.mailbox(email)
	if mb == nil {
		return "", false
	}
	if isSystemLabel(id) {
		return id, true
	}
	for _, l := range mb.labels {
		if l.id == id {
			return l.name, true
		}
	}
	return "", false
}

// HistoryID returns the mailbox's current history id (0: no mailbox).
func (s *Server) HistoryID(email string) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mb := s.mailbox(email); mb != nil {
		return mb.historyID
	}
	return 0
}

// ExpireHistory forgets the history records below before, as Gmail does
// after a while: history.list then answers 404 for a startHistoryId below
// before.
func (s *Server) ExpireHistory(email string, before uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mb := s.mailbox(email)
	if mb == nil || before <= mb.floor {
		return
	}
	mb.floor = before
	i, _ := slices.BinarySearchFunc(mb.history, before, func(r record, id uint64) int { return cmpUint(r.id, id) })
	mb.history = slices.Clone(mb.history[i:])
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Fail makes the next times calls of method (a short name such as
// "history.list", "messages.get", "watch", "profile", or "*" for any)
// answer status with Google's error body for it; retryAfter > 0 adds a
// Retry-After header. times < 0 fails until cleared with times 0.
func (s *Server) Fail(email, method string, status int, times int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mb := s.mailbox(email)
	if mb == nil {
		return
	}
	if times == 0 {
		delete(mb.faults, method)
		return
	}
	mb.faults[method] = &fault{status: status, times: times, retryAfter: retryAfter}
}

// FailMessage is Fail for the calls of method naming one message id
// ("messages.get" of the third message of a sync, say).
func (s *Server) FailMessage(email, method, id string, status, times int) {
	s.Fail(email, method+"/"+id, status, times, 0)
}

// MessageCalls counts the calls of method naming the message id, faulted
// ones included: how often a client fetched it.
func (s *Server) MessageCalls(email, method, id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mb := s.mailbox(email); mb != nil {
		return mb.calls[method+"/"+id]
	}
	return 0
}

// SetLatency delays every API request by d.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// DropNotifications silently loses the mailbox's next n notifications.
func (s *Server) DropNotifications(email string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mb := s.mailbox(email); mb != nil {
		mb.drop = n
	}
}

// DuplicateNotifications publishes each notification twice while on, as
// Pub/Sub's at-least-once delivery may.
func (s *Server) DuplicateNotifications(email string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mb := s.mailbox(email); mb != nil {
		mb.dup = on
	}
}

// RevokeAll makes every token of the mailbox answer 401 authError, as
// after the user revoked access, until Restore.
func (s *Server) RevokeAll(email string) { s.setRevoked(email, true) }

// Restore undoes RevokeAll, as when the user grants access again.
func (s *Server) Restore(email string) { s.setRevoked(email, false) }

func (s *Server) setRevoked(email string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mb := s.mailbox(email); mb != nil {
		mb.revoked = on
	}
}

// Quota returns the quota units the mailbox's calls spent, at Google's
// published per-method costs. Calls refused by a fault or by the quota
// itself cost nothing.
func (s *Server) Quota(email string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mb := s.mailbox(email); mb != nil {
		return mb.quota
	}
	return 0
}

// Calls counts the mailbox's authenticated calls by short method name,
// including those answered with an injected fault or a rate limit.
func (s *Server) Calls(email string) map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	if mb := s.mailbox(email); mb != nil {
		for k, v := range mb.calls {
			if !strings.Contains(k, "/") { // per-message counts: MessageCalls
				out[k] = v
			}
		}
	}
	return out
}

// quotaWindow sums units over the last minute in one-second buckets.
type quotaWindow struct {
	sec   [60]int64
	units [60]int
}

// spend charges cost at now unless that would exceed limit in the rolling
// minute; it returns how long to wait when it refuses.
func (q *quotaWindow) spend(now time.Time, cost, limit int) (wait time.Duration, ok bool) {
	sec := now.Unix()
	used, oldest := 0, sec
	for i := range q.sec {
		if q.units[i] > 0 && q.sec[i] > sec-60 {
			used += q.units[i]
			oldest = min(oldest, q.sec[i])
		}
	}
	if limit > 0 && used+cost > limit {
		return time.Unix(oldest+60, 0).Sub(now), false
	}
	b := sec % 60
	if q.sec[b] != sec {
		q.sec[b], q.units[b] = sec, 0
	}
	q.units[b] += cost
	return 0, true
}
