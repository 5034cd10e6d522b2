import { describe, expect, it } from 'vitest';
import type { ActionDef, Policies } from '../api/plans';
import {
  actionsFor,
  applyChange,
  effectiveRows,
  globalRows,
  overrideModes,
  overrideRows,
  riskHint,
  setGlobal,
  setOverride,
} from './policies';

const def = (name: string, risk: string, kinds?: string[]): ActionDef => ({
  name,
  description: name,
  risk,
  runs: 'outbox',
  kinds,
  schema: {},
  available: true,
  inferred_mode: risk === 'read' ? 'allow' : 'require_approval',
});

const catalogue = [def('task.create', 'write'), def('gmail.archive', 'write', ['gmail']), def('gmail.trash', 'danger', ['gmail'])];
const pol: Policies = {
  global: { 'gmail.trash': 'deny' },
  scouts: { sc_b: { 'gmail.archive': 'allow', 'gmail.trash': 'deny' }, sc_a: { 'task.create': 'allow' } },
  defaults: { gmail_archive: true, gmail_label: '' },
  resolved: [],
};

describe('policies', () => {
  it('list every action with its global mode, or none when its risk decides', () => {
    const rows = globalRows(catalogue, pol);
    expect(rows.map((r) => [r.action, r.mode ?? '-', r.inferred])).toEqual([
      ['task.create', '-', 'require_approval'],
      ['gmail.archive', '-', 'require_approval'],
      ['gmail.trash', 'deny', 'require_approval'],
    ]);
    expect(riskHint('danger')).toMatch(/hard to take back/);
  });

  it('list the overrides by scout name, unknown scouts by id', () => {
    const rows = overrideRows(pol, { sc_a: 'Alpha', sc_b: 'Beta' });
    expect(rows.map((r) => `${r.scoutName} ${r.action} ${r.mode}`)).toEqual([
      'Alpha task.create allow',
      'Beta gmail.archive allow',
      'Beta gmail.trash deny',
    ]);
    expect(overrideRows(pol, {})[0]!.scoutName).toBe('sc_a');
  });

  it('offer only deny as an override under a global deny', () => {
    expect(overrideModes(pol, 'gmail.trash')).toEqual(['deny']);
    expect(overrideModes(pol, 'gmail.archive')).toEqual(['allow', 'require_approval', 'deny']);
  });

  it('send merge patches; null removes', () => {
    expect(setGlobal('gmail.trash', null)).toEqual({ global: { 'gmail.trash': null } });
    expect(setOverride('sc_b', 'gmail.archive', null)).toEqual({ scouts: { sc_b: { 'gmail.archive': null } } });
    expect(setOverride('sc_b', 'gmail.archive', 'deny')).toEqual({ scouts: { sc_b: { 'gmail.archive': 'deny' } } });
  });

  it('offer a scout the actions of its kind', () => {
    expect(actionsFor(catalogue, 'folder').map((d) => d.name)).toEqual(['task.create']);
    expect(actionsFor(catalogue, 'gmail').map((d) => d.name)).toEqual(['task.create', 'gmail.archive', 'gmail.trash']);
  });

  it('say what applies to a scout and why, as the agent resolved it, for the actions of its kind', () => {
    const resolved = [
      { action: 'task.create', risk: 'write', mode: 'allow' as const, source: 'scout' as const },
      { action: 'gmail.archive', risk: 'write', mode: 'require_approval' as const, source: 'inferred' as const },
      { action: 'gmail.trash', risk: 'danger', mode: 'deny' as const, source: 'global' as const },
    ];
    expect(effectiveRows(catalogue, resolved, 'gmail', 'Work mail').map((r) => `${r.action}: ${r.text}`)).toEqual([
      'task.create: Allowed — your setting for Work mail',
      'gmail.archive: Needs approval — the default for a write action',
      'gmail.trash: Denied — your setting for every scout',
    ]);
    expect(effectiveRows(catalogue, resolved, 'folder', 'Drop').map((r) => r.action)).toEqual(['task.create']);
    // An action the agent did not resolve (an older agent) is left out.
    expect(effectiveRows(catalogue, resolved.slice(1), 'folder')).toEqual([]);
  });

  it('follow policy.changed events', () => {
    let p = applyChange(pol, { scout_id: 'sc_a', action: 'task.create' });
    expect(p.scouts.sc_a).toBeUndefined();
    p = applyChange(p, { scout_id: 'sc_c', action: 'gmail.archive', mode: 'allow' });
    expect(p.scouts.sc_c).toEqual({ 'gmail.archive': 'allow' });
    p = applyChange(p, { action: 'gmail.trash' });
    expect(p.global).toEqual({});
    expect(pol.global).toEqual({ 'gmail.trash': 'deny' });
  });
});
