// The scouts at a glance, for Status: counted by health, not by what runs
// on this machine (a webhook scout runs nothing here, the relay receives
// for it, and "3 of 4 scouts running" read as if one were broken).

import type { HealthState, Scout } from '../api/types';
import { age, plural } from './format';

const ORDER: HealthState[] = ['ok', 'error', 'starting', 'disabled'];
const WORD: Record<HealthState, string> = { ok: 'ok', error: 'failing', starting: 'not run yet', disabled: 'switched off' };

/** "4 scouts, all ok", "3 scouts: 2 ok, 1 failing", "No scouts yet". */
export function scoutsHealth(scouts: readonly Scout[]): string {
  if (scouts.length === 0) return 'No scouts yet.';
  const n = new Map<string, number>();
  for (const sc of scouts) n.set(scoutState(sc), (n.get(scoutState(sc)) ?? 0) + 1);
  const all = plural(scouts.length, 'scout');
  if (n.get('ok') === scouts.length) return `${all}, all ok.`;
  const states = [...ORDER, ...[...n.keys()].filter((s) => !ORDER.includes(s as HealthState))];
  const parts = states.filter((s) => n.has(s)).map((s) => `${n.get(s)} ${WORD[s as HealthState] ?? s}`);
  return `${all}: ${parts.join(', ')}.`;
}

/** A scout's health as the window shows it. A chain scout runs nothing of
 * its own — it makes items when the scout it follows has its event — so
 * the agent's "starting" (no run yet) would stay for ever: on and not
 * failing, it is working. */
export function scoutState(sc: Scout): HealthState {
  if (sc.kind === 'chain' && sc.health.state === 'starting') return 'ok';
  return sc.health.state;
}

/** What a chain scout does and its latest activity, in place of a run's
 * ("Runs on card.approved of Invoices · last item 3 min ago"); undefined
 * for other kinds. lastItemAt: when its newest card arrived. */
export function chainActivity(sc: Scout, scouts: readonly Scout[], lastItemAt: string | undefined, now: number): string | undefined {
  if (sc.kind !== 'chain') return undefined;
  const on = (sc.config?.['on'] ?? {}) as { scout?: string; event?: string };
  // on.scout is an id, or a name when one scout has it (docs/definitions.md).
  const ref = on.scout ?? '';
  const followed = scouts.find((x) => x.id === ref) ?? scouts.find((x) => x.name === ref);
  const what = `Runs on ${on.event || 'an event'} of ${followed?.name ?? (ref || 'another scout')}`;
  return `${what} · ${lastItemAt ? `last item ${age(lastItemAt, now)}` : 'no item yet'}`;
}
