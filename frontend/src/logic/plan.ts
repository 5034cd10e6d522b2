// A card's plan in words, and the approve request a set of ticks makes.
// Pure: the approve dialog, a card and Status share it.

import type { ApproveAction, Mode, PlanAction } from '../api/plans';
import { tildePath } from './format';

/** "Archive the email" → "archive the email", inside a sentence. */
export const lcFirst = (s: string) => (s ? s[0]!.toLowerCase() + s.slice(1) : s);

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** What an action does, for a person: "Archive the email", "Add the label
 * Scouts", "Move the file to ~/Archive". */
export function actionLabel(a: { action: string; params?: Record<string, unknown> | null }, home?: string): string {
  const p = a.params ?? {};
  switch (a.action) {
    case 'task.create':
      return 'Create a task';
    case 'note.create':
      return 'Create a note';
    case 'event.create':
      return 'Create an event';
    case 'project.create':
      return 'Create a project';
    case 'entity.fill_body':
      // The engine's own step after an approval: the item's whole text,
      // read from its source once the approval has answered.
      return 'Bring in the full text';
    case 'gmail.archive':
      return 'Archive the email';
    case 'gmail.label':
      return str(p.label) ? `Add the label ${str(p.label)}` : 'Add a label';
    case 'gmail.mark_read':
      return 'Mark the email read';
    case 'gmail.trash':
      return 'Move the email to the trash';
    case 'gmail.restore':
      return 'Take the email out of the trash, back to the inbox';
    case 'gmail.unsubscribe':
      return 'Unsubscribe from the email’s mailing list';
    case 'file.move':
      return str(p.to) ? `Move the file to ${tildePath(str(p.to), home)}` : 'Move the file';
    case 'webhook.post': {
      let where = str(p.url);
      try {
        where = new URL(where).host || where;
      } catch {
        // Not a URL: say it as given.
      }
      return where ? `Post the card to ${where}` : 'Post the card to a webhook';
    }
  }
  return a.action;
}

export const MODE_LABEL: Record<Mode, string> = {
  allow: 'Allowed',
  require_approval: 'Needs approval',
  deny: 'Denied',
};

export function modeLabel(m: string): string {
  return MODE_LABEL[m as Mode] ?? m;
}

/** Where a mode comes from, in words. */
export function modeSourceLabel(source: string, risk?: string, scoutName?: string): string {
  switch (source) {
    case 'scout':
      return scoutName ? `your setting for ${scoutName}` : 'your setting for this scout';
    case 'global':
      return 'your setting for every scout';
    case 'inferred':
      return risk ? `the default for a ${risk} action` : 'the default';
    case 'blocked':
      return 'its block: its definition changed since it was approved';
    case 'quiet_hours':
      return "the scout's quiet hours (allowed otherwise)";
  }
  return source;
}

/** Where an action came from, in words. */
export function originLabel(origin: string): string {
  if (origin === 'kind') return 'the kind you approve as';
  if (origin === 'default') return 'your defaults';
  if (origin === 'user') return 'you';
  if (origin.startsWith('rule:')) return `rule “${origin.slice(5)}”`;
  return origin;
}

/** A proposed action's identity across kinds: the entity action changes
 * with the kind, the others keep their tick when the person switches. */
export const planKey = (a: { action: string; params?: unknown }) =>
  a.action.endsWith('.create') ? 'entity' : `${a.action} ${JSON.stringify(a.params ?? {})}`;

export const isEntityAction = (a: PlanAction) => a.origin === 'kind' || a.action.endsWith('.create');

/** Proposed actions, ticks as the person left them. */
export type Ticks = Readonly<Record<string, boolean>>;

/** The proposed part of a plan: what the person can tick. */
export const proposed = (actions: readonly PlanAction[]) => actions.filter((a) => a.state === 'proposed');

/** The ticks a plan starts with: its own, and the person's earlier ones for
 * the same actions (switching the kind keeps "archive" unticked). A denied
 * action is never ticked. */
export function initialTicks(actions: readonly PlanAction[], before: Ticks = {}): Ticks {
  const t: Record<string, boolean> = {};
  for (const a of proposed(actions)) {
    const k = planKey(a);
    if (a.mode === 'deny') t[k] = false;
    else if (isEntityAction(a)) t[k] = true;
    else t[k] = k in before ? before[k]! : a.enabled;
  }
  return t;
}

/** Whether the person may change an action's tick, and if not, why. */
export function lockReason(a: PlanAction): string | undefined {
  if (a.mode === 'deny') return 'Denied by your policy: it never runs.';
  if (isEntityAction(a)) return 'Approving creates it; reject the card to create nothing.';
  return undefined;
}

/** The approve request's actions: every proposed action, ticked or not. */
export function approveActions(actions: readonly PlanAction[], ticks: Ticks): ApproveAction[] {
  return proposed(actions).map((a) => {
    const out: ApproveAction = { action: a.action, enabled: a.mode !== 'deny' && (ticks[planKey(a)] ?? a.enabled) };
    if (a.params && Object.keys(a.params).length > 0) out.params = a.params;
    return out;
  });
}

/** What "Approve and always allow" would allow for the scout from now on:
 * the ticked actions that need this approval (as the server decides it). */
export function alwaysAllows(actions: readonly PlanAction[], ticks: Ticks): string[] {
  const names = proposed(actions)
    .filter((a) => a.mode === 'require_approval' && (ticks[planKey(a)] ?? a.enabled))
    .map((a) => a.action);
  return [...new Set(names)];
}

/** The toast after "approve and always allow": what changed, where it
 * is undone. */
export function alwaysToast(names: readonly string[], scoutName: string): string {
  return `Always allow ${names.join(', ')} for ${scoutName} — change in Settings → Policies`;
}

const MIN = 60_000;

/** Where a failing action stands: "next try in 3 min", "stopped after 10
 * attempts". */
export function retryText(a: PlanAction, now: number): string {
  const tries = a.attempts ? ` after ${a.attempts === 1 ? '1 attempt' : `${a.attempts} attempts`}` : '';
  if (a.state === 'failed') return `Stopped${tries}: it will not be tried again unless you retry it.`;
  if (a.state === 'queued' && a.next_retry) {
    const d = Date.parse(a.next_retry) - now;
    if (Number.isNaN(d)) return `Trying again${tries}.`;
    if (d <= 30_000) return `Trying again in a moment${tries ? ` (${tries.trim()})` : ''}.`;
    const min = Math.round(d / MIN);
    return `Next try in ${min <= 1 ? 'about a minute' : `${min} min`}${tries ? ` (${tries.trim()})` : ''}.`;
  }
  return '';
}

/** What a recorded action's state means to the person. */
export const STATE_LABEL: Record<string, string> = {
  proposed: 'Proposed',
  queued: 'Waiting to run',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  dropped: 'Dropped',
  cancelled: 'Cancelled',
  undone: 'Undone',
};

/** The key of a recorded action across lists and events. */
export const runKey = (a: { suggestion_id?: string; n?: number }) => `${a.suggestion_id ?? ''}:${a.n ?? 0}`;
