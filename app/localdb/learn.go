package localdb

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/learn"
)

// LearnSalt returns this installation's feature-hash salt, making one the
// first time. It keys every stored feature hash.
func (d *DB) LearnSalt(ctx context.Context) (uint64, error) {
	v, ok, err := d.Setting(ctx, "learn-salt")
	if err != nil {
		return 0, err
	}
	if ok && v != "" {
		var s uint64
		if _, err := fmt.Sscanf(v, "%x", &s); err == nil {
			return s, nil
		}
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("localdb: learn salt: %w", err)
	}
	s := binary.LittleEndian.Uint64(b[:])
	// The salt is made once per database: two agents can never race here
	// (the data directory is locked), so a plain write is enough.
	if err := d.SetSetting(ctx, "learn-salt", fmt.Sprintf("%016x", s)); err != nil {
		return 0, err
	}
	return s, nil
}

type modelRow struct {
	id        int64
	epoch     time.Time
	totals    learn.Totals
	decisions int
	spam, ham int
	settings  scouts.LearnSettings
	resetAt   time.Time
}

func (m modelRow) state(scoutID string, p learn.Params) engine.LearnState {
	return engine.LearnState{ScoutID: scoutID, Model: learn.Model{Params: p, Epoch: m.epoch, Totals: m.totals},
		Settings: m.settings, Decisions: m.decisions, Spam: m.spam, Ham: m.ham, ResetAt: m.resetAt}
}

func getModel(ctx context.Context, q queryer, scoutID string) (modelRow, bool, error) {
	var m modelRow
	var epoch int64
	var totals []byte
	var settings string
	var reset sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT id, epoch, totals, decisions, spam, ham, settings, reset_at FROM learn_models WHERE scout_id = ?`, scoutID).
		Scan(&m.id, &epoch, &totals, &m.decisions, &m.spam, &m.ham, &settings, &reset)
	if errors.Is(err, sql.ErrNoRows) {
		return modelRow{settings: scouts.DefaultLearnSettings()}, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("localdb: learn model: %w", err)
	}
	m.epoch = time.UnixMilli(epoch).UTC()
	m.totals = decodeTotals(totals)
	m.settings = scouts.DefaultLearnSettings()
	if err := json.Unmarshal([]byte(settings), &m.settings); err != nil {
		return m, false, fmt.Errorf("localdb: learn settings of %s: %w", scoutID, err)
	}
	if reset.Valid {
		m.resetAt = time.UnixMilli(reset.Int64).UTC()
	}
	return m, true, nil
}

// ensureModel returns the scout's model row, creating it (epoch at) if
// the scout has none.
func ensureModel(ctx context.Context, tx *sql.Tx, scoutID string, at time.Time) (modelRow, error) {
	m, ok, err := getModel(ctx, tx, scoutID)
	if err != nil || ok {
		return m, err
	}
	settings, _ := json.Marshal(m.settings)
	if _, err := tx.ExecContext(ctx, `INSERT INTO learn_models (scout_id, epoch, totals, settings) VALUES (?, ?, ?, ?)`,
		scoutID, at.UnixMilli(), encodeTotals(learn.Totals{}), string(settings)); err != nil {
		return m, fmt.Errorf("localdb: create learn model: %w", err)
	}
	m, _, err = getModel(ctx, tx, scoutID)
	return m, err
}

// LearnState returns a scout's learner; see engine.Store.
func (d *DB) LearnState(ctx context.Context, scoutID string) (engine.LearnState, error) {
	m, ok, err := getModel(ctx, d.read(), scoutID)
	if err != nil {
		return engine.LearnState{}, err
	}
	st := m.state(scoutID, d.learnParams)
	if ok && !d.learnParams.CountsOnly && m.spam >= m.settings.MinSpam {
		// The content spam model, up to date with the examples taught
		// (learncontent.go); only once spam can be filed (MinSpam), so
		// that a scout that never sees spam (a folder) never holds one.
		if st.Model.Content, err = d.learned.content.model(ctx, d.read(), m.id); err != nil {
			return engine.LearnState{}, err
		}
	}
	return st, nil
}

// LearnCounts returns feature counts; see engine.Store.
func (d *DB) LearnCounts(ctx context.Context, scoutID string, hashes []uint64) ([]learn.Vec, error) {
	out := make([]learn.Vec, len(hashes))
	m, ok, err := getModel(ctx, d.read(), scoutID)
	if err != nil || !ok || len(hashes) == 0 {
		return out, err
	}
	return d.learned.lookup(ctx, d.read(), m.id, hashes, time.Now())
}

func readCounts(ctx context.Context, q queryer, model int64, hashes []uint64) (map[uint64]learn.Vec, error) {
	out := make(map[uint64]learn.Vec, len(hashes))
	const chunk = 500
	for len(hashes) > 0 {
		n := min(chunk, len(hashes))
		part := hashes[:n]
		hashes = hashes[n:]
		args := make([]any, 0, n+1)
		args = append(args, model)
		for _, h := range part {
			args = append(args, int64(h))
		}
		rows, err := q.QueryContext(ctx, `SELECT h, c FROM learn_counts WHERE model = ? AND h IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("localdb: learn counts: %w", err)
		}
		for rows.Next() {
			var h int64
			var c []byte
			if err := rows.Scan(&h, &c); err != nil {
				rows.Close()
				return nil, fmt.Errorf("localdb: learn counts: %w", err)
			}
			out[uint64(h)] = decodeVec(c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("localdb: learn counts: %w", err)
		}
	}
	return out, nil
}

// SetLearnSettings stores a scout's thresholds; see engine.Store.
func (d *DB) SetLearnSettings(ctx context.Context, scoutID string, s scouts.LearnSettings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	b, _ := json.Marshal(s)
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := ensureModel(ctx, tx, scoutID, time.Now()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE learn_models SET settings = ? WHERE scout_id = ?`, string(b), scoutID)
		return err
	})
}

// ResetLearner forgets a scout's model; see engine.Store. Suggestions keep
// their feature hashes but no longer count as taught, so deciding them
// again teaches the new model.
func (d *DB) ResetLearner(ctx context.Context, scoutID string, at time.Time) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		m, ok, err := getModel(ctx, tx, scoutID)
		if err != nil || !ok {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM learn_counts WHERE model = ?`, m.id); err != nil {
			return fmt.Errorf("localdb: reset learner: %w", err)
		}
		d.learned.record(tx, countUpdate{model: m.id, reset: true})
		if _, err := tx.ExecContext(ctx, `UPDATE suggestion_features SET model = NULL, taught = NULL, weight = 0 WHERE model = ?`, m.id); err != nil {
			return fmt.Errorf("localdb: reset learner: %w", err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE learn_models SET epoch = ?, totals = ?, decisions = 0, spam = 0, ham = 0, reset_at = ? WHERE id = ?`,
			at.UnixMilli(), encodeTotals(learn.Totals{}), at.UnixMilli(), m.id)
		return err
	})
}

// LearnStats reports a scout's model size, for benchmarks and the UI.
func (d *DB) LearnStats(ctx context.Context, scoutID string) (features int, err error) {
	err = d.read().QueryRowContext(ctx, `SELECT COUNT(*) FROM learn_counts WHERE model = (SELECT id FROM learn_models WHERE scout_id = ?)`, scoutID).Scan(&features)
	return features, err
}

// LearnFootprint is what a scout's learner occupies in the database:
// the model (one row per hashed feature, with its counts) and, kept beside
// it for exact unlearning, the hashes of each item's features.
type LearnFootprint struct {
	Features     int   // rows of learn_counts
	FeatureBytes int64 // their payload: 8-byte hash and 32-byte counts each
	Items        int   // rows of suggestion_features
	ItemBytes    int64 // their payload: id, hashes, taught counts, weight
	// FileBytes is the whole database file (every table, free pages
	// included), for scale.
	FileBytes int64
}

// LearnFootprint measures a scout's learner. Payload bytes leave out
// SQLite's page and cell overhead (typically 10–40 % more on disk).
func (d *DB) LearnFootprint(ctx context.Context, scoutID string) (LearnFootprint, error) {
	var f LearnFootprint
	err := d.read().QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(8 + LENGTH(c)), 0) FROM learn_counts
		WHERE model = (SELECT id FROM learn_models WHERE scout_id = ?)`, scoutID).Scan(&f.Features, &f.FeatureBytes)
	if err != nil {
		return f, fmt.Errorf("localdb: learn footprint: %w", err)
	}
	err = d.read().QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(LENGTH(f.suggestion_id) + LENGTH(f.hashes) + COALESCE(LENGTH(f.taught), 0) + 8), 0)
		FROM suggestion_features f JOIN suggestions s ON s.id = f.suggestion_id WHERE s.scout_id = ?`, scoutID).Scan(&f.Items, &f.ItemBytes)
	if err != nil {
		return f, fmt.Errorf("localdb: learn footprint: %w", err)
	}
	var size int64
	if err := d.read().QueryRowContext(ctx, `SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`).Scan(&size); err != nil {
		return f, fmt.Errorf("localdb: learn footprint: %w", err)
	}
	f.FileBytes = size
	return f, nil
}

const featuresInsert = `INSERT INTO suggestion_features (suggestion_id, hashes, participants) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`

func insertFeatures(ctx context.Context, tx execer, suggestionID string, hashes, participants []uint64) error {
	if len(hashes) == 0 {
		return nil
	}
	var part any
	if len(participants) > 0 {
		part = encodeHashes(participants)
	}
	if _, err := tx.ExecContext(ctx, featuresInsert, suggestionID, encodeHashes(hashes), part); err != nil {
		return fmt.Errorf("localdb: store features: %w", err)
	}
	return nil
}

func encodeHashes(hashes []uint64) []byte {
	b := make([]byte, 8*len(hashes))
	for i, h := range hashes {
		binary.LittleEndian.PutUint64(b[8*i:], h)
	}
	return b
}

// teach makes the learner reflect s's new state, in the caller's
// transaction, so that a decision and what it taught are one commit. It
// only reads and writes: what the decision teaches, and with which share
// of an explicit decision's weight, is engine.Teaching, and what that does
// to the counts (taking back the item's previous teaching, the weights) is
// learn.Model.Reteach.
func (d *DB) teach(ctx context.Context, tx *sql.Tx, s scouts.Suggestion, at time.Time) error {
	label, factor := engine.Teaching(s)
	if factor != 1 && !s.SettledAt.IsZero() {
		// A silent lesson is dated when the card settled, whenever it is
		// taught again (an undone decision gives it back): exactly what
		// silence taught before.
		at = s.SettledAt
	}
	return d.teachRow(ctx, tx, s.ScoutID, s.ID, label, factor, at)
}

// teachRow makes the item of row id (a suggestion, or an address the
// person wrote to) teach label at factor of an explicit decision's weight
// instead of what it taught before.
func (d *DB) teachRow(ctx context.Context, tx *sql.Tx, scoutID, id string, label learn.Label, factor float64, at time.Time) error {
	var hb, pb, taught []byte
	var model sql.NullInt64
	var weight, prevFactor float64
	var prevAll bool
	err := tx.QueryRowContext(ctx, `SELECT hashes, participants, model, taught, weight, taught_all, taught_factor FROM suggestion_features WHERE suggestion_id = ?`, id).
		Scan(&hb, &pb, &model, &taught, &weight, &prevAll, &prevFactor)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // an item from before the learner, or without features
	}
	if err != nil {
		return fmt.Errorf("localdb: teach: %w", err)
	}
	m, err := ensureModel(ctx, tx, scoutID, at)
	if err != nil {
		return err
	}
	// What the item taught counts only if it taught this model: after a
	// reset its row still names the model it taught before.
	var prev learn.Taught
	if model.Valid && model.Int64 == m.id && len(taught) > 0 {
		prev = learn.Taught{Vec: decodeVec(taught), Weight: weight}
	}
	all := decodeHashes(hb)
	own := all
	if parts := decodeHashes(pb); len(parts) > 0 {
		own = without(all, parts)
	}
	// The hashes the previous teaching went to, and those the new one
	// goes to: a spam verdict spares the other people of the conversation.
	prevSet, prevSetAll := own, prevAll || len(own) == len(all)
	if prevSetAll {
		prevSet = all
	}
	next, nextAll := all, !engine.SparesParticipants(label) || len(own) == len(all)
	if !nextAll {
		next = own
	}
	st := m.state(scoutID, d.learnParams)
	tbl := txCounts{ctx: ctx, tx: tx, model: m.id}
	tally := learn.Tally{Decisions: m.decisions, Spam: m.spam, Ham: m.ham}
	nextAt := engine.TeachAt(st.Model, at, factor)
	var lesson learn.Lesson
	var changed bool
	if prev.Vec.IsZero() || (prevSetAll == nextAll && prevFactor == factor) {
		lesson, changed, err = st.Model.Reteach(tbl, tally, next, prev, label, nextAt)
	} else {
		lesson, changed, err = reteachApart(st.Model, tbl, tally, prevSet, prev, next, label, nextAt)
	}
	if err != nil || !changed {
		return err
	}
	del := make([]any, len(lesson.Del))
	for i, h := range lesson.Del {
		del[i] = int64(h)
	}
	put := make([]any, 0, 2*len(lesson.Put))
	for _, c := range lesson.Put {
		put = append(put, int64(c.Hash), encodeVec(c.Vec))
	}
	if err := execChunks(ctx, tx, `DELETE FROM learn_counts WHERE model = `+fmt.Sprint(m.id)+` AND h IN (`, "?", ",", ")", 1, del); err != nil {
		return fmt.Errorf("localdb: teach: %w", err)
	}
	if err := execChunks(ctx, tx, `INSERT OR REPLACE INTO learn_counts (model, h, c) VALUES `, "("+fmt.Sprint(m.id)+", ?, ?)", ",", "", 2, put); err != nil {
		return fmt.Errorf("localdb: teach: %w", err)
	}
	u := countUpdate{model: m.id, put: make(map[uint64]learn.Vec, len(lesson.Put)), del: lesson.Del}
	for _, c := range lesson.Put {
		u.put[c.Hash] = c.Vec
	}
	d.learned.record(tx, u)
	t := lesson.Tally
	if _, err := tx.ExecContext(ctx, `UPDATE learn_models SET totals = ?, decisions = ?, spam = ?, ham = ? WHERE id = ?`,
		encodeTotals(lesson.Totals), t.Decisions, t.Spam, t.Ham, m.id); err != nil {
		return fmt.Errorf("localdb: teach: %w", err)
	}
	var taughtArg any
	if !lesson.Taught.Vec.IsZero() {
		taughtArg = encodeVec(lesson.Taught.Vec)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE suggestion_features SET model = ?, taught = ?, weight = ?, taught_all = ?, taught_factor = ? WHERE suggestion_id = ?`,
		m.id, taughtArg, lesson.Taught.Weight, nextAll, factor, id); err != nil {
		return fmt.Errorf("localdb: teach: %w", err)
	}
	return nil
}

// reteachApart is Reteach when the previous teaching went to other hashes
// or with another share of the weight than the new one: the previous
// teaching is taken back from the hashes it went to, then the new one
// taught to its own, as one lesson.
func reteachApart(m learn.Model, tbl learn.Table, tally learn.Tally, prevSet []uint64, prev learn.Taught,
	next []uint64, l learn.Label, at time.Time) (learn.Lesson, bool, error) {
	back, _, err := m.Reteach(tbl, tally, prevSet, prev, learn.Label{}, at)
	if err != nil {
		return learn.Lesson{}, false, err
	}
	after := overlay{base: tbl, put: map[uint64]learn.Vec{}, del: map[uint64]bool{}}
	after.apply(back)
	m.Totals = back.Totals
	fwd, ok, err := m.Reteach(after, back.Tally, next, learn.Taught{}, l, at)
	if err != nil {
		return learn.Lesson{}, false, err
	}
	if !ok {
		fwd = learn.Lesson{Totals: back.Totals, Tally: back.Tally}
	}
	after.apply(fwd)
	out := learn.Lesson{Taught: fwd.Taught, Totals: fwd.Totals, Tally: fwd.Tally}
	for _, h := range union(prevSet, next) {
		if v, ok := after.put[h]; ok {
			out.Put = append(out.Put, learn.Count{Hash: h, Vec: v})
		} else if after.del[h] {
			out.Del = append(out.Del, h)
		}
	}
	return out, true, nil
}

// overlay reads counts as a lesson not yet written leaves them.
type overlay struct {
	base learn.Table
	put  map[uint64]learn.Vec
	del  map[uint64]bool
}

func (o overlay) apply(l learn.Lesson) {
	for _, c := range l.Put {
		o.put[c.Hash] = c.Vec
		delete(o.del, c.Hash)
	}
	for _, h := range l.Del {
		o.del[h] = true
		delete(o.put, h)
	}
}

func (o overlay) Lookup(hashes []uint64) ([]learn.Vec, error) {
	out, err := o.base.Lookup(hashes)
	if err != nil {
		return nil, err
	}
	for i, h := range hashes {
		if v, ok := o.put[h]; ok {
			out[i] = v
		} else if o.del[h] {
			out[i] = learn.Vec{}
		}
	}
	return out, nil
}

// without returns the hashes of all not in drop, in order.
func without(all, drop []uint64) []uint64 {
	gone := make(map[uint64]bool, len(drop))
	for _, h := range drop {
		gone[h] = true
	}
	out := make([]uint64, 0, len(all))
	for _, h := range all {
		if !gone[h] {
			out = append(out, h)
		}
	}
	return out
}

// union returns a's hashes then those of b not in a.
func union(a, b []uint64) []uint64 {
	in := make(map[uint64]bool, len(a))
	for _, h := range a {
		in[h] = true
	}
	out := slices.Clone(a)
	for _, h := range b {
		if !in[h] {
			out = append(out, h)
		}
	}
	return out
}

// txCounts reads a model's counts inside the transaction teaching it:
// learn.Table for Reteach.
type txCounts struct {
	ctx   context.Context
	tx    *sql.Tx
	model int64
}

func (t txCounts) Lookup(hashes []uint64) ([]learn.Vec, error) {
	counts, err := readCounts(t.ctx, t.tx, t.model, hashes)
	if err != nil {
		return nil, err
	}
	out := make([]learn.Vec, len(hashes))
	for i, h := range hashes {
		out[i] = counts[h]
	}
	return out, nil
}

func decodeHashes(b []byte) []uint64 {
	hashes := make([]uint64, len(b)/8)
	for i := range hashes {
		hashes[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return hashes
}

// execChunks runs head + n groups of item (joined by sep) + tail for args
// taken per arguments at a time, in chunks that stay under SQLite's limit
// on variables.
func execChunks(ctx context.Context, tx *sql.Tx, head, item, sep, tail string, per int, args []any) error {
	const maxVars = 900
	step := maxVars / per * per
	for len(args) > 0 {
		n := min(step, len(args))
		part := args[:n]
		args = args[n:]
		var q strings.Builder
		q.WriteString(head)
		for i := 0; i < n/per; i++ {
			if i > 0 {
				q.WriteString(sep)
			}
			q.WriteString(item)
		}
		q.WriteString(tail)
		if _, err := tx.ExecContext(ctx, q.String(), part...); err != nil {
			return err
		}
	}
	return nil
}

func encodeVec(v learn.Vec) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVec(b []byte) learn.Vec {
	var v learn.Vec
	for i := range v {
		if 4*i+4 <= len(b) {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	return v
}

func encodeTotals(t learn.Totals) []byte {
	fs := append(t.Docs[:], t.Feats[:]...)
	b := make([]byte, 8*len(fs))
	for i, f := range fs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(f))
	}
	return b
}

func decodeTotals(b []byte) learn.Totals {
	var t learn.Totals
	get := func(i int) float64 {
		if 8*i+8 > len(b) {
			return 0
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	for i := range t.Docs {
		t.Docs[i] = get(i)
	}
	for i := range t.Feats {
		t.Feats[i] = get(len(t.Docs) + i)
	}
	return t
}

// LearnTablesContain reports whether any stored value of the learner's
// tables contains b: tests use it to prove that no text is kept.
func (d *DB) LearnTablesContain(ctx context.Context, b []byte) bool {
	for _, q := range []string{`SELECT c FROM learn_counts`, `SELECT hashes FROM suggestion_features`,
		`SELECT COALESCE(taught, x'') FROM suggestion_features`, `SELECT totals FROM learn_models`, `SELECT settings FROM learn_models`} {
		rows, err := d.read().QueryContext(ctx, q)
		if err != nil {
			return true
		}
		for rows.Next() {
			var v []byte
			if rows.Scan(&v) == nil && bytes.Contains(v, b) {
				rows.Close()
				return true
			}
		}
		rows.Close()
	}
	return false
}
