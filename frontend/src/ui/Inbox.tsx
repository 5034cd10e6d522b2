import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import type { EntityKind } from '../api/types';
import { cursorReducer, emptyCursor, targets } from '../logic/cursor';
import type { Command } from '../logic/keys';
import { plural } from '../logic/format';
import { pendingCards, type AppState } from '../state/model';
import { ApproveDialog } from './ApproveDialog';
import { BulkBar } from './BulkBar';
import { Card, type CardCommand } from './Card';
import { ContentDialog } from './ContentDialog';
import { InboxEmpty } from './InboxEmpty';
import { useActions, useNow } from './hooks';

interface Props {
  s: AppState;
  /** Receives the keyboard commands while the inbox shows. */
  keys: { current: ((c: Command) => boolean) | null };
}

export function Inbox({ s, keys }: Props) {
  const actions = useActions();
  const now = useNow();
  const cards = useMemo(() => pendingCards(s), [s.suggestions, s.deciding]);
  const ids = useMemo(() => cards.map((c) => c.id), [cards]);
  const [cur, dispatch] = useReducer(cursorReducer, emptyCursor);
  const [why, setWhy] = useState<ReadonlySet<string>>(new Set());
  const [editing, setEditing] = useState<{ id: string; as: EntityKind } | null>(null);
  const [opened, setOpened] = useState<string | null>(null);
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => dispatch({ type: 'sync', ids }), [ids]);

  // After an undo, the card that came back becomes current.
  useEffect(() => {
    if (s.focus && ids.includes(s.focus)) {
      dispatch({ type: 'focus', id: s.focus });
      actions.clearFocus();
    }
  }, [s.focus, ids]);

  // Keyboard focus follows the cursor, unless the person is elsewhere (a
  // form field, the navigation): then we do not pull focus away.
  const dialogOpen = editing !== null || opened !== null;
  useEffect(() => {
    if (!cur.current || dialogOpen) return;
    const a = document.activeElement;
    const inList = !!a && !!listRef.current?.contains(a);
    const idle = !a || a === document.body || (a as HTMLElement).id === 'main' || (a as HTMLElement).id === 'inbox-h';
    if (!inList && !idle) return;
    const el = document.getElementById(`card-${cur.current}`);
    if (el && !el.contains(a)) {
      el.focus({ preventScroll: true });
      el.scrollIntoView({ block: 'nearest' });
    }
  }, [cur.current, dialogOpen]);

  const state = useRef({ cur, cards, s });
  state.current = { cur, cards, s };

  const run = useCallback(
    (ids: string[], c: CardCommand) => {
      const first = ids[0];
      if (!first) return;
      const sg = state.current.s.suggestions.items[first];
      switch (c.type) {
        case 'approve':
          void actions.decide(ids, { as: c.as });
          break;
        case 'reject':
          void actions.decide(ids, 'reject');
          break;
        case 'edit':
          if (sg) setEditing({ id: first, as: sg.proposed_kind });
          break;
        case 'open':
          setOpened(first);
          break;
        case 'why':
          setWhy((w) => {
            const n = new Set(w);
            if (n.has(first)) n.delete(first);
            else n.add(first);
            return n;
          });
          break;
      }
    },
    [actions],
  );

  const onCommand = useCallback(
    (id: string, c: CardCommand) => {
      dispatch({ type: 'focus', id });
      // A button on a card acts on that card, or on the selection when the
      // card is part of it.
      const { cur } = state.current;
      const t = cur.selected.has(id) && (c.type === 'approve' || c.type === 'reject') ? targets(cur) : [id];
      run(t, c);
    },
    [run],
  );
  const onSelect = useCallback((id: string) => dispatch({ type: 'toggle', id }), []);
  const onFocus = useCallback((id: string) => dispatch({ type: 'focus', id }), []);

  keys.current = (k: Command): boolean => {
    if (dialogOpen) return false;
    const t = targets(cur);
    switch (k.type) {
      case 'next':
      case 'prev':
        dispatch({ type: 'move', delta: k.type === 'next' ? 1 : -1, extend: k.extend });
        return true;
      case 'approve':
        if (k.edit && t.length === 1) setEditing({ id: t[0]!, as: k.as });
        else run(t, { type: 'approve', as: k.as });
        return true;
      case 'edit':
        run(cur.current ? [cur.current] : [], { type: 'edit' });
        return true;
      case 'reject':
        run(t, { type: 'reject' });
        return true;
      case 'open':
      case 'why':
        run(cur.current ? [cur.current] : [], { type: k.type });
        return true;
      case 'toggle':
        dispatch({ type: 'toggle' });
        return true;
      case 'selectAll':
        dispatch({ type: 'selectAll' });
        return true;
      case 'escape':
        if (cur.selected.size > 0) dispatch({ type: 'clear' });
        else if (cur.current && why.has(cur.current)) run([cur.current], { type: 'why' });
        else return false;
        return true;
      default:
        return false;
    }
  };
  useEffect(
    () => () => {
      keys.current = null;
    },
    [],
  );

  const loading = !s.suggestions.loaded;
  const editSg = editing ? s.suggestions.items[editing.id] : undefined;
  const openSg = opened ? s.suggestions.items[opened] : undefined;

  return (
    <section class="view" aria-labelledby="inbox-h">
      <header class="view-head">
        <h1 id="inbox-h" tabIndex={-1}>
          Inbox
        </h1>
        {!loading && (
          <p class="muted">
            {cards.length === 0 ? 'Nothing waiting' : plural(cards.length, 'suggestion') + ' to review'}
          </p>
        )}
        <button
          type="button"
          class="quiet small-btn"
          onClick={() => document.dispatchEvent(new CustomEvent('scouts:help'))}
        >
          Shortcuts <kbd>?</kbd>
        </button>
      </header>
      {cur.selected.size > 0 && (
        <BulkBar
          count={cur.selected.size}
          onApprove={(as) => run(targets(cur), { type: 'approve', as })}
          onReject={() => run(targets(cur), { type: 'reject' })}
          onClear={() => dispatch({ type: 'clear' })}
        />
      )}
      {loading && !s.problem && (
        <p class="muted" aria-busy="true">
          Loading suggestions…
        </p>
      )}
      {!loading && cards.length === 0 && <InboxEmpty s={s} />}
      {cards.length > 0 && (
        <ol class="cards" ref={listRef} aria-label="Suggestions, oldest first">
          {cards.map((sg) => (
            <li key={sg.id}>
              <Card
                sg={sg}
                scout={s.scouts.items[sg.scout_id]}
                home={s.home}
                now={now}
                current={sg.id === cur.current}
                selected={cur.selected.has(sg.id)}
                whyOpen={why.has(sg.id)}
                onCommand={onCommand}
                onSelect={onSelect}
                onFocus={onFocus}
              />
            </li>
          ))}
        </ol>
      )}
      {editSg && editing && (
        <ApproveDialog
          s={s}
          sg={editSg}
          initialAs={editing.as}
          onClose={() => setEditing(null)}
          onDone={() => setEditing(null)}
        />
      )}
      {openSg && <ContentDialog sg={openSg} home={s.home} onClose={() => setOpened(null)} />}
    </section>
  );
}
