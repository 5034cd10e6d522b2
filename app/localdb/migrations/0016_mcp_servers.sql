-- MCP servers whose tools are actions (issue 21; docs/mcp.md).
--
-- command: the stdio server's argv as a JSON array; url: a streamable HTTP
-- server's endpoint (one of the two). env and headers map a variable or a
-- header to the NAME of a secret in the keyring, never a value; bearer is
-- the name of the secret sent as "Authorization: Bearer". trusted: the
-- person says the server's readOnlyHint may be believed (its read-only
-- tools default to allow).
CREATE TABLE mcp_servers (
    name       TEXT PRIMARY KEY,
    command    TEXT NOT NULL DEFAULT '[]',
    url        TEXT NOT NULL DEFAULT '',
    env        TEXT NOT NULL DEFAULT '{}',
    headers    TEXT NOT NULL DEFAULT '{}',
    bearer     TEXT NOT NULL DEFAULT '',
    trusted    INTEGER NOT NULL DEFAULT 0,
    -- the hash of the tool set as last approved, and as last listed
    pinned_set TEXT NOT NULL DEFAULT '',
    seen_set   TEXT NOT NULL DEFAULT '',
    seen_at    INTEGER,
    last_error TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- One row per tool a server listed or the person approved. pinned is the
-- definition the person approved (canonical JSON, '' before any approval)
-- and pinned_hash its SHA-256; seen and seen_hash the definition listed
-- last ('' once the server stops listing it). A tool runs only while both
-- hashes are equal: anything else is drift, blocked until approved again.
CREATE TABLE mcp_tools (
    server      TEXT NOT NULL REFERENCES mcp_servers (name) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    pinned      TEXT NOT NULL DEFAULT '',
    pinned_hash TEXT NOT NULL DEFAULT '',
    seen        TEXT NOT NULL DEFAULT '',
    seen_hash   TEXT NOT NULL DEFAULT '',
    approved_at INTEGER,
    approved_by TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (server, name)
);

-- A tool call's start, committed before the call: an attempt that finds
-- its key here unfinished knows the previous one was interrupted during
-- the call, with its effect unknown.
CREATE TABLE mcp_calls (
    key         TEXT PRIMARY KEY,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER
);
