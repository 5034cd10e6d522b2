import { describe, expect, it } from 'vitest';
import type { ScoutRunEntry } from '../api/runs';
import { runResult, runTime, runTokens, triggerText } from './runs';

const run = (over: Partial<ScoutRunEntry>): ScoutRunEntry => ({
  id: 'rn_1',
  scout_id: 'sc_1',
  trigger: 'schedule',
  started_at: '2026-05-01T09:00:00Z',
  finished_at: '2026-05-01T09:00:01Z',
  outcome: 'ok',
  items_seen: 0,
  items_new: 0,
  model_tokens: null,
  definition_version: 4,
  ...over,
});

describe('runs in words', () => {
  it('says what a run found, and only counts what was seen when it differs', () => {
    expect(runResult(run({ items_new: 3, items_seen: 3 }))).toBe('3 new items');
    expect(runResult(run({ items_new: 1, items_seen: 5 }))).toBe('1 new item (of 5 seen)');
    expect(runResult(run({ items_seen: 2 }))).toBe('nothing new (2 items seen)');
    expect(runResult(run({}))).toBe('nothing new');
  });

  it('says why a run failed or was skipped, and that a stopped run lost nothing', () => {
    expect(runResult(run({ outcome: 'failed', error: 'the folder is gone' }))).toBe('failed: the folder is gone');
    expect(runResult(run({ outcome: 'failed' }))).toBe('failed: no reason given');
    expect(runResult(run({ outcome: 'skipped', note: 'a run was in progress' }))).toBe('skipped: a run was in progress');
    expect(runResult(run({ outcome: 'stopped' }))).toContain('nothing was lost');
  });

  it('shows a run in progress, and one the agent died in with why', () => {
    expect(runResult(run({ outcome: 'running', finished_at: null }))).toBe('running…');
    const note = 'The agent stopped before this run ended (process 42 is gone): it was killed, it crashed or the machine went down.';
    expect(runResult(run({ outcome: 'interrupted', finished_at: null, note }))).toBe(`cut short: ${note}`);
    expect(runResult(run({ outcome: 'interrupted', finished_at: null }))).toBe(
      'cut short: the agent stopped before the run ended',
    );
  });

  it('names every trigger the agent records, and an unknown one as itself', () => {
    for (const t of ['start', 'schedule', 'catch-up', 'manual', 'resume', 'source', 'poll']) {
      expect(triggerText(t)).not.toBe(t);
    }
    expect(triggerText('webhook')).toBe('webhook');
  });

  it('shows tokens only when the run spent some', () => {
    expect(runTokens(run({ model_tokens: null }))).toBe('');
    expect(runTokens(run({ model_tokens: 0 }))).toBe('');
    expect(runTokens(run({ model_tokens: 1 }))).toBe('1 model token');
    expect(runTokens(run({ model_tokens: 420 }))).toBe('420 model tokens');
  });

  it('gives the time alone for a run today and the day before that', () => {
    const at = new Date(2026, 4, 1, 9, 5).toISOString();
    const today = runTime(at, new Date(2026, 4, 1, 18, 0).getTime());
    const later = runTime(at, new Date(2026, 4, 3, 18, 0).getTime());
    expect(today).toMatch(/05/);
    expect(later).not.toBe(today);
    expect(later.endsWith(today)).toBe(true);
    expect(runTime('not a time', 0)).toBe('');
  });
});
