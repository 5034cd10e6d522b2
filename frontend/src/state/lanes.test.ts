import { describe, expect, it } from 'vitest';
import type { Status, Suggestion } from '../api/types';
import { applyEvent, initialState, laneCards, laneCounts, replaceAll, type AppState } from './model';
import { sug } from './testdata';

const status = (lanes: Status['lanes'], pending = lanes?.inbox ?? 0) => ({ pending, lanes }) as Status;

function loaded(cards: Suggestion[], over: Partial<AppState> = {}): AppState {
  return { ...initialState(), suggestions: replaceAll(cards), ...over };
}

const likely = (p: number) => ({ approve: p, spam: -1 });

describe('lane counts', () => {
  it('come from the status until the cards are loaded, then from the cards, live', () => {
    let s = initialState();
    expect(laneCounts(s)).toBeUndefined();
    s = applyEvent(s, { type: 'hello', data: status({ inbox: 2, screened: 5, spam: 9 }) });
    expect(laneCounts(s)).toEqual({ inbox: 2, screened: 5, spam: 9, snoozed: 0 });

    s = { ...s, suggestions: replaceAll([sug('a'), sug('b', { lane: 'screened' })]) };
    expect(laneCounts(s)).toEqual({ inbox: 1, screened: 1, spam: 0, snoozed: 0 });

    // Arrives in Spam, is brought back, then marked as spam by the person.
    s = applyEvent(s, { type: 'suggestion.created', data: sug('c', { lane: 'spam' }) });
    expect(laneCounts(s)).toEqual({ inbox: 1, screened: 1, spam: 1, snoozed: 0 });
    s = applyEvent(s, { type: 'suggestion.moved', data: sug('c', { lane: 'inbox', rescued: 'spam' }) });
    expect(laneCounts(s)).toEqual({ inbox: 2, screened: 1, spam: 0, snoozed: 0 });
    s = applyEvent(s, { type: 'suggestion.resolved', data: sug('c', { lane: 'spam', status: 'rejected' }) });
    expect(laneCounts(s)).toEqual({ inbox: 1, screened: 1, spam: 0, snoozed: 0 });
    // Undone: back where it waited.
    s = applyEvent(s, { type: 'suggestion.undone', data: sug('c', { lane: 'inbox' }) });
    expect(laneCounts(s)).toEqual({ inbox: 2, screened: 1, spam: 0, snoozed: 0 });
    // The same event twice changes nothing.
    s = applyEvent(s, { type: 'suggestion.undone', data: sug('c', { lane: 'inbox' }) });
    expect(laneCounts(s)).toEqual({ inbox: 2, screened: 1, spam: 0, snoozed: 0 });
  });

  it('leave out cards being decided', () => {
    const s = loaded([sug('a'), sug('b')], { deciding: { a: true } });
    expect(laneCounts(s)).toEqual({ inbox: 1, screened: 0, spam: 0, snoozed: 0 });
  });

  it('trust the agent for a lane too long to hold whole', () => {
    const cards = [sug('a'), sug('p1', { lane: 'spam' }), sug('p2', { lane: 'spam' })];
    const s = loaded(cards, { status: status({ inbox: 7, screened: 0, spam: 1200 }), truncated: { spam: true } });
    // The inbox is held whole: its own cards count, not a stale status.
    expect(laneCounts(s)).toEqual({ inbox: 1, screened: 0, spam: 1200, snoozed: 0 });
  });

  it('read an agent before lanes: every pending card is in the inbox', () => {
    const s = loaded([sug('a'), sug('b')], { status: { pending: 2 } as Status });
    expect(laneCounts(s)).toEqual({ inbox: 2, screened: 0, spam: 0, snoozed: 0 });
    expect(laneCounts({ ...initialState(), status: { pending: 4 } as Status })).toEqual({
      inbox: 4,
      screened: 0,
      spam: 0,
      snoozed: 0,
    });
  });
});

describe('lane cards', () => {
  it('list the cards most likely approved first, unscored ones after, oldest first', () => {
    const at = (m: number) => `2026-11-22T09:0${m}:00Z`;
    const s = loaded([
      sug('old-unscored', { created_at: at(0) }),
      sug('low', { created_at: at(1), assessment: likely(0.2) }),
      sug('high', { created_at: at(2), assessment: likely(0.9) }),
      sug('new-unscored', { created_at: at(3) }),
      sug('high-later', { created_at: at(4), assessment: likely(0.9) }),
      sug('screened', { created_at: at(5), lane: 'screened', assessment: likely(0.05) }),
      sug('done', { status: 'approved' }),
    ]);
    expect(laneCards(s, 'inbox').map((c) => c.id)).toEqual(['high', 'high-later', 'low', 'old-unscored', 'new-unscored']);
    expect(laneCards(s, 'screened').map((c) => c.id)).toEqual(['screened']);
    expect(laneCards(s, 'spam')).toEqual([]);
  });
});

describe('snooze', () => {
  it('lists cards back from snooze first in the inbox, and snoozed cards by when they return', () => {
    const s = loaded([
      sug('likely', { assessment: likely(0.9) }),
      sug('back', { assessment: likely(0.1), returned_at: '2026-11-27T09:00:00Z' }),
      sug('later', { lane: 'snoozed', snoozed_until: '2026-12-01T09:00:00Z' }),
      sug('soon', { lane: 'snoozed', snoozed_until: '2026-11-28T08:00:00Z' }),
    ]);
    expect(laneCards(s, 'inbox').map((c) => c.id)).toEqual(['back', 'likely']);
    expect(laneCards(s, 'snoozed').map((c) => c.id)).toEqual(['soon', 'later']);
    expect(laneCounts(s)).toEqual({ inbox: 2, screened: 0, spam: 0, snoozed: 2 });
  });
});
