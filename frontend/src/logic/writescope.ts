// A scout's write scope in words: what each of its actions may touch,
// beside the actions its rules propose (docs/definitions.md, "Write
// scope").

import type { ScopeInEffect, ScopeList } from '../api/types';

export interface ScopeLine {
  /** What the list bounds: "Moves files into", "Adds the labels", "Posts to". */
  what: string;
  /** The list's globs, or "nothing". */
  globs: string;
  /** Whether it is the scout's own list or the default. */
  source: string;
}

function line(what: string, l: ScopeList, def: string): ScopeLine {
  const globs = l.globs ?? [];
  return {
    what,
    globs: globs.length ? globs.join(', ') : 'nothing',
    source: l.default ? def : 'set in its definition',
  };
}

/** The lines of a scout's scope that its kind's actions use: a folder
 * scout moves files, a Gmail scout adds labels, any scout posts to
 * webhooks. */
export function scopeLines(kind: string, w: ScopeInEffect | undefined): ScopeLine[] {
  if (!w) return [];
  const out: ScopeLine[] = [];
  if (kind === 'folder') out.push(line('Moves files into', w.folders, 'the default for a folder scout'));
  if (kind === 'gmail') out.push(line('Adds the labels', w.labels, 'the default, with your label for Gmail cards'));
  out.push(line('Posts to', w.hosts, 'the default: this computer only'));
  return out;
}
