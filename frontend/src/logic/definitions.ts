// Words for a scout's definition history and drafts: who made a version,
// what a change was, how risky a draft is.

import type { Draft, FieldChange, ScoutVersion } from '../api/definitions';

/** The definitions file named by the agent's refusal of a change to a
 * scout that file manages (409: "managed by NAME — edit the file …"), or
 * undefined for any other error. */
export function managedFile(err: { code: string; message: string }): string | undefined {
  if (err.code !== 'conflict') return undefined;
  return /^managed by (.+?) — /i.exec(err.message)?.[1];
}

/** Who made a version, in words ("the window", "the file scans.yaml"). */
export function actorText(actor: string): string {
  if (actor.startsWith('file:')) return `the file ${actor.slice(5)}`;
  switch (actor) {
    case 'window':
      return 'the window';
    case 'browser':
      return 'the window (in a browser)';
    case 'cli':
      return 'the command line';
    case 'tray':
      return 'the tray';
    case 'api':
      return 'the API';
    case 'export':
      return 'an export';
    case 'agent':
      return 'the agent';
  }
  return actor || 'someone';
}

/** What a version was: "Rolled back to version 1", "Created", "Rule “x” added". */
export function versionWhat(v: ScoutVersion): string {
  const note = (v.note ?? '').trim();
  const rb = /^rollback to version (\d+)$/.exec(note);
  if (rb) return `Rolled back to version ${rb[1]}`;
  if (note === 'created') return 'Created';
  if (note === 'import') return 'Imported';
  if (note === 'changed outside a definition') return 'Changed (recorded later)';
  if (note) return note[0]!.toUpperCase() + note.slice(1).replace(/"([^"]*)"/g, '“$1”');
  if (v.actor.startsWith('file:')) return v.version === 1 ? 'Created' : 'Its file changed';
  return v.version === 1 ? 'Created' : 'Changed';
}

/** A JSON pointer as words: "/source/include/0" → "source › include › 1". */
export function pathText(path: string): string {
  const parts = path
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? String(Number(p) + 1) : p.replace(/_/g, ' ')));
  return parts.length ? parts.join(' › ') : '(the whole definition)';
}

/** A change as a sentence: added, removed, or from → to. */
export function changeText(c: FieldChange): { path: string; kind: 'added' | 'removed' | 'changed'; text: string } {
  const path = pathText(c.path);
  if (c.from === undefined) return { path, kind: 'added', text: `${path}: added ${c.to}` };
  if (c.to === undefined) return { path, kind: 'removed', text: `${path}: removed (was ${c.from})` };
  return { path, kind: 'changed', text: `${path}: ${c.from} → ${c.to}` };
}

/** The version the History view compares a version with: the one before it. */
export function previousVersion(versions: readonly ScoutVersion[], v: number): number | undefined {
  const older = versions.filter((x) => x.version < v).map((x) => x.version);
  return older.length ? Math.max(...older) : undefined;
}

/** A draft's document as text to edit: pretty JSON (or as the model wrote
 * it, when it is not JSON). */
export function definitionText(def: unknown): string {
  if (typeof def === 'string') return def;
  if (def === undefined || def === null) return '';
  return JSON.stringify(def, null, 2);
}

/** Reads the edited text back: the document, or why it is not JSON, with
 * its line. */
export function parseDefinitionText(text: string): { doc: unknown } | { error: string } {
  if (!text.trim()) return { error: 'The definition is empty.' };
  try {
    return { doc: JSON.parse(text) };
  } catch (e) {
    // Engines differ: some name the position, some only the token.
    const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0]!.replace(/, ".*$/, '');
    const pos = /position (\d+)/.exec(msg);
    if (pos) {
      const line = text.slice(0, Number(pos[1])).split('\n').length;
      return { error: `Line ${line}: this is not valid JSON (${msg}).` };
    }
    return { error: `This is not valid JSON (${msg}).` };
  }
}

/** The risk flags' short names, for their badges. */
export const RISK_LABEL: Record<string, string> = {
  auto_create: 'Auto-create',
  runs_without_approval: 'Runs without approval',
  danger_action: 'Dangerous action',
  broad_folder: 'Broad folder',
  broad_glob: 'Broad pattern',
  missing_secret: 'Missing secret',
  missing_folder: 'Missing folder',
  wider_write_scope: 'Wider write scope',
  templated_host: 'Host from the item',
};

export function riskLabel(code: string): string {
  return RISK_LABEL[code] ?? code.replace(/_/g, ' ');
}

/** What a valid draft's check says: the agent refuses a folder that is not there yet. */
export function validityText(d: Pick<Draft, 'risks'>): string {
  if ((d.risks ?? []).some((r) => r.code === 'missing_folder')) {
    return 'Valid, but its folder does not exist yet: make it, then create the scout.';
  }
  return 'Valid: the agent can create this scout.';
}
