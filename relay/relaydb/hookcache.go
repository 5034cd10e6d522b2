package relaydb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/store"
)

// HookChannel is the PostgreSQL channel on which a transaction that changes
// what a webhook request is checked or sealed against (a scout's token,
// enabled flag or existence; a device's key, seal format or revocation)
// announces the user id, so that every instance forgets its cached
// HookTarget answers for that user when it commits.
const HookChannel = "scouts_hooks"

// hookTTL is the default bound on how long a cached HookTarget answer is used. Every write
// path of this package forgets the answers it changes, at once in this
// process and, on PostgreSQL, through HookChannel in the others; the bound
// is for what no notification reaches: on SQLite, the admin CLI revoking a
// device from another process (the relay also cuts the device's sessions
// off only at its next revocation poll, 2 s by default).
const hookTTL = time.Second

// hookCacheMax bounds the scouts cached; reaching it empties the cache
// (answers live a second at most, so it refills from the next requests),
// which keeps a miss from ever scanning the entries.
const hookCacheMax = 10000

// hookCache keeps HookTarget's answers so that a busy webhook costs no
// read per request. It stays coherent with the database by forgetting:
// writes forget the user's answers after their commit, and an answer read
// before a forget is not stored after it (gen), so an answer read from
// the old rows can never outlive the forget that followed the write.
type hookCache struct {
	mu      sync.Mutex
	gen     uint64 // moved by every forget
	byScout map[string]hookEntry
	byUser  map[string]map[string]struct{}
	// On PostgreSQL other instances write too: the cache is used only
	// while this process hears their notifications (see hookTargetsShared).
	shared bool
	ttl    time.Duration // 0: hookTTL
}

type hookEntry struct {
	scout relay.CloudScout
	keys  map[string]relay.SealTarget // shared by every caller: read only
	until time.Time
}

// get returns a cached answer, and otherwise the generation to store the
// answer read under.
func (c *hookCache) get(scoutID string, now time.Time) (hookEntry, bool, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byScout[scoutID]
	if ok && now.Before(e.until) {
		return e, true, c.gen
	}
	return hookEntry{}, false, c.gen
}

// put stores an answer read under generation gen, unless something was
// forgotten since: that read may have seen the rows before the write.
func (c *hookCache) put(gen uint64, s relay.CloudScout, keys map[string]relay.SealTarget, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	ttl := c.ttl
	if ttl <= 0 {
		ttl = hookTTL
	}
	e := hookEntry{scout: s, keys: keys, until: now.Add(ttl)}
	if c.byScout == nil {
		c.byScout, c.byUser = map[string]hookEntry{}, map[string]map[string]struct{}{}
	}
	if _, ok := c.byScout[e.scout.ID]; !ok && len(c.byScout) >= hookCacheMax {
		clear(c.byScout)
		clear(c.byUser)
	}
	c.byScout[e.scout.ID] = e
	if c.byUser[e.scout.UserID] == nil {
		c.byUser[e.scout.UserID] = map[string]struct{}{}
	}
	c.byUser[e.scout.UserID][e.scout.ID] = struct{}{}
}

// forgetUser drops a user's answers.
func (c *hookCache) forgetUser(userID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for id := range c.byUser[userID] {
		delete(c.byScout, id)
	}
	delete(c.byUser, userID)
}

// forgetAll drops every answer.
func (c *hookCache) forgetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.byScout, c.byUser = nil, nil
}

// SetHookTTL replaces how long a cached webhook answer is used (tests:
// a long one shows that a change arrived by notification).
func (d *DB) SetHookTTL(ttl time.Duration) {
	d.hooks.mu.Lock()
	defer d.hooks.mu.Unlock()
	d.hooks.ttl = ttl
}

// hookCacheUsable reports whether cached answers may be used: always on SQLite
// (one relay process), on PostgreSQL only while HookChannel is heard.
func (d *DB) hookCacheUsable() bool {
	if d.db.Dialect != store.Postgres {
		return true
	}
	d.hooks.mu.Lock()
	defer d.hooks.mu.Unlock()
	return d.hooks.shared
}

// hookTargetsShared says, on PostgreSQL, whether this process is
// listening on HookChannel (and passing what it hears to
// forgetHookTargets; see Listen). Cached webhook answers are used only while it is:
// without the notifications another instance's revocation would go
// unseen here. Either way everything cached so far is forgotten, since
// notifications may have been missed.
func (d *DB) hookTargetsShared(listening bool) {
	d.hooks.mu.Lock()
	d.hooks.shared = listening
	d.hooks.mu.Unlock()
	d.hooks.forgetAll()
}

// forgetHookTargets handles a HookChannel notification: the payload is a
// comma-separated list of user ids.
func (d *DB) forgetHookTargets(payload string) {
	for _, u := range strings.Split(payload, ",") {
		d.hooks.forgetUser(u)
	}
}

// hookTargetsChanged is called inside a transaction that changes a user's
// webhook scouts or device keys: on PostgreSQL it notifies every instance
// (delivered at commit). The caller forgets this process's answers after
// the commit (forgetUser), never before it alone: a request reading
// between the two would store the old rows again.
func (d *DB) hookTargetsChanged(ctx context.Context, tx *sql.Tx, userID string) error {
	if d.sql.notify == "" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, d.sql.notify, HookChannel, userID); err != nil {
		return fmt.Errorf("notify webhook change: %w", err)
	}
	return nil
}
