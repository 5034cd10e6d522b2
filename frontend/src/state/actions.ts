// What the UI does: loads data, follows the stream, and carries out
// decisions and edits against the agent. Updates are optimistic where the
// outcome is near certain (a card leaves the queue at once) and honest
// when the agent says no (the card comes back, with the reason).

import { Api } from '../api/client';
import { ApiError, asApiError } from '../api/errors';
import type { StreamSource } from '../api/stream';
import type {
  CreateScout,
  Entity,
  EntityFields,
  EntityInput,
  EntityKind,
  Lane,
  LearnSettings,
  Learning,
  PatchScout,
  Scout,
  ScreenerChoice,
  Settings,
  Suggestion,
} from '../api/types';
import { ENTITY_KINDS, LANES } from '../api/types';
import { proposedFields } from '../logic/fields';
import { KIND_LABEL, plural, tildePath } from '../logic/format';
import { LANE_LABEL } from '../logic/lanes';
import { href } from '../logic/router';
import { withPatch } from '../logic/settings';
import { Toaster } from '../logic/toasts';
import { UNDO_TOAST_MS, UndoHistory, type Decision } from '../logic/undo';
import { laneOf, remove, replaceAll, upsert, withRun, type AppState } from './model';
import type { ApproveAction, PlanAction, PutPolicies } from '../api/plans';
import { actionLabel, alwaysToast, lcFirst, runKey } from '../logic/plan';
import { POLICIES_HREF } from '../logic/router';
import { changeManaged, offerWriteFile, type ManagedRefusal } from './managed';
import { Store } from './store';

/** Approve (with edits; without, each card's proposed fields; with the
 * plan as the card showed it, else as proposed; with `always`, the actions
 * to allow for the scout from now on), reject, or reject as spam. */
export type Verdict =
  | { as: EntityKind; fields?: EntityFields; plan?: ApproveAction[]; always?: readonly string[] }
  | 'reject'
  | 'spam';

/** How many cards of each lane the UI holds at most: the inbox whole in
 * practice; the lanes below can be long (years of spam) and are counted by
 * the agent beyond this. */
export const LANE_LIMIT: Record<Lane, number> = { inbox: 1000, screened: 500, spam: 500, snoozed: 500 };

/** The toast slot of decisions and their undoing. */
const DECISION = 'decision';

const quote = (s: string) => `“${s.length > 60 ? s.slice(0, 59) + '…' : s}”`;

export class Actions {
  readonly store = new Store();
  readonly undoHistory: UndoHistory;
  readonly toaster: Toaster;
  private stopStream?: () => void;
  /** Counts loadAll calls: the answers of one a later call overtook are
   * dropped, so an older snapshot never replaces a newer one. */
  private loads = 0;
  /** Whether the stream has said hello since start. */
  private greeted = false;
  private scoutRefresh = new Map<string, ReturnType<typeof setTimeout>>();
  private learningRefresh = new Map<string, ReturnType<typeof setTimeout>>();
  private statusRefresh?: ReturnType<typeof setTimeout>;
  private announced = 0;

  constructor(
    readonly api: Api,
    private readonly stream: StreamSource,
    now: () => number = () => Date.now(),
  ) {
    this.undoHistory = new UndoHistory(now);
    this.toaster = new Toaster((toasts) => this.store.update((s) => ({ ...s, toasts })));
  }

  // ---- Loading and the stream -------------------------------------------

  start(): void {
    this.stopStream = this.stream.start({
      state: (conn) => {
        const was = this.store.state.conn;
        this.store.update((s) => (s.conn === conn ? s : { ...s, conn }));
        // Back after an outage in which loading failed: load again.
        if (conn === 'open' && was !== 'open' && this.store.state.problem) void this.loadAll();
      },
      event: (ev) => {
        this.store.event(ev);
        switch (ev.type) {
          case 'hello':
            // The first load starts with the page, before the stream is
            // subscribed: what changed in between (a scout a definitions
            // file made while the page loaded) is in neither. The agent
            // says hello once it has subscribed, so a load from then on
            // misses nothing; later hellos resume from their last id.
            if (!this.greeted) {
              this.greeted = true;
              void this.loadAll();
            }
            break;
          case 'reset':
            void this.loadAll();
            break;
          case 'suggestion.created':
            if (ev.data.status === 'pending') this.announceNew(ev.data.title);
            break;
          case 'scout.run':
          case 'scout.watch':
            this.refreshScoutSoon(ev.data.scout_id);
            break;
          case 'suggestion.revived':
            // The expired count changed.
            this.refreshStatusSoon();
            break;
          case 'suggestion.resolved':
            if (ev.data.status === 'expired') this.refreshStatusSoon();
            break;
          case 'mcp.changed':
            // A tool server's tools are actions: the catalogue a view
            // shows (Policies, the rules editor) is read again.
            if (this.store.state.catalogue) void this.loadCatalogue().catch(() => undefined);
            break;
        }
        switch (ev.type) {
          case 'suggestion.created':
          case 'suggestion.resolved':
          case 'suggestion.undone':
          case 'suggestion.moved':
            // Decisions teach the scout's learner; a lane too long to hold
            // is counted by the agent.
            if (this.store.state.learning[ev.data.scout_id] && ev.type !== 'suggestion.created') {
              this.refreshLearningSoon(ev.data.scout_id);
            }
            if (Object.keys(this.store.state.truncated).length > 0) this.refreshStatusSoon();
            break;
        }
      },
    });
    void this.loadAll();
  }

  stop(): void {
    this.stopStream?.();
    for (const t of this.scoutRefresh.values()) clearTimeout(t);
    for (const t of this.learningRefresh.values()) clearTimeout(t);
    clearTimeout(this.statusRefresh);
    clearTimeout(this.arrivalsTimer);
  }

  /** Loads everything the inbox needs, and the entity lists already shown. */
  async loadAll(): Promise<void> {
    const st = this.store;
    const load = ++this.loads;
    /** put, unless a later loadAll started meanwhile. */
    const latest =
      <T>(put: (s: AppState, v: T) => AppState) =>
      (s: AppState, v: T): AppState =>
        load === this.loads ? put(s, v) : s;
    try {
      await Promise.all([
        st.load(this.api.status, latest((s, status) => ({ ...s, status }))),
        st.load(
          () => Promise.all(LANES.map((l) => this.api.suggestions('pending', LANE_LIMIT[l], l, 'likely'))),
          latest((s, lists) => {
            const truncated: Partial<Record<Lane, true>> = {};
            LANES.forEach((l, i) => {
              if (lists[i]!.length >= LANE_LIMIT[l]) truncated[l] = true;
            });
            return { ...s, suggestions: keepDecided(s, lists.flat()), truncated };
          }),
        ),
        st.load(this.api.scouts, latest((s, list) => ({ ...s, scouts: replaceAll(list) }))),
        st.load(this.api.settings, latest((s, settings) => ({ ...s, settings }))),
        ...ENTITY_KINDS.filter((k) => st.state.entities[k].loaded).map((k) => this.loadEntities(k)),
      ]);
      if (load !== this.loads) return;
      st.update((s) => (s.problem ? { ...s, problem: undefined } : s));
    } catch (e) {
      if (load !== this.loads) return;
      st.update((s) => ({ ...s, problem: asApiError(e) }));
      return;
    }
    // Failing actions show on their cards, in Status and in a banner; an
    // agent that cannot list them still serves the inbox.
    st.load(this.api.failingActions, (s, list) => ({
      ...s,
      failing: { loaded: true, items: Object.fromEntries(list.map((a) => [runKey(a), a])) },
    })).catch(() => undefined);
    if (!st.state.home) {
      // Only to show paths as ~/…: no harm when it fails.
      this.api.folders().then(
        (f) => st.update((s) => ({ ...s, home: f.path })),
        () => undefined,
      );
    }
  }

  async loadEntities(kind: EntityKind): Promise<void> {
    await this.store.load(
      () => this.api.entities(kind),
      (s, list) => ({ ...s, entities: { ...s.entities, [kind]: replaceAll(list) } }),
    );
  }

  /** Loads a kind's list when a view needs it, reporting failures. */
  ensureEntities(kind: EntityKind): void {
    if (this.store.state.entities[kind].loaded) return;
    this.loadEntities(kind).catch((e) => this.fail(`Could not load the ${kind}s.`, e));
  }

  private refreshScoutSoon(id: string) {
    // Runs can come in bursts: fetch the scout's health once they settle.
    clearTimeout(this.scoutRefresh.get(id));
    this.scoutRefresh.set(
      id,
      setTimeout(() => {
        this.scoutRefresh.delete(id);
        this.api.scout(id).then(
          (sc) => this.store.update((s) => ({ ...s, scouts: upsert(s.scouts, sc) })),
          () => undefined,
        );
      }, 300),
    );
  }

  private arrivals: string[] = [];
  private arrivalsTimer?: ReturnType<typeof setTimeout>;

  /** Tells screen readers about new cards, once per burst. */
  private announceNew(title: string) {
    this.arrivals.push(title);
    if (this.arrivalsTimer !== undefined) return;
    this.arrivalsTimer = setTimeout(() => {
      const a = this.arrivals;
      this.arrivals = [];
      this.arrivalsTimer = undefined;
      this.say(a.length === 1 ? `New suggestion: ${a[0]}` : `${plural(a.length, 'new suggestion')}`);
    }, 400);
  }

  private refreshLearningSoon(scoutId: string) {
    clearTimeout(this.learningRefresh.get(scoutId));
    this.learningRefresh.set(
      scoutId,
      setTimeout(() => {
        this.learningRefresh.delete(scoutId);
        void this.loadLearning(scoutId).catch(() => undefined);
      }, 300),
    );
  }

  private refreshStatusSoon() {
    clearTimeout(this.statusRefresh);
    this.statusRefresh = setTimeout(() => void this.refreshStatus(), 300);
  }

  // ---- Messages -----------------------------------------------------------

  say(text: string): void {
    this.store.update((s) => ({ ...s, announce: { text, n: ++this.announced } }));
  }

  info(text: string, action?: { label: string; run: () => void }, ms?: number, slot?: string): void {
    this.toaster.show({ tone: 'info', text, action, slot }, ms);
    this.say(text);
  }

  /** Reports a failure: what we tried, what happened, what to do. */
  fail(what: string, e: unknown): ApiError {
    const err = asApiError(e);
    this.toaster.show({ tone: 'error', text: `${what} ${err.full}` });
    if (err.code === 'offline' || err.code === 'unauthorized') {
      this.store.update((s) => ({ ...s, problem: err }));
    }
    return err;
  }

  // ---- Decisions ----------------------------------------------------------

  /** Approves or rejects cards. Resolves to the ids that were decided. */
  async decide(ids: string[], v: Verdict): Promise<string[]> {
    if (ids.length === 0) return [];
    const st = this.store;
    const cards = ids.map((id) => st.state.suggestions.items[id]).filter((c): c is Suggestion => !!c);
    st.update((s) => ({ ...s, deciding: { ...s.deciding, ...Object.fromEntries(ids.map((id) => [id, true])) } }));
    const results = await Promise.allSettled(
      cards.map(async (c) => {
        if (v === 'reject' || v === 'spam') {
          const sg = v === 'spam' ? await this.api.markSpam(c.id) : await this.api.reject(c.id);
          st.update((s) => ({ ...s, suggestions: upsert(s.suggestions, sg) }));
        } else {
          const ent = await this.api.approve(c.id, {
            as: v.as,
            ...(v.fields ?? proposedFields(c, v.as)),
            ...(v.plan ? { actions: v.plan } : {}),
            ...(v.always?.length ? { always: true } : {}),
          });
          st.update((s) => ({
            ...s,
            suggestions: upsert(s.suggestions, {
              ...c,
              status: 'approved',
              resolved_kind: ent.kind,
              resolved_entity_id: ent.id,
            }),
            entities: s.entities[ent.kind].loaded
              ? { ...s.entities, [ent.kind]: upsert(s.entities[ent.kind], ent) }
              : s.entities,
          }));
        }
        return c;
      }),
    );
    st.update((s) => {
      const deciding = { ...s.deciding };
      for (const id of ids) delete deciding[id];
      return { ...s, deciding };
    });

    const done: Suggestion[] = [];
    results.forEach((r, i) => {
      const c = cards[i]!;
      if (r.status === 'fulfilled') done.push(c);
      else this.decisionFailed(c, v, r.reason);
    });
    if (done.length > 0) {
      const verb = v === 'reject' ? 'Rejected' : v === 'spam' ? 'Marked as spam' : `Approved as ${v.as}`;
      const label = done.length === 1 ? `${verb} ${quote(done[0]!.title)}` : `${verb}: ${plural(done.length, 'card')}`;
      const d = this.undoHistory.record(
        done.map((c) => c.id),
        label,
      );
      this.info(label, { label: 'Undo', run: () => void this.undo(d) }, UNDO_TOAST_MS, DECISION);
      if (typeof v === 'object' && v.always?.length) this.alwaysAllowed(done, v.always);
    }
    return done.map((c) => c.id);
  }

  private decisionFailed(c: Suggestion, v: Verdict, e: unknown) {
    const what =
      v === 'reject'
        ? `Could not reject ${quote(c.title)}.`
        : v === 'spam'
          ? `Could not mark ${quote(c.title)} as spam.`
          : `Could not approve ${quote(c.title)} as ${v.as}.`;
    const err = this.fail(what, e);
    // Decided meanwhile elsewhere, or gone: show what the agent knows.
    if (err.code === 'conflict' || err.code === 'not_found') {
      this.api.suggestion(c.id).then(
        (sg) => this.store.update((s) => ({ ...s, suggestions: upsert(s.suggestions, sg) })),
        () => this.store.update((s) => ({ ...s, suggestions: remove(s.suggestions, c.id) })),
      );
    }
  }

  /** Takes back a decision: the given one (its toast's button) or the
   * newest that can still be undone (`u`). */
  async undo(d?: Decision): Promise<void> {
    const decision = d ? (this.undoHistory.remove(d) ? d : undefined) : this.undoHistory.take();
    if (!decision) {
      this.info(d ? 'Too late to undo: decisions can be taken back for 30 seconds.' : 'Nothing to undo.');
      return;
    }
    const results = await Promise.allSettled(decision.ids.map((id) => this.api.undo(id)));
    const back: Suggestion[] = [];
    results.forEach((r) => {
      if (r.status === 'fulfilled') back.push(r.value);
    });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    this.store.update((s) => {
      let suggestions = s.suggestions;
      for (const sg of back) suggestions = upsert(suggestions, sg);
      return { ...s, suggestions, focus: back[0]?.id ?? s.focus };
    });
    if (back.length > 0) {
      // A decision taken in Screened or Spam puts the card back there.
      const lanes = new Set(back.map(laneOf));
      const where = lanes.size === 1 && !lanes.has('inbox') ? LANE_LABEL[[...lanes][0]!] : 'the inbox';
      const text =
        back.length === 1
          ? `Undone: ${quote(back[0]!.title)} is back in ${where}`
          : `Undone: ${plural(back.length, 'card')} back in ${where}`;
      this.info(text, undefined, undefined, DECISION);
    }
    if (failed) {
      const err = this.fail('Could not undo.', failed.reason);
      if (err.code === 'offline' || err.code === 'unavailable') {
        const left = decision.ids.filter((_, i) => results[i]!.status === 'rejected');
        this.undoHistory.restore({ ...decision, ids: left });
      }
    }
  }

  /** Brings cards back from Screened or Spam to the inbox (which teaches
   * the learner). Resolves to the ids that moved. */
  async bringBack(ids: string[]): Promise<string[]> {
    const st = this.store;
    const cards = ids.map((id) => st.state.suggestions.items[id]).filter((c): c is Suggestion => !!c);
    if (cards.length === 0) return [];
    // Out of the lane at once; into the inbox when the agent confirms.
    st.update((s) => ({ ...s, deciding: { ...s.deciding, ...Object.fromEntries(cards.map((c) => [c.id, true])) } }));
    const results = await Promise.allSettled(cards.map((c) => this.api.bringBack(c.id)));
    const moved: Suggestion[] = [];
    st.update((s) => {
      let suggestions = s.suggestions;
      const deciding = { ...s.deciding };
      results.forEach((r, i) => {
        delete deciding[cards[i]!.id];
        if (r.status === 'fulfilled') {
          moved.push(r.value);
          suggestions = upsert(suggestions, r.value);
        }
      });
      return { ...s, suggestions, deciding, focus: moved[0]?.id ?? s.focus };
    });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) this.fail(`Could not bring ${cards.length === 1 ? quote(cards[0]!.title) : 'the cards'} back.`, failed.reason);
    if (moved.length > 0) {
      const text =
        moved.length === 1
          ? `Back in the inbox: ${quote(moved[0]!.title)}`
          : `Back in the inbox: ${plural(moved.length, 'card')}`;
      this.info(text, { label: 'Show', run: () => (location.hash = href({ view: 'inbox' })) });
    }
    return moved.map((c) => c.id);
  }

  /** Snoozes cards until a time the person typed. Resolves to the error's
   * words when the agent could not read the time (the dialog shows them
   * and stays open), else undefined. */
  async snooze(ids: string[], until: string): Promise<string | undefined> {
    const st = this.store;
    const cards = ids.map((id) => st.state.suggestions.items[id]).filter((c): c is Suggestion => !!c);
    if (cards.length === 0) return undefined;
    const results = await Promise.allSettled(cards.map((c) => this.api.snooze(c.id, until)));
    const done: Suggestion[] = [];
    st.update((s) => {
      let suggestions = s.suggestions;
      for (const r of results) {
        if (r.status === 'fulfilled') {
          done.push(r.value);
          suggestions = upsert(suggestions, r.value);
        }
      }
      return { ...s, suggestions };
    });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed && done.length === 0) {
      const e = failed.reason as { message?: string };
      return e?.message ?? 'Could not snooze.';
    }
    if (failed) this.fail('Could not snooze every card.', failed.reason);
    if (done.length > 0) {
      const when = done[0]!.snoozed_until ? new Date(done[0]!.snoozed_until).toLocaleString() : '';
      const what = done.length === 1 ? quote(done[0]!.title) : plural(done.length, 'card');
      this.info(`Snoozed until ${when}: ${what}`);
    }
    return undefined;
  }

  /** Snoozes a task; resolves to the agent's words when it could not read
   * the time, else undefined. */
  async snoozeTask(id: string, until: string): Promise<string | undefined> {
    try {
      const res = await this.api.snoozeTask(id, until);
      this.store.update((s) => ({ ...s, entities: { ...s.entities, task: remove(s.entities.task, id) } }));
      this.info(`Snoozed until ${new Date(res.snoozed_until).toLocaleString()}: ${quote(res.task.title)}`);
      return undefined;
    } catch (e) {
      return (e as { message?: string })?.message ?? 'Could not snooze.';
    }
  }

  /** Takes snoozed cards back now, to the lane they were snoozed from. */
  async unsnooze(ids: string[]): Promise<void> {
    const results = await Promise.allSettled(ids.map((id) => this.api.unsnooze(id)));
    this.store.update((s) => {
      let suggestions = s.suggestions;
      for (const r of results) if (r.status === 'fulfilled') suggestions = upsert(suggestions, r.value);
      return { ...s, suggestions };
    });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) this.fail('Could not unsnooze.', failed.reason);
  }

  /** The screener's key on a card: always show or always screen its sender
   * (list, folder). The agent writes the rule, first in the scout's rules,
   * and settles the cards from it that wait; they are updated here. */
  async screenSender(id: string, choice: ScreenerChoice): Promise<boolean> {
    const st = this.store;
    const card = st.state.suggestions.items[id];
    if (!card) return false;
    try {
      const res = await this.api.screenSender(id, choice);
      st.update((s) => {
        let suggestions = s.suggestions;
        for (const sg of res.settled) suggestions = upsert(suggestions, sg);
        const cur = suggestions.items[id];
        // The keys are spent: the card's sender has its rule now.
        if (cur?.screener_offer) suggestions = upsert(suggestions, { ...cur, screener_offer: undefined });
        return { ...s, suggestions };
      });
      const who = res.of === 'sender' ? res.value : `${res.of} ${res.value}`;
      const n = res.settled.length;
      const text =
        choice === 'show'
          ? `Always shown: ${who} (${plural(n, 'card')} in the inbox). The rule is first in the scout’s rules.`
          : `Always screened: ${who} (${plural(n, 'card')} rejected in Screened). The rule is first in the scout’s rules.`;
      this.info(text, { label: 'Rules', run: () => (location.hash = href({ view: 'rules', id: card.scout_id })) }, 10_000);
      return true;
    } catch (e) {
      this.fail(`Could not ${choice === 'show' ? 'always show' : 'always screen'} the sender of ${quote(card.title)}.`, e);
      return false;
    }
  }

  clearFocus(): void {
    this.store.update((s) => (s.focus === undefined ? s : { ...s, focus: undefined }));
  }

  // ---- Plans, actions and policies ----------------------------------------

  /** Says, where it cannot be missed, what "approve and always allow"
   * changed and where it is undone. */
  private alwaysAllowed(cards: Suggestion[], names: readonly string[]) {
    const scouts = [...new Set(cards.map((c) => this.store.state.scouts.items[c.scout_id]?.name ?? 'this scout'))];
    this.info(alwaysToast(names, scouts.join(', ')), { label: 'Policies', run: () => (location.hash = POLICIES_HREF) }, 15_000, 'policy');
    if (this.store.state.policies) void this.loadPolicies().catch(() => undefined);
  }

  async loadPolicies(): Promise<void> {
    await Promise.all([
      this.store.load(this.api.policies, (s, policies) => ({ ...s, policies })),
      this.store.state.catalogue ? undefined : this.loadCatalogue(),
    ]);
  }

  async loadCatalogue(): Promise<void> {
    await this.store.load(this.api.actionCatalogue, (s, catalogue) => ({ ...s, catalogue }));
  }

  /** Changes policies; resolves to the error, for the view to show where
   * the change was made. */
  async savePolicies(patch: PutPolicies, done?: string): Promise<ApiError | undefined> {
    try {
      const policies = await this.api.putPolicies(patch);
      this.store.update((s) => ({ ...s, policies }));
      if (done) this.info(done);
      return undefined;
    } catch (e) {
      return asApiError(e);
    }
  }

  /** Another attempt now for a failing action. */
  async retryAction(a: PlanAction): Promise<void> {
    if (!a.suggestion_id || !a.n) return;
    try {
      // The answer is not stored: the attempt it starts may already have
      // succeeded, and its action.updated event said so, by the time it
      // arrives. The stream's events say how the attempt went, in order.
      await this.api.retryAction(a.suggestion_id, a.n);
      this.info(`Trying again: ${lcFirst(actionLabel(a, this.store.state.home))}`);
    } catch (err) {
      this.fail('Could not retry the action.', err);
    }
  }

  /** Gives up on a failing action: it never runs. */
  async dropAction(a: PlanAction): Promise<void> {
    if (!a.suggestion_id || !a.n) return;
    try {
      const next = await this.api.dropAction(a.suggestion_id, a.n);
      this.store.update((s) => ({ ...s, failing: withRun(s.failing, { ...next, suggestion_id: a.suggestion_id }) }));
      this.info(`Dropped: ${lcFirst(actionLabel(a, this.store.state.home))} will not run`);
    } catch (err) {
      this.fail('Could not drop the action.', err);
    }
  }

  // ---- Entities -----------------------------------------------------------

  async createEntity(kind: EntityKind, input: EntityInput): Promise<Entity | undefined> {
    try {
      const e = await this.api.createEntity(kind, input);
      this.putEntity(e);
      this.say(`${KIND_LABEL[kind]} added: ${e.title}`);
      return e;
    } catch (err) {
      this.fail(`Could not add the ${kind}.`, err);
      return undefined;
    }
  }

  async updateEntity(e: Entity, input: EntityInput, optimistic = false): Promise<Entity | undefined> {
    if (optimistic) this.putEntity({ ...e, ...input } as Entity);
    try {
      const next = await this.api.updateEntity(e.kind, e.id, input);
      this.putEntity(next);
      return next;
    } catch (err) {
      if (optimistic) this.putEntity(e);
      this.fail(`Could not save ${quote(e.title)}.`, err);
      return undefined;
    }
  }

  /** Completes or reopens a task or project, at once, with Undo. */
  async setDone(e: Entity, done: boolean): Promise<void> {
    const saved = await this.updateEntity(e, { done }, true);
    if (saved && done) {
      this.info(`Done: ${quote(e.title)}`, {
        label: 'Undo',
        run: () => void this.updateEntity(saved, { done: false }, true),
      });
    }
  }

  async deleteEntity(e: Entity): Promise<boolean> {
    try {
      await this.api.deleteEntity(e.kind, e.id);
      this.store.update((s) => ({ ...s, entities: { ...s.entities, [e.kind]: remove(s.entities[e.kind], e.id) } }));
      this.info(`Deleted ${e.kind} ${quote(e.title)}`);
      return true;
    } catch (err) {
      this.fail(`Could not delete ${quote(e.title)}.`, err);
      return false;
    }
  }

  private putEntity(e: Entity) {
    this.store.update((s) => ({ ...s, entities: { ...s.entities, [e.kind]: upsert(s.entities[e.kind], e) } }));
  }

  // ---- Scouts -------------------------------------------------------------

  async createScout(input: CreateScout): Promise<Scout | ApiError> {
    try {
      const sc = await this.api.createScout(input);
      this.putScout(sc);
      this.info(`Scout ${quote(sc.name)} is watching ${tildePath(sc.path, this.store.state.home)}`.trim());
      return sc;
    } catch (err) {
      // The form shows this one next to its fields.
      return asApiError(err);
    }
  }

  /** Changes a scout, at once on its card; undone if the agent refuses
   * (one a definitions file manages: with the offer to write the file). */
  async updateScout(sc: Scout, p: PatchScout): Promise<void> {
    this.putScout({ ...sc, ...p } as Scout);
    const made = await this.changeScout(
      sc.name,
      `Could not change scout ${quote(sc.name)}.`,
      (writeFile) => this.api.updateScout(sc.id, p, writeFile),
      (v) => this.putScout(v),
    );
    if (!made) this.putScout(sc);
  }

  /** Makes a change to a scout (its switches, its rules), then runs then.
   * A failure says what failed (what); a refusal because a definitions
   * file manages the scout offers, in the same toast, to make the change
   * again writing it to the file (state/managed.ts), then runs then.
   * Resolves to whether the change was made now. */
  async changeScout<T>(
    scoutName: string,
    what: string,
    change: (writeFile: boolean) => Promise<T>,
    then?: (v: T) => unknown,
  ): Promise<boolean> {
    try {
      const r = await changeManaged(scoutName, change);
      if ('refused' in r) {
        offerWriteFile(this, r.refused, what, then);
        return false;
      }
      await then?.(r.done);
      return true;
    } catch (e) {
      this.fail(what, e);
      return false;
    }
  }

  async deleteScout(sc: Scout): Promise<void> {
    try {
      await this.api.deleteScout(sc.id);
      this.store.event({ type: 'scout.deleted', data: { id: sc.id } });
      this.info(`Deleted scout ${quote(sc.name)}`);
    } catch (err) {
      this.fail(`Could not delete scout ${quote(sc.name)}.`, err);
    }
  }

  async runScout(sc: Scout): Promise<void> {
    try {
      await this.api.runScout(sc.id);
      this.info(`${sc.name}: looking for new items`);
    } catch (err) {
      this.fail(`Could not run ${quote(sc.name)}.`, err);
    }
  }

  /** Reconnects Gmail: the agent opens Google's consent page in the browser. */
  async connectGmail(): Promise<string | undefined> {
    try {
      const { auth_url } = await this.api.connectGmail();
      this.info('Continue in your browser: sign in to Google and allow Scouts.');
      return auth_url;
    } catch (err) {
      this.fail('Could not start connecting Gmail.', err);
      return undefined;
    }
  }

  private putScout(sc: Scout) {
    this.store.update((s) => ({ ...s, scouts: upsert(s.scouts, sc) }));
  }

  // ---- Learning -----------------------------------------------------------

  async loadLearning(scoutId: string): Promise<Learning> {
    const l = await this.api.learning(scoutId);
    this.putLearning(l);
    return l;
  }

  /** Loads the learners of these scouts that are not loaded yet. */
  ensureLearning(scoutIds: string[]): void {
    for (const id of scoutIds) {
      if (!this.store.state.learning[id]) void this.loadLearning(id).catch(() => undefined);
    }
  }

  /** Saves a scout's thresholds; resolves to what the form shows: the
   * error, or the refusal of a scout a definitions file manages, whose
   * write() saves them writing the file. */
  async saveLearning(sc: Scout, settings: LearnSettings): Promise<ApiError | ManagedRefusal<Learning> | undefined> {
    const save = async (writeFile: boolean) => {
      const l = await this.api.setLearning(sc.id, settings, writeFile);
      this.putLearning(l);
      this.say('Learning thresholds saved');
      return l;
    };
    try {
      const r = await changeManaged(sc.name, save);
      return 'refused' in r ? r.refused : undefined;
    } catch (e) {
      return asApiError(e);
    }
  }

  async resetLearning(sc: Scout): Promise<boolean> {
    try {
      this.putLearning(await this.api.resetLearning(sc.id));
      this.info(`${sc.name}: the learner forgot what it had learned`);
      return true;
    } catch (err) {
      this.fail(`Could not reset the learning of ${quote(sc.name)}.`, err);
      return false;
    }
  }

  private putLearning(l: Learning) {
    this.store.update((s) => ({ ...s, learning: { ...s.learning, [l.scout_id]: l } }));
  }

  async refreshStatus(): Promise<void> {
    try {
      const status = await this.api.status();
      this.store.update((s) => ({ ...s, status }));
    } catch {
      // The banner already says when the agent is unreachable.
    }
  }

  // ---- Control ------------------------------------------------------------

  async setPaused(paused: boolean): Promise<void> {
    try {
      const status = paused ? await this.api.pause() : await this.api.resume();
      this.store.update((s) => ({ ...s, status }));
      this.info(paused ? 'Scouts paused: nothing new is processed until you resume' : 'Scouts resumed');
    } catch (err) {
      this.fail(paused ? 'Could not pause.' : 'Could not resume.', err);
    }
  }

  async syncNow(): Promise<void> {
    try {
      await this.api.sync();
      this.info('Every scout is looking for new items');
    } catch (err) {
      this.fail('Could not sync.', err);
    }
  }

  // ---- Settings -----------------------------------------------------------

  private settingsQueue: Promise<unknown> = Promise.resolve();

  /** Saves a change to the settings. The API takes the whole object, so
   * saves go one at a time, each on top of what the agent last confirmed
   * (live events included): two quick changes cannot undo each other.
   * Resolves to the error, for the view to show beside the control. */
  saveSettings(patch: Partial<Settings>): Promise<ApiError | undefined> {
    const run = async () => {
      const cur = this.store.state.settings;
      if (!cur) return new ApiError('client', 0, 'The settings have not been loaded yet.', 'Try again in a moment.');
      try {
        const settings = await this.api.putSettings(withPatch(cur, patch));
        this.store.update((s) => ({ ...s, settings }));
        return undefined;
      } catch (e) {
        const err = asApiError(e);
        if (err.code === 'offline' || err.code === 'unauthorized') this.store.update((s) => ({ ...s, problem: err }));
        return err;
      }
    };
    const p = this.settingsQueue.then(run);
    this.settingsQueue = p;
    return p;
  }
}

/** A fresh pending list, keeping the decided cards we know (a suggestion
 * view or the undo toast may still refer to them). */
function keepDecided(s: AppState, pending: Suggestion[]) {
  const fresh = replaceAll(pending);
  const items = { ...fresh.items };
  for (const sg of Object.values(s.suggestions.items)) {
    if (sg.status !== 'pending' && !(sg.id in items)) items[sg.id] = sg;
  }
  return { loaded: true, items };
}
