// Small formatting helpers: ages, dates, paths.

import type { EntityKind } from '../api/types';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then the
 * date. */
export function age(iso: string | undefined, now: number): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const d = now - t;
  if (d < MIN) return 'just now';
  if (d < HOUR) return `${Math.floor(d / MIN)} min ago`;
  if (d < DAY) return `${Math.floor(d / HOUR)} h ago`;
  if (d < 2 * DAY) return 'yesterday';
  if (d < 7 * DAY) return `${Math.floor(d / DAY)} days ago`;
  return new Date(t).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
}

/** Full local date and time, for title attributes. */
export function fullTime(iso: string | undefined): string {
  if (!iso) return '';
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? '' : t.toLocaleString();
}

/** A due date as the person set it (a local day). */
export function day(iso: string | undefined): string {
  if (!iso) return '';
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return '';
  return t.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
}

export function dateTime(iso: string | undefined): string {
  if (!iso) return '';
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return '';
  return t.toLocaleString(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An RFC 3339 time as the value of <input type="date">, in local time. */
export function toDateInput(iso: string | undefined): string {
  if (!iso) return '';
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return '';
  return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}`;
}

/** An RFC 3339 time as the value of <input type="datetime-local">. */
export function toDateTimeInput(iso: string | undefined): string {
  if (!iso) return '';
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return '';
  return `${toDateInput(iso)}T${pad(t.getHours())}:${pad(t.getMinutes())}`;
}

/** <input type="datetime-local"> (local time) to RFC 3339; "" stays "". */
export function fromDateTimeInput(v: string): string {
  if (!v) return '';
  const t = new Date(v);
  return Number.isNaN(t.getTime()) ? v : t.toISOString();
}

/** /home/ann/Scouts/Inbox → ~/Scouts/Inbox when home is known. */
export function tildePath(p: string | undefined, home: string | undefined): string {
  if (!p) return '';
  if (home && home !== '/' && (p === home || p.startsWith(home + '/'))) return '~' + p.slice(home.length);
  return p;
}

/** Every path under home in a text (a reason, an audit summary) as ~/…. */
export function tildeText(s: string, home: string | undefined): string {
  if (!home || home === '/') return s;
  return s.split(home + '/').join('~/');
}

export function plural(n: number, one: string, many = one + 's'): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A word after its indefinite article: "a task", "an event". */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}

export const KIND_LABEL: Record<EntityKind, string> = {
  task: 'Task',
  note: 'Note',
  event: 'Event',
  project: 'Project',
};

/** A one-line preview of a body: its first line that says more than the
 * title does (a Markdown heading repeating the title is skipped), cut to n
 * characters. */
export function preview(body: string, title = '', n = 140): string {
  const same = (l: string) => l.replace(/^#+\s*/, '').trim() === title.trim();
  const line =
    body
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '' && !same(l)) ?? '';
  return line.length > n ? line.slice(0, n - 1) + '…' : line;
}
