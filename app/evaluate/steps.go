package evaluate

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/learn"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
	"github.com/scouts-hq/scouts/store"
)

// defaultMeasure is how much CPU each step is run for by default, so that
// one pass over a small test part is not lost in the clock's resolution.
const defaultMeasure = 300 * time.Millisecond

// rate runs pass (n messages each time) until it has used minMeasure of
// CPU, and returns messages per CPU second.
func rate(minMeasure time.Duration, n int, pass func() error) (float64, error) {
	c0, cpuOK := cpuTime()
	w0 := time.Now()
	total := 0
	for {
		if err := pass(); err != nil {
			return 0, err
		}
		total += n
		c1, _ := cpuTime()
		if (cpuOK && c1-c0 >= minMeasure) || (!cpuOK && time.Since(w0) >= minMeasure) || n == 0 {
			return perSecond(total, c1-c0, time.Since(w0), cpuOK), nil
		}
	}
}

// measureSteps measures the arrival path's steps alone on the test part:
// reading mail, the heuristics, the learner's features, and its
// prediction with counts read through the store as the engine reads them
// (localdb.LearnCounts), and on a plain map of the same counts.
func (p *product) measureSteps(ctx context.Context, test []judged, tp *Throughput) error {
	msgs := make([]triage.Message, 0, len(test))
	for _, j := range test {
		if m, err := mailtext.Parse(j.mail.Raw, mailtext.Options{BodyRunes: BodyRunes}); err == nil {
			corpus.Neutralize(&m)
			msgs = append(msgs, m)
		}
	}
	salt := p.salt
	st, err := p.db.LearnState(ctx, p.scout.ID)
	if err != nil {
		return err
	}
	feats := make([][]learn.Feature, len(msgs))
	for i, m := range msgs {
		feats[i] = learn.Extract(learnItem(m), salt)
	}
	tbl := dbTable{ctx: ctx, db: p.db, scoutID: p.scout.ID}
	n := len(msgs)
	if tp.Parse, err = rate(p.measure, n, func() error {
		for _, j := range test {
			m, _ := mailtext.Parse(j.mail.Raw, mailtext.Options{BodyRunes: BodyRunes})
			corpus.Neutralize(&m)
		}
		return nil
	}); err != nil {
		return err
	}
	if tp.Heur, err = rate(p.measure, n, func() error {
		for _, m := range msgs {
			if _, err := p.src.pipe.Triage(ctx, m); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if tp.Extract, err = rate(p.measure, n, func() error {
		for _, m := range msgs {
			learn.Extract(learnItem(m), salt)
		}
		return nil
	}); err != nil {
		return err
	}
	if tp.Cues, err = rate(p.measure, n, func() error {
		for _, m := range msgs {
			meta := scouts.ItemMetadata{Title: m.Subject, ProposedKind: scouts.EntityTask, ReceivedAt: m.Date}
			core.ProposeFromContent(ctx, p.db, p.clock, quiet, meta, m.Body)
		}
		return nil
	}); err != nil {
		return err
	}
	now := *p.now.Load()
	if tp.Predict, err = rate(p.measure, n, func() error {
		for _, fs := range feats {
			if _, err := st.Model.Predict(tbl, fs, now); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	mem := learn.MemTable{}
	for _, fs := range feats {
		hs := learn.Hashes(fs)
		counts, err := p.db.LearnCounts(ctx, p.scout.ID, hs)
		if err != nil {
			return err
		}
		for i, h := range hs {
			if !counts[i].IsZero() {
				mem[h] = counts[i]
			}
		}
	}
	if tp.PredictMem, err = rate(p.measure, n, func() error {
		for _, fs := range feats {
			if _, err := st.Model.Predict(mem, fs, now); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	tp.Learner = harmonic(tp.Heur, tp.Extract, tp.Predict)
	tp.WithParse = harmonic(tp.Parse, tp.Heur, tp.Extract, tp.Predict)
	return nil
}

// harmonic combines per-step rates into the rate of doing all of them.
func harmonic(rates ...float64) float64 {
	var s float64
	for _, r := range rates {
		if r <= 0 {
			return 0
		}
		s += 1 / r
	}
	return 1 / s
}

// learnItem is what the engine's learner reads of a Gmail mail.
func learnItem(m triage.Message) learn.Item {
	it := triage.LearnItem(m)
	it.Source = "gmail"
	return it
}

// dbTable reads counts through the store, as the engine does.
type dbTable struct {
	ctx     context.Context
	db      *localdb.DB
	scoutID string
}

func (t dbTable) Lookup(hashes []uint64) ([]learn.Vec, error) {
	return t.db.LearnCounts(t.ctx, t.scoutID, hashes)
}

// insertFloor times a bare SQLite transaction writing the feature rows
// each training decision writes (hash and 32-byte counts per feature), in
// a database opened with the product's settings: the least a decision
// that teaches can cost.
func insertFloor(ctx context.Context, dir string, p *product, train []judged) (Latency, error) {
	db, err := store.OpenSQLite(ctx, filepath.Join(dir, "floor.db"), store.Options{})
	if err != nil {
		return Latency{}, fmt.Errorf("evaluate: floor database: %w", err)
	}
	defer db.Close()
	if _, err := db.Writer().ExecContext(ctx, `CREATE TABLE floor (model INTEGER NOT NULL, h INTEGER NOT NULL, c BLOB NOT NULL,
		PRIMARY KEY (model, h)) WITHOUT ROWID`); err != nil {
		return Latency{}, fmt.Errorf("evaluate: floor table: %w", err)
	}
	salt := p.salt
	blob := make([]byte, 4*learn.NClasses)
	var ds []time.Duration
	for _, j := range train {
		m, err := mailtext.Parse(j.mail.Raw, mailtext.Options{BodyRunes: BodyRunes})
		if err != nil {
			continue
		}
		corpus.Neutralize(&m)
		hashes := learn.Hashes(learn.Extract(learnItem(m), salt))
		t0 := time.Now()
		err = db.Tx(ctx, func(tx *sql.Tx) error {
			const per = 450 // rows per statement: 900 variables
			for len(hashes) > 0 {
				n := min(per, len(hashes))
				args := make([]any, 0, 2*n)
				for _, h := range hashes[:n] {
					args = append(args, int64(h), blob)
				}
				hashes = hashes[n:]
				q := `INSERT OR REPLACE INTO floor (model, h, c) VALUES (1, ?, ?)` + strings.Repeat(", (1, ?, ?)", n-1)
				if _, err := tx.ExecContext(ctx, q, args...); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return Latency{}, fmt.Errorf("evaluate: floor insert: %w", err)
		}
		ds = append(ds, time.Since(t0))
	}
	return latency(ds), nil
}
