package gmailscout

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/internal/wake"
	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
)

// drainSynced returns the syncs reported so far without waiting: call it
// once every run that could report has ended (waitRuns).
func (e *env) drainSynced() []synced {
	var out []synced
	for {
		select {
		case s := <-e.synced:
			out = append(out, s)
		default:
			return out
		}
	}
}

// waitRuns waits until no sync of any scout runs or is asked for.
func (e *env) waitRuns() {
	e.svc.mu.Lock()
	runs := make([]*scoutRun, 0, len(e.svc.runs))
	for _, r := range e.svc.runs {
		runs = append(runs, r)
	}
	e.svc.mu.Unlock()
	for _, r := range runs {
		r.wait()
	}
}

// baseline runs a scout's first sync (its place in the mailbox, its
// watch) and forgets what it reported.
func (e *env) baseline(id string) {
	e.t.Helper()
	if err := e.sync(id, true); err != nil {
		e.t.Fatalf("baseline of %s: %v", id, err)
	}
	e.waitRuns()
	e.drainSynced()
	if sc := e.scout(id); sc.Gmail.Cursor == 0 || sc.Gmail.WatchExpires.IsZero() {
		e.t.Fatalf("after the baseline: cursor %d, watch %v", sc.Gmail.Cursor, sc.Gmail.WatchExpires)
	}
}

// A burst of pushes while a scout syncs is one more sync, not one each,
// and every caller hears the result of a sync that started after it asked.
func TestABurstOfTriggersDuringASyncIsOneMoreSync(t *testing.T) {
	e := newEnv(t)
	e.addScout("sc_a", relay.ModeRelayTriage)
	e.baseline("sc_a")
	before := e.gmail.Calls(ann)["history.list"]

	e.gate.holdOn("/history")
	first := e.svc.trigger(context.Background(), "sc_a", false)
	e.gate.waitHeld(t)
	var burst []<-chan error
	for range 5 {
		burst = append(burst, e.svc.trigger(context.Background(), "sc_a", false))
	}
	e.gate.open()
	for i, ch := range append([]<-chan error{first}, burst...) {
		if err := e.await(ch); err != nil {
			t.Fatalf("trigger %d: %v", i, err)
		}
	}
	e.waitRuns()
	if got := e.drainSynced(); len(got) != 2 {
		t.Fatalf("%d syncs for one trigger and a burst of five during it, want 2: %+v", len(got), got)
	}
	if n := e.gmail.Calls(ann)["history.list"] - before; n != 2 {
		t.Fatalf("%d history reads, want 2", n)
	}
}

// While another instance holds a scout's sync lease, this one waits and
// reads nothing; once the lease is free the sync it was asked for runs.
func TestASyncWaitsForAnotherInstancesLease(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, func(c *Config) { c.LeaseRetry = 10 * time.Millisecond })
	e.addScout("sc_a", relay.ModeRelayTriage)
	if ok, err := e.db.AcquireSyncLease(ctx, "sc_a", "other-instance", time.Hour); err != nil || !ok {
		t.Fatalf("the other instance's lease: %v %v", ok, err)
	}
	res := e.svc.trigger(ctx, "sc_a", true)
	e.logs.waitLog(t, "gmail: another instance is syncing the scout; waiting for its lease")
	select {
	case err := <-res:
		t.Fatalf("the sync ran while another instance held the lease: %v", err)
	default:
	}
	if calls := e.gmail.Calls(ann); len(calls) != 0 {
		t.Fatalf("Gmail called while another instance held the lease: %v", calls)
	}
	if err := e.db.ReleaseSyncLease(ctx, "sc_a", "other-instance"); err != nil {
		t.Fatal(err)
	}
	if err := e.await(res); err != nil {
		t.Fatalf("the sync after the lease was freed: %v", err)
	}
	if sc := e.scout("sc_a"); sc.Gmail.Cursor == 0 {
		t.Fatal("no place in the mailbox after the sync")
	}
}

// A sync whose lease another instance took over (this one looked dead to
// it) stops before it moves the cursor or queues anything, reports the
// lost lease, and leaves the other instance's lease alone.
func TestASyncWhoseLeaseIsTakenOverStopsBeforeTheCursor(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, func(c *Config) { c.LeaseTTL = 300 * time.Millisecond })
	e.addScout("sc_a", relay.ModeRelayTriage)
	e.baseline("sc_a")
	cursor := e.scout("sc_a").Gmail.Cursor
	mail := e.deliver("Contract draft", "Bob <bob@partner.example>")

	e.gate.holdOn("/history")
	res := e.svc.trigger(ctx, "sc_a", false)
	e.gate.waitHeld(t)
	// The other instance's clock says the lease lapsed: it takes it.
	other, err := relaydb.Open(ctx, e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetClock(func() time.Time { return time.Now().Add(time.Hour) })
	if ok, err := other.AcquireSyncLease(ctx, "sc_a", "other-instance", time.Hour); err != nil || !ok {
		t.Fatalf("the takeover: %v %v", ok, err)
	}
	if err := e.await(res); !errors.Is(err, errLeaseLost) {
		t.Fatalf("the sync whose lease was taken over ended with %v, want %v", err, errLeaseLost)
	}
	if s := e.nextSynced(); !errors.Is(s.err, errLeaseLost) {
		t.Fatalf("reported %+v, want the lost lease", s)
	}
	if got := e.scout("sc_a").Gmail.Cursor; got != cursor {
		t.Fatalf("cursor moved %d → %d by a sync that lost its lease", cursor, got)
	}
	if ok, _ := e.db.Queued(ctx, "sc_a", mail); ok {
		t.Fatal("a sync that lost its lease queued the mail")
	}
	if ok, err := e.db.AcquireSyncLease(ctx, "sc_a", "third-instance", time.Minute); err != nil || ok {
		t.Fatalf("the other instance's lease was released by the loser: acquired %v (%v)", ok, err)
	}
}

// A scout pauses once no desktop of its user has been seen for its own
// period, else the relay's; counted from its creation until a desktop
// connects, then from that desktop. A paused scout reads no mail and
// says why.
func TestInactivityPauseCountsFromCreationOrTheLastDesktop(t *testing.T) {
	ctx := context.Background()
	later := time.Now().Add(3 * 24 * time.Hour)
	e := newEnv(t, func(c *Config) {
		c.InactivityPauseDays = 5
		c.Now = func() time.Time { return later }
	})
	e.addScout("sc_own", relay.ModeRelayTriage, func(sc *relay.CloudScout) { sc.Gmail.InactivityPauseDays = 2 })
	e.addScout("sc_default", relay.ModeRelayTriage)

	if paused, msg, err := e.svc.inactive(ctx, e.scout("sc_own")); err != nil || !paused || !strings.Contains(msg, "2 days") {
		t.Fatalf("three days after creation, a 2-day scout: paused %v %q %v", paused, msg, err)
	}
	if paused, _, err := e.svc.inactive(ctx, e.scout("sc_default")); err != nil || paused {
		t.Fatalf("three days after creation, a scout on the relay's 5 days: paused %v %v", paused, err)
	}
	if err := e.sync("sc_own", true); err != nil {
		t.Fatal(err)
	}
	st := e.nextFrame(protocol.TypeScoutStatus).data.(protocol.ScoutStatus)
	if st.ScoutID != "sc_own" || st.State != protocol.ScoutPaused || !strings.Contains(st.Message, "2 days") {
		t.Fatalf("the paused scout's status: %+v", st)
	}
	if calls := e.gmail.Calls(ann); len(calls) != 0 {
		t.Fatalf("a paused scout called Gmail: %v", calls)
	}

	// A desktop connects on the third day: the period starts again.
	e.db.SetClock(func() time.Time { return later })
	dev, _, err := e.db.AddDevice(ctx, ann, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.DeviceConnected(ctx, dev.ID, nil, ""); err != nil {
		t.Fatal(err)
	}
	if paused, _, err := e.svc.inactive(ctx, e.scout("sc_own")); err != nil || paused {
		t.Fatalf("right after a desktop connected: paused %v %v", paused, err)
	}
}

// A relay-triage scout whose token is missing is disabled and its desktop
// told to reconnect: nothing it could do would work.
func TestAScoutWithoutATokenAsksToReconnect(t *testing.T) {
	e := newEnv(t)
	e.addScout("sc_a", relay.ModeRelayTriage, func(sc *relay.CloudScout) { sc.Gmail.TokenSealed = nil })
	if err := e.sync("sc_a", true); !errors.Is(err, errNoToken) {
		t.Fatalf("sync without a token: %v", err)
	}
	st := e.nextFrame(protocol.TypeScoutStatus).data.(protocol.ScoutStatus)
	if st.State != protocol.ScoutAuthExpired || st.Action != "reconnect" {
		t.Fatalf("status %+v, want auth expired with reconnect", st)
	}
	if sc := e.scout("sc_a"); sc.Enabled || sc.Gmail.State != protocol.ScoutAuthExpired {
		t.Fatalf("scout after a missing token: enabled %v, state %q", sc.Enabled, sc.Gmail.State)
	}
}

// Disabling a scout stops its watch; enabling it again tells the desktop
// its state before the sync that sets the watch up again.
func TestConfiguredStopsAndRestartsTheWatch(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.addScout("sc_a", relay.ModeRelayTriage)
	e.baseline("sc_a")
	if n := e.gmail.Calls(ann)["watch"]; n != 1 {
		t.Fatalf("%d watch calls after the baseline, want 1", n)
	}
	sc := e.scout("sc_a")
	sc.Enabled = false
	sc.Gmail.TokenSealed = nil // an update keeps the stored token
	e.apply(sc)
	e.svc.Configured(ctx, "sc_a")
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := wake.Until(wctx, func() bool { return e.gmail.Calls(ann)["stop"] == 1 }, e.gate.served.Next); err != nil {
		t.Fatalf("the disabled scout's watch was not stopped: calls %v", e.gmail.Calls(ann))
	}

	sc.Enabled = true
	e.apply(sc)
	e.svc.Configured(ctx, "sc_a")
	if st := e.nextFrame(protocol.TypeScoutStatus).data.(protocol.ScoutStatus); st.State != protocol.ScoutOK {
		t.Fatalf("status on enabling: %+v", st)
	}
	if s := e.nextSynced(); s.scout != "sc_a" || s.err != nil {
		t.Fatalf("sync on enabling: %+v", s)
	}
	if n := e.gmail.Calls(ann)["watch"]; n != 2 {
		t.Fatalf("%d watch calls after enabling again, want 2", n)
	}
}

// A connecting desktop hears how every relay-triage scout with news is
// (paused, expired: not a healthy disabled one, nor a relay-ping one),
// then the paused ones resume, their news after the stale "paused".
func TestDeviceConnectedTellsStatusesThenResumes(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.addScout("sc_expired", relay.ModeRelayTriage)
	e.addScout("sc_off", relay.ModeRelayTriage, func(sc *relay.CloudScout) { sc.Enabled = false })
	e.addScout("sc_paused", relay.ModeRelayTriage)
	e.addScout("sc_ping", relay.ModeRelayPing)
	if _, err := e.db.SetScoutState(ctx, "sc_paused", protocol.ScoutPaused, "Paused: no desktop", false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.SetScoutState(ctx, "sc_expired", protocol.ScoutAuthExpired, "Gmail access expired — reconnect", true); err != nil {
		t.Fatal(err)
	}
	e.svc.DeviceConnected(ctx, e.user.ID)
	var got []string
	for range 3 {
		st := e.nextFrame(protocol.TypeScoutStatus).data.(protocol.ScoutStatus)
		got = append(got, st.ScoutID+":"+st.State+":"+st.Action)
	}
	want := []string{"sc_expired:auth_expired:reconnect", "sc_paused:paused:", "sc_paused:ok:"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	e.waitRuns()
	if s := e.drainSynced(); len(s) != 1 || s[0].scout != "sc_paused" {
		t.Fatalf("syncs after the desktop connected: %+v, want the paused scout's only", s)
	}
}

// A push syncs the mailbox's relay-triage scouts and tells relay-ping
// scouts' desktops the mailbox changed; its hints go once every sync that
// started after them has run. A hint being handled is not handled twice.
func TestAPushSyncsTriageScoutsAndPingsPingScouts(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.addScout("sc_triage", relay.ModeRelayTriage)
	e.addScout("sc_ping", relay.ModeRelayPing)
	e.baseline("sc_triage")
	mail := e.deliver("Contract draft", "Bob <bob@partner.example>")
	hid := e.gmail.HistoryID(ann)
	if err := e.db.AddPushHint(ctx, ann, hid); err != nil {
		t.Fatal(err)
	}
	hints, err := e.db.PushHints(ctx, 10)
	if err != nil || len(hints) != 1 {
		t.Fatalf("hints: %+v %v", hints, err)
	}

	// A hint already being handled (by a pass still running) is left to
	// it: handleHints starts nothing for it.
	e.svc.mu.Lock()
	e.svc.hinting[hints[0].ID] = true
	e.svc.mu.Unlock()
	e.svc.handleHints(ctx)
	select {
	case f := <-e.frames:
		t.Fatalf("a hint in hand was handled again: %+v", f)
	default:
	}
	e.svc.mu.Lock()
	delete(e.svc.hinting, hints[0].ID)
	e.svc.mu.Unlock()

	e.svc.handleMailbox(ctx, ann, hid, []int64{hints[0].ID})
	mc := e.nextFrame(protocol.TypeMailboxChanged).data.(protocol.MailboxChanged)
	if mc.ScoutID != "sc_ping" || mc.Email != ann || mc.HistoryID != formatUint(hid) {
		t.Fatalf("mailbox_changed %+v, want sc_ping at history %d", mc, hid)
	}
	if ok, err := e.db.Queued(ctx, "sc_triage", mail); err != nil || !ok {
		t.Fatalf("the pushed mail is not queued for the triage scout: %v %v", ok, err)
	}
	if left, err := e.db.PushHints(ctx, 10); err != nil || len(left) != 0 {
		t.Fatalf("hints left after their syncs: %+v %v", left, err)
	}
	e.svc.mu.Lock()
	defer e.svc.mu.Unlock()
	if len(e.svc.hinting) != 0 {
		t.Fatalf("hints still marked in hand: %v", e.svc.hinting)
	}
}

// The watch check renews only watches that lapse within RenewWithin; the
// fallback poll syncs every relay-triage scout and no relay-ping one.
func TestRenewalAndPollPickTheirScouts(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.addScout("sc_soon", relay.ModeRelayTriage)
	e.addScout("sc_later", relay.ModeRelayTriage)
	e.addScout("sc_ping", relay.ModeRelayPing)
	e.baseline("sc_soon")
	e.baseline("sc_later")
	if err := e.db.SetWatch(ctx, "sc_soon", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(5 * 24 * time.Hour).Truncate(time.Millisecond)
	if err := e.db.SetWatch(ctx, "sc_later", later); err != nil {
		t.Fatal(err)
	}
	watches := e.gmail.Calls(ann)["watch"]

	e.svc.renewDue(ctx)
	e.waitRuns()
	if s := e.drainSynced(); len(s) != 1 || s[0].scout != "sc_soon" || s[0].err != nil {
		t.Fatalf("syncs of the renewal: %+v, want sc_soon's only", s)
	}
	if n := e.gmail.Calls(ann)["watch"] - watches; n != 1 {
		t.Fatalf("%d watches renewed, want 1", n)
	}
	if exp := e.scout("sc_soon").Gmail.WatchExpires; !exp.After(later) {
		t.Fatalf("the renewed watch lapses %v, before the untouched one's %v", exp, later)
	}
	if exp := e.scout("sc_later").Gmail.WatchExpires; !exp.Equal(later) {
		t.Fatalf("a watch far from lapsing was renewed: %v, was %v", exp, later)
	}

	e.svc.pollAll(ctx)
	e.waitRuns()
	var polled []string
	for _, s := range e.drainSynced() {
		polled = append(polled, s.scout)
	}
	if strings.Join(polled, " ") != "sc_later sc_soon" && strings.Join(polled, " ") != "sc_soon sc_later" {
		t.Fatalf("the poll synced %v, want both relay-triage scouts and not the relay-ping one", polled)
	}
}
