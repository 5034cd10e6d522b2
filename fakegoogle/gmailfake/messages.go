package gmailfake

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

func (s *Server) listMessages(c *call) (any, error) {
	q := c.r.URL.Query()
	limit, err := c.maxResults()
	if err != nil {
		return nil, err
	}
	terms, err := parseQuery(q.Get("q"), c.mb, c.now)
	if err != nil {
		return nil, errInvalid("%v", err)
	}
	labelIDs := q["labelIds"]
	spamTrash, _ := strconv.ParseBool(q.Get("includeSpamTrash"))
	for _, l := range labelIDs {
		spamTrash = spamTrash || l == "SPAM" || l == "TRASH"
	}
	for _, t := range terms {
		spamTrash = spamTrash || t.spamTrash
	}
	// The token holds the sort key of the last message served, which
	// stays valid whatever happens to that message meanwhile.
	afterDate, afterID := int64(0), ""
	if tok := q.Get("pageToken"); tok != "" {
		v, err := decodeToken(tok, "m")
		if err != nil {
			return nil, err
		}
		d, id, ok := strings.Cut(v, ":")
		if afterDate, err = strconv.ParseInt(d, 10, 64); err != nil || !ok {
			return nil, errInvalid("Invalid pageToken")
		}
		afterID = id
	}
	out := struct {
		Messages           []wireMessageRef `json:"messages,omitempty"`
		NextPageToken      string           `json:"nextPageToken,omitempty"`
		ResultSizeEstimate int              `json:"resultSizeEstimate"`
	}{}
	var last *message
	for _, m := range c.mb.sorted() {
		if !matches(m, labelIDs, terms, spamTrash) {
			continue
		}
		out.ResultSizeEstimate++
		if afterID != "" && (m.internalDate > afterDate || m.internalDate == afterDate && m.id >= afterID) {
			continue
		}
		if len(out.Messages) < limit {
			out.Messages = append(out.Messages, wireMessageRef{ID: m.id, ThreadID: m.threadID})
			last = m
		} else if out.NextPageToken == "" {
			out.NextPageToken = encodeToken("m", fmt.Sprintf("%d:%s", last.internalDate, last.id))
		}
	}
	return out, nil
}

func matches(m *message, labelIDs []string, terms []term, spamTrash bool) bool {
	if !spamTrash && (m.has("SPAM") || m.has("TRASH")) {
		return false
	}
	for _, l := range labelIDs {
		if !m.has(l) {
			return false
		}
	}
	for _, t := range terms {
		if t.match(m) == t.neg {
			return false
		}
	}
	return true
}

func (s *Server) getMessage(c *call) (any, error) {
	m, err := c.message()
	if err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	format := strings.ToLower(q.Get("format"))
	switch format {
	case "":
		format = "full"
	case "full", "metadata", "minimal", "raw":
	default:
		return nil, errInvalid("Invalid value at 'format' (type.googleapis.com/google.apps.gmail.v1.Format), %q", q.Get("format"))
	}
	return m.wire(format, q["metadataHeaders"]), nil
}

func (s *Server) getAttachment(c *call) (any, error) {
	m, err := c.message()
	if err != nil {
		return nil, err
	}
	p := m.findPart(c.r.PathValue("att"))
	if p == nil {
		return nil, errInvalid("Invalid attachment token")
	}
	return wireBody{Size: len(p.body), Data: base64.RawURLEncoding.EncodeToString(p.body)}, nil
}

type labelChange struct {
	IDs            []string `json:"ids"`
	AddLabelIDs    []string `json:"addLabelIds"`
	RemoveLabelIDs []string `json:"removeLabelIds"`
}

func (c *call) labelChange() (labelChange, error) {
	var req labelChange
	if err := c.decode(&req); err != nil {
		return req, err
	}
	if len(req.AddLabelIDs) == 0 && len(req.RemoveLabelIDs) == 0 {
		return req, errInvalid("No label add or removes specified")
	}
	for _, l := range slices.Concat(req.AddLabelIDs, req.RemoveLabelIDs) {
		if !c.mb.labelExists(l) {
			return req, errInvalid("Invalid label: %s", l)
		}
		if l == "DRAFT" || l == "SENT" {
			return req, errInvalid("Invalid label: %s", l)
		}
	}
	return req, nil
}

// minimalRef is what modify, trash and untrash answer.
func minimalRef(m *message) wireMessageRef {
	return wireMessageRef{ID: m.id, ThreadID: m.threadID, LabelIDs: slices.Clone(m.labels)}
}

func (s *Server) modifyMessage(c *call) (any, error) {
	m, err := c.message()
	if err != nil {
		return nil, err
	}
	c.mb.modifies[m.id]++
	req, err := c.labelChange()
	if err != nil {
		return nil, err
	}
	c.mb.relabel(m, req.AddLabelIDs, req.RemoveLabelIDs, c.now)
	return minimalRef(m), nil
}

func (s *Server) batchModify(c *call) (any, error) {
	req, err := c.labelChange()
	if err != nil {
		return nil, err
	}
	if len(req.IDs) > 1000 {
		return nil, errInvalid("Too many ids: at most 1000")
	}
	for _, id := range req.IDs {
		if m := c.mb.msgs[id]; m != nil {
			c.mb.relabel(m, req.AddLabelIDs, req.RemoveLabelIDs, c.now)
		}
	}
	return nil, nil
}

func (s *Server) trashMessage(c *call) (any, error) {
	m, err := c.message()
	if err != nil {
		return nil, err
	}
	c.mb.trash(m, c.now)
	return minimalRef(m), nil
}

func (s *Server) untrashMessage(c *call) (any, error) {
	m, err := c.message()
	if err != nil {
		return nil, err
	}
	c.mb.untrash(m, c.now)
	return minimalRef(m), nil
}

func (s *Server) listLabels(c *call) (any, error) {
	var out []wireLabel
	for _, id := range systemLabels {
		out = append(out, wireLabel{ID: id, Name: id, Type: "system"})
	}
	for _, l := range c.mb.labels {
		out = append(out, l.wire())
	}
	return map[string]any{"labels": out}, nil
}

func (l *userLabel) wire() wireLabel {
	return wireLabel{ID: l.id, Name: l.name, Type: "user",
		MessageListVisibility: l.messageListVisibility, LabelListVisibility: l.labelListVisibility}
}

func (s *Server) getLabel(c *call) (any, error) {
	id := c.r.PathValue("id")
	var w wireLabel
	if isSystemLabel(id) {
		w = wireLabel{ID: id, Name: id, Type: "system"}
	} else if i := slices.IndexFunc(c.mb.labels, func(l *userLabel) bool { return l.id == id }); i >= 0 {
		w = c.mb.labels[i].wire()
	} else {
		return nil, errNotFound()
	}
	var total, unread int
	threads, unreadThreads := map[string]bool{}, map[string]bool{}
	for _, m := range c.mb.msgs {
		if m.has(id) {
			total++
			threads[m.threadID] = true
			if m.has("UNREAD") {
				unread++
				unreadThreads[m.threadID] = true
			}
		}
	}
	tt, tu := len(threads), len(unreadThreads)
	w.MessagesTotal, w.MessagesUnread, w.ThreadsTotal, w.ThreadsUnread = &total, &unread, &tt, &tu
	return w, nil
}

func (s *Server) createLabel(c *call) (any, error) {
	var req struct {
		Name                  string `json:"name"`
		MessageListVisibility string `json:"messageListVisibility"`
		LabelListVisibility   string `json:"labelListVisibility"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(req.Name)
	if name == "" {
		return nil, errInvalid("Invalid label name")
	}
	if isSystemLabel(strings.ToUpper(name)) {
		return nil, errInvalid("Invalid label name")
	}
	for _, l := range c.mb.labels {
		if strings.EqualFold(l.name, name) {
			return nil, errConflict("Label name exists or conflicts")
		}
	}
	c.mb.nextLabel++
	l := &userLabel{id: fmt.Sprintf("Label_%d", c.mb.nextLabel), name: name,
		messageListVisibility: cmpOr(req.MessageListVisibility, "show"),
		labelListVisibility:   cmpOr(req.LabelListVisibility, "labelShow")}
	c.mb.labels = append(c.mb.labels, l)
	return l.wire(), nil
}
