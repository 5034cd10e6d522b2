// The scouts at a glance, for Status: counted by health, not by what runs
// on this machine (a webhook scout runs nothing here, the relay receives
// for it, and "3 of 4 scouts running" read as if one were broken).

import type { HealthState, Scout } from '../api/types';
import { plural } from './format';

const ORDER: HealthState[] = ['ok', 'error', 'starting', 'disabled'];
const WORD: Record<HealthState, string> = { ok: 'ok', error: 'failing', starting: 'not run yet', disabled: 'switched off' };

/** "4 scouts, all ok", "3 scouts: 2 ok, 1 failing", "No scouts yet". */
export function scoutsHealth(scouts: readonly Scout[]): string {
  if (scouts.length === 0) return 'No scouts yet.';
  const n = new Map<string, number>();
  for (const sc of scouts) n.set(sc.health.state, (n.get(sc.health.state) ?? 0) + 1);
  const all = plural(scouts.length, 'scout');
  if (n.get('ok') === scouts.length) return `${all}, all ok.`;
  const states = [...ORDER, ...[...n.keys()].filter((s) => !ORDER.includes(s as HealthState))];
  const parts = states.filter((s) => n.has(s)).map((s) => `${n.get(s)} ${WORD[s as HealthState] ?? s}`);
  return `${all}: ${parts.join(', ')}.`;
}
