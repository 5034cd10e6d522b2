import { describe, expect, it } from 'vitest';
import { scout } from '../state/testdata';
import { chainActivity, scoutState, scoutsHealth } from './health';

describe('scouts at a glance', () => {
  it('count by health: a webhook scout that runs nothing here is as well as the others', () => {
    const ok = (id: string, kind = 'folder') => scout(id, { kind, running: kind === 'folder', health: { ...scout(id).health, state: 'ok' } });
    expect(scoutsHealth([ok('a'), ok('b'), ok('c'), ok('d', 'webhook')])).toBe('4 scouts, all ok.');
    expect(scoutsHealth([ok('a')])).toBe('1 scout, all ok.');
  });

  it('name what is not ok', () => {
    const s = (id: string, state: 'ok' | 'error' | 'starting' | 'disabled') =>
      scout(id, { health: { ...scout(id).health, state } });
    expect(scoutsHealth([s('a', 'ok'), s('b', 'error'), s('c', 'disabled'), s('d', 'ok')])).toBe(
      '4 scouts: 2 ok, 1 failing, 1 switched off.',
    );
    expect(scoutsHealth([s('a', 'starting')])).toBe('1 scout: 1 not run yet.');
    expect(scoutsHealth([])).toBe('No scouts yet.');
  });

  it('a chain scout runs nothing of its own: it says what it follows and when its last item came, not "Starting"', () => {
    const invoices = scout('sc_inv', { name: 'Invoices' });
    const starting = { ...scout('x').health, state: 'starting' as const };
    const chain = scout('sc_ch', {
      kind: 'chain',
      name: 'Follow-ups',
      running: false,
      path: undefined,
      config: { on: { scout: 'sc_inv', event: 'card.approved' } },
      health: starting,
    });
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(scoutState(chain)).toBe('ok');
    expect(scoutsHealth([invoices, chain])).toBe('2 scouts, all ok.');
    expect(chainActivity(chain, [invoices, chain], undefined, now)).toBe('Runs on card.approved of Invoices · no item yet');
    expect(chainActivity(chain, [invoices, chain], '2026-11-22T11:57:00Z', now)).toMatch(
      /^Runs on card\.approved of Invoices · last item 3 min ago$/,
    );
    // Followed by name, or by a scout since removed: the name as written.
    const byName = { ...chain, config: { on: { scout: 'Invoices', event: 'entity.created' } } };
    expect(chainActivity(byName, [invoices, byName], undefined, now)).toBe('Runs on entity.created of Invoices · no item yet');
    const orphan = { ...chain, config: { on: { scout: 'sc_gone', event: 'action.done' } } };
    expect(chainActivity(orphan, [orphan], undefined, now)).toBe('Runs on action.done of sc_gone · no item yet');
    // Off, or failing, it says so as any scout.
    expect(scoutState({ ...chain, enabled: false, health: { ...starting, state: 'disabled' } })).toBe('disabled');
    // Other kinds keep their state.
    expect(scoutState(scout('f', { health: starting }))).toBe('starting');
    expect(chainActivity(invoices, [invoices], undefined, now)).toBeUndefined();
  });
});
