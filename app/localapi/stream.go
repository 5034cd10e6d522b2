package localapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/relaylink"
	"github.com/scouts-hq/scouts/app/secretref"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// heartbeat keeps idle streams alive through proxies and lets clients
// notice a dead agent.
const heartbeat = 15 * time.Second

// handleStream serves live events as Server-Sent Events. A client resumes
// after a disconnection with the standard Last-Event-ID header (or the
// last_event_id query parameter, for EventSource polyfills): it gets what
// it missed, or a "reset" event when that is no longer known.
func (s *Server) handleStream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		s.fail(w, r, scouts.Errorf(scouts.EUnavailable, "this connection cannot stream"))
		return
	}
	var after int64
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("last_event_id")
	}
	if last != "" {
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil {
			s.fail(w, r, scouts.Errorf(scouts.EInvalid, "Last-Event-ID %q is not a number", last))
			return
		}
		after = n
	}
	sub, backlog, complete := s.core.Bus.Subscribe(after, 256)
	defer sub.Close()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	st, err := s.status(r)
	if err != nil {
		return
	}
	// Not Bus.LastID(): events published since Subscribe (while the
	// status was read) come after hello on this stream, and a client that
	// resumed after hello's id would never see them.
	lastID := sub.Last
	if len(backlog) > 0 {
		lastID = backlog[0].ID - 1
	}
	if err := writeEvent(w, lastID, apitype.StreamHello, st); err != nil {
		return
	}
	if !complete {
		if err := writeEvent(w, lastID, apitype.StreamReset, map[string]string{"reason": "events since your last id are no longer kept; refetch"}); err != nil {
			return
		}
	}
	for _, m := range backlog {
		if err := s.writeMessage(w, m); err != nil {
			return
		}
	}
	fl.Flush()

	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case m, ok := <-sub.C:
			if !ok {
				return // dropped for being too slow: the client resumes
			}
			if err := s.writeMessage(w, m); err != nil {
				return
			}
			// Drain what else is ready before flushing, so a burst is one
			// write to the socket.
		drain:
			for {
				select {
				case m, ok := <-sub.C:
					if !ok {
						fl.Flush()
						return
					}
					if err := s.writeMessage(w, m); err != nil {
						return
					}
				default:
					break drain
				}
			}
			fl.Flush()
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

func (s *Server) writeMessage(w http.ResponseWriter, m bus.Message) error {
	return writeEvent(w, m.ID, m.Event.Type, s.eventData(m.Event))
}

// eventData converts a domain event's payload to its API form.
func (s *Server) eventData(ev scouts.Event) any {
	switch d := ev.Data.(type) {
	case scouts.Suggestion:
		return s.suggestionOut(d)
	case secretref.SecretsChanged:
		return apitype.Secrets{Names: d.Names}
	case scouts.Entity:
		return toEntity(d)
	case scouts.Scout:
		return s.scoutOut(d)
	case core.Settings:
		return toSettings(d)
	case gmaildesk.Connected:
		return apitype.GmailConnected{Email: d.Email, ScoutID: d.Scout.ID, ScoutName: d.Scout.Name, Mode: d.Mode, Added: d.Added,
			AddError: d.AddError}
	case relaylink.Status:
		return toRelayStatus(d)
	case engine.ActionRun:
		return toPlanAction(d)
	case engine.PolicyChange:
		return apitype.PolicyChange{ScoutID: d.ScoutID, Action: d.Action, Mode: string(d.Mode), By: d.By, At: d.At}
	case alarms.Alarm:
		return toAlarm(d)
	case engine.PlanDefaults:
		return apitype.PlanDefaults{GmailArchive: d.GmailArchive, GmailLabel: d.GmailLabel}
	}
	return ev.Data
}

func writeEvent(w http.ResponseWriter, id int64, typ string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	// JSON never contains a raw newline, so data fits on one SSE line.
	_, err = fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", id, typ, b)
	return err
}
