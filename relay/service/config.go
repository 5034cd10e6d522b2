package service

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// ConfigOp is a configuration operation from a device's desktop: a cloud
// scout registered, updated or disabled.
type ConfigOp struct {
	// ID is the operation's idempotency key: a replay gets the first
	// answer and changes nothing.
	ID string
	// Type is protocol.TypeScoutRegister, TypeScoutUpdate or
	// TypeScoutDisable.
	Type string
	// Scout is the configuration; a disable carries the scout's id only.
	Scout protocol.ScoutConfig
}

// Configure applies a configuration operation exactly once and returns
// the answer for the desktop (a replay's is the first one's). A refusal
// is Malformed, Invalid, Forbidden (another user's scout) or NotFound.
func (s *Service) Configure(ctx context.Context, dev relay.Device, op ConfigOp) (protocol.ConfigResult, error) {
	cfg := op.Scout
	scoutID := cfg.ScoutID
	disable := op.Type == protocol.TypeScoutDisable
	if !disable {
		if cfg.Kind != relay.KindWebhook && cfg.Kind != relay.KindGmail {
			return protocol.ConfigResult{}, refuse(Invalid, "unknown scout kind "+cfg.Kind+" (want webhook or gmail)")
		}
		if cfg.Name == "" || len(cfg.Name) > 200 {
			return protocol.ConfigResult{}, refuse(Invalid, "a scout needs a name of 1 to 200 bytes")
		}
		// An update may leave the hash out (it keeps the current one); one
		// that is not a hex SHA-256 would refuse every post from then on.
		if cfg.Kind == relay.KindWebhook && (cfg.HookTokenHash != "" || op.Type == protocol.TypeScoutRegister) && !isTokenHash(cfg.HookTokenHash) {
			return protocol.ConfigResult{}, refuse(Invalid, "a webhook scout needs hook_token_hash (hex SHA-256)")
		}
	}
	if scoutID == "" || len(scoutID) > 100 {
		return protocol.ConfigResult{}, refuse(Invalid, "scout_id is required (at most 100 bytes)")
	}
	// PostgreSQL's text cannot hold NUL while SQLite's can: refused on
	// both, as the bad input it is rather than an internal error.
	for _, v := range []struct{ field, value string }{{"id", op.ID}, {"scout_id", scoutID}, {"name", cfg.Name}, {"email", cfg.Email}, {"mode", cfg.Mode}} {
		if strings.IndexByte(v.value, 0) >= 0 {
			return protocol.ConfigResult{}, refuse(Invalid, v.field+" contains a NUL character")
		}
	}
	cloud := relay.CloudScout{ID: scoutID, UserID: dev.UserID, Kind: cfg.Kind, Name: cfg.Name,
		Mode: cfg.Mode, Enabled: cfg.Enabled, HookTokenHash: cfg.HookTokenHash}
	result := protocol.ConfigResult{OK: true, ScoutID: scoutID}
	switch {
	case disable, cfg.Kind == relay.KindWebhook:
		result.HookURL = s.hookURL(scoutID)
	default:
		c, err := s.configureGmail(cfg, op.Type == protocol.TypeScoutRegister)
		if err != nil {
			return protocol.ConfigResult{}, err
		}
		c.UserID = dev.UserID
		cloud = c
		result.PushTopic = s.cfg.Gmail.Topic()
	}
	res, replayed, err := s.db.ApplyOnce(ctx, dev.UserID, op.ID, func(tx *sql.Tx) ([]byte, error) {
		var err error
		if disable {
			err = s.db.DisableScout(ctx, tx, dev.UserID, scoutID)
		} else {
			err = s.db.UpsertScout(ctx, tx, cloud)
		}
		if err != nil {
			return nil, err
		}
		return json.Marshal(result)
	})
	switch scouts.ErrorCode(err) {
	case "":
	case scouts.EInvalid:
		return protocol.ConfigResult{}, refuse(Invalid, scouts.ErrorMessage(err))
	case scouts.EConflict:
		return protocol.ConfigResult{}, refuse(Forbidden, scouts.ErrorMessage(err))
	case scouts.ENotFound:
		return protocol.ConfigResult{}, refuse(NotFound, scouts.ErrorMessage(err))
	default:
		s.log.Error("config operation failed", "device", dev.ID, "user", dev.UserID, "op", op.ID, "err", err)
		return protocol.ConfigResult{}, &Error{Code: Internal, Message: "internal error; retry later", Err: err}
	}
	var out protocol.ConfigResult
	if err := json.Unmarshal(res, &out); err != nil {
		return protocol.ConfigResult{}, &Error{Code: Internal, Message: "internal error", Err: err}
	}
	// A Gmail scout's work starts, changes or stops once its
	// configuration has committed.
	if !replayed && (cloud.Kind == relay.KindGmail || disable) && s.cfg.Gmail != nil {
		s.cfg.Gmail.Configured(ctx, scoutID)
	}
	return out, nil
}

// isTokenHash reports whether h is a hex SHA-256, as relaydb.HashToken
// writes it.
func isTokenHash(h string) bool {
	return len(h) == 64 && strings.Trim(h, "0123456789abcdef") == ""
}

// configureGmail validates a Gmail scout's configuration and builds what
// is stored: the refresh token sealed, nothing of it kept in the clear.
func (s *Service) configureGmail(cfg protocol.ScoutConfig, register bool) (relay.CloudScout, error) {
	bad := func(msg string) (relay.CloudScout, error) { return relay.CloudScout{}, refuse(Invalid, msg) }
	if s.cfg.Gmail == nil {
		return bad("this relay does not run Gmail scouts")
	}
	if !strings.Contains(cfg.Email, "@") || len(cfg.Email) > 320 {
		return bad("a Gmail scout needs the mailbox's email address")
	}
	if cfg.InactivityPauseDays < 0 || cfg.InactivityPauseDays > 365 {
		return bad("inactivity_pause_days must be 0 (the relay's default) to 365")
	}
	if cfg.ModelDayTokens < 0 || cfg.ModelRunTokens < 0 || cfg.ModelDayTokens > 1_000_000_000 || cfg.ModelRunTokens > 1_000_000_000 {
		return bad("model_day_tokens and model_run_tokens must be 0 (the relay's cap) to 1000000000")
	}
	rules, err := json.Marshal(cfg.Rules)
	if err != nil || len(rules) > 64<<10 {
		return bad("rules are too large (64 KiB at most)")
	}
	if msg := validateRules(cfg.Rules); msg != "" {
		return bad(msg)
	}
	g := &relay.GmailScout{Email: cfg.Email, AutoTrashSpam: cfg.AutoTrashSpam, InactivityPauseDays: cfg.InactivityPauseDays, Rules: string(rules),
		CreatedAt: cfg.CreatedAt, ModelDayTokens: cfg.ModelDayTokens, ModelRunTokens: cfg.ModelRunTokens}
	if cfg.BaselineHistoryID != "" {
		b, err := strconv.ParseUint(cfg.BaselineHistoryID, 10, 64)
		if err != nil {
			return bad("baseline_history_id must be a Gmail history id (decimal digits)")
		}
		g.Baseline = b
	}
	switch cfg.Mode {
	case protocol.ModeRelayPing:
	case protocol.ModeRelayTriage:
		if !s.cfg.Gmail.TriageAvailable() {
			return bad("this relay is not set up for relay-triage (no token keys or OAuth client); use relay-ping")
		}
		if register && cfg.RefreshToken == "" {
			return bad("relay-triage needs the account's refresh token")
		}
		if cfg.RefreshToken != "" {
			sealed, err := s.cfg.Gmail.SealToken(cfg.ScoutID, cfg.RefreshToken)
			if err != nil {
				return bad(err.Error())
			}
			g.TokenSealed = sealed
		}
	default:
		return bad("mode must be relay-triage or relay-ping (local mode needs no relay)")
	}
	return relay.CloudScout{ID: cfg.ScoutID, Kind: relay.KindGmail, Name: cfg.Name, Mode: cfg.Mode, Enabled: cfg.Enabled, Gmail: g}, nil
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
