import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Api } from '../api/client';
import { ApiError, offlineError } from '../api/errors';
import type { StreamSink } from '../api/stream';
import type { Approve, Entity, Lane, Scout, Suggestion } from '../api/types';
import { UNDO_TOAST_MS } from '../logic/undo';
import { Actions } from './actions';
import { laneCards, laneCounts, pendingCards } from './model';
import { ent, scout, sug } from './testdata';

/** An agent in memory, with hooks to make calls fail or wait. */
class FakeApi extends Api {
  cards = new Map<string, Suggestion>();
  calls: string[] = [];
  fail: ((what: string) => Error | undefined) | null = null;
  gate: Promise<void> | null = null;

  constructor() {
    super(async () => {
      throw new Error('no network in unit tests');
    }, 'browser');
  }

  private async step(what: string) {
    this.calls.push(what);
    if (this.gate) await this.gate;
    const e = this.fail?.(what);
    if (e) throw e;
  }

  override status = async () => ({ paused: false }) as never;
  override scouts = async (): Promise<Scout[]> => [];
  override settings = async () => ({ notifications: true, autostart: false });
  override folders = async () => ({ path: '/home/ann', dirs: [] });
  override suggestions = async (_status?: string, limit = 1000, lane?: Lane, order?: 'likely') => {
    this.calls.push(`list ${lane ?? 'all'} ${order ?? 'oldest'} ${limit}`);
    return [...this.cards.values()]
      .filter((c) => c.status === 'pending' && (!lane || (c.lane ?? 'inbox') === lane))
      .slice(0, limit);
  };
  override suggestion = async (id: string) => this.cards.get(id)!;
  override approve = async (id: string, a: Approve): Promise<Entity> => {
    await this.step(`approve ${id} ${a.as}`);
    this.cards.set(id, { ...this.cards.get(id)!, status: 'approved' });
    return ent('tk_' + id, { kind: a.as, source_suggestion_id: id });
  };
  override reject = async (id: string) => {
    await this.step(`reject ${id}`);
    const c = { ...this.cards.get(id)!, status: 'rejected' as const };
    this.cards.set(id, c);
    return c;
  };
  /** Where a card marked as spam was before, as the agent remembers. */
  private before = new Map<string, Lane>();
  override undo = async (id: string) => {
    await this.step(`undo ${id}`);
    const c = { ...this.cards.get(id)!, status: 'pending' as const, lane: this.before.get(id) ?? this.cards.get(id)!.lane };
    this.cards.set(id, c);
    return c;
  };
  override markSpam = async (id: string) => {
    await this.step(`spam ${id}`);
    const cur = this.cards.get(id)!;
    this.before.set(id, cur.lane ?? 'inbox');
    const c = { ...cur, status: 'rejected' as const, lane: 'spam' as const };
    this.cards.set(id, c);
    return c;
  };
  override bringBack = async (id: string) => {
    await this.step(`bring-back ${id}`);
    const cur = this.cards.get(id)!;
    const c = { ...cur, lane: 'inbox' as const, rescued: cur.lane === 'spam' ? ('spam' as const) : ('screened' as const) };
    this.cards.set(id, c);
    return c;
  };
}

function setup(...ids: string[]) {
  return setupCards(...ids.map((id) => sug(id)));
}

function setupCards(...cards: Suggestion[]) {
  const api = new FakeApi();
  for (const c of cards) api.cards.set(c.id, c);
  let sink!: StreamSink;
  const a = new Actions(api, { start: (s) => ((sink = s), () => {}) });
  a.start();
  return { api, a, sink: () => sink, pending: () => pendingCards(a.store.state).map((c) => c.id) };
}

const toastTexts = (a: Actions) => a.store.state.toasts.map((t) => t.text);

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('deciding', () => {
  it('takes the card out of the queue at once, before the agent answers', async () => {
    const { api, a, pending } = setup('a', 'b');
    await vi.runAllTimersAsync();
    let open!: () => void;
    api.gate = new Promise((r) => (open = r));
    const done = a.decide(['a'], { as: 'task' });
    expect(pending()).toEqual(['b']);
    open();
    expect(await done).toEqual(['a']);
    expect(pending()).toEqual(['b']);
    expect(toastTexts(a)).toEqual(['Approved as task “Card a”']);
    expect(a.store.state.toasts[0]!.action?.label).toBe('Undo');
  });

  it('brings the card back with the reason when the agent is unreachable', async () => {
    const { api, a, pending } = setup('a');
    await vi.runAllTimersAsync();
    api.fail = () => offlineError();
    expect(await a.decide(['a'], 'reject')).toEqual([]);
    expect(pending()).toEqual(['a']);
    expect(toastTexts(a)[0]).toMatch(
      /^Could not reject “Card a”\. The agent is not reachable\. Is `scouts agent` running\?/,
    );
    expect(a.store.state.problem?.code).toBe('offline');
    expect(a.undoHistory.peek()).toBeUndefined();
  });

  it('shows what the agent knows when the card was decided elsewhere', async () => {
    const { api, a, pending } = setup('a');
    await vi.runAllTimersAsync();
    api.cards.set('a', sug('a', { status: 'rejected' }));
    api.fail = () => new ApiError('conflict', 409, 'Suggestion a is already rejected.');
    await a.decide(['a'], { as: 'note' });
    await vi.runAllTimersAsync();
    expect(pending()).toEqual([]);
    expect(toastTexts(a)[0]).toBe('Could not approve “Card a” as note. Suggestion a is already rejected.');
  });

  it('decides a selection with one toast, and undoes it as one', async () => {
    const { api, a, pending } = setup('a', 'b', 'c');
    await vi.runAllTimersAsync();
    await a.decide(['a', 'c'], 'reject');
    expect(pending()).toEqual(['b']);
    expect(toastTexts(a)).toEqual(['Rejected: 2 cards']);
    await a.undo();
    expect(api.calls.filter((c) => c.startsWith('undo')).sort()).toEqual(['undo a', 'undo c']);
    expect(pending()).toEqual(['a', 'b', 'c']);
    expect(toastTexts(a)).toContain('Undone: 2 cards back in the inbox');
  });
});

describe('undo timing', () => {
  it('offers Undo for 8 seconds; u keeps working until the agent’s window closes', async () => {
    const { api, a, pending } = setup('a', 'b');
    await vi.runAllTimersAsync();
    await a.decide(['a'], 'reject');
    vi.advanceTimersByTime(UNDO_TOAST_MS - 1);
    expect(toastTexts(a)).toEqual(['Rejected “Card a”']);
    vi.advanceTimersByTime(1);
    expect(toastTexts(a)).toEqual([]);

    vi.advanceTimersByTime(12_000); // 20 s after the decision
    await a.undo();
    expect(api.calls).toContain('undo a');
    expect(pending()).toEqual(['a', 'b']);
    expect(a.store.state.focus).toBe('a'); // the inbox makes it current
  });

  it('says there is nothing to undo once the window closed, without asking the agent', async () => {
    const { api, a } = setup('a');
    await vi.runAllTimersAsync();
    await a.decide(['a'], { as: 'task' });
    vi.advanceTimersByTime(29_000);
    await a.undo();
    expect(api.calls.some((c) => c.startsWith('undo'))).toBe(false);
    expect(toastTexts(a)).toContain('Nothing to undo.');
  });

  it('undoes newest first: u, u takes back the last two decisions', async () => {
    const { a, pending } = setup('a', 'b', 'c');
    await vi.runAllTimersAsync();
    await a.decide(['a'], 'reject');
    vi.advanceTimersByTime(1000);
    await a.decide(['b'], { as: 'note' });
    await a.undo();
    expect(pending()).toEqual(['b', 'c']);
    await a.undo();
    expect(pending()).toEqual(['a', 'b', 'c']);
  });

  it('keeps an undo for later when the agent could not be reached', async () => {
    const { api, a, pending } = setup('a');
    await vi.runAllTimersAsync();
    await a.decide(['a'], 'reject');
    api.fail = (w) => (w.startsWith('undo') ? offlineError() : undefined);
    await a.undo();
    expect(pending()).toEqual([]);
    api.fail = null;
    await a.undo();
    expect(pending()).toEqual(['a']);
  });
});

describe('the stream', () => {
  it('refetches everything after a reset', async () => {
    const { api, a, sink, pending } = setup('a');
    await vi.runAllTimersAsync();
    api.cards.set('z', sug('z'));
    sink().event({ type: 'reset', data: {} });
    await vi.runAllTimersAsync();
    expect(pending()).toEqual(['a', 'z']);
    expect(a.store.state.problem).toBeUndefined();
  });

  it('announces new cards to screen readers once per burst', async () => {
    const { a, sink } = setup();
    await vi.runAllTimersAsync();
    sink().event({ type: 'suggestion.created', data: sug('a', { title: 'Meeting notes' }) });
    vi.advanceTimersByTime(500);
    expect(a.store.state.announce.text).toBe('New suggestion: Meeting notes');
    for (const id of ['b', 'c', 'd']) sink().event({ type: 'suggestion.created', data: sug(id) });
    vi.advanceTimersByTime(500);
    expect(a.store.state.announce.text).toBe('3 new suggestions');
  });

  it('loads again when the agent comes back after loading failed', async () => {
    const api = new FakeApi();
    let up = false;
    api.status = async () => {
      if (!up) throw offlineError();
      return { paused: false } as never;
    };
    let sink!: StreamSink;
    const a = new Actions(api, { start: (s) => ((sink = s), () => {}) });
    a.start();
    await vi.runAllTimersAsync();
    expect(a.store.state.problem?.message).toBe('The agent is not reachable.');
    up = true;
    sink.state('open');
    await vi.runAllTimersAsync();
    expect(a.store.state.problem).toBeUndefined();
  });
});

describe('lanes', () => {
  const lanes = (a: Actions, l: Lane) => laneCards(a.store.state, l).map((c) => c.id);

  it('loads each lane by likelihood, and counts them from the cards it holds', async () => {
    const { api, a } = setupCards(sug('i'), sug('s', { lane: 'screened' }), sug('p', { lane: 'spam' }));
    await vi.runAllTimersAsync();
    expect(api.calls.filter((c) => c.startsWith('list')).sort()).toEqual([
      'list inbox likely 1000',
      'list screened likely 500',
      'list snoozed likely 500',
      'list spam likely 500',
    ]);
    expect([lanes(a, 'inbox'), lanes(a, 'screened'), lanes(a, 'spam')]).toEqual([['i'], ['s'], ['p']]);
    expect(laneCounts(a.store.state)).toEqual({ inbox: 1, screened: 1, spam: 1, snoozed: 0 });
  });

  it('marks as spam with Undo, which puts the card back in its lane', async () => {
    const { api, a } = setupCards(sug('a'), sug('s', { lane: 'screened' }));
    await vi.runAllTimersAsync();
    expect(await a.decide(['s'], 'spam')).toEqual(['s']);
    expect(api.calls).toContain('spam s');
    expect(lanes(a, 'screened')).toEqual([]);
    expect(toastTexts(a)).toEqual(['Marked as spam “Card s”']);
    await a.undo();
    expect(lanes(a, 'screened')).toEqual(['s']);
    expect(toastTexts(a)).toEqual(['Undone: “Card s” is back in Screened']);
  });

  it('brings a card back to the inbox and makes it the one to decide next', async () => {
    const { api, a } = setupCards(sug('a'), sug('s', { lane: 'screened', created_at: '2026-11-22T09:01:00Z' }));
    await vi.runAllTimersAsync();
    let open!: () => void;
    api.gate = new Promise((r) => (open = r));
    const done = a.bringBack(['s']);
    // Out of Screened at once; into the inbox once the agent says so.
    expect(lanes(a, 'screened')).toEqual([]);
    expect(laneCounts(a.store.state)).toEqual({ inbox: 1, screened: 0, spam: 0, snoozed: 0 });
    open();
    expect(await done).toEqual(['s']);
    expect(lanes(a, 'inbox')).toEqual(['a', 's']);
    expect(a.store.state.suggestions.items['s']!.rescued).toBe('screened');
    expect(a.store.state.focus).toBe('s');
    expect(toastTexts(a)).toEqual(['Back in the inbox: “Card s”']);
  });

  it('puts a card back in its lane when bringing it back fails', async () => {
    const { api, a } = setupCards(sug('s', { lane: 'spam' }));
    await vi.runAllTimersAsync();
    api.fail = () => new ApiError('conflict', 409, 'Suggestion s is already rejected.');
    expect(await a.bringBack(['s'])).toEqual([]);
    expect(lanes(a, 'spam')).toEqual(['s']);
    expect(toastTexts(a)[0]).toBe('Could not bring “Card s” back. Suggestion s is already rejected.');
  });

  it('approving without edits sends the fields the content proposes', async () => {
    const assessment = { approve: -1, spam: -1, due: '2026-11-27T00:00:00Z', all_day: true };
    const { api, a } = setupCards(sug('inv', { proposed_kind: 'task', assessment }), sug('b', { assessment }));
    const sent: Approve[] = [];
    const approve = api.approve;
    api.approve = async (id, body) => (sent.push(body), approve(id, body));
    await vi.runAllTimersAsync();
    await a.decide(['inv'], { as: 'task' });
    // Edits from the approve preview replace the proposal; a note has no date.
    await a.decide(['b'], { as: 'note' });
    expect(sent).toEqual([{ as: 'task', due: expect.stringMatching(/^2026-11-2[67]$/) }, { as: 'note' }]);
  });
});

describe('loading while the stream connects', () => {
  it('loads again once the stream says hello, so what changed before it subscribed is not missed', async () => {
    const { api, a, sink } = setup();
    await vi.runAllTimersAsync(); // the first load: no scout yet
    expect(a.store.state.scouts.items).toEqual({});
    // A definitions file made a scout while the page loaded, before the
    // stream subscribed: no event will tell of it.
    api.scouts = async () => [scout('sc_file', { name: 'Scans' })];
    sink().event({ type: 'hello', data: { paused: false } as never });
    await vi.runAllTimersAsync();
    expect(Object.keys(a.store.state.scouts.items)).toEqual(['sc_file']);
    // A later hello (a reconnection resuming from its last id) does not
    // load everything again.
    api.scouts = async () => [];
    sink().event({ type: 'hello', data: { paused: false } as never });
    await vi.runAllTimersAsync();
    expect(Object.keys(a.store.state.scouts.items)).toEqual(['sc_file']);
  });

  it('keeps the newer load when an older one answers last', async () => {
    const api = new FakeApi();
    let sink!: StreamSink;
    let answerFirst!: () => void;
    const firstGate = new Promise<void>((r) => (answerFirst = r));
    let n = 0;
    api.scouts = async () => {
      n++;
      if (n === 1) {
        await firstGate;
        return [];
      }
      return [scout('sc_new')];
    };
    const a = new Actions(api, { start: (s) => ((sink = s), () => {}) });
    a.start(); // first load, held
    sink.event({ type: 'hello', data: { paused: false } as never }); // second load
    await vi.runAllTimersAsync();
    expect(Object.keys(a.store.state.scouts.items)).toEqual(['sc_new']);
    answerFirst();
    await vi.runAllTimersAsync();
    expect(Object.keys(a.store.state.scouts.items)).toEqual(['sc_new']);
  });
});
