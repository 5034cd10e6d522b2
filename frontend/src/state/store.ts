// Holds the AppState, tells views when it changes, and reconciles lists
// fetched over HTTP with events that arrive on the stream meanwhile: a list
// can be older than an event that overtook it, so events received while a
// fetch was in flight are applied again on top of its result.

import type { StreamEvent } from '../api/types';
import { applyEvent, initialState, type AppState } from './model';

export class Store {
  private s: AppState = initialState();
  private subs = new Set<() => void>();
  /** Events received while at least one fetch is in flight. */
  private journal: StreamEvent[] = [];
  private inflight = 0;

  get state(): AppState {
    return this.s;
  }

  subscribe(fn: () => void): () => void {
    this.subs.add(fn);
    return () => this.subs.delete(fn);
  }

  update(fn: (s: AppState) => AppState): void {
    const next = fn(this.s);
    if (next === this.s) return;
    this.s = next;
    for (const fn of this.subs) fn();
  }

  /** Applies a live event. */
  event(ev: StreamEvent): void {
    if (this.inflight > 0) this.journal.push(ev);
    this.update((s) => applyEvent(s, ev));
  }

  /** Fetches with get and stores the result with put, then re-applies the
   * events that arrived during the fetch. */
  async load<T>(get: () => Promise<T>, put: (s: AppState, v: T) => AppState): Promise<T> {
    const from = this.journal.length;
    this.inflight++;
    try {
      const v = await get();
      const missed = this.journal.slice(from);
      this.update((s) => missed.reduce(applyEvent, put(s, v)));
      return v;
    } finally {
      if (--this.inflight === 0) this.journal = [];
    }
  }
}
