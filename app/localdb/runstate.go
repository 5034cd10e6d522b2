package localdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// scheduleJSON and budgetJSON are how a scout's schedule and budget are
// stored: the same objects as in its definition.
type scheduleJSON struct {
	Cron     string `json:"cron,omitempty"`
	TimeZone string `json:"time_zone,omitempty"`
	Overlap  string `json:"overlap,omitempty"`
	CatchUp  string `json:"catch_up,omitempty"`
}

type budgetJSON struct {
	RunTokens int `json:"run_tokens,omitempty"`
	DayTokens int `json:"day_tokens,omitempty"`
}

func encodeRunSettings(s scouts.Scout) (string, string) {
	sc, _ := json.Marshal(scheduleJSON{Cron: s.Schedule.Cron, TimeZone: s.Schedule.TimeZone,
		Overlap: string(s.Schedule.Overlap), CatchUp: string(s.Schedule.CatchUp)})
	b, _ := json.Marshal(budgetJSON{RunTokens: s.Budget.RunTokens, DayTokens: s.Budget.DayTokens})
	return string(sc), string(b)
}

func decodeRunSettings(sched, budget string) (scouts.Schedule, scouts.Budget, error) {
	var sj scheduleJSON
	var bj budgetJSON
	if err := json.Unmarshal([]byte(sched), &sj); err != nil {
		return scouts.Schedule{}, scouts.Budget{}, fmt.Errorf("stored schedule: %w", err)
	}
	if err := json.Unmarshal([]byte(budget), &bj); err != nil {
		return scouts.Schedule{}, scouts.Budget{}, fmt.Errorf("stored budget: %w", err)
	}
	return scouts.Schedule{Cron: sj.Cron, TimeZone: sj.TimeZone, Overlap: scouts.Overlap(sj.Overlap), CatchUp: scouts.CatchUp(sj.CatchUp)},
		scouts.Budget{RunTokens: bj.RunTokens, DayTokens: bj.DayTokens}, nil
}

// LockHolder identifies the process holding a scout's run lock.
type LockHolder struct {
	PID int `json:"pid"`
	// BootID is the machine's boot (Linux: /proc/sys/kernel/random/boot_id);
	// empty where it cannot be read.
	BootID string `json:"boot_id,omitempty"`
	// Start is the process's start time as the system counts it (Linux:
	// clock ticks since boot), telling a reused process id apart.
	Start uint64 `json:"start,omitempty"`
	// Instance tells apart two holders in one process (an agent core
	// reopened in tests).
	Instance string `json:"instance"`
}

func (h LockHolder) String() string {
	return fmt.Sprintf("process %d", h.PID)
}

// RunStateOptions configure RunState.
type RunStateOptions struct {
	// Holder is this process.
	Holder LockHolder
	// StaleAfter is how long a holder may go without renewing its lock
	// before the lock is taken over (default engine.LockStaleAfter).
	StaleAfter time.Duration
	// Gone reports whether another holder is provably dead (its process is
	// gone, or the machine restarted since), with why; nil: only the stale
	// bound applies.
	Gone func(LockHolder) (bool, string)
}

// RunState returns the engine.RunState over this database for one holder.
func (d *DB) RunState(o RunStateOptions) engine.RunState {
	if o.StaleAfter <= 0 {
		o.StaleAfter = engine.LockStaleAfter
	}
	return &runState{d: d, o: o}
}

type runState struct {
	d *DB
	o RunStateOptions
}

func (r *runState) AcquireRunLock(ctx context.Context, scoutID string, now time.Time) (engine.LockGrant, error) {
	me, _ := json.Marshal(r.o.Holder)
	var g engine.LockGrant
	err := r.d.tx(ctx, func(tx *sql.Tx) error {
		g = engine.LockGrant{}
		var raw string
		var acquired, beat int64
		err := tx.QueryRowContext(ctx, `SELECT holder, acquired_at, heartbeat_at FROM run_locks WHERE scout_id = ?`, scoutID).
			Scan(&raw, &acquired, &beat)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		default:
			var h LockHolder
			if json.Unmarshal([]byte(raw), &h) != nil {
				h = LockHolder{}
			}
			if h != r.o.Holder {
				why, stale := r.stale(h, time.UnixMilli(beat), now)
				if !stale {
					g.Holder = h.String()
					return nil
				}
				g.TookOver = fmt.Sprintf("%s held it since %s; %s", h, time.UnixMilli(acquired).UTC().Format(time.RFC3339), why)
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO run_locks (scout_id, holder, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (scout_id) DO UPDATE SET holder = excluded.holder, acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
			scoutID, string(me), now.UnixMilli(), now.UnixMilli())
		g.Acquired = err == nil
		return err
	})
	if err != nil {
		return engine.LockGrant{}, fmt.Errorf("localdb: acquire run lock: %w", err)
	}
	return g, nil
}

// stale decides whether another holder's lock may be taken over.
func (r *runState) stale(h LockHolder, beat, now time.Time) (string, bool) {
	if r.o.Gone != nil {
		if gone, why := r.o.Gone(h); gone {
			return why, true
		}
	}
	if age := now.Sub(beat); age >= r.o.StaleAfter {
		return fmt.Sprintf("its last heartbeat was %s ago (stale after %s)", age.Round(time.Second), r.o.StaleAfter), true
	}
	return "", false
}

func (r *runState) HeartbeatRunLock(ctx context.Context, scoutID string, now time.Time) error {
	me, _ := json.Marshal(r.o.Holder)
	var n int64
	err := r.d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE run_locks SET heartbeat_at = ? WHERE scout_id = ? AND holder = ?`, now.UnixMilli(), scoutID, string(me))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("localdb: run lock heartbeat: %w", err)
	}
	if n == 0 {
		return engine.ErrLockLost
	}
	return nil
}

func (r *runState) ReleaseRunLock(ctx context.Context, scoutID string) error {
	me, _ := json.Marshal(r.o.Holder)
	return r.d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM run_locks WHERE scout_id = ? AND holder = ?`, scoutID, string(me)); err != nil {
			return fmt.Errorf("localdb: release run lock: %w", err)
		}
		return nil
	})
}

func (r *runState) LastScheduled(ctx context.Context, scoutID string) (time.Time, error) {
	var ms int64
	err := r.d.read().QueryRowContext(ctx, `SELECT last_scheduled FROM schedule_state WHERE scout_id = ?`, scoutID).Scan(&ms)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("localdb: last scheduled run: %w", err)
	}
	return time.UnixMilli(ms).UTC(), nil
}

// SetLastScheduled never moves the time back: two runs finishing out of
// order (overlap allow) leave the later one.
func (r *runState) SetLastScheduled(ctx context.Context, scoutID string, at time.Time) error {
	return r.d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO schedule_state (scout_id, last_scheduled) VALUES (?, ?)
			ON CONFLICT (scout_id) DO UPDATE SET last_scheduled = MAX(last_scheduled, excluded.last_scheduled)`, scoutID, at.UnixMilli())
		if err != nil {
			return fmt.Errorf("localdb: record last scheduled run: %w", err)
		}
		return nil
	})
}

// RunLock is a scout's run lock as stored, for status and tests.
type RunLock struct {
	ScoutID     string
	Holder      LockHolder
	AcquiredAt  time.Time
	HeartbeatAt time.Time
}

// RunLocks lists the run locks held.
func (d *DB) RunLocks(ctx context.Context) ([]RunLock, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT scout_id, holder, acquired_at, heartbeat_at FROM run_locks ORDER BY scout_id`)
	if err != nil {
		return nil, fmt.Errorf("localdb: run locks: %w", err)
	}
	defer rows.Close()
	var out []RunLock
	for rows.Next() {
		var l RunLock
		var raw string
		var a, b int64
		if err := rows.Scan(&l.ScoutID, &raw, &a, &b); err != nil {
			return nil, fmt.Errorf("localdb: run locks: %w", err)
		}
		json.Unmarshal([]byte(raw), &l.Holder)
		l.AcquiredAt, l.HeartbeatAt = time.UnixMilli(a).UTC(), time.UnixMilli(b).UTC()
		out = append(out, l)
	}
	return out, rows.Err()
}
