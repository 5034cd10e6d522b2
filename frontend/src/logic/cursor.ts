// The inbox's cursor and multi-selection, as a pure reducer: which card is
// current, which are selected, and what happens to both when cards come
// and go under them (a decision removes the current card; a new one
// arrives live).

export interface Cursor {
  /** Card ids in display order. */
  readonly ids: readonly string[];
  /** The current card (keyboard focus), or null when there are none. */
  readonly current: string | null;
  readonly selected: ReadonlySet<string>;
}

export type CursorAction =
  | { type: 'sync'; ids: readonly string[] }
  | { type: 'move'; delta: 1 | -1; extend?: boolean }
  | { type: 'focus'; id: string }
  | { type: 'toggle'; id?: string }
  | { type: 'selectAll' }
  | { type: 'clear' };

export const emptyCursor: Cursor = { ids: [], current: null, selected: new Set() };

export function cursorReducer(s: Cursor, a: CursorAction): Cursor {
  switch (a.type) {
    case 'sync':
      return sync(s, a.ids);
    case 'move': {
      if (s.ids.length === 0) return s;
      const i = s.current === null ? -1 : s.ids.indexOf(s.current);
      const j = Math.max(0, Math.min(s.ids.length - 1, i + a.delta));
      const next = s.ids[j]!;
      if (!a.extend) return next === s.current ? s : { ...s, current: next };
      // Shift+j/k: select as you go, starting with the card you leave.
      const selected = new Set(s.selected);
      if (s.current !== null) selected.add(s.current);
      selected.add(next);
      return { ...s, current: next, selected };
    }
    case 'focus':
      return s.ids.includes(a.id) && a.id !== s.current ? { ...s, current: a.id } : s;
    case 'toggle': {
      const id = a.id ?? s.current;
      if (id === null || !s.ids.includes(id)) return s;
      const selected = new Set(s.selected);
      if (selected.has(id)) selected.delete(id);
      else selected.add(id);
      return { ...s, selected };
    }
    case 'selectAll':
      return { ...s, selected: new Set(s.ids) };
    case 'clear':
      return s.selected.size === 0 ? s : { ...s, selected: new Set() };
  }
}

/** Keeps the cursor on the same card when it is still there; when it left
 * (decided, here or elsewhere), the card that slid into its place becomes
 * current, so approving card after card needs no movement keys. */
function sync(s: Cursor, ids: readonly string[]): Cursor {
  let current = s.current;
  if (ids.length === 0) {
    current = null;
  } else if (current === null) {
    current = ids[0]!;
  } else if (!ids.includes(current)) {
    const old = s.ids.indexOf(current);
    // The first card after the old position that is still here.
    let next: string | undefined;
    if (old >= 0) {
      const still = new Set(ids);
      next = s.ids.slice(old + 1).find((id) => still.has(id));
      if (next === undefined)
        next = s.ids
          .slice(0, old)
          .reverse()
          .find((id) => still.has(id));
    }
    current = next ?? ids[Math.min(Math.max(old, 0), ids.length - 1)]!;
  }
  let selected = s.selected;
  if ([...selected].some((id) => !ids.includes(id))) {
    selected = new Set([...selected].filter((id) => ids.includes(id)));
  }
  return { ids, current, selected };
}

/** What an action key applies to: the selected cards in display order, or
 * the current card when nothing is selected. */
export function targets(s: Cursor): string[] {
  if (s.selected.size > 0) return s.ids.filter((id) => s.selected.has(id));
  return s.current === null ? [] : [s.current];
}
