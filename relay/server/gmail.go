package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/gmailscout"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/pushauth"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// pushEnvelope is Pub/Sub's push request body.
type pushEnvelope struct {
	Message struct {
		Data      string `json:"data"`
		MessageID string `json:"messageId"`
	} `json:"message"`
	Subscription string `json:"subscription"`
}

// handleGmailPush receives Gmail's notifications from Pub/Sub: check who
// sent it, persist the hint, answer 204. The work happens after the
// answer; an error answer would make Pub/Sub back off the whole
// subscription, so only a failure to persist (the hint would be lost) is
// answered with one — Pub/Sub redelivers it.
func (s *Server) handleGmailPush(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Gmail == nil || s.cfg.PushAuth == nil {
		writeJSONError(w, http.StatusNotFound, "not_found", "this relay does not run Gmail scouts")
		return
	}
	if err := s.cfg.PushAuth.Verify(r.Context(), r); err != nil {
		s.metrics.pushes.WithLabelValues("refused").Inc()
		s.log.Warn("gmail push refused", "remote", r.RemoteAddr, "err", err)
		var pe *pushauth.Error
		if errors.As(err, &pe) {
			writeJSONError(w, http.StatusForbidden, "forbidden", pe.Error())
			return
		}
		writeJSONError(w, http.StatusForbidden, "forbidden", "push refused")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		writeJSONError(w, http.StatusRequestEntityTooLarge, "too_large", "push body over 64 KiB")
		return
	}
	email, hid, err := decodePush(body)
	if err != nil {
		// Redelivering a malformed message cannot fix it: acknowledge it
		// and say so in the log.
		s.metrics.pushes.WithLabelValues("malformed").Inc()
		s.log.Warn("gmail push ignored: malformed", "err", err)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := s.db.AddPushHint(r.Context(), email, hid); err != nil {
		s.metrics.pushes.WithLabelValues("failed").Inc()
		s.log.Error("gmail push not persisted; Pub/Sub will redeliver", "err", err)
		writeJSONError(w, http.StatusServiceUnavailable, "unavailable", "could not persist the notification")
		return
	}
	s.metrics.pushes.WithLabelValues("accepted").Inc()
	w.WriteHeader(http.StatusNoContent)
	s.cfg.Gmail.Pushed()
}

func decodePush(body []byte) (email string, historyID uint64, err error) {
	var env pushEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return "", 0, fmt.Errorf("envelope: %w", err)
	}
	data, err := base64.StdEncoding.DecodeString(env.Message.Data)
	if err != nil {
		return "", 0, fmt.Errorf("message data: %w", err)
	}
	return gmailscout.DecodeNotification(data)
}

// configureGmail validates a Gmail scout's configuration and builds what
// is stored: the refresh token sealed, nothing of it kept in the clear.
func (s *Server) configureGmail(cfg protocol.ScoutConfig, register bool) (relay.CloudScout, *protocol.Error) {
	bad := func(msg string) *protocol.Error {
		return &protocol.Error{Code: protocol.CodeInvalidConfig, Message: msg}
	}
	if s.cfg.Gmail == nil {
		return relay.CloudScout{}, bad("this relay does not run Gmail scouts")
	}
	if !strings.Contains(cfg.Email, "@") || len(cfg.Email) > 320 {
		return relay.CloudScout{}, bad("a Gmail scout needs the mailbox's email address")
	}
	if cfg.InactivityPauseDays < 0 || cfg.InactivityPauseDays > 365 {
		return relay.CloudScout{}, bad("inactivity_pause_days must be 0 (the relay's default) to 365")
	}
	if cfg.ModelDayTokens < 0 || cfg.ModelRunTokens < 0 || cfg.ModelDayTokens > 1_000_000_000 || cfg.ModelRunTokens > 1_000_000_000 {
		return relay.CloudScout{}, bad("model_day_tokens and model_run_tokens must be 0 (the relay's cap) to 1000000000")
	}
	rules, err := json.Marshal(cfg.Rules)
	if err != nil || len(rules) > 64<<10 {
		return relay.CloudScout{}, bad("rules are too large (64 KiB at most)")
	}
	if perr := validateRules(cfg.Rules); perr != "" {
		return relay.CloudScout{}, bad(perr)
	}
	g := &relay.GmailScout{Email: cfg.Email, AutoTrashSpam: cfg.AutoTrashSpam, InactivityPauseDays: cfg.InactivityPauseDays, Rules: string(rules),
		CreatedAt: cfg.CreatedAt, ModelDayTokens: cfg.ModelDayTokens, ModelRunTokens: cfg.ModelRunTokens}
	if cfg.BaselineHistoryID != "" {
		b, err := strconv.ParseUint(cfg.BaselineHistoryID, 10, 64)
		if err != nil {
			return relay.CloudScout{}, bad("baseline_history_id must be a Gmail history id (decimal digits)")
		}
		g.Baseline = b
	}
	switch cfg.Mode {
	case protocol.ModeRelayPing:
	case protocol.ModeRelayTriage:
		if !s.cfg.Gmail.TriageAvailable() {
			return relay.CloudScout{}, bad("this relay is not set up for relay-triage (no token keys or OAuth client); use relay-ping")
		}
		if register && cfg.RefreshToken == "" {
			return relay.CloudScout{}, bad("relay-triage needs the account's refresh token")
		}
		if cfg.RefreshToken != "" {
			sealed, err := s.cfg.Gmail.SealToken(cfg.ScoutID, cfg.RefreshToken)
			if err != nil {
				return relay.CloudScout{}, bad(err.Error())
			}
			g.TokenSealed = sealed
		}
	default:
		return relay.CloudScout{}, bad("mode must be relay-triage or relay-ping (local mode needs no relay)")
	}
	return relay.CloudScout{ID: cfg.ScoutID, Kind: relay.KindGmail, Name: cfg.Name, Mode: cfg.Mode, Enabled: cfg.Enabled, Gmail: g}, nil
}

// gmailConfigured starts a Gmail scout's work once its configuration has
// committed.
func (s *Server) gmailConfigured(ctx context.Context, scoutID string) {
	if s.cfg.Gmail != nil {
		s.cfg.Gmail.Configured(ctx, scoutID)
	}
}

// Send delivers a frame to every connected session of a user, without
// queueing it for absent ones (status and mailbox hints are re-derived on
// the next connection).
func (s *Server) Send(userID, typ string, data any) {
	b, err := protocol.Encode(typ, "", 0, data)
	if err != nil {
		s.log.Error("encode frame", "type", typ, "err", err)
		return
	}
	s.hub.send(userID, b)
}

// validateRules checks a scout's rules with the triage library's own
// validation, so the relay refuses what its pipeline could not run.
func validateRules(in []protocol.TriageRule) string {
	rules := make([]triage.Rule, len(in))
	for i, r := range in {
		rules[i] = triage.Rule{ID: r.ID, Action: triage.Action(r.Action), Senders: r.Senders, Domains: r.Domains,
			ListIDs: r.ListIDs, SubjectWords: r.SubjectWords}
	}
	if err := triage.ValidateRules(rules); err != nil {
		return err.Error()
	}
	return ""
}
