import { describe, expect, it } from 'vitest';
import type { Scout } from '../api/types';
import { scheduleText } from './schedule';

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
