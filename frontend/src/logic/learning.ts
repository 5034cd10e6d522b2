// A scout's learner thresholds and gates as a form: probabilities shown as whole
// percentages, checked against the agent's ranges before asking it.

import type { LearnSettings } from '../api/types';

export interface LearnForm {
  cold_start: string;
  /** Percent, 0–50. */
  screen_below: string;
  /** Percent, 50–100. */
  spam_above: string;
  /** Days, 0 (off) to 365. */
  silence_days?: string;
  /** The gates (docs/actions.md), each absent from an agent before them.
   * Minutes (decimals allowed), 1 s to a week. */
  cooldown_minutes?: string;
  /** Posts, 1 to 10000. */
  notify_per_hour?: string;
  /** HH:MM, both or neither ("": none). */
  quiet_start?: string;
  quiet_end?: string;
}

const pct = (p: number) => String(Math.round(p * 1000) / 10);

export function settingsForm(s: LearnSettings): LearnForm {
  return {
    cold_start: String(s.cold_start),
    screen_below: pct(s.screen_below),
    spam_above: pct(s.spam_above),
    ...(s.silence_days !== undefined ? { silence_days: String(s.silence_days) } : {}),
    ...(s.cooldown_seconds !== undefined ? { cooldown_minutes: String(Math.round((s.cooldown_seconds / 60) * 100) / 100) } : {}),
    ...(s.notify_per_hour !== undefined ? { notify_per_hour: String(s.notify_per_hour) } : {}),
    ...(s.quiet_start !== undefined && s.quiet_end !== undefined ? { quiet_start: s.quiet_start, quiet_end: s.quiet_end } : {}),
  };
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** The gates the form says, each left out when the form does not show it
 * (the agent then keeps the scout's value), or what is wrong. */
function gatesFromForm(f: LearnForm, num: (v: string) => number): Partial<LearnSettings> | string {
  const out: Partial<LearnSettings> = {};
  if (f.cooldown_minutes !== undefined) {
    const secs = Math.round(num(f.cooldown_minutes) * 60);
    if (!Number.isFinite(secs) || secs < 1 || secs > 7 * 24 * 3600)
      return 'Cooldown: minutes, from 0.02 (1 second) to 10080 (a week).';
    out.cooldown_seconds = secs;
  }
  if (f.notify_per_hour !== undefined) {
    const n = num(f.notify_per_hour);
    if (!Number.isInteger(n) || n < 1 || n > 10000) return 'Posts an hour: a whole number from 1 to 10000.';
    out.notify_per_hour = n;
  }
  if (f.quiet_start !== undefined || f.quiet_end !== undefined) {
    const from = (f.quiet_start ?? '').trim();
    const to = (f.quiet_end ?? '').trim();
    if ((from === '') !== (to === '')) return 'Quiet hours: give both times, from and to, or neither.';
    if ((from && !HHMM.test(from)) || (to && !HHMM.test(to))) return 'Quiet hours: times of day as HH:MM (22:00).';
    if (from && from === to) return 'Quiet hours: from and to must differ.';
    out.quiet_start = from;
    out.quiet_end = to;
  }
  return out;
}

/** The settings the form says (fields it does not show kept from cur), or
 * what is wrong, in words. */
export function settingsFromForm(f: LearnForm, cur: LearnSettings): LearnSettings | string {
  const num = (v: string) => (v.trim() === '' ? NaN : Number(v));
  const cold = num(f.cold_start);
  const screen = num(f.screen_below);
  const spam = num(f.spam_above);
  if (!Number.isInteger(cold) || cold < 0 || cold > 100000) return 'Learn from: a whole number of decisions, 0 to 100000.';
  if (!Number.isFinite(screen) || screen < 0 || screen > 50)
    return 'Screen below: a percentage from 0 to 50 (0 screens nothing).';
  if (!Number.isFinite(spam) || spam < 50 || spam > 100) return 'Spam above: a percentage from 50 to 100.';
  // A form from before the field existed leaves the scout's value alone.
  const silence = f.silence_days === undefined ? cur.silence_days : num(f.silence_days);
  if (silence !== undefined && (!Number.isInteger(silence) || silence < 0 || silence > 365))
    return 'Silence teaches after: a whole number of days, 0 (off) to 365.';
  const gates = gatesFromForm(f, num);
  if (typeof gates === 'string') return gates;
  return {
    ...cur,
    ...gates,
    ...(silence !== undefined ? { silence_days: silence } : {}),
    cold_start: cold,
    screen_below: Math.round(screen * 10) / 1000,
    spam_above: Math.round(spam * 10) / 1000,
  };
}
