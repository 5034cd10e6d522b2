// Search in the window: what the agent found, grouped by type for the
// results panel, the words that matched marked, and the panel's keys. No
// DOM here, so it is tested in isolation.

import type { SearchHit } from '../api/search';
import { href } from './router';

export interface HitGroup {
  /** "Cards · Inbox", "Tasks", … */
  label: string;
  hits: SearchHit[];
}

const laneLabel: Record<string, string> = {
  inbox: 'Inbox',
  screened: 'Screened',
  spam: 'Spam',
  snoozed: 'Snoozed',
};

const statusLabel: Record<string, string> = {
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
};

const entityGroups: ReadonlyArray<[string, string]> = [
  ['task', 'Tasks'],
  ['note', 'Notes'],
  ['event', 'Events'],
  ['project', 'Projects'],
];

/** Where a card belongs: a pending card by its lane, a decided one by what
 * was decided (its lane no longer says anything). */
export function cardGroup(h: SearchHit): string {
  if (!h.status || h.status === 'pending') return 'Cards · ' + (laneLabel[h.lane ?? 'inbox'] ?? h.lane ?? 'Inbox');
  return 'Cards · ' + (statusLabel[h.status] ?? h.status);
}

/** Groups hits by type: cards first (by lane, then by status), then tasks,
 * notes, events, projects. Within a group the agent's order (best first)
 * stays; groups come in the order of their best hit among cards, and in a
 * fixed order among entities. */
export function groupHits(hits: ReadonlyArray<SearchHit>): HitGroup[] {
  const cards = new Map<string, SearchHit[]>();
  for (const h of hits) {
    if (h.type !== 'card') continue;
    const g = cardGroup(h);
    const list = cards.get(g);
    if (list) list.push(h);
    else cards.set(g, [h]);
  }
  const out: HitGroup[] = [...cards].map(([label, hs]) => ({ label, hits: hs }));
  for (const [type, label] of entityGroups) {
    const hs = hits.filter((h) => h.type === type);
    if (hs.length) out.push({ label, hits: hs });
  }
  return out;
}

/** The hits in the order the panel shows them: what ↓ and ↑ walk through. */
export function flatten(groups: ReadonlyArray<HitGroup>): SearchHit[] {
  return groups.flatMap((g) => g.hits);
}

/** Where Enter on a hit goes: a card's page, or the entity in its list. */
export function hitHref(h: SearchHit): string {
  switch (h.type) {
    case 'task':
      return href({ view: 'tasks', id: h.id });
    case 'note':
      return href({ view: 'notes', id: h.id });
    case 'event':
      return href({ view: 'events', id: h.id });
    case 'project':
      return href({ view: 'projects', id: h.id });
  }
  return href({ view: 'suggestion', id: h.id });
}

/** The words of a query that text can match (as the agent does: a prefix
 * of a word, any case): filters (key:value) and left-out words (-word)
 * are not shown as matches. A quoted phrase is one term. */
export function queryTerms(q: string): string[] {
  const out: string[] = [];
  const re = /(-?)(?:"([^"]*)"?|(\S+))/g;
  for (let m = re.exec(q); m; m = re.exec(q)) {
    if (m[1]) continue;
    const phrase = m[2];
    if (phrase !== undefined) {
      if (phrase.trim()) out.push(phrase.trim().toLowerCase());
      continue;
    }
    const w = m[3]!;
    if (/^[a-z]+:./i.test(w)) continue;
    const t = w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').toLowerCase();
    if (t) out.push(t);
  }
  return out;
}

/** The filters of a query (from:ana, lane:inbox), as typed. */
export function queryFilters(q: string): string[] {
  return (q.match(/(?:^|\s)-?[a-z]+:(?:"[^"]*"?|\S+)/gi) ?? []).map((f) => f.trim());
}

export interface Segment {
  text: string;
  match: boolean;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Splits text into runs, marking where a term begins a word. */
export function highlight(text: string, terms: ReadonlyArray<string>): Segment[] {
  if (!text || terms.length === 0) return text ? [{ text, match: false }] : [];
  const sorted = [...terms].sort((a, b) => b.length - a.length).map(escapeRe);
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${sorted.join('|')})`, 'giu');
  const out: Segment[] = [];
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] === '') {
      re.lastIndex++;
      continue;
    }
    if (m.index > last) out.push({ text: text.slice(last, m.index), match: false });
    out.push({ text: m[0], match: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), match: false });
  return out;
}

/** Which of a hit's fields hold a term: "title", "sender", "text". Empty
 * when only filters matched (or the index matched a form the window does
 * not see, such as an accent). */
export function matchedFields(h: SearchHit, terms: ReadonlyArray<string>): string[] {
  const has = (s?: string) => !!s && highlight(s, terms).some((x) => x.match);
  const out: string[] = [];
  if (has(h.title)) out.push('title');
  if (has(h.sender)) out.push('sender');
  if (has(h.snippet)) out.push('text');
  return out;
}

export type SearchKey = 'next' | 'prev' | 'open' | 'close' | 'input';

/** A key in the search panel. In the box, letters are the query: only the
 * arrows, Enter and Esc act. On a result, j/k move too, and / goes back to
 * the box. */
export function searchKey(key: string, inBox: boolean): SearchKey | undefined {
  switch (key) {
    case 'ArrowDown':
      return 'next';
    case 'ArrowUp':
      return 'prev';
    case 'Enter':
      return 'open';
    case 'Escape':
      return 'close';
  }
  if (inBox) return undefined;
  switch (key) {
    case 'j':
      return 'next';
    case 'k':
      return 'prev';
    case '/':
      return 'input';
  }
  return undefined;
}

/** The next active hit: -1 is the box itself; ↓ stops at the last hit, ↑
 * from the first goes back to the box. */
export function move(active: number, count: number, dir: 'next' | 'prev'): number {
  if (count === 0) return -1;
  if (dir === 'next') return Math.min(active + 1, count - 1);
  return Math.max(active - 1, -1);
}

/** How long typing must pause before the window asks the agent. */
export const SEARCH_DEBOUNCE_MS = 150;

/** The agent's message about a query, with what the person typed as they
 * typed it: the client makes server messages sentences (a capital first),
 * which would turn "lane:archive is not a lane" into "Lane:archive …". */
export function searchProblem(message: string, query: string): string {
  for (const word of query.trim().split(/\s+/)) {
    if (!word) continue;
    const capital = word[0]!.toUpperCase() + word.slice(1);
    if (capital !== word && message.startsWith(capital)) return word + message.slice(capital.length);
  }
  return message;
}
