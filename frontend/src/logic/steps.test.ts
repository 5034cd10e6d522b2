import { describe, expect, it } from 'vitest';
import type { PlanAction } from '../api/plans';
import { stepNote } from './steps';

const run = (n: number, action: string, state: string, extra: Partial<PlanAction> = {}): PlanAction => ({
  n,
  action,
  enabled: true,
  origin: 'rule:hooks',
  mode: 'allow',
  mode_source: 'global',
  state,
  ...extra,
});

describe('stepNote', () => {
  it('says which step a queued step waits for', () => {
    const all = [run(1, 'note.create', 'done', { origin: 'kind' }), run(2, 'webhook.post', 'running'), run(3, 'webhook.post', 'queued', { after: 2 })];
    expect(stepNote(all[2]!, all)).toEqual({ text: 'waits for step 2 (webhook.post)' });
  });

  it('says a step is held by the one failed for good before it, even through another waiting step', () => {
    const all = [
      run(2, 'webhook.post', 'failed', { failing: true, error: 'HTTP 500' }),
      run(3, 'gmail.label', 'queued', { after: 2 }),
      run(4, 'webhook.post', 'queued', { after: 3 }),
    ];
    expect(stepNote(all[1]!, all)).toEqual({ text: 'held: step 2 failed — retry or drop it', heldBy: 2 });
    expect(stepNote(all[2]!, all)).toEqual({ text: 'held: step 2 failed — retry or drop it', heldBy: 2 });
  });

  it('waits, not held, while the step before is only retrying', () => {
    const all = [run(2, 'webhook.post', 'queued', { failing: true, error: '503', attempts: 2 }), run(3, 'webhook.post', 'queued', { after: 2 })];
    expect(stepNote(all[1]!, all)).toEqual({ text: 'waits for step 2 (webhook.post)' });
  });

  it('marks an on_failure step with the step whose failure added it', () => {
    const all = [run(2, 'webhook.post', 'failed'), run(5, 'webhook.post', 'done', { on_failure: true, failed_n: 2 })];
    expect(stepNote(all[1]!, all)).toEqual({ text: 'runs because step 2 (webhook.post) failed' });
    const running = run(5, 'webhook.post', 'running', { on_failure: true, failed_n: 2 });
    const waiting = run(6, 'gmail.label', 'queued', { on_failure: true, failed_n: 2, after: 5 });
    expect(stepNote(waiting, [all[0]!, running, waiting])).toEqual({ text: 'runs because step 2 (webhook.post) failed; waits for step 5 (webhook.post)' });
  });

  it('says nothing of an action that is no step, or a step whose turn has come', () => {
    const all = [run(1, 'webhook.post', 'done'), run(2, 'webhook.post', 'queued', { after: 1 }), run(3, 'webhook.post', 'done', { after: 2 })];
    expect(stepNote(run(7, 'gmail.archive', 'queued', { origin: 'default' }), all)).toBeUndefined();
    expect(stepNote(all[1]!, all)).toBeUndefined();
    expect(stepNote(all[2]!, all)).toBeUndefined();
  });
});
