import { describe, expect, it } from 'vitest';
import type { PlanAction } from '../api/plans';
import {
  actionLabel,
  alwaysAllows,
  alwaysToast,
  approveActions,
  initialTicks,
  lockReason,
  modeSourceLabel,
  planKey,
  retryText,
} from './plan';

const act = (action: string, extra: Partial<PlanAction> = {}): PlanAction => ({
  action,
  enabled: true,
  origin: 'default',
  mode: 'require_approval',
  mode_source: 'inferred',
  state: 'proposed',
  ...extra,
});

const gmailPlan: PlanAction[] = [
  act('task.create', { origin: 'kind' }),
  act('gmail.archive'),
  act('gmail.label', { params: { label: 'Scouts' }, enabled: false }),
  act('gmail.trash', { origin: 'rule:junk', mode: 'deny', mode_source: 'global', enabled: false }),
];

describe('a plan in words', () => {
  it('says what each action does, with its parameters', () => {
    expect(gmailPlan.map((a) => actionLabel(a))).toEqual([
      'Create a task',
      'Archive the email',
      'Add the label Scouts',
      'Move the email to the trash',
    ]);
    expect(actionLabel({ action: 'file.move', params: { to: '/home/ann/Archive' } }, '/home/ann')).toBe(
      'Move the file to ~/Archive',
    );
    expect(actionLabel({ action: 'webhook.post', params: { url: 'https://hooks.example.com/in?x=1' } })).toBe(
      'Post the card to hooks.example.com',
    );
    expect(actionLabel({ action: 'some.new_thing' })).toBe('some.new_thing');
    expect(actionLabel({ action: 'entity.fill_body', params: { entity_id: 'tk_1' } })).toBe('Bring in the full text');
  });

  it('says where a mode comes from', () => {
    expect(modeSourceLabel('scout', 'write', 'Work mail')).toBe('your setting for Work mail');
    expect(modeSourceLabel('global')).toBe('your setting for every scout');
    expect(modeSourceLabel('inferred', 'danger')).toBe('the default for a danger action');
  });
});

describe('ticks', () => {
  it('start as proposed; the entity is always ticked and a denied action never', () => {
    const t = initialTicks(gmailPlan);
    expect(t).toEqual({
      entity: true,
      [planKey(gmailPlan[1]!)]: true,
      [planKey(gmailPlan[2]!)]: false,
      [planKey(gmailPlan[3]!)]: false,
    });
    expect(lockReason(gmailPlan[0]!)).toMatch(/reject the card/);
    expect(lockReason(gmailPlan[3]!)).toMatch(/Denied/);
    expect(lockReason(gmailPlan[1]!)).toBeUndefined();
  });

  it('keep what the person chose when the kind changes', () => {
    const before = { ...initialTicks(gmailPlan), [planKey(gmailPlan[1]!)]: false };
    const asNote = [act('note.create', { origin: 'kind' }), ...gmailPlan.slice(1)];
    const t = initialTicks(asNote, before);
    expect(t.entity).toBe(true);
    expect(t[planKey(gmailPlan[1]!)]).toBe(false);
  });

  it('a denied action stays unticked even if a tick says otherwise', () => {
    const ticks = { ...initialTicks(gmailPlan), [planKey(gmailPlan[3]!)]: true };
    const req = approveActions(gmailPlan, ticks);
    expect(req.find((a) => a.action === 'gmail.trash')!.enabled).toBe(false);
  });
});

describe('the approve request', () => {
  it('sends every proposed action with its tick and parameters, and no recorded one', () => {
    const recorded = act('gmail.label', { n: 1, state: 'done', phase: 'arrival', params: { label: 'Bills' } });
    const plan = [recorded, ...gmailPlan];
    const ticks = { ...initialTicks(plan), [planKey(gmailPlan[1]!)]: false };
    expect(approveActions(plan, ticks)).toEqual([
      { action: 'task.create', enabled: true },
      { action: 'gmail.archive', enabled: false },
      { action: 'gmail.label', params: { label: 'Scouts' }, enabled: false },
      { action: 'gmail.trash', enabled: false },
    ]);
  });

  it('"always allow" names the ticked actions that need approval, never a denied one', () => {
    const plan = [...gmailPlan, act('gmail.mark_read', { mode: 'allow', mode_source: 'scout' })];
    const ticks = initialTicks(plan);
    expect(alwaysAllows(plan, ticks)).toEqual(['task.create', 'gmail.archive']);
    const none = { ...ticks, [planKey(gmailPlan[1]!)]: false };
    expect(alwaysAllows(plan, none)).toEqual(['task.create']);
    expect(alwaysToast(['gmail.archive'], 'Work mail')).toBe(
      'Always allow gmail.archive for Work mail — change in Settings → Policies',
    );
  });
});

describe('a failing action', () => {
  const now = Date.parse('2026-11-23T18:00:00Z');
  it('says when it is tried next', () => {
    const a = act('webhook.post', { n: 2, state: 'queued', attempts: 3, failing: true, next_retry: '2026-11-23T18:05:00Z' });
    expect(retryText(a, now)).toBe('Next try in 5 min (after 3 attempts).');
    expect(retryText({ ...a, next_retry: '2026-11-23T18:00:10Z' }, now)).toBe(
      'Trying again in a moment (after 3 attempts).',
    );
  });

  it('says when it stopped', () => {
    const a = act('webhook.post', { n: 2, state: 'failed', attempts: 1, failing: true });
    expect(retryText(a, now)).toBe('Stopped after 1 attempt: it will not be tried again unless you retry it.');
  });
});
