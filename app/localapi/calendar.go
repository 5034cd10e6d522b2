package localapi

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/scouts"
)

// The calendar feed's token is its own: calendar apps keep the feed's
// URL, token included, in their settings, and may show it; it opens the
// feed alone (read-only), never the local API, and the local API's token
// does not open the feed. The agent keeps its SHA-256 only.
const (
	feedPath           = "/api/v1/calendar.ics"
	feedTokenSetting   = "calendar.feed_token_sha256"
	feedCreatedSetting = "calendar.feed_created_at"
)

func (s *Server) calendarRoutes(m *http.ServeMux) {
	m.HandleFunc("GET "+feedPath, s.handleCalendarFeed)
	m.HandleFunc("GET /api/v1/calendar", s.handleCalendarStatus)
	m.HandleFunc("POST /api/v1/calendar/token", s.handleCalendarToken)
	m.HandleFunc("DELETE /api/v1/calendar/token", s.handleCalendarRevoke)
	m.HandleFunc("GET /api/v1/events/{id}/ics", s.handleEventICS)
}

// isCalendarFeed says whether r asks for the feed, which the TCP listener
// lets through without the API's token: the feed checks its own.
func isCalendarFeed(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == feedPath
}

func (s *Server) calendarState(r *http.Request) (apitype.CalendarFeed, string, error) {
	hash, ok, err := s.core.DB.Setting(r.Context(), feedTokenSetting)
	if err != nil || !ok {
		return apitype.CalendarFeed{}, "", err
	}
	out := apitype.CalendarFeed{Enabled: true, Path: feedPath}
	if v, ok, err := s.core.DB.Setting(r.Context(), feedCreatedSetting); err != nil {
		return out, "", err
	} else if ms, perr := strconv.ParseInt(v, 10, 64); ok && perr == nil {
		at := time.UnixMilli(ms).UTC()
		out.CreatedAt = &at
	}
	return out, hash, nil
}

func (s *Server) handleCalendarStatus(w http.ResponseWriter, r *http.Request) {
	st, _, err := s.calendarState(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// handleCalendarToken makes a new feed token: the previous one, if any,
// stops working at once.
func (s *Server) handleCalendarToken(w http.ResponseWriter, r *http.Request) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		s.fail(w, r, err)
		return
	}
	tok := hex.EncodeToString(b)
	sum := sha256.Sum256([]byte(tok))
	now := time.Now().UTC().Truncate(time.Millisecond)
	if err := s.core.DB.SetSetting(r.Context(), feedTokenSetting, hex.EncodeToString(sum[:])); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.core.DB.SetSetting(r.Context(), feedCreatedSetting, strconv.FormatInt(now.UnixMilli(), 10)); err != nil {
		s.fail(w, r, err)
		return
	}
	s.log.Info("calendar feed token made; any earlier one is revoked")
	writeJSON(w, http.StatusCreated, apitype.CalendarFeed{Enabled: true, CreatedAt: &now, Token: tok, Path: feedPath + "?token=" + tok})
}

func (s *Server) handleCalendarRevoke(w http.ResponseWriter, r *http.Request) {
	if err := s.core.DB.DeleteSetting(r.Context(), feedTokenSetting); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.core.DB.DeleteSetting(r.Context(), feedCreatedSetting); err != nil {
		s.fail(w, r, err)
		return
	}
	s.log.Info("calendar feed token revoked")
	writeJSON(w, http.StatusOK, apitype.CalendarFeed{})
}

// handleCalendarFeed serves the events and the tasks with a due date to
// whoever presents the feed's token (?token=, as calendar apps keep it in
// the URL).
func (s *Server) handleCalendarFeed(w http.ResponseWriter, r *http.Request) {
	_, hash, err := s.calendarState(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sum := sha256.Sum256([]byte(r.URL.Query().Get("token")))
	if hash == "" || subtle.ConstantTimeCompare([]byte(hex.EncodeToString(sum[:])), []byte(hash)) != 1 {
		writeError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong calendar feed token (scouts calendar token makes one)")
		return
	}
	cal, err := s.feedCalendar(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write([]byte(cal))
	}
}

// handleEventICS serves one event as a file to download.
func (s *Server) handleEventICS(w http.ResponseWriter, r *http.Request) {
	e, err := s.core.DB.GetEntity(r.Context(), scouts.EntityEvent, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if e.StartsAt.IsZero() {
		s.fail(w, r, scouts.Errorf(scouts.EConflict, "event %s has no start time, so no calendar can hold it", e.ID))
		return
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+icsFileName(e.Title)+`"`)
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(eventCalendar(e)))
}
