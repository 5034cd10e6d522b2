import { describe, expect, it } from 'vitest';
import { scout } from '../state/testdata';
import { scoutsHealth } from './health';

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
});
