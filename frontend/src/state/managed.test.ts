import { describe, expect, it } from 'vitest';
import { Api } from '../api/client';
import { errorFromResponse } from '../api/errors';
import type { Rule, RuleDoc } from '../api/plans';
import type { LearnSettings, Learning, PatchScout, Scout } from '../api/types';
import { Actions } from './actions';
import { changeManaged } from './managed';
import { scout } from './testdata';

const refusal = () =>
  errorFromResponse(409, {
    code: 'conflict',
    error: 'managed by scans.yaml — edit the file (or ask to write it: ?write_file=true)',
  });

const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

/** An agent whose scout a definitions file manages: a change is refused
 * unless it is written to the file. */
class ManagedApi extends Api {
  stored: Scout = scout('sc_1', { name: 'Scans' });
  patches: Array<{ p: PatchScout; writeFile: boolean }> = [];

  constructor() {
    super(async () => {
      throw new Error('no network in unit tests');
    }, 'browser');
  }

  override status = async () => ({ paused: false }) as never;
  override scouts = async () => [this.stored];
  override suggestions = async () => [];
  override folders = async () => ({ path: '/home/ann', dirs: [] });
  override updateScout = async (_id: string, p: PatchScout, writeFile = false) => {
    this.patches.push({ p, writeFile });
    if (!writeFile) throw refusal();
    this.stored = { ...this.stored, ...p } as Scout;
    return this.stored;
  };

  /** The rule changes asked, in order: what and whether to write the file. */
  ruleCalls: string[] = [];
  rulesOn: Record<string, boolean> = { invoices: true };
  private ruleChange<T>(what: string, writeFile: boolean, made: () => T): T {
    this.ruleCalls.push(`${what}${writeFile ? ' writing the file' : ''}`);
    if (!writeFile) throw refusal();
    return made();
  }
  override enableRule = async (_s: string, id: string, on: boolean, writeFile = false) =>
    this.ruleChange(`switch ${id} ${on ? 'on' : 'off'}`, writeFile, () => {
      this.rulesOn[id] = on;
      return {} as Rule;
    });
  override putRule = async (_s: string, id: string, r: RuleDoc, writeFile = false) =>
    this.ruleChange(`save ${id}`, writeFile, () => ({ rule: r }) as Rule);

  learned: LearnSettings = { cold_start: 30, screen_below: 0.3, spam_above: 0.9, min_spam: 10 };
  learnWrites: boolean[] = [];
  override setLearning = async (id: string, s: LearnSettings, writeFile = false) => {
    this.learnWrites.push(writeFile);
    if (!writeFile) throw refusal();
    this.learned = s;
    return { scout_id: id, settings: s } as Learning;
  };
}

describe('changing a scout a definitions file manages', () => {
  it('is refused with an offer to write the change to the file, which then makes it', async () => {
    const api = new ManagedApi();
    const a = new Actions(api, { start: () => () => {} });
    a.start();
    await a.loadAll();
    const sc = a.store.state.scouts.items.sc_1!;

    await a.updateScout(sc, { review: false });
    expect(a.store.state.scouts.items.sc_1!.review).toBe(true); // not changed
    const [toast] = a.store.state.toasts;
    expect(toast?.tone).toBe('error');
    expect(toast?.text).toContain('the definitions file scans.yaml decides scout');
    expect(toast?.action?.label).toBe('Write to scans.yaml');

    toast!.action!.run();
    await flush();
    expect(api.patches).toEqual([
      { p: { review: false }, writeFile: false },
      { p: { review: false }, writeFile: true },
    ]);
    expect(a.store.state.scouts.items.sc_1!.review).toBe(false);
  });

  it('fails as any other change when the agent refuses for another reason', async () => {
    const api = new ManagedApi();
    api.updateScout = async () => {
      throw errorFromResponse(409, { code: 'conflict', error: 'scout "Docs" (sc_2) already watches /home/ann/Docs' });
    };
    const a = new Actions(api, { start: () => () => {} });
    a.start();
    await a.loadAll();
    await a.updateScout(a.store.state.scouts.items.sc_1!, { name: 'Docs' });
    const [toast] = a.store.state.toasts;
    expect(toast?.text).toBe('Could not change scout “Scans”. Scout "Docs" (sc_2) already watches /home/ann/Docs.');
    expect(toast?.action).toBeUndefined();
  });

  it('offers the same on the rules list: a rule switched off is refused, then written to the file', async () => {
    const api = new ManagedApi();
    const a = new Actions(api, { start: () => () => {} });
    a.start();
    await a.loadAll();
    let reloaded = 0;
    const made = await a.changeScout(
      'Scans',
      'Could not switch invoices off.',
      (w) => api.enableRule('sc_1', 'invoices', false, w),
      () => reloaded++,
    );
    expect(made).toBe(false);
    expect(api.rulesOn.invoices).toBe(true);
    expect(reloaded).toBe(0);
    const [toast] = a.store.state.toasts;
    expect(toast?.text).toBe(
      'Not changed: the definitions file scans.yaml decides scout “Scans”. Edit the file, or write this change to it.',
    );
    expect(toast?.action?.label).toBe('Write to scans.yaml');

    toast!.action!.run();
    await flush();
    expect(api.ruleCalls).toEqual(['switch invoices off', 'switch invoices off writing the file']);
    expect(api.rulesOn.invoices).toBe(false);
    expect(reloaded).toBe(1); // the list is read again
  });

  it('offers it in the rule editor: the save is refused, and writing saves the same rule', async () => {
    const api = new ManagedApi();
    const doc: RuleDoc = { id: 'invoices', when: { name: { contains: 'invoice' } }, then: { verdict: 'show' } };
    // What RuleEditor's save does.
    const r = await changeManaged('Scans', (w) => api.putRule('sc_1', 'invoices', doc, w));
    if (!('refused' in r)) throw new Error('the save was not refused');
    expect(r.refused.label).toBe('Write to scans.yaml');
    expect(r.refused.file).toBe('scans.yaml');
    const saved = await r.refused.write();
    expect(saved.rule).toEqual(doc);
    expect(api.ruleCalls).toEqual(['save invoices', 'save invoices writing the file']);
  });

  it('offers it for the learning thresholds: refused, nothing changes; written, they are saved and shown', async () => {
    const api = new ManagedApi();
    const a = new Actions(api, { start: () => () => {} });
    a.start();
    await a.loadAll();
    const sc = a.store.state.scouts.items.sc_1!;
    const next = { ...api.learned, cold_start: 12 };
    const r = await a.saveLearning(sc, next);
    if (!r || !('write' in r)) throw new Error(`not refused with an offer: ${String(r)}`);
    expect(r.label).toBe('Write to scans.yaml');
    expect(api.learned.cold_start).toBe(30);
    expect(a.store.state.learning.sc_1).toBeUndefined();

    await r.write();
    expect(api.learnWrites).toEqual([false, true]);
    expect(api.learned.cold_start).toBe(12);
    expect(a.store.state.learning.sc_1?.settings.cold_start).toBe(12);
  });

  it('leaves any other failure of the thresholds to the form, without an offer', async () => {
    const api = new ManagedApi();
    api.setLearning = async () => {
      throw errorFromResponse(400, { code: 'invalid', error: 'screen_below must be below spam_above' });
    };
    const a = new Actions(api, { start: () => () => {} });
    a.start();
    await a.loadAll();
    const r = await a.saveLearning(a.store.state.scouts.items.sc_1!, api.learned);
    expect(r && 'message' in r && r.message).toBe('Screen_below must be below spam_above.');
  });
});
