// The local API's types for actions, plans, policies and rules: a mirror
// of app/apitype/actions.go and app/apitype/rules.go (docs/api.md, "Plans,
// actions and policies" and "Rules").

/** allow: runs without asking; require_approval: runs only when a person
 * approves the card; deny: never runs. */
export type Mode = 'allow' | 'require_approval' | 'deny';
export const MODES: readonly Mode[] = ['allow', 'require_approval', 'deny'];

/** Where a mode came from: the scout's override, the global setting, or
 * the action's risk. */
export type ModeSource = 'scout' | 'global' | 'inferred' | 'blocked' | 'quiet_hours';

export type Risk = 'read' | 'write' | 'danger';

/** One action of the catalogue (GET /api/v1/actions). */
export interface ActionDef {
  name: string;
  description: string;
  risk: Risk | string;
  /** local: created with the decision; outbox: queued with it, run after. */
  runs: 'local' | 'outbox' | string;
  /** The scout kinds it acts on; absent: any. */
  kinds?: string[];
  schema: unknown;
  /** This desktop can run it (Gmail's need Google set up). */
  available: boolean;
  inferred_mode: Mode;
}

export type ActionState = 'proposed' | 'queued' | 'running' | 'done' | 'failed' | 'dropped' | 'cancelled' | 'undone';

/** One action of a card's plan: proposed (a pending card's, before
 * approval) or recorded (with its number n and its state). */
export interface PlanAction {
  /** Set in action.updated events and the failing list. */
  suggestion_id?: string;
  /** Numbers a card's recorded actions from 1; absent on proposed ones. */
  n?: number;
  action: string;
  params?: Record<string, unknown> | null;
  enabled: boolean;
  /** kind (the entity), default (the user's defaults), rule:<id>, or user. */
  origin: string;
  description?: string;
  risk?: Risk | string;
  runs?: string;
  mode: Mode | string;
  mode_source: ModeSource | string;
  state: ActionState | string;
  /** approval, or arrival (a rule's action a policy allowed at once). */
  phase?: string;
  decided_by?: string;
  attempts?: number;
  /** The last attempt's error. */
  error?: string;
  next_retry?: string;
  /** Failed, or waiting to retry after a failure: can be retried or dropped. */
  failing?: boolean;
  result?: unknown;
  updated_at?: string;
  /** A step of a rule's plan: the n of the step it waits for (it runs
   * once that one is done; one failed for good holds it). */
  after?: number;
  /** An on_failure step, added because step failed_n failed for good
   * (failed_n in a card's plan only). */
  on_failure?: boolean;
  failed_n?: number;
  /** The name the step's result goes by for the steps after it. */
  output_as?: string;
}

/** GET /api/v1/suggestions/{id}/plan: recorded actions first, then what
 * approving a pending card as kind would do. */
export interface Plan {
  kind?: string;
  actions: PlanAction[];
  failing: number;
}

/** One action of an approve request, ticked or not. */
export interface ApproveAction {
  action: string;
  params?: Record<string, unknown> | null;
  enabled: boolean;
}

export interface ResolvedMode {
  action: string;
  risk: string;
  mode: Mode;
  source: ModeSource;
}

export interface PlanDefaults {
  gmail_archive: boolean;
  gmail_label: string;
}

/** GET /api/v1/policies and the answer to PUT. */
export interface Policies {
  global: Record<string, Mode>;
  /** scout id → action → mode. */
  scouts: Record<string, Record<string, Mode>>;
  defaults: PlanDefaults;
  resolved: ResolvedMode[];
}

/** PUT /api/v1/policies: a merge patch; null removes a setting. */
export interface PutPolicies {
  global?: Record<string, Mode | null>;
  scouts?: Record<string, Record<string, Mode | null>>;
  defaults?: PlanDefaults;
}

/** The stream's policy.changed: a mode set, or removed (no mode). */
export interface PolicyChange {
  scout_id?: string;
  action: string;
  mode?: Mode;
  by: string;
  at: string;
}

// ---- Rules ----------------------------------------------------------------

/** A rule document as written (docs/rules.md). when and then are kept as
 * the user wrote them: the grammar is the server's to check. */
export interface RuleDoc {
  id: string;
  name?: string;
  enabled?: boolean;
  when: Record<string, unknown>;
  then: RuleThen;
}

export type Verdict = 'show' | 'screen' | 'spam' | 'skip';
export const VERDICTS: readonly Verdict[] = ['show', 'screen', 'spam', 'skip'];

export interface RuleThen {
  verdict: Verdict | string;
  kind?: string;
  title?: string;
  project?: string;
  due?: string;
  actions?: { action: string; params?: Record<string, unknown> }[];
}

/** One rule as listed, with its place. */
export interface Rule {
  rule: RuleDoc;
  position: number;
  /** The relay applies it itself (relay-triage Gmail scouts). */
  relay?: boolean;
  /** The stored rule no longer compiles; skipped until fixed. */
  problem?: string;
  created_at: string;
  updated_at: string;
}

export interface RuleField {
  name: string;
  /** string, list, number, bool or json (a webhook body field). */
  type: string;
  doc: string;
}

/** GET /api/v1/scouts/{id}/rules. */
export interface RuleList {
  scout_id: string;
  kind: string;
  rules: Rule[];
  fields: RuleField[];
  operators: string[];
  functions: string[];
}

export interface RuleAction {
  action: string;
  params?: Record<string, unknown>;
}

export interface RuleEffect {
  verdict: string;
  lane: string;
  kind?: string;
  title?: string;
  project_id?: string;
  due?: string;
  actions?: RuleAction[];
  notes?: string[];
}

export interface RulePreviewItem {
  suggestion_id: string;
  title: string;
  sender?: string;
  path?: string;
  status: string;
  lane: string;
  kind: string;
  created_at: string;
  result: 'match' | 'no_match' | 'unknown';
  unknown_fields?: string[];
  why?: string;
  earlier_rule?: string;
  would?: RuleEffect;
}

/** POST /api/v1/scouts/{id}/rules/preview. */
export interface RulePreview {
  rule_id: string;
  matched: number;
  unknown: number;
  no_match: number;
  items: RulePreviewItem[];
}
