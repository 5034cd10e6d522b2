import { describe, expect, it } from 'vitest';
import { cursorReducer, emptyCursor, targets, type Cursor, type CursorAction } from './cursor';

const run = (s: Cursor, ...as: CursorAction[]) => as.reduce(cursorReducer, s);
const at = (ids: string[], current: string | null = ids[0] ?? null, selected: string[] = []): Cursor => ({
  ids,
  current,
  selected: new Set(selected),
});

describe('the inbox cursor', () => {
  it('starts on the first card when cards arrive', () => {
    expect(run(emptyCursor, { type: 'sync', ids: ['a', 'b'] }).current).toBe('a');
  });

  it('moves with j and k and stops at the ends', () => {
    const s = at(['a', 'b', 'c']);
    expect(run(s, { type: 'move', delta: 1 }).current).toBe('b');
    expect(run(s, { type: 'move', delta: 1 }, { type: 'move', delta: 1 }, { type: 'move', delta: 1 }).current).toBe(
      'c',
    );
    expect(run(s, { type: 'move', delta: -1 }).current).toBe('a');
  });

  it('lands on the card that slid into place when the current one is decided', () => {
    const s = at(['a', 'b', 'c'], 'b');
    expect(run(s, { type: 'sync', ids: ['a', 'c'] }).current).toBe('c');
  });

  it('falls back to the previous card when the last one is decided', () => {
    const s = at(['a', 'b', 'c'], 'c');
    expect(run(s, { type: 'sync', ids: ['a', 'b'] }).current).toBe('b');
  });

  it('stays on its card when a new one arrives before it', () => {
    const s = at(['b', 'c'], 'c');
    expect(run(s, { type: 'sync', ids: ['a', 'b', 'c'] }).current).toBe('c');
  });

  it('skips over several decided cards at once (a bulk decision)', () => {
    const s = at(['a', 'b', 'c', 'd'], 'b');
    expect(run(s, { type: 'sync', ids: ['a', 'd'] }).current).toBe('d');
  });

  it('is empty when the last card goes', () => {
    expect(run(at(['a']), { type: 'sync', ids: [] }).current).toBeNull();
  });

  it('toggles the selection with space and acts on the selection, in list order', () => {
    let s = at(['a', 'b', 'c']);
    s = run(s, { type: 'move', delta: 1 }, { type: 'toggle' }, { type: 'move', delta: -1 }, { type: 'toggle' });
    expect([...s.selected].sort()).toEqual(['a', 'b']);
    expect(targets(s)).toEqual(['a', 'b']);
    s = run(s, { type: 'toggle' });
    expect(targets(s)).toEqual(['b']);
  });

  it('acts on the current card when nothing is selected', () => {
    expect(targets(at(['a', 'b'], 'b'))).toEqual(['b']);
    expect(targets(emptyCursor)).toEqual([]);
  });

  it('extends the selection with shift+j, starting with the card left', () => {
    const s = run(
      at(['a', 'b', 'c']),
      { type: 'move', delta: 1, extend: true },
      { type: 'move', delta: 1, extend: true },
    );
    expect(s.current).toBe('c');
    expect(targets(s)).toEqual(['a', 'b', 'c']);
  });

  it('selects all and clears', () => {
    const s = run(at(['a', 'b']), { type: 'selectAll' });
    expect(targets(s)).toEqual(['a', 'b']);
    expect(run(s, { type: 'clear' }).selected.size).toBe(0);
  });

  it('drops decided cards from the selection', () => {
    const s = run(at(['a', 'b', 'c'], 'a', ['a', 'c']), { type: 'sync', ids: ['b', 'c'] });
    expect(targets(s)).toEqual(['c']);
  });

  it('ignores focus on a card that is not in the list', () => {
    const s = at(['a']);
    expect(run(s, { type: 'focus', id: 'zz' })).toBe(s);
  });
});
