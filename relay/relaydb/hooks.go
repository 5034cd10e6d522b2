package relaydb

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/relay"
)

// stmts holds statements prepared once and reused: SQLite parses a
// statement on every unprepared query, which costs as much as running a
// small one. database/sql prepares a *sql.Stmt on each pooled connection
// the first time it runs there.
type stmts struct {
	mu   sync.Mutex
	m    map[string]*sql.Stmt
	want map[string]bool // to prepare (wstmts only; see txStmt)
}

// readStmt returns the read pool's prepared statement for query (one
// of d.sql's).
func (d *DB) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	d.stmts.mu.Lock()
	defer d.stmts.mu.Unlock()
	if st, ok := d.stmts.m[query]; ok {
		return st, nil
	}
	st, err := d.db.Read().PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if d.stmts.m == nil {
		d.stmts.m = map[string]*sql.Stmt{}
	}
	d.stmts.m[query] = st
	return st, nil
}

func (d *DB) closeStmts() {
	for _, c := range []*stmts{&d.stmts, &d.wstmts} {
		c.mu.Lock()
		for _, st := range c.m {
			st.Close()
		}
		c.m = nil
		c.mu.Unlock()
	}
}

// HookTarget returns a webhook's scout with the public keys and sealing
// formats of its user's active devices (by device id): everything a webhook
// request needs to be checked and sealed. An unknown scout is ENotFound.
// The answer comes from a cache that every write changing it forgets (see
// hookCache); callers must not modify the map.
func (d *DB) HookTarget(ctx context.Context, scoutID string) (relay.CloudScout, map[string]relay.SealTarget, error) {
	if !d.hookCacheUsable() {
		return d.readHookTarget(ctx, scoutID)
	}
	now := time.Now()
	e, ok, gen := d.hooks.get(scoutID, now)
	if ok {
		return e.scout, e.keys, nil
	}
	s, keys, err := d.readHookTarget(ctx, scoutID)
	if err != nil {
		return s, keys, err
	}
	d.hooks.put(gen, s, keys, now)
	return s, keys, nil
}

// readHookTarget reads HookTarget's answer in one query.
func (d *DB) readHookTarget(ctx context.Context, scoutID string) (relay.CloudScout, map[string]relay.SealTarget, error) {
	st, err := d.readStmt(ctx, d.sql.hookTarget)
	if err != nil {
		return relay.CloudScout{}, nil, fmt.Errorf("relaydb: hook target: %w", err)
	}
	rows, err := st.QueryContext(ctx, scoutID)
	if err != nil {
		return relay.CloudScout{}, nil, fmt.Errorf("relaydb: hook target: %w", err)
	}
	defer rows.Close()
	s := relay.CloudScout{ID: scoutID}
	keys := map[string]relay.SealTarget{}
	found := false
	for rows.Next() {
		var hook, dev, seal sql.NullString
		var key []byte
		if err := rows.Scan(&s.UserID, &s.Kind, &s.Name, &s.Enabled, &hook, &dev, &key, &seal); err != nil {
			return relay.CloudScout{}, nil, fmt.Errorf("relaydb: hook target: %w", err)
		}
		found = true
		s.HookTokenHash = hook.String
		if dev.Valid {
			keys[dev.String] = relay.SealTarget{PublicKey: key, Seal: seal.String}
		}
	}
	if err := rows.Err(); err != nil {
		return relay.CloudScout{}, nil, fmt.Errorf("relaydb: hook target: %w", err)
	}
	if !found {
		return relay.CloudScout{}, nil, notFound("scout", scoutID)
	}
	return s, keys, nil
}
