package relaylink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

// cloudStatus is the relay's last word on a scout it runs (a relay-triage
// Gmail scout): kept in the settings table, so that "Gmail access expired —
// reconnect" outlives a restart of the desktop, and in memory
// (Link.health) for the scout's own runs.
type cloudStatus struct {
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
	Action  string `json:"action,omitempty"`
}

func cloudStatusKey(scoutID string) string { return "relay_status:" + scoutID }

func (s cloudStatus) err() error {
	if s.State == "" || s.State == protocol.ScoutOK {
		return nil
	}
	return errors.New(s.Message)
}

// applyScoutStatus records a scout_status from the relay. The relay sends
// every relay-triage scout's status each time the desktop connects: one
// that did not change is not news (no health run, no audit event).
func (l *Link) applyScoutStatus(ctx context.Context, st protocol.ScoutStatus) {
	if _, err := l.host.Scout(ctx, st.ScoutID); err != nil {
		if scouts.ErrorCode(err) != scouts.ENotFound {
			l.log.Warn("relay: scout status", "scout", st.ScoutID, "err", err)
		}
		return // a scout deleted here; the relay has it disabled
	}
	next := cloudStatus{State: st.State, Message: st.Message, Action: st.Action}
	prev, err := l.loadCloudStatus(ctx, st.ScoutID)
	if err != nil {
		l.log.Warn("relay: scout status", "scout", st.ScoutID, "err", err)
	}
	if prev.State == "" {
		prev.State = protocol.ScoutOK // never told otherwise
	}
	if err == nil && prev.State == next.State && prev.Message == next.Message {
		return
	}
	if err := l.saveCloudStatus(ctx, st.ScoutID, next); err != nil {
		l.log.Warn("relay: keep the scout's status", "scout", st.ScoutID, "err", err)
	}
	if st.Message != "" {
		// Worth keeping even when all is well again ("recovered: the
		// messages since … were re-read").
		l.host.AuditScoutStatus(ctx, st.ScoutID, "relay", st.State, st.Message)
	}
	// Last: the health's scout.run event announces the audit too.
	l.host.RecordHealth(ctx, st.ScoutID, 0, next.err())
}

// ClearHealth forgets the relay's complaint about a scout: the user
// reconnected its account, and the relay, handed the new token, starts it
// again (and speaks up if it still fails).
func (l *Link) ClearHealth(ctx context.Context, scoutID string) {
	if err := l.saveCloudStatus(ctx, scoutID, cloudStatus{State: protocol.ScoutOK}); err != nil {
		l.log.Warn("relay: clear the scout's status", "scout", scoutID, "err", err)
	}
}

// Health is the relay's last word on a scout it runs, as its health: nil
// when well or never told otherwise.
func (l *Link) Health(ctx context.Context, scoutID string) error {
	if v, ok := l.health.Load(scoutID); ok {
		err, _ := v.(error)
		return err
	}
	st, err := l.loadCloudStatus(ctx, scoutID)
	if err != nil {
		return err
	}
	l.health.Store(scoutID, st.err())
	return st.err()
}

func (l *Link) loadCloudStatus(ctx context.Context, scoutID string) (cloudStatus, error) {
	var st cloudStatus
	v, ok, err := l.db.Setting(ctx, cloudStatusKey(scoutID))
	if err != nil || !ok {
		return st, err
	}
	if err := json.Unmarshal([]byte(v), &st); err != nil {
		return cloudStatus{}, fmt.Errorf("relaylink: the relay's stored status of %s is unreadable: %w", scoutID, err)
	}
	return st, nil
}

func (l *Link) saveCloudStatus(ctx context.Context, scoutID string, st cloudStatus) error {
	b, _ := json.Marshal(st)
	// Memory first: a run reading it between the two sees the news.
	l.health.Store(scoutID, st.err())
	return l.db.SetSetting(ctx, cloudStatusKey(scoutID), string(b))
}
