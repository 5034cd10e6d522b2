// Words for a scout's runs: "09:00 — scheduled — 3 new of 5 — version 4".

import type { ScoutRunEntry } from '../api/runs';
import { plural } from './format';

/** What started a run, in words. */
export function triggerText(trigger: string): string {
  switch (trigger) {
    case 'start':
      return 'when the scout started';
    case 'schedule':
      return 'on its schedule';
    case 'catch-up':
      return 'catching up a missed scheduled run';
    case 'manual':
      return 'asked for by hand';
    case 'resume':
      return 'when the scouts were resumed';
    case 'source':
      return 'when its source changed';
    case 'poll':
      return 'on the poll interval';
  }
  return trigger || 'for an unknown reason';
}

/** The local time of a run: "09:00" today, "Mon 3 Nov, 09:00" before. */
export function runTime(iso: string, now: number): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return '';
  const time = t.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  if (t.toDateString() === new Date(now).toDateString()) return time;
  return `${t.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' })}, ${time}`;
}

/** What a run did: "3 new items (of 5 seen)", "nothing new", "failed: …". */
export function runResult(r: ScoutRunEntry): string {
  switch (r.outcome) {
    case 'failed':
      return `failed: ${r.error || 'no reason given'}`;
    case 'skipped':
      return `skipped${r.note ? `: ${r.note}` : ''}`;
    case 'stopped':
      return 'stopped before it finished (nothing was lost)';
    case 'running':
      return 'running…';
    case 'interrupted':
      return `cut short: ${r.note || 'the agent stopped before the run ended'}`;
  }
  if (r.items_new === 0) return r.items_seen > 0 ? `nothing new (${plural(r.items_seen, 'item')} seen)` : 'nothing new';
  const n = plural(r.items_new, 'new item');
  return r.items_seen > r.items_new ? `${n} (of ${r.items_seen} seen)` : n;
}

/** The model tokens a run spent, or '' when unknown or none. */
export function runTokens(r: ScoutRunEntry): string {
  return r.model_tokens ? plural(r.model_tokens, 'model token') : '';
}
