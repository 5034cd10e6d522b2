// A scout's learner thresholds as a form: probabilities shown as whole
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
}

const pct = (p: number) => String(Math.round(p * 1000) / 10);

export function settingsForm(s: LearnSettings): LearnForm {
  return {
    cold_start: String(s.cold_start),
    screen_below: pct(s.screen_below),
    spam_above: pct(s.spam_above),
    ...(s.silence_days !== undefined ? { silence_days: String(s.silence_days) } : {}),
  };
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
  return {
    ...cur,
    ...(silence !== undefined ? { silence_days: silence } : {}),
    cold_start: cold,
    screen_below: Math.round(screen * 10) / 1000,
    spam_above: Math.round(spam * 10) / 1000,
  };
}
