import { describe, expect, it } from 'vitest';
import type { Suggestion } from '../api/types';
import { applyEvent, initialState, pendingCards, replaceAll } from './model';
import { Store } from './store';
import { ent, scout, sug } from './testdata';

describe('applying live events', () => {
  it('follows a card from created to resolved to undone', () => {
    let s = initialState();
    s = applyEvent(s, { type: 'suggestion.created', data: sug('a') });
    s = applyEvent(s, { type: 'suggestion.created', data: sug('b', { created_at: '2026-11-22T08:00:00Z' }) });
    expect(pendingCards(s).map((c) => c.id)).toEqual(['b', 'a']); // oldest first
    s = applyEvent(s, { type: 'suggestion.resolved', data: sug('a', { status: 'rejected' }) });
    expect(pendingCards(s).map((c) => c.id)).toEqual(['b']);
    s = applyEvent(s, { type: 'suggestion.undone', data: sug('a') });
    expect(pendingCards(s).map((c) => c.id)).toEqual(['b', 'a']);
  });

  it('is idempotent: the same event twice changes nothing more', () => {
    const ev = { type: 'entity.created', data: ent('tk_1') } as const;
    const once = applyEvent(initialState(), ev);
    expect(applyEvent(once, ev).entities.task).toEqual(once.entities.task);
  });

  it('keeps entity lists, scouts, settings and pause in step', () => {
    let s = initialState();
    s = applyEvent(s, { type: 'entity.created', data: ent('tk_1') });
    s = applyEvent(s, { type: 'entity.updated', data: ent('tk_1', { title: 'Renamed' }) });
    expect(s.entities.task.items.tk_1!.title).toBe('Renamed');
    s = applyEvent(s, { type: 'entity.deleted', data: { id: 'tk_1', kind: 'task' } });
    expect(s.entities.task.items).toEqual({});
    s = applyEvent(s, { type: 'scout.updated', data: scout('sc_1') });
    s = applyEvent(s, { type: 'suggestion.created', data: sug('a', { scout_id: 'sc_1' }) });
    s = applyEvent(s, { type: 'suggestion.created', data: sug('b', { scout_id: 'sc_2' }) });
    s = applyEvent(s, { type: 'scout.deleted', data: { id: 'sc_1' } });
    expect(s.scouts.items).toEqual({});
    expect(pendingCards(s).map((c) => c.id)).toEqual(['b']); // the agent forgot a's card
    s = applyEvent(s, { type: 'settings.updated', data: { notifications: false, autostart: true } });
    expect(s.settings?.autostart).toBe(true);
    s = applyEvent(s, { type: 'hello', data: { paused: false } as never });
    s = applyEvent(s, { type: 'scouts.paused', data: { paused: true } });
    expect(s.status?.paused).toBe(true);
  });

  it('hides cards whose decision is on its way', () => {
    let s = applyEvent(initialState(), { type: 'suggestion.created', data: sug('a') });
    s = { ...s, deciding: { a: true } };
    expect(pendingCards(s)).toEqual([]);
  });
});

describe('the store', () => {
  it('re-applies events that arrived while a list was being fetched', async () => {
    const st = new Store();
    let answer!: (v: Suggestion[]) => void;
    const loading = st.load(
      () => new Promise<Suggestion[]>((r) => (answer = r)),
      (s, list) => ({ ...s, suggestions: replaceAll(list) }),
    );
    // While the request is out, b arrives and a is rejected...
    st.event({ type: 'suggestion.created', data: sug('b') });
    st.event({ type: 'suggestion.resolved', data: sug('a', { status: 'rejected' }) });
    // ...and the list, computed before either, still shows a pending.
    answer([sug('a')]);
    await loading;
    expect(pendingCards(st.state).map((c) => c.id)).toEqual(['b']);
  });

  it('tells subscribers about changes, and only about changes', () => {
    const st = new Store();
    let n = 0;
    const off = st.subscribe(() => n++);
    st.update((s) => s);
    st.event({ type: 'suggestion.created', data: sug('a') });
    off();
    st.event({ type: 'suggestion.created', data: sug('b') });
    expect(n).toBe(1);
  });
});
