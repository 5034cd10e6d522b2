import { describe, expect, it } from 'vitest';
import {
  decodeEvent,
  eventSourceStream,
  pickStream,
  WAILS_EVENT,
  WAILS_STATE,
  wailsStream,
  type EventSourceLike,
  type StreamState,
} from './stream';
import type { StreamEvent } from './types';

class FakeES implements EventSourceLike {
  static made: FakeES[] = [];
  readyState = 0;
  onopen: ((ev: Event) => unknown) | null = null;
  onerror: ((ev: Event) => unknown) | null = null;
  listeners = new Map<string, Array<(m: MessageEvent) => void>>();
  closed = false;
  constructor(
    public url: string,
    public init?: EventSourceInit,
  ) {
    FakeES.made.push(this);
  }
  addEventListener(type: string, fn: (m: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  // What the server does:
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  send(type: string, data: string, id = '') {
    for (const fn of this.listeners.get(type) ?? []) fn({ data, lastEventId: id } as MessageEvent);
  }
  drop(forGood: boolean) {
    this.readyState = forGood ? 2 : 0;
    this.onerror?.(new Event('error'));
  }
}

function harness() {
  FakeES.made = [];
  const events: StreamEvent[] = [];
  const states: StreamState[] = [];
  const timers: Array<{ fn: () => void; ms: number; cancelled?: boolean }> = [];
  const src = eventSourceStream({
    url: '/api/v1/stream',
    EventSource: FakeES,
    setTimeout: (fn, ms) => {
      const t = { fn, ms };
      timers.push(t);
      return t;
    },
    clearTimeout: (t) => {
      if (t) (t as { cancelled?: boolean }).cancelled = true;
    },
  });
  const stop = src.start({ event: (e) => events.push(e), state: (s) => states.push(s) });
  return { events, states, timers, stop, es: () => FakeES.made[FakeES.made.length - 1]! };
}

describe('the EventSource stream', () => {
  it('delivers the agent’s events, typed and parsed', () => {
    const h = harness();
    h.es().open();
    h.es().send('hello', '{"version":"v1","paused":false}', '7');
    h.es().send('suggestion.created', '{"id":"sg_1","title":"Meeting notes","status":"pending"}', '8');
    h.es().send('entity.deleted', '{"id":"tk_1","kind":"task"}', '9');
    expect(h.events.map((e) => e.type)).toEqual(['hello', 'suggestion.created', 'entity.deleted']);
    expect(h.events[1]).toEqual({
      type: 'suggestion.created',
      id: '8',
      data: { id: 'sg_1', title: 'Meeting notes', status: 'pending' },
    });
    expect(h.es().init?.withCredentials).toBe(true);
  });

  it('listens to every event type the UI handles, and ignores broken data', () => {
    const h = harness();
    for (const t of [
      'reset',
      'suggestion.resolved',
      'suggestion.undone',
      'entity.created',
      'entity.updated',
      'scout.updated',
      'scout.deleted',
      'scout.run',
      'scout.watch',
      'settings.updated',
      'scouts.paused',
      'definitions.reconciled',
    ]) {
      expect(h.es().listeners.has(t), t).toBe(true);
    }
    h.es().send('scout.run', 'not json');
    expect(h.events).toEqual([]);
  });

  it('reports the connection: connecting, open, down during a blip, open again', () => {
    const h = harness();
    h.es().open();
    h.es().drop(false); // EventSource retries by itself
    h.es().open();
    expect(h.states).toEqual(['connecting', 'open', 'down', 'open']);
    expect(FakeES.made).toHaveLength(1);
    expect(h.timers).toHaveLength(0);
  });

  it('reconnects after EventSource gives up, resuming after the last event seen', () => {
    const h = harness();
    h.es().open();
    h.es().send('suggestion.created', '{"id":"sg_1"}', '41');
    h.es().drop(true);
    const first = h.es();
    expect(first.closed).toBe(true);
    expect(h.timers.map((t) => t.ms)).toEqual([1000]);
    h.timers[0]!.fn();
    expect(h.es()).not.toBe(first);
    expect(h.es().url).toBe('/api/v1/stream?last_event_id=41');
    // Failing again backs off further.
    h.es().drop(true);
    expect(h.timers.map((t) => t.ms)).toEqual([1000, 2000]);
    h.timers[1]!.fn();
    h.es().open();
    h.es().drop(true);
    expect(h.timers[2]!.ms).toBe(1000);
  });

  it('stops: closes the connection and cancels a pending reconnect', () => {
    const h = harness();
    h.es().drop(true);
    h.stop();
    expect(h.timers[0]!.cancelled).toBe(true);
    expect(h.es().closed).toBe(true);
  });
});

describe('the Wails stream', () => {
  function fakeRuntime() {
    const handlers = new Map<string, (...d: unknown[]) => void>();
    const offs: string[] = [];
    return {
      handlers,
      offs,
      EventsOn(name: string, cb: (...d: unknown[]) => void) {
        handlers.set(name, cb);
        return () => offs.push(name);
      },
    };
  }

  it('delivers runtime events the window re-emits, with data as object or JSON', () => {
    const rt = fakeRuntime();
    const events: StreamEvent[] = [];
    const states: StreamState[] = [];
    const stop = wailsStream(rt).start({ event: (e) => events.push(e), state: (s) => states.push(s) });
    rt.handlers.get(WAILS_STATE)!('open');
    rt.handlers.get(WAILS_EVENT)!({ type: 'scouts.paused', data: { paused: true }, id: 5 });
    rt.handlers.get(WAILS_EVENT)!({ type: 'scout.deleted', data: '{"id":"sc_1"}' });
    rt.handlers.get(WAILS_EVENT)!({ type: 'not.ours', data: {} });
    rt.handlers.get(WAILS_EVENT)!(undefined);
    expect(states).toEqual(['connecting', 'open']);
    expect(events).toEqual([
      { type: 'scouts.paused', data: { paused: true }, id: '5' },
      { type: 'scout.deleted', data: { id: 'sc_1' }, id: undefined },
    ]);
    stop();
    expect(rt.offs.sort()).toEqual([WAILS_EVENT, WAILS_STATE].sort());
  });

  it('is chosen when the page runs in the window', () => {
    const rt = fakeRuntime();
    pickStream({ runtime: rt }).start({ event: () => {}, state: () => {} });
    expect(rt.handlers.has(WAILS_EVENT)).toBe(true);
  });
});

describe('decodeEvent', () => {
  it('accepts known types with object data only', () => {
    expect(decodeEvent('reset', '{}')).toEqual({ type: 'reset', data: {}, id: undefined });
    expect(decodeEvent('reset', 'null')).toBeUndefined();
    expect(decodeEvent('whatever', '{}')).toBeUndefined();
  });
});
