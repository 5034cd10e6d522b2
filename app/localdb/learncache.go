package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/scouts/learn"
)

// learnCache keeps each recently used model's counts in memory, so that
// scoring an item costs map lookups rather than a query (measured by
// `scouts eval`: 1.4 k predictions per CPU second reading SQLite, 10 k from
// memory). It follows the database: updates a transaction made are applied
// only once it has committed, and a model not used for a while is dropped.
type learnCache struct {
	mu      sync.Mutex
	models  map[int64]*cachedModel
	loading map[int64]*loadState
	pending map[*sql.Tx][]countUpdate
	// content keeps the content spam models, which follow the stored
	// examples rather than count updates (learncontent.go).
	content *contentCache
}

// loadState marks a model being read whole: an update committed meanwhile
// makes what is being read stale.
type loadState struct {
	readers int
	stale   bool
}

type cachedModel struct {
	counts map[uint64]learn.Vec
	used   time.Time
}

// countUpdate is one change a committed transaction made to a model.
type countUpdate struct {
	model int64
	put   map[uint64]learn.Vec
	del   []uint64
	reset bool // every count of the model is gone
}

// idleModel is how long an unused model's counts stay in memory.
const idleModel = 10 * time.Minute

func newLearnCache() *learnCache {
	return &learnCache{models: map[int64]*cachedModel{}, loading: map[int64]*loadState{}, pending: map[*sql.Tx][]countUpdate{},
		content: newContentCache()}
}

// record notes an update made in tx, applied if tx commits.
func (c *learnCache) record(tx *sql.Tx, u countUpdate) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[tx] = append(c.pending[tx], u)
}

// settle applies the updates of the last transaction when it committed,
// and forgets those of every attempt.
func (c *learnCache) settle(txs []*sql.Tx, committed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, tx := range txs {
		ups := c.pending[tx]
		delete(c.pending, tx)
		if !committed || i != len(txs)-1 {
			continue
		}
		for _, u := range ups {
			if ls := c.loading[u.model]; ls != nil {
				ls.stale = true
			}
			m := c.models[u.model]
			if m == nil {
				continue // not cached: it is read whole when next needed
			}
			if u.reset {
				delete(c.models, u.model)
				continue
			}
			for h, v := range u.put {
				m.counts[h] = v
			}
			for _, h := range u.del {
				delete(m.counts, h)
			}
		}
	}
}

// lookup returns the counts of hashes in model, loading the model whole
// the first time.
func (c *learnCache) lookup(ctx context.Context, q queryer, model int64, hashes []uint64, now time.Time) ([]learn.Vec, error) {
	out := make([]learn.Vec, len(hashes))
	c.mu.Lock()
	for id, m := range c.models {
		if id != model && now.Sub(m.used) > idleModel {
			delete(c.models, id)
		}
	}
	if m := c.models[model]; m != nil {
		m.used = now
		for i, h := range hashes {
			out[i] = m.counts[h]
		}
		c.mu.Unlock()
		return out, nil
	}
	// Loading happens outside the lock; an update committed meanwhile
	// makes the loaded copy stale, so it is then used once and not kept.
	ls := c.loading[model]
	if ls == nil {
		ls = &loadState{}
		c.loading[model] = ls
	}
	ls.readers++
	c.mu.Unlock()

	all, err := loadCounts(ctx, q, model)
	c.mu.Lock()
	ls.readers--
	if ls.readers == 0 {
		delete(c.loading, model)
	}
	if err == nil && !ls.stale && c.models[model] == nil {
		c.models[model] = &cachedModel{counts: all, used: now}
	}
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	for i, h := range hashes {
		out[i] = all[h]
	}
	return out, nil
}

func loadCounts(ctx context.Context, q queryer, model int64) (map[uint64]learn.Vec, error) {
	rows, err := q.QueryContext(ctx, `SELECT h, c FROM learn_counts WHERE model = ?`, model)
	if err != nil {
		return nil, fmt.Errorf("localdb: load learn counts: %w", err)
	}
	defer rows.Close()
	out := map[uint64]learn.Vec{}
	for rows.Next() {
		var h int64
		var b []byte
		if err := rows.Scan(&h, &b); err != nil {
			return nil, fmt.Errorf("localdb: load learn counts: %w", err)
		}
		out[uint64(h)] = decodeVec(b)
	}
	return out, rows.Err()
}
