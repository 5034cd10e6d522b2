// Scouts as definitions (docs/definitions.md): a scout's versions, the
// diff between two, rollback, the definitions folder's status, and
// drafting a scout from a description. A mirror of app/apitype/definitions.go
// and of the draft's shape in app/core/draft.go.

import type { Api } from './client';

/** One version of a scout's definition, newest first in a history. */
export interface ScoutVersion {
  version: number;
  created_at: string;
  /** window, browser, cli, tray, api, file:NAME, export or agent. */
  actor: string;
  /** created, import, "rollback to version 2", `rule "x" added`, … */
  note?: string;
  document: Record<string, unknown>;
}

/** One leaf that differs: a JSON pointer and its values as JSON text
 * (absent: the leaf did not exist on that side). */
export interface FieldChange {
  path: string;
  from?: string;
  to?: string;
}

export interface VersionDiff {
  from: number;
  to: number;
  changes: FieldChange[];
}

export interface DefinitionChange {
  action: 'create' | 'update' | 'unchanged' | string;
  scout_id?: string;
  name: string;
  kind: string;
  changes?: FieldChange[];
  version?: number;
  /** A new webhook scout's token, shown once. */
  hook_token?: string;
}

export interface ImportResult {
  applied: boolean;
  changes: DefinitionChange[];
}

export interface DefinitionError {
  file?: string;
  line?: number;
  reason: string;
}

export interface DefinitionsStatus {
  dir: string;
  /** Scout id → "file:NAME". */
  managed_by: Record<string, string>;
  definition_errors: DefinitionError[];
  /** A model is configured to draft definitions from a description. */
  drafting?: boolean;
}

export type RiskCode =
  | 'auto_create'
  | 'runs_without_approval'
  | 'danger_action'
  | 'broad_folder'
  | 'broad_glob'
  | 'missing_secret'
  | 'missing_folder';

export interface Risk {
  code: RiskCode | string;
  message: string;
}

/** A drafted (or template, or checked) definition and what it would do. */
export interface Draft {
  /** A template's title. */
  title?: string;
  /** The document as drafted, valid or not (a string when it was not JSON). */
  definition?: unknown;
  valid: boolean;
  errors?: DefinitionError[];
  summary?: string[];
  risks?: Risk[];
  /** Model tokens the draft cost (counted against the day's budget). */
  tokens?: number;
}

/** One line of a definition's line diff. */
export interface DiffLine {
  op: 'same' | 'add' | 'remove';
  text: string;
}

/** A change to a scout proposed from plain words (POST /scouts/{id}/edit-draft):
 * the proposed definition checked like a new draft, its diff against the
 * current one and the risks it adds. Nothing is saved until saveEdit. */
export interface EditDraft {
  scout_id: string;
  describe: string;
  /** The version the change was made from: saving is refused once another is current. */
  base_version: number;
  current: unknown;
  proposed: unknown;
  valid: boolean;
  errors?: DefinitionError[];
  summary?: string[];
  risks?: Risk[];
  risks_added: Risk[];
  diff: DiffLine[];
  tokens?: number;
}

const enc = encodeURIComponent;

/** The definitions endpoints, over the app's Api. */
export function definitionsApi(api: Api) {
  return {
    versions: (id: string) => api.request<ScoutVersion[]>('GET', `/scouts/${enc(id)}/versions`),
    diff: (id: string, from: number, to: number) =>
      api.request<VersionDiff>('GET', `/scouts/${enc(id)}/versions/diff?from=${from}&to=${to}`),
    rollback: (id: string, version: number) =>
      api.request<DefinitionChange>('POST', `/scouts/${enc(id)}/versions/${version}/rollback`, {}),
    status: () => api.request<DefinitionsStatus>('GET', '/definitions/status'),
    templates: () => api.request<Draft[]>('GET', '/definitions/templates'),
    draft: (description: string) => api.request<Draft>('POST', '/definitions/draft', { description }),
    check: (doc: unknown) => api.request<Draft>('POST', '/definitions/check', doc),
    editDraft: (id: string, describe: string) => api.request<EditDraft>('POST', `/scouts/${enc(id)}/edit-draft`, { describe }),
    saveEdit: (d: EditDraft) =>
      api.request<DefinitionChange>('POST', `/scouts/${enc(d.scout_id)}/edit-draft/save`, {
        base_version: d.base_version,
        definition: d.proposed,
        describe: d.describe,
      }),
    importDefinition: (doc: unknown, apply: boolean) =>
      api.request<ImportResult>('POST', '/definitions/import' + (apply ? '?apply=true' : ''), doc),
  };
}
