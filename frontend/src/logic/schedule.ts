// A scout's schedule in words, for its card: pure, for the UI and tests.

import type { Scout } from '../api/types';

const OVERLAP: Record<string, string> = {
  skip: 'a trigger during a run is skipped',
  'queue-one': '',
  allow: 'runs may overlap',
};

/** "Runs 0 9 * * 1-5 (Europe/Paris) · a trigger during a run is skipped",
 * or '' for a scout on the defaults. */
export function scheduleText(sc: Scout): string {
  const s = sc.schedule;
  if (!s) return '';
  const parts: string[] = [];
  if (s.cron) parts.push(`Runs ${s.cron}` + (s.time_zone ? ` (${s.time_zone})` : ''));
  const o = OVERLAP[s.overlap ?? ''];
  if (o) parts.push(o);
  if (s.cron && s.catch_up === 'skip') parts.push('a run missed while off is skipped');
  return parts.join(' · ');
}

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** When a scheduled run comes: "in 5 min", "in 22 h", then its day and
 * time ("Thu 24 Dec, 10:00"); "now" once it is due. */
export function nextRunText(iso: string | undefined, now: number): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const d = t - now;
  if (d <= 0) return 'now';
  if (d < MIN) return 'in under a minute';
  if (d < HOUR) return `in ${Math.ceil(d / MIN)} min`;
  if (d < DAY) return `in ${Math.floor(d / HOUR)} h`;
  return new Date(t).toLocaleString(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });
}
