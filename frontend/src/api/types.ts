// The local API's JSON types: a mirror of app/apitype/apitype.go. Times are
// RFC 3339 strings in UTC. Keep field names and optionality in step with the
// Go side; adding a field there is compatible, so unknown fields are fine.
// Actions, plans, policies and rules are in plans.ts.

import type { ApproveAction, Plan, PlanAction, PlanDefaults, PolicyChange, Rule } from './plans';
import type { DefinitionError } from './definitions';

export const API_BASE = '/api/v1';

export type ErrorCode =
  'invalid' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'unavailable' | 'internal';

/** The body of every non-2xx answer. */
export interface ApiErrorBody {
  code: ErrorCode | string;
  error: string;
}

export type SuggestionStatus = 'pending' | 'approved' | 'rejected' | 'expired';
export type EntityKind = 'task' | 'note' | 'event' | 'project';
export const ENTITY_KINDS: readonly EntityKind[] = ['task', 'note', 'event', 'project'];

/** Where a pending card waits: the inbox, or a lane below it that the
 * person looks through now and then. */
export type Lane = 'inbox' | 'screened' | 'spam' | 'snoozed';
export const LANES: readonly Lane[] = ['inbox', 'screened', 'spam', 'snoozed'];

export interface Status {
  version: string;
  started_at: string;
  data_dir: string;
  scouts_running: number;
  scouts_total: number;
  paused: boolean;
  /** Cards waiting in the inbox (lanes has every lane). */
  pending: number;
  suggestions: Partial<Record<SuggestionStatus, number>>;
  /** Pending cards per lane; absent from agents before lanes. */
  lanes?: Partial<Record<Lane, number>>;
  entities: Partial<Record<EntityKind, number>>;
  /** Absent when the desktop runs without a relay. */
  relay?: RelayStatus;
  /** Scouts whose model budget is spent today: rules and learner only. */
  model_budget?: SpentBudget[];
  /** Cards' actions that failed or wait to retry after a failure. */
  failing_actions?: number;
  /** Open alarms (raised, not yet acknowledged): Status → Alarms. */
  alarms?: number;
}

/** When a scout runs by itself and how its runs overlap (docs/schedules.md). */
export interface Schedule {
  cron?: string;
  time_zone?: string;
  overlap?: 'skip' | 'queue-one' | 'allow' | string;
  catch_up?: 'run-once' | 'skip' | string;
}

/** A scout's model token caps; 0 or absent: the agent's global cap. */
export interface Budget {
  run_tokens?: number;
  day_tokens?: number;
}

/** A scout's model budget today. */
export interface BudgetStatus {
  day_cap: number;
  run_cap?: number;
  spent_today: number;
  /** The day's cap is reached: rules and learner only until resets_at. */
  spent: boolean;
  run_spent?: boolean;
  resets_at: string;
  message?: string;
}

export interface SpentBudget {
  scout_id: string;
  scout_name: string;
  message: string;
  resets_at: string;
}

/** online; connecting; offline (retrying); unauthorized or revoked (not
 * retrying: the device token must be replaced). */
export type RelayState = 'connecting' | 'online' | 'offline' | 'unauthorized' | 'revoked';

export interface RelayStatus {
  url: string;
  state: RelayState | string;
  error?: string;
  since: string;
  next_retry?: string;
  device_id?: string;
  user_email?: string;
  /** Operations waiting to reach the relay. */
  outbox: number;
  last_seq: number;
}

export type HealthState = 'ok' | 'error' | 'disabled' | 'starting';

export interface ScoutHealth {
  state: HealthState;
  last_run_at?: string;
  last_success_at?: string;
  last_error?: string;
  last_run_new: number;
  total_new: number;
  /** The next scheduled run (scouts with a cron schedule). */
  next_run_at?: string;
  active_runs?: number;
  queued?: boolean;
  /** Today's model budget, with a model configured. */
  model_budget?: BudgetStatus;
  /** What keeps a folder scout's folder (or part of it) from being watched
   * live: a limit of the system, with the sysctl to raise. Its changes are
   * found by periodic rescans meanwhile. */
  watch?: string;
}

export interface Scout {
  /** Cards held past the scout's pending cap, let in as its cards are decided. */
  held?: number;
  /** "312 held — review the inbox to let them in"; absent when none. */
  held_message?: string;
  id: string;
  kind: 'folder' | 'gmail' | 'webhook' | string;
  name: string;
  enabled: boolean;
  review: boolean;
  running: boolean;
  path?: string;
  include?: string[];
  exclude?: string[];
  /** Webhook scouts: where items are posted. */
  hook_url?: string;
  config: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  health: ScoutHealth;
  /** Absent from agents before schedules. */
  schedule?: Schedule;
  budget?: Budget;
  /** Where its actions may write, as in effect; absent from agents before
   * write scopes. */
  write_scope?: ScopeInEffect;
}

/** A scout's write scope as a definition writes it: a list left out is
 * the default, an empty one allows nothing. */
export interface WriteScope {
  folders?: string[];
  labels?: string[];
  hosts?: string[];
}

/** One list of a scout's write scope as it applies. */
export interface ScopeList {
  globs: string[] | null;
  default: boolean;
}

export interface ScopeInEffect {
  folders: ScopeList;
  labels: ScopeList;
  hosts: ScopeList;
}

export interface CreateScout {
  kind: string;
  name?: string;
  review?: boolean;
  enabled?: boolean;
  path?: string;
  include?: string[];
  exclude?: string[];
  include_existing?: boolean;
  config?: Record<string, unknown>;
  write_scope?: WriteScope;
}

export interface PatchScout {
  name?: string;
  enabled?: boolean;
  review?: boolean;
  include?: string[];
  exclude?: string[];
  config?: Record<string, unknown>;
  /** Replaces where its actions may write ({}: the default). */
  write_scope?: WriteScope;
}

export interface Suggestion {
  id: string;
  scout_id: string;
  source_type: string;
  source_ref: string;
  status: SuggestionStatus;
  title: string;
  excerpt: string;
  sender?: string;
  path?: string;
  url?: string;
  proposed_kind: EntityKind;
  reason: string;
  trace_id: string;
  created_at: string;
  expires_at: string;
  resolved_at?: string;
  resolved_kind?: EntityKind;
  resolved_entity_id?: string;
  /** Why an expired suggestion expired (from its audit trail). */
  expired_reason?: string;
  /** Absent from agents before lanes: the inbox. A card marked as spam is
   * rejected in lane spam. */
  lane?: Lane;
  /** Brought back to the inbox from this lane. */
  rescued?: '' | 'screened' | 'spam';
  /** When a snoozed card returns to the inbox. */
  snoozed_until?: string;
  /** When a snoozed card came back (it is listed first in the inbox). */
  returned_at?: string;
  assessment?: Assessment;
  /** The card's plan; only from GET /api/v1/suggestions/{id}. */
  plan?: Plan;
  /** On the first card from a new sender (list, folder): the screener's
   * keys, always show and always screen, apply to it. */
  screener_offer?: ScreenerOffer;
  /** Set when a screener rule decided the card's lane. */
  screener?: ScreenerRule;
}

export type ScreenerChoice = 'show' | 'screen';

/** What the screener's keys apply to: a sender's address, a List-Id or a
 * folder's path (ending in /). */
export interface ScreenerOffer {
  of: 'sender' | 'list' | 'folder';
  value: string;
}

/** The screener rule that decided a card, and its why line in words
 * ("you screened this sender on 3 Dec"). */
export interface ScreenerRule {
  rule_id: string;
  choice: ScreenerChoice;
  of: 'sender' | 'list' | 'folder';
  /** The day the rule was made, 2026-12-03. */
  since: string;
  why: string;
}

/** What POST /suggestions/{id}/screen-sender did. */
export interface ScreenSenderResult {
  choice: ScreenerChoice;
  of: 'sender' | 'list' | 'folder';
  value: string;
  rule: Rule;
  /** The rule of the other choice it replaced. */
  replaced?: string;
  /** The cards from the sender that were waiting, as they are now. */
  settled: Suggestion[];
}

/** What the agent concluded about an item on arrival. */
export interface Assessment {
  /** Why the card is in Screened or Spam, in words. */
  lane_reason?: string;
  /** It waits in Screened only because its sender kept writing while
   * the person answered none of its mail; it offers the screener's keys. */
  unanswered?: boolean;
  /** The learner's probabilities, or -1 while it cannot tell. */
  approve: number;
  spam: number;
  learned_kind?: EntityKind;
  learned_kind_p?: number;
  cue_kind?: EntityKind;
  kind_from?: 'learned' | 'content' | 'source' | 'rule' | string;
  /** The evidence in plain words: "you approved 9 of 10 from this sender". */
  why?: string[];
  /** Fields read from the content, for the approve preview. */
  due?: string;
  starts_at?: string;
  ends_at?: string;
  all_day?: boolean;
  project_id?: string;
  /** "learning — 12 of 30 decisions" when the item arrived. */
  learning?: string;
  /** The scout's rule that decided the card, if one did. */
  rule_id?: string;
  /** The source's own title, when that rule replaced it. */
  source_title?: string;
  /** The entity's title the categorisation model proposes, when it differs
   * from the card's (which keeps the source's): the approve dialog offers it. */
  proposed_title?: string;
}

/** A scout's learner thresholds. */
export interface LearnSettings {
  cold_start: number;
  /** 0–0.5: screen what the person approves with less than this. */
  screen_below: number;
  /** 0.5–1: file as spam above this. */
  spam_above: number;
  min_spam: number;
  /** Days a card left alone in Spam or Screened waits before its silence
   * teaches (0 = off). Absent from a PUT: the scout keeps its value. */
  silence_days?: number;
  /** Pending cards the scout may have waiting before new ones are held
   * (0: the default, 500). Absent from a PUT: kept. */
  pending_cap?: number;
  /** How many of those may carry rule actions awaiting approval (0: the
   * default, 10). Absent from a PUT: kept. */
  pending_actions_cap?: number;
  /** Anti-flap gate: the same action on the same item with the same params
   * within these seconds is blocked (0: the default, 300). Absent from a
   * PUT: kept. */
  cooldown_seconds?: number;
  /** Storm gate: outbound posts past this many in the last hour are blocked
   * (0: the default, 30). Absent from a PUT: kept. */
  notify_per_hour?: number;
  /** Quiet hours, HH:MM local, both or neither ("" and "": none). Absent
   * from a PUT: kept. */
  quiet_start?: string;
  quiet_end?: string;
}

/** GET /api/v1/scouts/{id}/learning. */
export interface Learning {
  scout_id: string;
  decisions: number;
  spam_decisions: number;
  ham_decisions: number;
  /** "learning — 12 of 30 decisions" or "trained on 42 decisions". */
  state: string;
  trained: boolean;
  features: number;
  reset_at?: string;
  settings: LearnSettings;
}

/** Edits of the entity an approval creates; absent fields take the card's. */
export interface EntityFields {
  title?: string;
  body?: string;
  due?: string;
  project_id?: string;
  starts_at?: string;
  ends_at?: string;
  location?: string;
}

export interface Approve extends EntityFields {
  as: EntityKind;
  /** The plan as the card showed it, each action ticked or not; absent:
   * the proposed plan as proposed. */
  actions?: ApproveAction[];
  /** "Approve and always allow": the ticked actions that needed this
   * approval are allowed for the scout from now on. */
  always?: boolean;
}

export interface Entity {
  id: string;
  kind: EntityKind;
  title: string;
  body: string;
  source_suggestion_id?: string;
  done?: boolean;
  due?: string;
  project_id?: string;
  starts_at?: string;
  ends_at?: string;
  location?: string;
  created_at: string;
  updated_at: string;
  /** The item's whole text is still being read into the entity (it has
   * the card's excerpt until then); an entity.updated event follows. */
  body_pending?: boolean;
}

/** POST and PATCH on /tasks, /notes, /events, /projects. On PATCH an empty
 * date string clears the date. */
export interface EntityInput extends EntityFields {
  done?: boolean;
}

export interface AuditEvent {
  id: number;
  trace_id: string;
  stage: string;
  type: string;
  outcome: string;
  summary: string;
  refs: Record<string, string>;
  at: string;
}

export interface Content {
  text: string;
  content_type: string;
  truncated: boolean;
}

export interface QuietHours {
  start: string;
  end: string;
}

export interface Settings {
  notifications: boolean;
  quiet_hours?: QuietHours;
  autostart: boolean;
}

/** GET /api/v1/folders: subfolders, for choosing a folder to watch. */
export interface Folders {
  path: string;
  parent?: string;
  dirs: string[];
  truncated?: boolean;
}

/** The stream's event types (SSE "event:" lines). */
export const STREAM_EVENTS = [
  'hello',
  'reset',
  'suggestion.created',
  'suggestion.resolved',
  'suggestion.undone',
  'suggestion.moved',
  'entity.created',
  'entity.updated',
  'entity.deleted',
  'scout.updated',
  'scout.deleted',
  'scout.run',
  'scout.watch',
  'settings.updated',
  'scouts.paused',
  'relay.state',
  'suggestion.revived',
  'suggestion.snoozed',
  'suggestion.unsnoozed',
  'suggestion.returned',
  'task.snoozed',
  'task.returned',
  'secrets.changed',
  'action.updated',
  'policy.changed',
  'plan_defaults.changed',
  'scout.rules',
  'definitions.reconciled',
  'mcp.changed',
] as const;

export type StreamEventType = (typeof STREAM_EVENTS)[number];

export interface ScoutRun {
  scout_id: string;
  new: number;
  error: string;
}

/** Payloads by event type. */
export interface StreamPayloads {
  hello: Status;
  reset: { reason?: string };
  'suggestion.created': Suggestion;
  'suggestion.resolved': Suggestion;
  'suggestion.undone': Suggestion;
  'suggestion.moved': Suggestion;
  'entity.created': Entity;
  'entity.updated': Entity;
  'entity.deleted': { id: string; kind: EntityKind };
  'scout.updated': Scout;
  'scout.deleted': { id: string };
  'scout.run': ScoutRun;
  /** A folder scout's folder is watched live, or a limit of the system
   * keeps it (or part of it) from being watched (problem says which). */
  'scout.watch': { scout_id: string; live: boolean; problem: string };
  'settings.updated': Settings;
  'scouts.paused': { paused: boolean };
  'relay.state': RelayStatus;
  /** An expired suggestion brought back to pending. */
  'suggestion.revived': Suggestion;
  /** A card put off until a time, taken back early, or back on its own. */
  'suggestion.snoozed': Suggestion;
  'suggestion.unsnoozed': Suggestion;
  'suggestion.returned': Suggestion;
  /** A task left out of the lists until a time, and back. */
  'task.snoozed': Entity;
  'task.returned': Entity;
  /** The names of the secrets in the OS keyring (never a value). */
  'secrets.changed': { names: string[] };
  /** One of a card's recorded actions changed state. */
  'action.updated': PlanAction;
  'policy.changed': PolicyChange;
  'plan_defaults.changed': PlanDefaults;
  /** A scout's rules changed. */
  'scout.rules': { scout_id: string };
  /** The definitions folder was read again: the files that failed. */
  'definitions.reconciled': { definition_errors: DefinitionError[] | null };
  /** An MCP server, or its tools, changed: added, listed again (drift),
   * approved, trusted, removed, failed. */
  'mcp.changed': { server: string };
}

export type StreamEvent = {
  [T in StreamEventType]: { type: T; data: StreamPayloads[T]; id?: string };
}[StreamEventType];

/** A connected Gmail account (GET /api/v1/gmail/accounts). */
export interface GmailAccount {
  email: string;
  connected_at: string;
}
