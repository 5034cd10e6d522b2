import { describe, expect, it } from 'vitest';
import type { PlanAction, Policies } from '../api/plans';
import { applyEvent, failingList, initialState } from './model';

const run = (n: number, extra: Partial<PlanAction>): PlanAction => ({
  suggestion_id: 'sg_1',
  n,
  action: 'webhook.post',
  enabled: true,
  origin: 'rule:hooks',
  mode: 'require_approval',
  mode_source: 'inferred',
  state: 'queued',
  ...extra,
});

describe('live events about actions and policies', () => {
  it('keep the failing list: in while failing, out once done or dropped', () => {
    let s = initialState();
    s = applyEvent(s, { type: 'action.updated', data: run(2, { failing: true, error: '503', updated_at: '2026-11-23T18:00:00Z' }) });
    s = applyEvent(s, { type: 'action.updated', data: run(3, { state: 'failed', failing: true, updated_at: '2026-11-23T18:01:00Z' }) });
    expect(failingList(s).map((a) => a.n)).toEqual([3, 2]);
    expect(failingList(s, 'sg_other')).toEqual([]);
    const seq = s.planSeq.sg_1;
    s = applyEvent(s, { type: 'action.updated', data: run(2, { state: 'done' }) });
    expect(failingList(s).map((a) => a.n)).toEqual([3]);
    expect(s.planSeq.sg_1).toBe(seq! + 1);
    s = applyEvent(s, { type: 'action.updated', data: run(3, { state: 'dropped' }) });
    expect(failingList(s)).toEqual([]);
  });

  it('follow policy changes once the policies are loaded', () => {
    let s = initialState();
    const ev = { type: 'policy.changed', data: { scout_id: 'sc_1', action: 'gmail.archive', mode: 'allow', by: 'user', at: '' } } as const;
    expect(applyEvent(s, ev)).toBe(s);
    const p: Policies = { global: {}, scouts: {}, defaults: { gmail_archive: true, gmail_label: '' }, resolved: [] };
    s = { ...s, policies: p };
    s = applyEvent(s, ev);
    expect(s.policies!.scouts).toEqual({ sc_1: { 'gmail.archive': 'allow' } });
    s = applyEvent(s, { type: 'policy.changed', data: { scout_id: 'sc_1', action: 'gmail.archive', by: 'user', at: '' } });
    expect(s.policies!.scouts).toEqual({});
    s = applyEvent(s, { type: 'plan_defaults.changed', data: { gmail_archive: false, gmail_label: 'Scouts' } });
    expect(s.policies!.defaults).toEqual({ gmail_archive: false, gmail_label: 'Scouts' });
  });

  it('count rule changes per scout, for an open editor to list them again', () => {
    let s = initialState();
    s = applyEvent(s, { type: 'scout.rules', data: { scout_id: 'sc_1' } });
    s = applyEvent(s, { type: 'scout.rules', data: { scout_id: 'sc_1' } });
    expect(s.rulesSeq).toEqual({ sc_1: 2 });
  });
});
