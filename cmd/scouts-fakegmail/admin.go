package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
)

// maxDeliver bounds one delivered message; Gmail's own limit is 50 MB.
const maxDeliver = 50 << 20

// adminHandler lets a test running the fake as a process drive it, with
// the Go API's operations as small HTTP calls:
//
//	POST /_fake/mailbox?email=                  add a mailbox
//	POST /_fake/deliver?email=[&labels=A,B]     deliver the raw RFC 822 body → {"id","historyId"}
//	POST /_fake/fail?email=&method=&status=&times=[&retryAfter=2s]
//	GET  /_fake/quota?email=                    → {"units", "calls"}
//	GET  /_fake/message?email=&id=              → {"labelIds", "labels"} (ids, and names) or 404
//	GET  /_fake/modifications?email=&id=        → {"calls", "added", "removed"}: modify calls,
//	                                              labels in effect added/removed, by name
//	GET  /_fake/history?email=                  → {"historyId"}
//	POST /_fake/expire?email=&before=           expire history below before
//	POST /_fake/revoke?email=, /_fake/restore?email=
//	POST /_fake/latency?d=250ms
//	POST /_fake/notifications?email=[&drop=N][&duplicate=true]
func adminHandler(s *gmailfake.Server) http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("POST /_fake/mailbox", func(w http.ResponseWriter, r *http.Request) {
		s.AddMailbox(email(r))
		reply(w, map[string]string{"email": email(r)})
	})
	m.HandleFunc("POST /_fake/deliver", func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(io.LimitReader(r.Body, maxDeliver+1))
		if err != nil || len(raw) == 0 || len(raw) > maxDeliver {
			http.Error(w, "the body must be the raw message, up to 50 MB", http.StatusBadRequest)
			return
		}
		var labels []string
		if l := r.URL.Query().Get("labels"); l != "" {
			labels = strings.Split(l, ",")
		}
		id, h, err := s.Deliver(email(r), raw, labels...)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		reply(w, map[string]string{"id": id, "historyId": strconv.FormatUint(h, 10)})
	})
	m.HandleFunc("POST /_fake/fail", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		status, err1 := strconv.Atoi(q.Get("status"))
		times, err2 := strconv.Atoi(cmpOr(q.Get("times"), "1"))
		retry, err3 := duration(q.Get("retryAfter"))
		if err := firstErr(err1, err2, err3); err != nil || q.Get("method") == "" {
			http.Error(w, fmt.Sprintf("want method, status, times and retryAfter (seconds or a duration): %v", err), http.StatusBadRequest)
			return
		}
		s.Fail(email(r), q.Get("method"), status, times, retry)
		reply(w, map[string]any{"method": q.Get("method"), "status": status, "times": times})
	})
	m.HandleFunc("GET /_fake/quota", func(w http.ResponseWriter, r *http.Request) {
		reply(w, map[string]any{"units": s.Quota(email(r)), "calls": s.Calls(email(r))})
	})
	m.HandleFunc("GET /_fake/message", func(w http.ResponseWriter, r *http.Request) {
		labels, ok := s.Message(email(r), r.URL.Query().Get("id"))
		if !ok {
			http.Error(w, "no such message", http.StatusNotFound)
			return
		}
		reply(w, map[string]any{"labelIds": labels, "labels": labelNames(s, email(r), labels)})
	})
	m.HandleFunc("GET /_fake/modifications", func(w http.ResponseWriter, r *http.Request) {
		calls, added, removed := s.Modifications(email(r), r.URL.Query().Get("id"))
		byName := func(counts map[string]int) map[string]int {
			out := map[string]int{}
			for id, n := range counts {
				out[labelNames(s, email(r), []string{id})[0]] += n
			}
			return out
		}
		reply(w, map[string]any{"calls": calls, "added": byName(added), "removed": byName(removed)})
	})
	m.HandleFunc("GET /_fake/history", func(w http.ResponseWriter, r *http.Request) {
		reply(w, map[string]string{"historyId": strconv.FormatUint(s.HistoryID(email(r)), 10)})
	})
	m.HandleFunc("POST /_fake/expire", func(w http.ResponseWriter, r *http.Request) {
		before, err := strconv.ParseUint(r.URL.Query().Get("before"), 10, 64)
		if err != nil {
			http.Error(w, "want before=HISTORYID", http.StatusBadRequest)
			return
		}
		s.ExpireHistory(email(r), before)
		reply(w, map[string]string{"before": strconv.FormatUint(before, 10)})
	})
	m.HandleFunc("POST /_fake/revoke", func(w http.ResponseWriter, r *http.Request) {
		s.RevokeAll(email(r))
		reply(w, map[string]bool{"revoked": true})
	})
	m.HandleFunc("POST /_fake/restore", func(w http.ResponseWriter, r *http.Request) {
		s.Restore(email(r))
		reply(w, map[string]bool{"revoked": false})
	})
	m.HandleFunc("POST /_fake/latency", func(w http.ResponseWriter, r *http.Request) {
		d, err := duration(r.URL.Query().Get("d"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.SetLatency(d)
		reply(w, map[string]string{"latency": d.String()})
	})
	m.HandleFunc("POST /_fake/notifications", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if v := q.Get("drop"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				http.Error(w, "want drop=N", http.StatusBadRequest)
				return
			}
			s.DropNotifications(email(r), n)
		}
		if v := q.Get("duplicate"); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				http.Error(w, "want duplicate=true|false", http.StatusBadRequest)
				return
			}
			s.DuplicateNotifications(email(r), on)
		}
		reply(w, map[string]bool{"ok": true})
	})
	return m
}

func email(r *http.Request) string { return r.URL.Query().Get("email") }

// labelNames names label ids as a person sees them (a user label's name;
// a system label's id, which is its name); a label since deleted keeps
// its id.
func labelNames(s *gmailfake.Server, email string, ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		if name, ok := s.LabelName(email, id); ok {
			out[i] = name
		} else {
			out[i] = id
		}
	}
	return out
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// duration reads whole seconds (as in Retry-After) or a Go duration.
func duration(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q", v)
	}
	return d, nil
}

func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
