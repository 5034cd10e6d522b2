package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/scouts-hq/scouts/scouts/learn"
)

// contentCache keeps each model's content spam model (learn.Content) in
// memory, following the examples the database holds (learn_examples,
// migration 0013): an example taught since the model was last brought up
// to date is learned on top of it, in order; when one was taken back (an
// undo, a change of mind, silence replaced by a decision, a reset), or the
// examples reached a settling point (learn.Settled), the model is trained
// again from all of them, so that it is exactly the model
// of the examples as they stand. Logistic regression cannot subtract a
// decision; retraining from the stored examples is what makes its
// unlearning exact.
type contentCache struct {
	mu     sync.Mutex
	models map[int64]*contentState
}

// contentState is one model's content model and the examples it holds:
// how many, and the last one's seq.
type contentState struct {
	mu      sync.Mutex // one update at a time
	c       *learn.Content
	count   int
	lastSeq int64
}

func newContentCache() *contentCache { return &contentCache{models: map[int64]*contentState{}} }

// model returns model's content model as of the database's examples now.
// The model returned is never trained again in place: a retrain makes a
// new one, so a prediction holding the old one reads a whole model.
func (c *contentCache) model(ctx context.Context, db *sql.DB, model int64) (*learn.Content, error) {
	c.mu.Lock()
	st := c.models[model]
	if st == nil {
		st = &contentState{c: learn.NewContent(0)}
		c.models[model] = st
	}
	c.mu.Unlock()

	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("localdb: content model: %w", err)
	}
	defer tx.Rollback()
	var count int
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM learn_examples WHERE model = ?`, model).Scan(&count, &last); err != nil {
		return nil, fmt.Errorf("localdb: content model: %w", err)
	}
	if count == st.count && last == st.lastSeq {
		return st.c, nil
	}
	fresh, err := readExamples(ctx, tx, model, st.lastSeq)
	if err != nil {
		return nil, err
	}
	if last > st.lastSeq && st.count+len(fresh.seqs) == count && st.c.Extends(fresh.examples) {
		// Only new examples, after every one the model holds, and no
		// settling point crossed: learning them in order is what
		// training from all of them would do.
		for _, e := range fresh.examples {
			st.c.Learn(e)
		}
	} else {
		all, err := readExamples(ctx, tx, model, 0)
		if err != nil {
			return nil, err
		}
		m := learn.NewContent(0)
		m.Train(all.examples)
		st.c = m
	}
	st.count, st.lastSeq = count, last
	return st.c, nil
}

type exampleRows struct {
	seqs     []int64
	examples []learn.ContentExample
}

// readExamples reads model's examples after seq, in order, as the content
// model learns them: an example it does not learn from (learn.ContentLearns)
// still counts as read.
func readExamples(ctx context.Context, tx *sql.Tx, model, after int64) (exampleRows, error) {
	rows, err := tx.QueryContext(ctx, `SELECT e.seq, f.hashes, f.participants, f.taught, f.taught_factor FROM learn_examples e
		JOIN suggestion_features f ON f.suggestion_id = e.suggestion_id
		WHERE e.model = ? AND e.seq > ? ORDER BY e.seq`, model, after)
	if err != nil {
		return exampleRows{}, fmt.Errorf("localdb: content examples: %w", err)
	}
	defer rows.Close()
	var out exampleRows
	for rows.Next() {
		var seq int64
		var hashes, parts, taught []byte
		var factor float64
		if err := rows.Scan(&seq, &hashes, &parts, &taught, &factor); err != nil {
			return exampleRows{}, fmt.Errorf("localdb: content examples: %w", err)
		}
		out.seqs = append(out.seqs, seq)
		v := decodeVec(taught)
		l := learn.Label{Spam: v[learn.CSpam] > 0, Ham: v[learn.CHam] > 0}
		if (!l.Spam && !l.Ham) || !learn.ContentLearns(l, factor) {
			continue
		}
		// The people a mail was sent to are no spam model's business
		// (learn.ParticipantSign), whatever the example taught.
		ids := decodeHashes(hashes)
		if p := decodeHashes(parts); len(p) > 0 {
			ids = without(ids, p)
		}
		out.examples = append(out.examples, learn.ContentExample{IDs: learn.HashIDs(ids), Spam: l.Spam, Weight: factor})
	}
	if err := rows.Err(); err != nil {
		return exampleRows{}, fmt.Errorf("localdb: content examples: %w", err)
	}
	return out, nil
}
