package relaydb

import (
	"github.com/scouts-hq/scouts/store"
)

// queries is the relay's SQL in the dialect of the database opened, made
// once by Open: as ntfy's message cache keeps a query set per dialect, and
// one code path runs and scans them. The statements are written once, in
// SQL both dialects read, with '?' placeholders rebound here for
// PostgreSQL instead of on every call; what one dialect says and the other
// does not is a field of its own (lockInOrder, notify). Statements whose
// length follows their arguments (IN lists, multi-row inserts, the
// batch's one statement) are built where they run.
type queries struct {
	// lockInOrder ends a subquery that picks queue rows to update: on
	// PostgreSQL it locks them in one global order (user, then sequence),
	// so that the delivery loop and the reader of one session, or two
	// instances, updating overlapping rows wait for each other instead
	// of deadlocking (a plain UPDATE locks in whatever order its plan
	// visits rows: the status index's physical order for one, the (user,
	// seq) index for the other). SQLite has a single writer and needs no
	// row locks. It is not rebound: it holds no placeholder.
	lockInOrder string
	// notify sends a notification to every instance listening, delivered
	// at commit (channel, payload); empty on SQLite, one process.
	notify string

	// Users, devices, audit (accounts.go).
	insertUser, userByEmail, insertDevice                 string
	devicesOfUser, deviceByTokenHash, deviceByID          string
	revokeDevice, revokedSince                            string
	deviceKey, deviceConnected, countDevices, insertAudit string

	// Cloud scouts and their configuration operations (scouts.go).
	configOpResult, insertConfigOp       string
	scoutOwner, insertScout, updateScout string
	disableScout, scoutByID              string
	hookTarget                           string

	// Gmail scouts and push hints (gmail.go).
	setGmailPing, setGmail, setGmailCreated, setGmailBaseline string
	gmailCursor, touchSync, advanceCursor, setWatch           string
	scoutState, setState, setStateDisabled                    string
	pushHints, queuedRef, lastDeviceSeen                      string

	// The queue (queue.go, batch.go).
	queueRow, pending, lastSeq                    string
	ackThrough, moveCursor, dropSealedThrough     string
	dueUsers, dropSealedDue, expireDue            string
	purgeKeys, purgeSealed, purgeRows, queueDepth string
	forgetKey, allocateSeqs                       string

	// Sync leases (lease.go).
	acquireLease, renewLease, releaseLease string
}

// queueCols are a queue row's columns as scanQueue reads them.
const queueCols = `q.id, q.user_id, q.scout_id, q.source_type, q.source_msg_ref, q.verdict, q.reason, q.path, q.status, q.seq,
	q.triaged_at, q.delivered_at, q.acked_at, q.expires_at`

// deviceCols are a device's columns as scanDevice reads them.
const deviceCols = `d.id, d.user_id, u.email, d.name, d.public_key, d.created_at, d.last_seen_at, d.revoked_at, d.acked_seq, d.seal`

// gmailColumns are a Gmail scout's columns as scanGmail reads them.
const gmailColumns = `id, user_id, name, mode, enabled, created_at, updated_at, COALESCE(gmail_email, ''), refresh_token_enc,
	auto_trash_spam, inactivity_pause_days, rules, COALESCE(gmail_history_id, ''), last_sync_at, watch_expires_at, state, state_message,
	model_day_tokens, model_run_tokens`

// sealedNoLongerNeeded picks the sealed copies of acknowledged rows that
// no active device still has to receive.
const sealedNoLongerNeeded = `q.status = 'acked' AND NOT EXISTS (SELECT 1 FROM devices dv WHERE dv.user_id = q.user_id
	AND dv.revoked_at IS NULL AND dv.public_key IS NOT NULL AND dv.acked_seq < q.seq)`

func newQueries(db *store.DB) queries {
	q := queries{lockInOrder: `ORDER BY user_id, seq`}
	if db.Dialect == store.Postgres {
		q.lockInOrder += ` FOR UPDATE`
		q.notify = `SELECT pg_notify($1, $2)`
	}
	r := db.Rebind

	q.insertUser = r(`INSERT INTO users (id, email, created_at) VALUES (?, ?, ?)`)
	q.userByEmail = r(`SELECT id, email, created_at FROM users WHERE email = ?`)
	q.insertDevice = r(`INSERT INTO devices (id, user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?, ?)`)
	q.devicesOfUser = r(`SELECT ` + deviceCols + ` FROM devices d JOIN users u ON u.id = d.user_id
		WHERE d.user_id = ? ORDER BY d.created_at, d.id`)
	q.deviceByTokenHash = r(`SELECT ` + deviceCols + ` FROM devices d JOIN users u ON u.id = d.user_id
		WHERE d.token_hash = ?`)
	q.deviceByID = r(`SELECT ` + deviceCols + ` FROM devices d JOIN users u ON u.id = d.user_id WHERE d.id = ?`)
	q.revokeDevice = r(`UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING user_id`)
	q.revokedSince = r(`SELECT id FROM devices WHERE revoked_at >= ?`)
	q.deviceKey = r(`SELECT public_key, seal, user_id FROM devices WHERE id = ?`)
	q.deviceConnected = r(`UPDATE devices SET last_seen_at = ?, public_key = ?, seal = ? WHERE id = ?`)
	q.countDevices = r(`SELECT COUNT(*), COUNT(revoked_at) FROM devices WHERE user_id = ?`)
	q.insertAudit = r(`INSERT INTO audit (user_id, scout_id, type, summary, at) VALUES (?, ?, ?, ?, ?)`)

	q.configOpResult = r(`SELECT result FROM config_ops WHERE user_id = ? AND op_id = ?`)
	q.insertConfigOp = r(`INSERT INTO config_ops (user_id, op_id, result, created_at) VALUES (?, ?, ?, ?)`)
	q.scoutOwner = r(`SELECT user_id, kind FROM cloud_scouts WHERE id = ?`)
	q.insertScout = r(`INSERT INTO cloud_scouts (id, user_id, kind, name, mode, enabled, hook_token_hash, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	// An update without a token hash keeps the current one.
	q.updateScout = r(`UPDATE cloud_scouts SET name = ?, mode = ?, enabled = ?,
		hook_token_hash = COALESCE(?, hook_token_hash), updated_at = ? WHERE id = ?`)
	q.disableScout = r(`UPDATE cloud_scouts SET enabled = ?, updated_at = ? WHERE id = ? AND user_id = ?`)
	q.scoutByID = r(`SELECT id, user_id, kind, name, mode, enabled, hook_token_hash, created_at, updated_at
		FROM cloud_scouts WHERE id = ?`)
	q.hookTarget = r(`SELECT s.user_id, s.kind, s.name, s.enabled, s.hook_token_hash, dv.id, dv.public_key, dv.seal
		FROM cloud_scouts s LEFT JOIN devices dv ON dv.user_id = s.user_id AND dv.revoked_at IS NULL AND dv.public_key IS NOT NULL
		WHERE s.id = ?`)

	// Switching to ping mode drops the token: the relay must not keep a
	// credential it no longer needs.
	q.setGmailPing = r(`UPDATE cloud_scouts SET gmail_email = ?, auto_trash_spam = ?, inactivity_pause_days = ?,
		rules = ?, refresh_token_enc = NULL, model_day_tokens = ?, model_run_tokens = ? WHERE id = ?`)
	q.setGmail = r(`UPDATE cloud_scouts SET gmail_email = ?, auto_trash_spam = ?, inactivity_pause_days = ?,
		rules = ?, refresh_token_enc = COALESCE(?, refresh_token_enc),
		state = CASE WHEN ? THEN 'ok' ELSE state END,
		state_message = CASE WHEN ? THEN '' ELSE state_message END, model_day_tokens = ?, model_run_tokens = ? WHERE id = ?`)
	q.setGmailCreated = r(`UPDATE cloud_scouts SET created_at = ?
		WHERE id = ? AND gmail_history_id IS NULL AND created_at > ?`)
	q.setGmailBaseline = r(`UPDATE cloud_scouts SET gmail_history_id = ? WHERE id = ? AND gmail_history_id IS NULL`)
	q.gmailCursor = r(`SELECT gmail_history_id FROM cloud_scouts WHERE id = ?`)
	q.touchSync = r(`UPDATE cloud_scouts SET last_sync_at = ? WHERE id = ?`)
	q.advanceCursor = r(`UPDATE cloud_scouts SET gmail_history_id = ?, last_sync_at = ? WHERE id = ?`)
	q.setWatch = r(`UPDATE cloud_scouts SET watch_expires_at = ? WHERE id = ?`)
	q.scoutState = r(`SELECT state, state_message, user_id FROM cloud_scouts WHERE id = ?`)
	q.setState = r(`UPDATE cloud_scouts SET state = ?, state_message = ? WHERE id = ?`)
	q.setStateDisabled = r(`UPDATE cloud_scouts SET state = ?, state_message = ?, enabled = ?, updated_at = ? WHERE id = ?`)
	q.pushHints = r(`SELECT id, email, history_id, received_at FROM push_inbox ORDER BY id LIMIT ?`)
	q.queuedRef = r(`SELECT COUNT(*) FROM triage_queue WHERE scout_id = ? AND source_msg_ref = ?`)
	q.lastDeviceSeen = r(`SELECT MAX(last_seen_at) FROM devices WHERE user_id = ? AND revoked_at IS NULL`)

	q.queueRow = r(`SELECT ` + queueCols + `, s.sealed FROM triage_queue q
		LEFT JOIN queue_sealed s ON s.queue_id = q.id AND s.device_id = ? WHERE q.id = ?`)
	q.pending = r(`SELECT ` + queueCols + `, s.sealed FROM triage_queue q
		LEFT JOIN queue_sealed s ON s.queue_id = q.id AND s.device_id = ?
		WHERE q.user_id = ? AND q.seq > ? ORDER BY q.seq LIMIT ?`)
	q.lastSeq = r(`SELECT next_seq FROM users WHERE id = ?`)
	q.ackThrough = r(`UPDATE triage_queue SET status = 'acked', acked_at = ?, delivered_at = COALESCE(delivered_at, ?) WHERE id IN
		(SELECT id FROM triage_queue WHERE user_id = ? AND status IN ('queued','delivered') AND seq <= ? ` + q.lockInOrder + `)`)
	q.moveCursor = r(`UPDATE devices SET acked_seq = ? WHERE id = ? AND user_id = ? AND acked_seq < ?`)
	q.dropSealedThrough = r(`DELETE FROM queue_sealed WHERE queue_id IN (SELECT q.id FROM triage_queue q
		WHERE q.user_id = ? AND q.seq <= ? AND ` + sealedNoLongerNeeded + `)`)
	q.dueUsers = r(`SELECT DISTINCT user_id FROM triage_queue WHERE status IN ('queued','delivered') AND expires_at <= ?`)
	// The content of an expired row can never be delivered.
	q.dropSealedDue = r(`DELETE FROM queue_sealed WHERE queue_id IN
		(SELECT id FROM triage_queue WHERE status IN ('queued','delivered') AND expires_at <= ?)`)
	q.expireDue = r(`UPDATE triage_queue SET status = 'expired' WHERE id IN
		(SELECT id FROM triage_queue WHERE status IN ('queued','delivered') AND expires_at <= ? ` + q.lockInOrder + `)`)
	q.purgeKeys = r(`DELETE FROM hook_requests WHERE created_at < ?`)
	q.purgeSealed = r(`DELETE FROM queue_sealed WHERE queue_id IN (SELECT q.id FROM triage_queue q WHERE ` + sealedNoLongerNeeded + `)`)
	// Retention counts from the row's end (acknowledged, or expired), so
	// that devices offline for a while still learn of an expiry.
	q.purgeRows = r(`DELETE FROM triage_queue WHERE (status = 'acked' AND acked_at < ?) OR (status = 'expired' AND expires_at < ?)`)
	q.queueDepth = `SELECT status, COUNT(*) FROM triage_queue GROUP BY status`
	q.forgetKey = r(`DELETE FROM hook_requests WHERE scout_id = ? AND key_hash = ?`)
	q.allocateSeqs = r(`UPDATE users SET next_seq = next_seq + ? WHERE id = ? RETURNING next_seq`)

	// Of instances racing for a free lease exactly one gets it.
	q.acquireLease = r(`INSERT INTO sync_leases (scout_id, holder, expires_at) VALUES (?, ?, ?)
		ON CONFLICT (scout_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE sync_leases.expires_at <= ? OR sync_leases.holder = excluded.holder`)
	q.renewLease = r(`UPDATE sync_leases SET expires_at = ? WHERE scout_id = ? AND holder = ?`)
	q.releaseLease = r(`DELETE FROM sync_leases WHERE scout_id = ? AND holder = ?`)
	return q
}
