// The one place where live events enter the UI. In a browser they come from
// the agent's Server-Sent Events stream; in the desktop window (Wails) the
// window process subscribes to the stream in Go and re-emits each event as a
// Wails runtime event, because Wails' asset server cannot stream. Both
// implementations feed the same sink, so nothing else knows the difference.

import type { StreamEvent, StreamEventType } from './types';
import { API_BASE, STREAM_EVENTS } from './types';

export type StreamState = 'connecting' | 'open' | 'down';

export interface StreamSink {
  event(ev: StreamEvent): void;
  state(s: StreamState): void;
}

export interface StreamSource {
  /** Starts delivering to sink; returns a function that stops. */
  start(sink: StreamSink): () => void;
}

const known = new Set<string>(STREAM_EVENTS);

/** Decodes one event; undefined for types this UI does not know or data
 * that is not JSON (ignored rather than crashing the page). */
export function decodeEvent(type: string, data: unknown, id?: string): StreamEvent | undefined {
  if (!known.has(type)) return undefined;
  let parsed = data;
  if (typeof data === 'string') {
    try {
      parsed = JSON.parse(data);
    } catch {
      return undefined;
    }
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  return { type: type as StreamEventType, data: parsed, id } as StreamEvent;
}

// ---- Browser: EventSource ------------------------------------------------

/** The part of EventSource we use, so tests can pass a fake. */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((ev: Event) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
  addEventListener(type: string, fn: (ev: MessageEvent) => void): void;
  close(): void;
}

export type EventSourceCtor = new (url: string, init?: EventSourceInit) => EventSourceLike;

export interface EventSourceOptions {
  url?: string;
  EventSource?: EventSourceCtor;
  /** Delay before reconnecting after the n-th failure in a row (from 1). */
  backoff?: (n: number) => number;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (t: unknown) => void;
}

const CLOSED = 2;

export function defaultBackoff(n: number): number {
  return Math.min(1000 * 2 ** (n - 1), 15000);
}

/** EventSource reconnects by itself after network errors (and resends
 * Last-Event-ID). It gives up for good on an HTTP error, such as 401 or the
 * agent answering something else: then we start a new one, with backoff,
 * resuming from the last id we saw. */
export function eventSourceStream(opts: EventSourceOptions = {}): StreamSource {
  const url = opts.url ?? API_BASE + '/stream';
  const ES = opts.EventSource ?? (globalThis.EventSource as unknown as EventSourceCtor);
  const backoff = opts.backoff ?? defaultBackoff;
  const setT = opts.setTimeout ?? ((fn, ms) => globalThis.setTimeout(fn, ms));
  const clearT = opts.clearTimeout ?? ((t) => globalThis.clearTimeout(t as number));

  return {
    start(sink) {
      let es: EventSourceLike | undefined;
      let lastId = '';
      let failures = 0;
      let timer: unknown;
      let stopped = false;

      const open = () => {
        const u = lastId ? `${url}${url.includes('?') ? '&' : '?'}last_event_id=${encodeURIComponent(lastId)}` : url;
        sink.state('connecting');
        const src = new ES(u, { withCredentials: true });
        es = src;
        src.onopen = () => {
          failures = 0;
          sink.state('open');
        };
        src.onerror = () => {
          if (stopped || es !== src) return;
          sink.state('down');
          if (src.readyState === CLOSED) {
            src.close();
            failures++;
            timer = setT(open, backoff(failures));
          }
        };
        for (const type of STREAM_EVENTS) {
          src.addEventListener(type, (m: MessageEvent) => {
            if (m.lastEventId) lastId = m.lastEventId;
            const ev = decodeEvent(type, m.data, m.lastEventId || undefined);
            if (ev) sink.event(ev);
          });
        }
      };
      open();
      return () => {
        stopped = true;
        clearT(timer);
        es?.close();
      };
    },
  };
}

// ---- Desktop window: Wails runtime events --------------------------------

/** The Wails runtime's event functions (window.runtime in a Wails page). */
export interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): (() => void) | void;
  EventsOff?(name: string, ...more: string[]): void;
}

/** Names of the Wails events the window process emits: each stream event
 * as {type, data, id}, and the state of its own connection to the agent. */
export const WAILS_EVENT = 'scouts:stream';
export const WAILS_STATE = 'scouts:stream-state';

export function wailsStream(rt: WailsRuntime): StreamSource {
  return {
    start(sink) {
      sink.state('connecting');
      const offs: Array<() => void> = [];
      const on = (name: string, cb: (...d: unknown[]) => void) => {
        const off = rt.EventsOn(name, cb);
        offs.push(typeof off === 'function' ? off : () => rt.EventsOff?.(name));
      };
      on(WAILS_EVENT, (msg) => {
        const m = msg as { type?: string; data?: unknown; id?: string | number } | undefined;
        if (!m || typeof m.type !== 'string') return;
        const ev = decodeEvent(m.type, m.data, m.id === undefined ? undefined : String(m.id));
        if (ev) sink.event(ev);
      });
      on(WAILS_STATE, (s) => {
        if (s === 'open' || s === 'down' || s === 'connecting') sink.state(s);
      });
      return () => offs.forEach((off) => off());
    },
  };
}

/** The stream for where the page runs: Wails runtime events when the page
 * is in the desktop window, EventSource otherwise. */
export function pickStream(w: unknown = globalThis): StreamSource {
  const rt = (w as { runtime?: WailsRuntime }).runtime;
  if (rt && typeof rt.EventsOn === 'function') return wailsStream(rt);
  return eventSourceStream();
}
