package localdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// MCPServer is a registered MCP server (app/mcpclient): its command or
// URL, and secrets by name only.
type MCPServer struct {
	Name      string            `json:"name"`
	Command   []string          `json:"command,omitempty"`
	URL       string            `json:"url,omitempty"`
	Env       map[string]string `json:"env,omitempty"`     // variable → secret name
	Headers   map[string]string `json:"headers,omitempty"` // header → secret name
	Bearer    string            `json:"bearer,omitempty"`  // secret name
	Trusted   bool              `json:"trusted"`
	PinnedSet string            `json:"pinned_set,omitempty"`
	SeenSet   string            `json:"seen_set,omitempty"`
	SeenAt    time.Time         `json:"seen_at,omitzero"`
	LastError string            `json:"last_error,omitempty"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
}

// MCPTool is a tool's pinned and last listed definitions (canonical JSON).
type MCPTool struct {
	Server     string    `json:"server"`
	Name       string    `json:"name"`
	Pinned     string    `json:"-"`
	PinnedHash string    `json:"pinned_hash,omitempty"`
	Seen       string    `json:"-"`
	SeenHash   string    `json:"seen_hash,omitempty"`
	ApprovedAt time.Time `json:"approved_at,omitzero"`
	ApprovedBy string    `json:"approved_by,omitempty"`
}

// AddMCPServer registers a server; EConflict when the name is taken.
func (d *DB) AddMCPServer(ctx context.Context, s MCPServer, audit ...scouts.AuditEvent) error {
	cmd, _ := json.Marshal(nonNil(s.Command))
	env, _ := json.Marshal(nonNilMap(s.Env))
	hdr, _ := json.Marshal(nonNilMap(s.Headers))
	return d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM mcp_servers WHERE name = ?`, s.Name).Scan(&n); err != nil {
			return fmt.Errorf("localdb: add MCP server: %w", err)
		}
		if n > 0 {
			return scouts.Errorf(scouts.EConflict, "an MCP server named %s exists already", s.Name)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO mcp_servers (name, command, url, env, headers, bearer, trusted, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, s.Name, string(cmd), s.URL, string(env), string(hdr), s.Bearer, s.Trusted,
			s.CreatedAt.UnixMilli(), s.UpdatedAt.UnixMilli())
		if err != nil {
			return fmt.Errorf("localdb: add MCP server %s: %w", s.Name, err)
		}
		return insertAudit(ctx, tx, audit...)
	})
}

// SetMCPServerTrusted sets whether a server's read-only hints are believed.
func (d *DB) SetMCPServerTrusted(ctx context.Context, name string, trusted bool, at time.Time, audit ...scouts.AuditEvent) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE mcp_servers SET trusted = ?, updated_at = ? WHERE name = ?`, trusted, at.UnixMilli(), name)
		if err != nil {
			return fmt.Errorf("localdb: trust MCP server %s: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("MCP server", name)
		}
		return insertAudit(ctx, tx, audit...)
	})
}

// RemoveMCPServer forgets a server and its pins.
func (d *DB) RemoveMCPServer(ctx context.Context, name string, audit ...scouts.AuditEvent) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM mcp_tools WHERE server = ?`, name); err != nil {
			return fmt.Errorf("localdb: remove MCP server %s: %w", name, err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM mcp_servers WHERE name = ?`, name)
		if err != nil {
			return fmt.Errorf("localdb: remove MCP server %s: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("MCP server", name)
		}
		return insertAudit(ctx, tx, audit...)
	})
}

// MCPServers lists the servers by name.
func (d *DB) MCPServers(ctx context.Context) ([]MCPServer, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT name, command, url, env, headers, bearer, trusted, pinned_set, seen_set, seen_at,
		last_error, created_at, updated_at FROM mcp_servers ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("localdb: MCP servers: %w", err)
	}
	defer rows.Close()
	var out []MCPServer
	for rows.Next() {
		var s MCPServer
		var cmd, env, hdr string
		var seen sql.NullInt64
		var created, updated int64
		if err := rows.Scan(&s.Name, &cmd, &s.URL, &env, &hdr, &s.Bearer, &s.Trusted, &s.PinnedSet, &s.SeenSet, &seen,
			&s.LastError, &created, &updated); err != nil {
			return nil, fmt.Errorf("localdb: MCP servers: %w", err)
		}
		json.Unmarshal([]byte(cmd), &s.Command)
		json.Unmarshal([]byte(env), &s.Env)
		json.Unmarshal([]byte(hdr), &s.Headers)
		if seen.Valid {
			s.SeenAt = time.UnixMilli(seen.Int64)
		}
		s.CreatedAt, s.UpdatedAt = time.UnixMilli(created), time.UnixMilli(updated)
		out = append(out, s)
	}
	return out, rows.Err()
}

// MCPTools lists the tools of every server (server "") or of one, by
// server and name.
func (d *DB) MCPTools(ctx context.Context, server string) ([]MCPTool, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT server, name, pinned, pinned_hash, seen, seen_hash, approved_at, approved_by
		FROM mcp_tools WHERE ? = '' OR server = ? ORDER BY server, name`, server, server)
	if err != nil {
		return nil, fmt.Errorf("localdb: MCP tools: %w", err)
	}
	defer rows.Close()
	var out []MCPTool
	for rows.Next() {
		var t MCPTool
		var at sql.NullInt64
		if err := rows.Scan(&t.Server, &t.Name, &t.Pinned, &t.PinnedHash, &t.Seen, &t.SeenHash, &at, &t.ApprovedBy); err != nil {
			return nil, fmt.Errorf("localdb: MCP tools: %w", err)
		}
		if at.Valid {
			t.ApprovedAt = time.UnixMilli(at.Int64)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// MCPListing is what a tools/list (or an approval) writes for a server.
type MCPListing struct {
	Server string
	// Tools are the rows to write (whole rows, by name); Delete the names
	// whose rows go (a tool never approved that the server stopped
	// listing).
	Tools     []MCPTool
	Delete    []string
	PinnedSet *string // nil: unchanged
	SeenSet   *string
	SeenAt    time.Time
	LastError *string
}

// SaveMCPListing writes a listing's rows and the server's hashes, with its
// audit, in one transaction.
func (d *DB) SaveMCPListing(ctx context.Context, l MCPListing, audit ...scouts.AuditEvent) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM mcp_servers WHERE name = ?`, l.Server).Scan(&n); err != nil {
			return fmt.Errorf("localdb: MCP listing: %w", err)
		}
		if n == 0 {
			return notFound("MCP server", l.Server)
		}
		for _, t := range l.Tools {
			var at any
			if !t.ApprovedAt.IsZero() {
				at = t.ApprovedAt.UnixMilli()
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO mcp_tools (server, name, pinned, pinned_hash, seen, seen_hash, approved_at, approved_by)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (server, name) DO UPDATE SET pinned = excluded.pinned,
				pinned_hash = excluded.pinned_hash, seen = excluded.seen, seen_hash = excluded.seen_hash,
				approved_at = excluded.approved_at, approved_by = excluded.approved_by`,
				l.Server, t.Name, t.Pinned, t.PinnedHash, t.Seen, t.SeenHash, at, t.ApprovedBy)
			if err != nil {
				return fmt.Errorf("localdb: MCP tool %s/%s: %w", l.Server, t.Name, err)
			}
		}
		for _, name := range l.Delete {
			if _, err := tx.ExecContext(ctx, `DELETE FROM mcp_tools WHERE server = ? AND name = ?`, l.Server, name); err != nil {
				return fmt.Errorf("localdb: MCP tool %s/%s: %w", l.Server, name, err)
			}
		}
		set := func(col string, v *string) error {
			if v == nil {
				return nil
			}
			_, err := tx.ExecContext(ctx, `UPDATE mcp_servers SET `+col+` = ? WHERE name = ?`, *v, l.Server)
			return err
		}
		if err := errors.Join(set("pinned_set", l.PinnedSet), set("seen_set", l.SeenSet), set("last_error", l.LastError)); err != nil {
			return fmt.Errorf("localdb: MCP server %s: %w", l.Server, err)
		}
		if !l.SeenAt.IsZero() {
			if _, err := tx.ExecContext(ctx, `UPDATE mcp_servers SET seen_at = ? WHERE name = ?`, l.SeenAt.UnixMilli(), l.Server); err != nil {
				return fmt.Errorf("localdb: MCP server %s: %w", l.Server, err)
			}
		}
		return insertAudit(ctx, tx, audit...)
	})
}

// StartMCPCall records a call's start (committed before the call) and
// reports whether an earlier attempt with the key started and never
// finished.
func (d *DB) StartMCPCall(ctx context.Context, key string, at time.Time) (interrupted bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		var fin sql.NullInt64
		e := tx.QueryRowContext(ctx, `SELECT finished_at FROM mcp_calls WHERE key = ?`, key).Scan(&fin)
		switch {
		case errors.Is(e, sql.ErrNoRows):
		case e != nil:
			return e
		default:
			interrupted = !fin.Valid
		}
		_, e = tx.ExecContext(ctx, `INSERT INTO mcp_calls (key, started_at) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET started_at = excluded.started_at, finished_at = NULL`, key, at.UnixMilli())
		return e
	})
	if err != nil {
		return false, fmt.Errorf("localdb: start MCP call %s: %w", key, err)
	}
	return interrupted, nil
}

// FinishMCPCall records that a call answered (with a result or an error).
func (d *DB) FinishMCPCall(ctx context.Context, key string, at time.Time) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE mcp_calls SET finished_at = ? WHERE key = ?`, at.UnixMilli(), key); err != nil {
			return fmt.Errorf("localdb: finish MCP call %s: %w", key, err)
		}
		return nil
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
