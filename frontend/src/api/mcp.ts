// Other MCP servers whose tools are actions, mcp.<server>.<tool>
// (docs/mcp.md, docs/api.md "MCP servers"): a mirror of
// app/apitype/mcp.go.

import type { Api } from './client';

/** One line of a side-by-side diff of a tool's approved and listed
 * definitions. */
export interface MCPDiffRow {
  op: 'same' | 'changed' | 'removed' | 'added' | string;
  old?: string;
  new?: string;
}

/** A tool with its state: unchanged (runs), changed or new (blocked until
 * approved), removed (cannot run). */
export interface MCPTool {
  name: string;
  action: string;
  status: 'unchanged' | 'tightened' | 'changed' | 'new' | 'removed' | string;
  risk: string;
  /** What its action resolves to globally, and from where (blocked first). */
  mode: string;
  mode_source: string;
  /** Why it cannot run; absent when it can. */
  blocked?: string;
  description?: string;
  pinned_hash?: string;
  seen_hash?: string;
  pinned?: unknown;
  seen?: unknown;
  diff?: MCPDiffRow[];
  approved_at?: string;
  approved_by?: string;
}

export interface MCPServer {
  name: string;
  transport: 'stdio' | 'http' | string;
  command?: string[];
  url?: string;
  /** Variable or header → the NAME of a secret (never a value). */
  env?: Record<string, string>;
  headers?: Record<string, string>;
  token_secret?: string;
  trusted: boolean;
  pinned_set?: string;
  seen_set?: string;
  seen_at?: string;
  last_error?: string;
  /** Tools waiting for review (changed or new). */
  drifted: number;
  tools: MCPTool[];
  created_at: string;
  updated_at: string;
}

export interface AddMCPServer {
  name: string;
  command?: string[];
  url?: string;
  env?: Record<string, string>;
  headers?: Record<string, string>;
  token_secret?: string;
  trusted?: boolean;
}

export interface MCPApproved {
  approved: string[];
  server: MCPServer;
}

const path = (name: string) => `/mcp/servers/${encodeURIComponent(name)}`;

/** The MCP servers' endpoints, over the app's Api. */
export function mcpApi(api: Api) {
  return {
    list: () => api.request<MCPServer[]>('GET', '/mcp/servers'),
    add: (s: AddMCPServer) => api.request<MCPServer>('POST', '/mcp/servers', s),
    remove: (name: string) => api.request<void>('DELETE', path(name)),
    refresh: (name: string) => api.request<MCPServer>('POST', `${path(name)}/refresh`, {}),
    /** One tool, or every tool waiting for review (tool ''). */
    approve: (name: string, tool = '') => api.request<MCPApproved>('POST', `${path(name)}/approve`, tool ? { tool } : {}),
    trust: (name: string, trusted: boolean) => api.request<MCPServer>('POST', `${path(name)}/trust`, { trusted }),
  };
}

/** Splits a command line typed in one field into its words: spaces
 * separate them, and "double" or 'single' quotes keep spaces in one. */
export function splitCommand(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote = '';
  let has = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = '';
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += ch;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}
