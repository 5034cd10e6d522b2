import { describe, expect, it } from 'vitest';
import type { Scout } from '../api/types';
import { nextRunText, scheduleText } from './schedule';

const scout = (schedule?: Scout['schedule']): Scout =>
  ({ id: 'sc_1', kind: 'folder', name: 'Docs', schedule, health: { state: 'ok', last_run_new: 0, total_new: 0 } }) as Scout;

describe('scheduleText', () => {
  it('says nothing for a scout on the defaults', () => {
    expect(scheduleText(scout())).toBe('');
    expect(scheduleText(scout({}))).toBe('');
    expect(scheduleText(scout({ overlap: 'queue-one' }))).toBe('');
  });
  it('names the cron, its zone and the policies that differ from the defaults', () => {
    expect(scheduleText(scout({ cron: '0 9 * * 1-5', time_zone: 'Europe/Paris', overlap: 'skip', catch_up: 'skip' }))).toBe(
      'Runs 0 9 * * 1-5 (Europe/Paris) · a trigger during a run is skipped · a run missed while off is skipped',
    );
    expect(scheduleText(scout({ cron: '@hourly', overlap: 'allow', catch_up: 'run-once' }))).toBe(
      'Runs @hourly · runs may overlap',
    );
  });
});

// The card's "next" once said "just now" for a run 22 hours away: it was
// told with the words for the past.
describe('nextRunText', () => {
  const now = Date.parse('2026-11-26T14:00:00Z');
  it('says how soon a run comes, in words for the future', () => {
    expect(nextRunText('2026-11-26T14:00:20Z', now)).toBe('in under a minute');
    expect(nextRunText('2026-11-26T14:05:00Z', now)).toBe('in 5 min');
    expect(nextRunText('2026-11-26T14:05:30Z', now)).toBe('in 6 min');
    expect(nextRunText('2026-11-27T12:45:00Z', now)).toBe('in 22 h');
    expect(nextRunText('2026-11-26T13:59:00Z', now)).toBe('now');
    expect(nextRunText(undefined, now)).toBe('');
  });
  it('gives the day and time of a run more than a day away', () => {
    const far = nextRunText('2026-12-24T09:00:00Z', now);
    expect(far).not.toMatch(/ago|just now|^in /);
    expect(far).toContain('24');
  });
});
