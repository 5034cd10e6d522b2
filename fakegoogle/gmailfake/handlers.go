package gmailfake

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

func (s *Server) routes() {
	m := http.NewServeMux()
	const u = "/gmail/v1/users/{user}"
	m.HandleFunc("GET "+u+"/profile", s.api("profile", s.getProfile))
	m.HandleFunc("POST "+u+"/watch", s.api("watch", s.postWatch))
	m.HandleFunc("POST "+u+"/stop", s.api("stop", s.postStop))
	m.HandleFunc("GET "+u+"/history", s.api("history.list", s.listHistory))
	m.HandleFunc("GET "+u+"/messages", s.api("messages.list", s.listMessages))
	m.HandleFunc("GET "+u+"/messages/{id}", s.api("messages.get", s.getMessage))
	m.HandleFunc("GET "+u+"/messages/{id}/attachments/{att}", s.api("messages.attachments.get", s.getAttachment))
	m.HandleFunc("POST "+u+"/messages/{id}/modify", s.api("messages.modify", s.modifyMessage))
	m.HandleFunc("POST "+u+"/messages/{id}/trash", s.api("messages.trash", s.trashMessage))
	m.HandleFunc("POST "+u+"/messages/{id}/untrash", s.api("messages.untrash", s.untrashMessage))
	m.HandleFunc("POST "+u+"/messages/batchModify", s.api("messages.batchModify", s.batchModify))
	m.HandleFunc("POST "+u+"/messages/send", s.api("messages.send", s.sendMessage))
	m.HandleFunc("GET "+u+"/threads/{id}", s.api("threads.get", s.getThread))
	m.HandleFunc("GET "+u+"/labels", s.api("labels.list", s.listLabels))
	m.HandleFunc("GET "+u+"/labels/{id}", s.api("labels.get", s.getLabel))
	m.HandleFunc("POST "+u+"/labels", s.api("labels.create", s.createLabel))
	// Scouts must never delete mail: the fake refuses every way to, the way
	// Google refuses a token without the full-mail scope.
	refuse := func(w http.ResponseWriter, r *http.Request) { errInsufficientPermissions().write(w) }
	m.HandleFunc("DELETE /gmail/v1/", refuse)
	m.HandleFunc("POST "+u+"/messages/batchDelete", refuse)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { errNotFound().write(w) })
	s.mux = m
}

// ServeHTTP serves the Gmail API under /gmail/v1/.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// call is what a handler gets: the caller's mailbox and the clock, with
// Server.mu held. A handler returns the response value (nil: 204) or an
// *apiError; notifications it queued are published once the lock is
// released.
type call struct {
	mb  *mailbox
	now time.Time
	r   *http.Request
}

type handler func(c *call) (any, error)

// api wraps a method: latency, authentication, the user id, faults, quota,
// then the handler under the lock, then publishing outside it.
func (s *Server) api(method string, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer s.changed.Fire()
		if !s.door(method, r.Context().Done()) {
			return
		}
		s.mu.Lock()
		latency := s.latency
		s.mu.Unlock()
		if latency > 0 {
			t := time.NewTimer(latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		res, mb, err := s.serve(method, h, r)
		if mb != nil {
			s.flush(r.Context(), mb)
		}
		var ae *apiError
		switch {
		case err == nil && res == nil:
			w.WriteHeader(http.StatusNoContent)
		case err == nil:
			writeJSON(w, http.StatusOK, res)
		case errors.As(err, &ae):
			ae.write(w)
		default:
			errInvalid("%v", err).write(w)
		}
	}
}

func (s *Server) serve(method string, h handler, r *http.Request) (any, *mailbox, error) {
	tok, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !found || tok == "" {
		return nil, nil, errUnauthenticated(true)
	}
	email, ok := s.o.Authorize(tok)
	if !ok {
		return nil, nil, errUnauthenticated(false)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.o.Now()
	mb := s.mailbox(email)
	if mb != nil && mb.revoked {
		return nil, nil, errUnauthenticated(false)
	}
	if user := r.PathValue("user"); user != "me" && !strings.EqualFold(user, email) {
		return nil, nil, errForbidden("Delegation denied for " + email)
	}
	if mb == nil {
		return nil, nil, errFailedPrecondition("Mail service not enabled")
	}
	mb.calls[method]++
	keys := []string{method, "*"}
	if id := r.PathValue("id"); id != "" {
		mb.calls[method+"/"+id]++
		keys = append([]string{method + "/" + id}, keys...)
	}
	for _, key := range keys {
		if f := mb.faults[key]; f != nil {
			if f.times > 0 {
				if f.times--; f.times == 0 {
					delete(mb.faults, key)
				}
			}
			return nil, nil, errForStatus(f.status, f.retryAfter, now)
		}
	}
	if wait, ok := mb.window.spend(now, costs[method], s.o.QuotaPerMinute); !ok {
		return nil, nil, errRateLimit(wait, now)
	}
	mb.quota += costs[method]
	res, err := h(&call{mb: mb, now: now, r: r})
	return res, mb, err
}

func (c *call) message() (*message, error) {
	m := c.mb.msgs[c.r.PathValue("id")]
	if m == nil {
		return nil, errNotFound()
	}
	return m, nil
}

// decode reads a JSON request body; an empty body is an empty request.
func (c *call) decode(v any) error {
	body, err := io.ReadAll(io.LimitReader(c.r.Body, 1<<20))
	if err != nil {
		return errInvalid("reading the request body: %v", err)
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errInvalid("Invalid JSON payload received. %v", err)
	}
	return nil
}

// maxResults reads maxResults: default 100, at most 500, as Gmail.
func (c *call) maxResults() (int, error) {
	v := c.r.URL.Query().Get("maxResults")
	if v == "" {
		return 100, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errInvalid("Invalid value at 'max_results' (TYPE_UINT32), %q", v)
	}
	if n == 0 {
		return 100, nil
	}
	return min(n, 500), nil
}

func (s *Server) getProfile(c *call) (any, error) {
	return map[string]any{
		"emailAddress":  c.mb.email,
		"messagesTotal": len(c.mb.msgs),
		"threadsTotal":  c.mb.threadCount(),
		"historyId":     idString(c.mb.historyID),
	}, nil
}

var topicRE = regexp.MustCompile(`^projects/[^/]+/topics/[^/]+$`)

func (s *Server) postWatch(c *call) (any, error) {
	var req struct {
		TopicName           string   `json:"topicName"`
		LabelIDs            []string `json:"labelIds"`
		LabelFilterBehavior string   `json:"labelFilterBehavior"`
		LabelFilterAction   string   `json:"labelFilterAction"` // deprecated spelling
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	if !topicRE.MatchString(req.TopicName) {
		return nil, errInvalid("Invalid topicName does not match projects/*/topics/*")
	}
	behavior := strings.ToLower(cmpOr(req.LabelFilterBehavior, req.LabelFilterAction, "include"))
	if behavior != "include" && behavior != "exclude" {
		return nil, errInvalid("Invalid value at 'label_filter_behavior', %q", behavior)
	}
	for _, l := range req.LabelIDs {
		if !c.mb.labelExists(l) {
			return nil, errInvalid("Invalid label: %s", l)
		}
	}
	exp := c.now.Add(7 * 24 * time.Hour)
	c.mb.watch = &watch{topic: req.TopicName, labelIDs: req.LabelIDs, exclude: behavior == "exclude", expiration: exp}
	return map[string]string{"historyId": idString(c.mb.historyID), "expiration": fmt.Sprint(exp.UnixMilli())}, nil
}

func cmpOr(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func (s *Server) postStop(c *call) (any, error) {
	c.mb.watch = nil
	return nil, nil
}

var historyKinds = []string{kindAdded, kindDeleted, kindLabelAdded, kindLabelRemoved}

func (s *Server) listHistory(c *call) (any, error) {
	q := c.r.URL.Query()
	start, err := strconv.ParseUint(q.Get("startHistoryId"), 10, 64)
	if q.Get("startHistoryId") == "" {
		return nil, errInvalid("Missing required parameter: startHistoryId")
	}
	if err != nil {
		return nil, errInvalid("Invalid value at 'start_history_id' (TYPE_UINT64), %q", q.Get("startHistoryId"))
	}
	if start < c.mb.floor {
		return nil, errNotFound()
	}
	types := q["historyTypes"]
	for _, t := range types {
		if !slices.Contains(historyKinds, t) {
			return nil, errInvalid("Invalid value at 'history_types', %q", t)
		}
	}
	label := q.Get("labelId")
	limit, err := c.maxResults()
	if err != nil {
		return nil, err
	}
	after := start
	if tok := q.Get("pageToken"); tok != "" {
		v, err := decodeToken(tok, "h")
		if err != nil {
			return nil, err
		}
		if after, err = strconv.ParseUint(v, 10, 64); err != nil {
			return nil, errInvalid("Invalid pageToken")
		}
		if after < c.mb.floor {
			return nil, errNotFound()
		}
	}
	out := struct {
		History       []wireHistory `json:"history,omitempty"`
		NextPageToken string        `json:"nextPageToken,omitempty"`
		HistoryID     string        `json:"historyId"`
	}{HistoryID: idString(c.mb.historyID)}
	i, _ := slices.BinarySearchFunc(c.mb.history, after+1, func(r record, id uint64) int { return cmpUint(r.id, id) })
	for _, r := range c.mb.history[i:] {
		if label != "" && !r.touches(label) {
			continue
		}
		if len(types) > 0 && !slices.ContainsFunc(r.kinds(), func(k string) bool { return slices.Contains(types, k) }) {
			continue
		}
		if len(out.History) == limit {
			out.NextPageToken = encodeToken("h", out.History[len(out.History)-1].id())
			break
		}
		out.History = append(out.History, wireRecord(r, types))
	}
	return out, nil
}

// wireHistory keeps the numeric id next to its wire form for paging.
func (h wireHistory) id() uint64 { n, _ := strconv.ParseUint(h.ID, 10, 64); return n }

func wireRecord(r record, types []string) wireHistory {
	want := func(k string) bool { return len(types) == 0 || slices.Contains(types, k) }
	ref := wireMessageRef{ID: r.msgID, ThreadID: r.threadID}
	full := wireMessageRef{ID: r.msgID, ThreadID: r.threadID, LabelIDs: r.labels}
	h := wireHistory{ID: idString(r.id), Messages: []wireMessageRef{ref}}
	if r.added && want(kindAdded) {
		h.MessagesAdded = []wireMessageChange{{Message: full}}
	}
	if r.deleted && want(kindDeleted) {
		h.MessagesDeleted = []wireMessageChange{{Message: ref}}
	}
	if len(r.labelsAdded) > 0 && want(kindLabelAdded) {
		h.LabelsAdded = []wireMessageChange{{Message: full, LabelIDs: r.labelsAdded}}
	}
	if len(r.labelsRemoved) > 0 && want(kindLabelRemoved) {
		h.LabelsRemoved = []wireMessageChange{{Message: full, LabelIDs: r.labelsRemoved}}
	}
	return h
}

// Page tokens are opaque to clients; here they carry the position of the
// last item served, so that paging stays right while the mailbox changes.
func encodeToken(kind string, v any) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%s:%v", kind, v))
}

func decodeToken(tok, kind string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	rest, ok := strings.CutPrefix(string(raw), kind+":")
	if err != nil || !ok || rest == "" {
		return "", errInvalid("Invalid pageToken")
	}
	return rest, nil
}
