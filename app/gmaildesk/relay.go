package gmaildesk

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// RelayOp is a Gmail scout in a relay mode as the relay is told of it.
func (d *Desk) RelayOp(ctx context.Context, s scouts.Scout) (protocol.ScoutConfig, error) {
	g, err := ParseConfig(s.Config)
	if err != nil {
		return protocol.ScoutConfig{}, err
	}
	rules, _, err := d.o.Host.TriageRules(ctx, s)
	if err != nil {
		return protocol.ScoutConfig{}, err
	}
	op := relayOp(s, g, rules)
	// A scout this desktop read itself before (local or relay-ping mode)
	// hands the relay its own place, so that a mode change neither skips
	// nor re-reads mail. The relay keeps its own place once it has one.
	if v, err := d.o.DB.SyncSeq(ctx, cursorKey(s.ID)); err == nil && v > 0 {
		op.BaselineHistoryID = strconv.FormatInt(v, 10)
	}
	return op, nil
}

// relayOp is a Gmail scout's configuration for the relay, with the rules
// the relay applies itself (see Host.TriageRules). The refresh token is
// not in it: it would sit in the outbox table in clear. BeforeSend adds
// it from the keyring when the operation is sent.
func relayOp(s scouts.Scout, g Config, rules []triage.Rule) protocol.ScoutConfig {
	op := protocol.ScoutConfig{ScoutID: s.ID, Kind: string(scouts.KindGmail), Name: s.Name, Enabled: s.Enabled,
		Email: g.Email, Mode: g.Mode, AutoTrashSpam: g.AutoTrashSpam, InactivityPauseDays: g.InactivityPauseDays,
		CreatedAt: s.CreatedAt, ModelDayTokens: s.Budget.DayTokens, ModelRunTokens: s.Budget.RunTokens}
	if g.Baseline != nil {
		op.BaselineHistoryID = strconv.FormatUint(g.Baseline.HistoryID, 10)
	}
	for _, r := range rules {
		op.Rules = append(op.Rules, protocol.TriageRule{ID: r.ID, Action: string(r.Action), Senders: r.Senders,
			Domains: r.Domains, ListIDs: r.ListIDs, SubjectWords: r.SubjectWords})
	}
	return op
}

// BeforeSend fills a relay-triage registration's refresh token from the
// keyring at send time; nil when the operation needs none.
func (d *Desk) BeforeSend(ctx context.Context, op protocol.ScoutConfig) (*protocol.ScoutConfig, error) {
	if op.Mode != RelayTriage || !op.Enabled {
		return nil, nil
	}
	if d.o.Auth == nil {
		return nil, errors.New("gmail is not set up on this desktop")
	}
	rt, err := d.o.Auth.RefreshToken(ctx, op.Email)
	if err != nil {
		return nil, err
	}
	op.RefreshToken = rt
	return &op, nil
}

// RelayDone takes the relay's answer to an accepted operation: the topic
// it named for a relay-ping scout is recorded, and the scout restarted so
// that its watch is set up.
func (d *Desk) RelayDone(ctx context.Context, s scouts.Scout, res protocol.ConfigResult) {
	topic := res.PushTopic
	if topic == "" {
		return
	}
	g, err := ParseConfig(s.Config)
	if err != nil || g.Mode != RelayPing || g.PushTopic == topic {
		return
	}
	g.PushTopic = topic
	s.Config, _ = json.Marshal(g)
	// Strictly newer than the version being started, even within one
	// millisecond, so the engine keeps this one (see Engine.Sync).
	prev := s.UpdatedAt
	s.UpdatedAt = d.o.Now()
	if !s.UpdatedAt.After(prev) {
		s.UpdatedAt = prev.Add(time.Millisecond)
	}
	if err := d.o.DB.UpdateScout(ctx, s); err != nil {
		d.log.Warn("gmail: record the relay's push topic", "scout", s.ID, "err", err)
		return
	}
	d.log.Info("gmail: relay-ping scout watches the relay's topic", "scout", s.ID, "topic", topic)
	d.o.Host.Restart(ctx, s)
	d.log.Info("gmail: restarted", "scout", s.ID)
	d.o.Host.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: s})
}

// Item fills a Gmail proposal's item. A Gmail item is its message (the
// proposal's source ref): the desktop reads and archives it by that id.
// The relay read the headers, which this desktop never sees; what it says
// of the message is the card.
func Item(it client.Item, ref *scouts.ItemRef) {
	p, meta := it.Proposal, ref.Meta
	meta.URL = gmail.MessageURL(p.SourceRef)
	meta.Reason = gmail.Why(p.Reason, p.Path)
	// The relay applied the rules it can express: the one it matched
	// decides here too.
	if id, ok := strings.CutPrefix(p.Path, "rule:"); ok { // triage.PathRule
		meta.MatchedRule = id
	}
	switch p.Verdict {
	case "spam":
		meta.Lane, meta.LaneReason = scouts.LaneSpam, "Spam: "+meta.Reason
		meta.Trashed = strings.HasSuffix(strings.TrimSpace(p.Reason), gmail.TrashedNote)
	case "skip":
		meta.Lane, meta.LaneReason = scouts.LaneScreened, "Screened: "+meta.Reason
	}
	if meta.Title == "" {
		meta.Title = "Gmail message (its subject could not be read at delivery)"
	}
}
