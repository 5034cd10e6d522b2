import { describe, expect, it } from 'vitest';
import { Api } from '../api/client';
import { errorFromResponse } from '../api/errors';
import type { PatchScout, Scout } from '../api/types';
import { Actions } from './actions';
import { scout } from './testdata';

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
    if (!writeFile) {
      throw errorFromResponse(409, {
        code: 'conflict',
        error: 'managed by scans.yaml — edit the file (or ask to write it: ?write_file=true)',
      });
    }
    this.stored = { ...this.stored, ...p } as Scout;
    return this.stored;
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
    for (let i = 0; i < 10; i++) await Promise.resolve();
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
});
