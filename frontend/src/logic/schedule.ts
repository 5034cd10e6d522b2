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
