// The UI's state and how live events change it. Pure: no network, no DOM.
// Every event carries the whole object it is about, so applying one is an
// upsert or a removal, and applying the same event twice changes nothing.

import type { ApiError } from '../api/errors';
import type { StreamState } from '../api/stream';
import type { Entity, EntityKind, Lane, Learning, Scout, Settings, Status, StreamEvent, Suggestion } from '../api/types';
import { LANES } from '../api/types';
import type { Toast } from '../logic/toasts';
import type { ActionDef, PlanAction, Policies } from '../api/plans';
import { applyChange } from '../logic/policies';
import { runKey } from '../logic/plan';

export interface Collection<T> {
  /** False until the first list arrived: views say "Loading…", not "empty". */
  loaded: boolean;
  items: Readonly<Record<string, T>>;
}

export interface AppState {
  status?: Status;
  conn: StreamState;
  /** Why the data could not be loaded (agent unreachable, not signed in). */
  problem?: ApiError;
  /** Pending cards of every lane, and decided ones the UI still shows. */
  suggestions: Collection<Suggestion>;
  /** Lanes whose list hit the fetch limit: their counts come from the
   * status, not from the cards we hold. */
  truncated: Readonly<Partial<Record<Lane, true>>>;
  /** Cards whose decision is on its way to the agent: out of the queue
   * already, back if the agent says no. */
  deciding: Readonly<Record<string, true>>;
  entities: Readonly<Record<EntityKind, Collection<Entity>>>;
  scouts: Collection<Scout>;
  /** Each scout's learner, by scout id, once a view asked for it. */
  learning: Readonly<Record<string, Learning>>;
  settings?: Settings;
  /** The user's home folder, to show paths as ~/…. */
  home?: string;
  toasts: readonly Toast[];
  /** The latest message for screen readers (n makes a repeat audible). */
  announce: { text: string; n: number };
  /** A card the inbox should make current (after an undo). */
  focus?: string;
  /** The names of the secrets in the OS keyring, once Settings asked. */
  secretNames?: readonly string[];
  /** Cards' actions that failed or wait to retry, by suggestion id and n
   * (runKey); followed live through action.updated. */
  failing: { loaded: boolean; items: Readonly<Record<string, PlanAction>> };
  /** The action catalogue and the policies, once a view asked for them. */
  catalogue?: readonly ActionDef[];
  policies?: Policies;
  /** Bumped when a scout's rules change (scout.rules): an open rules
   * editor lists them again. */
  rulesSeq: Readonly<Record<string, number>>;
  /** Bumped when one of a card's recorded actions changes (action.updated),
   * by suggestion id: a shown plan is read again. */
  planSeq: Readonly<Record<string, number>>;
  /** Bumped when the agent read its definitions folder again
   * (definitions.reconciled): the Scouts view reads the folder's status
   * again, its broken files and the scouts its files manage. */
  definitionsSeq: number;
  /** Bumped when an MCP server or its tools changed (mcp.changed): Settings
   * → Tool servers lists them again. */
  mcpSeq: number;
}

const empty = <T>(): Collection<T> => ({ loaded: false, items: {} });

export function initialState(): AppState {
  return {
    conn: 'connecting',
    suggestions: empty(),
    truncated: {},
    deciding: {},
    entities: { task: empty(), note: empty(), event: empty(), project: empty() },
    scouts: empty(),
    learning: {},
    toasts: [],
    announce: { text: '', n: 0 },
    failing: { loaded: false, items: {} },
    rulesSeq: {},
    planSeq: {},
    definitionsSeq: 0,
    mcpSeq: 0,
  };
}

/** The failing list after an action changed: in it while failing, out
 * once it is done, dropped or retried successfully. */
export function withRun(f: AppState['failing'], a: PlanAction): AppState['failing'] {
  const k = runKey(a);
  if (a.failing) return { ...f, items: { ...f.items, [k]: a } };
  if (!(k in f.items)) return f;
  const items = { ...f.items };
  delete items[k];
  return { ...f, items };
}

/** Failing actions, the most recently changed first. */
export function failingList(s: AppState, suggestionId?: string): PlanAction[] {
  return Object.values(s.failing.items)
    .filter((a) => suggestionId === undefined || a.suggestion_id === suggestionId)
    .sort((a, b) => ((a.updated_at ?? '') < (b.updated_at ?? '') ? 1 : -1));
}

export function upsert<T extends { id: string }>(c: Collection<T>, v: T): Collection<T> {
  return { ...c, items: { ...c.items, [v.id]: v } };
}

export function remove<T>(c: Collection<T>, id: string): Collection<T> {
  if (!(id in c.items)) return c;
  const items = { ...c.items };
  delete items[id];
  return { ...c, items };
}

export function replaceAll<T extends { id: string }>(list: readonly T[]): Collection<T> {
  const items: Record<string, T> = {};
  for (const v of list) items[v.id] = v;
  return { loaded: true, items };
}

function withEntities(s: AppState, kind: EntityKind, c: Collection<Entity>): AppState {
  return { ...s, entities: { ...s.entities, [kind]: c } };
}

export function applyEvent(s: AppState, ev: StreamEvent): AppState {
  switch (ev.type) {
    case 'hello':
      return { ...s, status: ev.data };
    case 'suggestion.created':
    case 'suggestion.resolved':
    case 'suggestion.undone':
    case 'suggestion.moved':
    case 'suggestion.revived':
    case 'suggestion.snoozed':
    case 'suggestion.unsnoozed':
    case 'suggestion.returned':
      return { ...s, suggestions: upsert(s.suggestions, ev.data) };
    case 'secrets.changed':
      return { ...s, secretNames: ev.data.names };
    case 'entity.created':
    case 'entity.updated': {
      const kind = ev.data.kind;
      if (!s.entities[kind]) return s;
      return withEntities(s, kind, upsert(s.entities[kind], ev.data));
    }
    case 'task.snoozed':
      return withEntities(s, 'task', remove(s.entities.task, ev.data.id));
    case 'task.returned':
      return withEntities(s, 'task', upsert(s.entities.task, ev.data));
    case 'entity.deleted': {
      const kind = ev.data.kind;
      if (!s.entities[kind]) return s;
      return withEntities(s, kind, remove(s.entities[kind], ev.data.id));
    }
    case 'scout.updated':
      return { ...s, scouts: upsert(s.scouts, ev.data) };
    case 'scout.deleted': {
      // The agent forgets a deleted scout's undecided suggestions.
      let suggestions = s.suggestions;
      for (const sg of Object.values(s.suggestions.items)) {
        if (sg.scout_id === ev.data.id && sg.status === 'pending') suggestions = remove(suggestions, sg.id);
      }
      return { ...s, scouts: remove(s.scouts, ev.data.id), suggestions };
    }
    case 'settings.updated':
      return { ...s, settings: ev.data };
    case 'scouts.paused':
      return s.status ? { ...s, status: { ...s.status, paused: ev.data.paused } } : s;
    case 'relay.state':
      return s.status ? { ...s, status: { ...s.status, relay: ev.data } } : s;
    case 'action.updated': {
      const id = ev.data.suggestion_id ?? '';
      return { ...s, failing: withRun(s.failing, ev.data), planSeq: { ...s.planSeq, [id]: (s.planSeq[id] ?? 0) + 1 } };
    }
    case 'policy.changed':
      return s.policies ? { ...s, policies: applyChange(s.policies, ev.data) } : s;
    case 'plan_defaults.changed':
      return s.policies ? { ...s, policies: { ...s.policies, defaults: ev.data } } : s;
    case 'scout.rules': {
      const id = ev.data.scout_id;
      return { ...s, rulesSeq: { ...s.rulesSeq, [id]: (s.rulesSeq[id] ?? 0) + 1 } };
    }
    case 'definitions.reconciled':
      return { ...s, definitionsSeq: s.definitionsSeq + 1 };
    case 'mcp.changed':
      return { ...s, mcpSeq: s.mcpSeq + 1 };
    case 'reset':
      // Events were lost (the agent restarted, or this page was away too
      // long): one of them may have been a reconcile. The store refetches
      // the lists.
      return { ...s, definitionsSeq: s.definitionsSeq + 1 };
    case 'scout.run':
    case 'scout.watch':
      // Handled by the store: it calls for fetching, not for a change.
      return s;
  }
}

const byCreated = (a: Suggestion, b: Suggestion) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;

/** How likely the person approves a card; -1 while the learner cannot tell. */
export const likelihood = (sg: Suggestion) => sg.assessment?.approve ?? -1;

/** The agent's order=likely: most likely approved first, cards the learner
 * cannot score yet after them, each group oldest first (the order a queue
 * is worked through). */
export const byLikely = (a: Suggestion, b: Suggestion) => {
  const pa = likelihood(a);
  const pb = likelihood(b);
  if ((pa >= 0) !== (pb >= 0)) return pa >= 0 ? -1 : 1;
  if (pa !== pb) return pb - pa;
  return byCreated(a, b);
};

/** The inbox's order: cards back from snooze first (the latest on top),
 * then the most likely approved. */
const byReturned = (a: Suggestion, b: Suggestion) => {
  const ra = a.returned_at ?? '';
  const rb = b.returned_at ?? '';
  if (ra !== rb) return ra > rb ? -1 : 1;
  return byLikely(a, b);
};

/** The Snoozed lane's order: what returns soonest first. */
const bySnoozedUntil = (a: Suggestion, b: Suggestion) => {
  const ua = a.snoozed_until ?? '';
  const ub = b.snoozed_until ?? '';
  if (ua !== ub) return ua < ub ? -1 : 1;
  return byCreated(a, b);
};

/** Where a card waits (agents before lanes have only the inbox). */
export const laneOf = (sg: Suggestion): Lane => sg.lane ?? 'inbox';

const waiting = (s: AppState, sg: Suggestion) => sg.status === 'pending' && !s.deciding[sg.id];

/** A lane's pending cards, most likely approved first, without those being
 * decided right now. */
export function laneCards(s: AppState, lane: Lane): Suggestion[] {
  return Object.values(s.suggestions.items)
    .filter((sg) => waiting(s, sg) && laneOf(sg) === lane)
    .sort(lane === 'inbox' ? byReturned : lane === 'snoozed' ? bySnoozedUntil : byLikely);
}

/** The inbox: the queue the person works through. */
export function pendingCards(s: AppState): Suggestion[] {
  return laneCards(s, 'inbox');
}

/** How many cards wait in each lane: counted from the cards we hold, which
 * follow the stream live, except for a lane too long to hold whole, where
 * the agent's count says more. Undefined until anything is known. */
export function laneCounts(s: AppState): Record<Lane, number> | undefined {
  const st = s.status;
  const fromStatus = (l: Lane) => st?.lanes?.[l] ?? (l === 'inbox' ? (st?.pending ?? 0) : 0);
  if (!s.suggestions.loaded) {
    if (!st) return undefined;
    return { inbox: fromStatus('inbox'), screened: fromStatus('screened'), spam: fromStatus('spam'), snoozed: fromStatus('snoozed') };
  }
  const n: Record<Lane, number> = { inbox: 0, screened: 0, spam: 0, snoozed: 0 };
  for (const sg of Object.values(s.suggestions.items)) if (waiting(s, sg)) n[laneOf(sg)]++;
  for (const l of LANES) if (s.truncated[l]) n[l] = Math.max(n[l], fromStatus(l));
  return n;
}

/** Entities of a kind, as the agent lists them: events by start, the rest
 * newest first. */
export function entityList(s: AppState, kind: EntityKind): Entity[] {
  const list = Object.values(s.entities[kind].items);
  if (kind === 'event') {
    const key = (e: Entity) => e.starts_at ?? '9999';
    return list.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : 1));
  }
  return list.sort((a, b) =>
    a.created_at > b.created_at ? -1 : a.created_at < b.created_at ? 1 : a.id > b.id ? -1 : 1,
  );
}

export function scoutList(s: AppState): Scout[] {
  return Object.values(s.scouts.items).sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
}
