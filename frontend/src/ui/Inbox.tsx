import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { LANES, type EntityKind, type Lane } from '../api/types';
import { cursorReducer, emptyCursor, targets } from '../logic/cursor';
import type { Command } from '../logic/keys';
import { plural } from '../logic/format';
import { LANE_INTRO, LANE_KEY, LANE_LABEL, learningSummary } from '../logic/lanes';
import { EXPIRED_HREF, laneHref } from '../logic/router';
import { failingList, laneCards, scoutList, type AppState } from '../state/model';
import type { PlanAction } from '../api/plans';
import { ApproveDialog } from './ApproveDialog';
import { BulkBar } from './BulkBar';
import { Card, type CardCommand } from './Card';
import { ContentDialog } from './ContentDialog';
import { InboxEmpty } from './InboxEmpty';
import { SnoozeDialog } from './SnoozeDialog';
import { useActions, useLoad, useNow, useKeyHandler } from './hooks';

const EMPTY_TITLE: Record<Lane, string> = { inbox: 'Nothing waiting', screened: 'Nothing screened', spam: 'No spam', snoozed: 'Nothing snoozed' };
const LANE_SUFFIX: Record<Lane, string> = { inbox: ' to review', screened: ' screened', spam: ' in spam', snoozed: ' snoozed' };
const EMPTY_TEXT: Record<Lane, string> = {
  inbox: '',
  screened: 'Once a scout has learned from your decisions, cards you would almost surely reject wait here instead of in the inbox.',
  spam: 'Cards marked as spam by their source, or that look like what you marked as spam, wait here.',
  snoozed: 'Press z on a card and type when it should come back: “in 3 hours”, “tomorrow morning”, “next week”.',
};

interface Props {
  s: AppState;
  lane: Lane;
  /** Cards per lane, live. */
  counts?: Record<Lane, number>;
  /** Receives the keyboard commands while the inbox shows. */
  keys: { current: ((c: Command) => boolean) | null };
}

export function Inbox({ s, lane, counts, keys }: Props) {
  const actions = useActions();
  const now = useNow();
  const cards = useMemo(() => laneCards(s, lane), [s.suggestions, s.deciding, lane]);
  const ids = useMemo(() => cards.map((c) => c.id), [cards]);
  const failing = useMemo(() => {
    const by: Record<string, PlanAction[]> = {};
    for (const a of failingList(s)) (by[a.suggestion_id ?? ''] ??= []).push(a);
    return by;
  }, [s.failing]);
  const [cur, dispatch] = useReducer(cursorReducer, emptyCursor);
  const [why, setWhy] = useState<ReadonlySet<string>>(new Set());
  const [editing, setEditing] = useState<{ id: string; as: EntityKind } | null>(null);
  const [opened, setOpened] = useState<string | null>(null);
  const [snoozing, setSnoozing] = useState<string[] | null>(null);
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => dispatch({ type: 'sync', ids }), [ids]);

  // The current card's plan: its line says what approving also runs.
  const curId = cur.current;
  const curPlan = useLoad(
    () => (curId ? actions.api.plan(curId) : Promise.resolve(undefined)),
    [curId, curId ? s.planSeq[curId] : 0, s.policies],
  );

  // The lane bar says how far each scout's learner has come.
  const scouts = scoutList(s);
  useEffect(() => actions.ensureLearning(scouts.map((sc) => sc.id)), [scouts.length]);
  const learning = learningSummary(scouts, s.learning);

  // After an undo, the card that came back becomes current.
  useEffect(() => {
    if (s.focus && ids.includes(s.focus)) {
      dispatch({ type: 'focus', id: s.focus });
      actions.clearFocus();
    }
  }, [s.focus, ids]);

  // Keyboard focus follows the cursor, unless the person is elsewhere (a
  // form field, the navigation): then we do not pull focus away.
  const dialogOpen = editing !== null || opened !== null || snoozing !== null;
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
        case 'spam':
          void actions.decide(ids, 'spam');
          break;
        case 'bringBack':
          if (lane === 'snoozed') void actions.unsnooze(ids);
          else void actions.bringBack(ids);
          break;
        case 'screenSender':
          void actions.screenSender(first, c.choice);
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
    [actions, lane],
  );

  const onCommand = useCallback(
    (id: string, c: CardCommand) => {
      dispatch({ type: 'focus', id });
      // A button on a card acts on that card, or on the selection when the
      // card is part of it.
      const { cur } = state.current;
      const bulk = c.type === 'approve' || c.type === 'reject' || c.type === 'spam' || c.type === 'bringBack';
      const t = cur.selected.has(id) && bulk ? targets(cur) : [id];
      run(t, c);
    },
    [run],
  );
  const onSelect = useCallback((id: string) => dispatch({ type: 'toggle', id }), []);
  const onFocus = useCallback((id: string) => dispatch({ type: 'focus', id }), []);

  useKeyHandler(keys, (k: Command): boolean => {
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
      case 'spam':
        run(t, { type: 'spam' });
        return true;
      case 'bringBack':
        // Cards in the inbox are already where b brings them; a snoozed
        // card is taken back now (bringing back would teach).
        if (lane === 'inbox') return false;
        run(t, { type: 'bringBack' });
        return true;
      case 'snooze':
        if (t.length === 0) return false;
        setSnoozing(t);
        return true;
      case 'open':
      case 'why':
        run(cur.current ? [cur.current] : [], { type: k.type });
        return true;
      case 'screenSender': {
        // Only where the card offers the keys: elsewhere + and - do
        // nothing (the API takes any card; a stray key should not).
        const sg = cur.current ? s.suggestions.items[cur.current] : undefined;
        if (!sg?.screener_offer) return false;
        run([sg.id], k);
        return true;
      }
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
  });

  const loading = !s.suggestions.loaded;
  const editSg = editing ? s.suggestions.items[editing.id] : undefined;
  const openSg = opened ? s.suggestions.items[opened] : undefined;

  const below = lane !== 'inbox';
  let summary = '';
  if (!loading) {
    if (lane === 'inbox') summary = cards.length === 0 ? 'Nothing waiting' : plural(cards.length, 'suggestion') + ' to review';
    else if (cards.length === 0) summary = EMPTY_TITLE[lane];
    else summary = plural(counts?.[lane] ?? cards.length, 'card') + LANE_SUFFIX[lane];
  }

  return (
    <section class="view" aria-labelledby="inbox-h">
      <header class="view-head">
        <h1 id="inbox-h" tabIndex={-1}>
          {LANE_LABEL[lane]}
        </h1>
        {summary && <p class="muted">{summary}</p>}
        <button
          type="button"
          class="quiet small-btn"
          onClick={() => document.dispatchEvent(new CustomEvent('scouts:help'))}
        >
          Shortcuts <kbd>?</kbd>
        </button>
      </header>
      <div class="lane-bar">
        <nav class="tabs lanes" aria-label="Lanes">
          {LANES.map((l) => (
            <a
              key={l}
              href={laneHref(l)}
              class={'button' + (l === lane ? ' on' : '')}
              aria-current={l === lane ? 'page' : undefined}
              aria-keyshortcuts={LANE_KEY[l]}
              title={`${LANE_LABEL[l]} (${LANE_KEY[l]})`}
            >
              {LANE_LABEL[l]}
              {counts && <span class="lane-count"> ({counts[l]})</span>}
            </a>
          ))}
          <a href={EXPIRED_HREF} class="button" title="Suggestions nobody decided in time">
            Expired
            {s.status?.suggestions?.expired !== undefined && (
              <span class="lane-count"> ({s.status.suggestions.expired})</span>
            )}
          </a>
        </nav>
        {learning && <p class="muted small learning-state">{learning}</p>}
      </div>
      {below && <p class="muted small lane-intro">{LANE_INTRO[lane]}</p>}
      {cur.selected.size > 0 && (
        <BulkBar
          count={cur.selected.size}
          onApprove={(as) => run(targets(cur), { type: 'approve', as })}
          onReject={() => run(targets(cur), { type: 'reject' })}
          onSpam={() => run(targets(cur), { type: 'spam' })}
          onBringBack={below ? () => run(targets(cur), { type: 'bringBack' }) : undefined}
          onClear={() => dispatch({ type: 'clear' })}
        />
      )}
      {loading && !s.problem && (
        <p class="muted" aria-busy="true">
          Loading suggestions…
        </p>
      )}
      {!loading && cards.length === 0 && !below && <InboxEmpty s={s} />}
      {!loading && cards.length === 0 && below && (
        <div class="empty">
          <h2>{EMPTY_TITLE[lane]}</h2>
          <p>{EMPTY_TEXT[lane]}</p>
        </div>
      )}
      {cards.length > 0 && (
        <ol class="cards" ref={listRef} aria-label={`${LANE_LABEL[lane]}: suggestions, most likely approved first`}>
          {cards.map((sg) => (
            <li key={sg.id}>
              <Card
                sg={sg}
                scout={s.scouts.items[sg.scout_id]}
                home={s.home}
                lane={lane}
                now={now}
                current={sg.id === cur.current}
                selected={cur.selected.has(sg.id)}
                whyOpen={why.has(sg.id)}
                failing={failing[sg.id]}
                plan={sg.id === curId && curPlan.state === 'ok' ? curPlan.value?.actions : undefined}
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
      {snoozing && (
        <SnoozeDialog
          count={snoozing.length}
          onSnooze={(until) => actions.snooze(snoozing, until)}
          onClose={() => setSnoozing(null)}
        />
      )}
      {openSg && <ContentDialog sg={openSg} home={s.home} onClose={() => setOpened(null)} />}
    </section>
  );
}
