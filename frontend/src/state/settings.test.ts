import { describe, expect, it } from 'vitest';
import { Api } from '../api/client';
import { errorFromResponse, offlineError } from '../api/errors';
import type { StreamSink } from '../api/stream';
import type { Settings } from '../api/types';
import { Actions } from './actions';

/** An agent that stores settings, answering each PUT when told to. */
class SettingsApi extends Api {
  stored: Settings = { notifications: true, autostart: false };
  puts: Settings[] = [];
  private waiting: Array<(e?: Error) => void> = [];

  constructor() {
    super(async () => {
      throw new Error('no network in unit tests');
    }, 'browser');
  }

  override status = async () => ({ paused: false }) as never;
  override scouts = async () => [];
  override suggestions = async () => [];
  override folders = async () => ({ path: '/home/ann', dirs: [] });
  override settings = async () => this.stored;
  override putSettings = async (s: Settings) => {
    this.puts.push(s);
    const e = await new Promise<Error | undefined>((r) => this.waiting.push(r));
    if (e) throw e;
    this.stored = s;
    return s;
  };

  /** Answers the oldest PUT, with an error or with success. */
  async answer(e?: Error) {
    for (let i = 0; i < 50 && this.waiting.length === 0; i++) await Promise.resolve();
    this.waiting.shift()!(e);
    for (let i = 0; i < 10; i++) await Promise.resolve();
  }
}

async function setup() {
  const api = new SettingsApi();
  let sink!: StreamSink;
  const a = new Actions(api, { start: (s) => ((sink = s), () => {}) });
  a.start();
  await a.loadAll();
  return { api, a, sink: () => sink };
}

describe('saving settings', () => {
  it('puts the whole object with the change, and stores what the agent answered', async () => {
    const { api, a } = await setup();
    const done = a.saveSettings({ quiet_hours: { start: '22:00', end: '07:00' } });
    await api.answer();
    expect(await done).toBeUndefined();
    expect(api.puts).toEqual([{ notifications: true, autostart: false, quiet_hours: { start: '22:00', end: '07:00' } }]);
    expect(a.store.state.settings).toEqual(api.stored);

    const off = a.saveSettings({ quiet_hours: undefined });
    await api.answer();
    await off;
    expect(JSON.stringify(api.puts[1])).toBe('{"notifications":true,"autostart":false}');
  });

  it('saves one change at a time, each on top of the last answer: quick changes do not undo each other', async () => {
    const { api, a } = await setup();
    const first = a.saveSettings({ autostart: true });
    const second = a.saveSettings({ notifications: false });
    await api.answer();
    await api.answer();
    await Promise.all([first, second]);
    expect(api.puts).toEqual([
      { notifications: true, autostart: true },
      { notifications: false, autostart: true },
    ]);
    expect(a.store.state.settings).toEqual({ notifications: false, autostart: true });
  });

  it('builds on a change made elsewhere that arrived live', async () => {
    const { api, a, sink } = await setup();
    sink().event({ type: 'settings.updated', data: { notifications: false, autostart: false } });
    const done = a.saveSettings({ autostart: true });
    await api.answer();
    await done;
    expect(api.puts).toEqual([{ notifications: false, autostart: true }]);
  });

  it('when the agent refuses, keeps what was stored and hands back its reason', async () => {
    const { api, a } = await setup();
    const done = a.saveSettings({ autostart: true });
    await api.answer(
      errorFromResponse(503, { code: 'unavailable', error: 'autostart: mkdir /home/ann/.config/autostart: not a directory' }),
    );
    const err = await done;
    expect(err?.status).toBe(503);
    expect(err?.message).toBe('Autostart: mkdir /home/ann/.config/autostart: not a directory.');
    expect(a.store.state.settings).toEqual({ notifications: true, autostart: false });
    expect(a.store.state.problem).toBeUndefined();

    // The queue goes on after a failure.
    const next = a.saveSettings({ notifications: false });
    await api.answer();
    expect(await next).toBeUndefined();
    expect(a.store.state.settings).toEqual({ notifications: false, autostart: false });
  });

  it('an agent that is gone is also the page banner', async () => {
    const { api, a } = await setup();
    const done = a.saveSettings({ notifications: false });
    await api.answer(offlineError());
    expect((await done)?.code).toBe('offline');
    expect(a.store.state.problem?.code).toBe('offline');
    expect(a.store.state.settings?.notifications).toBe(true);
  });
});
