// What the empty inbox says to do next: only what would make a card.

import type { Scout } from '../api/types';
import { tildePath } from './format';

/** A folder where dropping a file makes a card, and which files do. */
export interface DropPlace {
  path: string;
  /** "a file", or "a file matching *.pdf" when the scout only takes some. */
  files: string;
}

/** The folders where a dropped file becomes a card: enabled folder scouts
 * in review mode (an auto-create scout makes the entity without a card),
 * those that take any file first, at most three. A scout with include
 * patterns is named with them: an ordinary file dropped there makes no
 * card. */
export function dropPlaces(scouts: readonly Scout[], home?: string): DropPlace[] {
  return scouts
    .filter((sc) => sc.enabled && sc.review && sc.kind === 'folder' && sc.path)
    .map((sc) => ({ sc, some: (sc.include ?? []).length > 0 }))
    .sort((a, b) => Number(a.some) - Number(b.some))
    .slice(0, 3)
    .map(({ sc, some }) => ({
      path: tildePath(sc.path, home),
      files: some ? `a file matching ${(sc.include ?? []).join(' or ')}` : 'a file',
    }));
}

/** The folders of enabled auto-create scouts: a file dropped there becomes
 * an entity at once, without a card. */
export function autoFolders(scouts: readonly Scout[], home?: string): string[] {
  return scouts
    .filter((sc) => sc.enabled && !sc.review && sc.kind === 'folder' && sc.path)
    .map((sc) => tildePath(sc.path, home));
}
