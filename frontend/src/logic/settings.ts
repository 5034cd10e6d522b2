// The settings' rules, without the DOM: quiet hours as the agent reads them
// (local HH:MM, a start after the end spans midnight) and the optimistic
// overlay of changes on their way to the agent.

import type { ApiError } from '../api/errors';
import type { QuietHours, Settings } from '../api/types';

/** What a new "quiet hours" checkbox proposes. */
export const DEFAULT_QUIET: QuietHours = { start: '22:00', end: '07:00' };

/** A time of day as HH:MM (24-hour), or undefined when it is not one. Takes
 * what time inputs give (22:00, 22:00:00) and what people type (7:05). */
export function parseTime(v: string): string | undefined {
  const m = /^(\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?$/.exec(v.trim());
  if (!m) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 23 || min > 59) return undefined;
  return `${String(h).padStart(2, '0')}:${m[2]}`;
}

export interface QuietProblems {
  start?: string;
  end?: string;
  /** About the pair, not one field. */
  both?: string;
}

function timeProblem(v: string): string | undefined {
  if (parseTime(v)) return undefined;
  if (!v.trim()) return 'Enter a time, like 22:00.';
  return `“${v.trim()}” is not a time of day: use HH:MM, 24-hour, like 07:30.`;
}

/** What is wrong with a start and an end; empty when they can be saved. */
export function quietProblems(start: string, end: string): QuietProblems {
  const p: QuietProblems = {};
  const s = timeProblem(start);
  const e = timeProblem(end);
  if (s) p.start = s;
  if (e) p.end = e;
  if (!s && !e && parseTime(start) === parseTime(end)) {
    p.both = 'The start and the end are the same time: that is no quiet hours at all. Pick two different times.';
  }
  return p;
}

export const hasProblems = (p: QuietProblems) => !!(p.start || p.end || p.both);

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** True when the quiet hours run past midnight (22:00 to 07:00). */
export function spansMidnight(q: QuietHours): boolean {
  return minutes(q.start) > minutes(q.end);
}

/** The quiet hours in words, for the help text. */
export function describeQuiet(q: QuietHours): string {
  return spansMidnight(q)
    ? `No notifications from ${q.start} until ${q.end} the next morning.`
    : `No notifications from ${q.start} until ${q.end} the same day.`;
}

/** The settings with a change applied; quiet_hours: undefined removes them. */
export function withPatch(s: Settings, patch: Partial<Settings>): Settings {
  const next: Settings = { ...s, ...patch };
  if (next.quiet_hours === undefined) delete next.quiet_hours;
  return next;
}

/** What a person sees: the agent's settings with the changes still on their
 * way to it on top, oldest first. */
export function shown(s: Settings, pending: readonly Partial<Settings>[]): Settings {
  return pending.reduce(withPatch, s);
}

export type Field = 'autostart' | 'notifications' | 'quiet_hours';

/** Why a change was not saved and what to do, in the words of the setting. */
export function explain(field: Field, patch: Partial<Settings>, err: ApiError): string {
  if (field === 'autostart' && err.code === 'unavailable') {
    // The agent's reason names the path and the system's error.
    const why = err.message.replace(/^(autostart:\s*)+/i, '');
    const verb = patch.autostart ? 'add Scouts to' : 'remove Scouts from';
    return (
      `Could not ${verb} the programs that start at login: ${why} ` +
      'Check that the autostart folder (~/.config/autostart on Linux) is a folder you can write to, then try again.'
    );
  }
  return `Not saved. ${err.full}`;
}
