// Settings → Policies in pure functions: the rows it shows, the changes it
// sends (PUT /api/v1/policies is a merge patch) and the cascade's rules
// that the window can say before the agent does.

import type { ActionDef, Mode, Policies, PutPolicies, ResolvedMode } from '../api/plans';
import { modeLabel, modeSourceLabel } from './plan';

export const RISK_HINT: Record<string, string> = {
  read: 'reads only: allowed unless you say otherwise',
  write: 'changes something: asks you first unless you allow it',
  danger: 'hard to take back: asks you first unless you allow it; consider denying it',
};

export function riskHint(risk: string): string {
  return RISK_HINT[risk] ?? risk;
}

export interface GlobalRow {
  action: string;
  description: string;
  risk: string;
  /** The global setting; undefined: the risk decides. */
  mode?: Mode;
  inferred: Mode;
  available: boolean;
}

/** One row per action of the catalogue, with its global setting. */
export function globalRows(catalogue: readonly ActionDef[], p: Policies): GlobalRow[] {
  return catalogue.map((d) => ({
    action: d.name,
    description: d.description,
    risk: d.risk,
    mode: p.global[d.name],
    inferred: d.inferred_mode,
    available: d.available,
  }));
}

export interface OverrideRow {
  scoutId: string;
  /** The scout's name, or its id when the scout is not known here. */
  scoutName: string;
  action: string;
  mode: Mode;
  /** The global deny that keeps the action off whatever this says. */
  underGlobalDeny: boolean;
}

/** Every scout override, by scout name then action. */
export function overrideRows(p: Policies, scoutNames: Readonly<Record<string, string>>): OverrideRow[] {
  const rows: OverrideRow[] = [];
  for (const [id, modes] of Object.entries(p.scouts)) {
    for (const [action, mode] of Object.entries(modes)) {
      rows.push({
        scoutId: id,
        scoutName: scoutNames[id] ?? id,
        action,
        mode,
        underGlobalDeny: p.global[action] === 'deny' && mode !== 'deny',
      });
    }
  }
  return rows.sort((a, b) => a.scoutName.localeCompare(b.scoutName) || a.action.localeCompare(b.action));
}

/** The modes a scout override may take: under a global deny only deny
 * (the agent refuses the others: "remove the global deny first"). */
export function overrideModes(p: Policies, action: string): Mode[] {
  return p.global[action] === 'deny' ? ['deny'] : ['allow', 'require_approval', 'deny'];
}

/** Sets (or, with null, removes) the global mode of an action. */
export function setGlobal(action: string, mode: Mode | null): PutPolicies {
  return { global: { [action]: mode } };
}

/** Sets (or, with null, removes) a scout's override of an action. */
export function setOverride(scoutId: string, action: string, mode: Mode | null): PutPolicies {
  return { scouts: { [scoutId]: { [action]: mode } } };
}

/** The actions that apply to a scout kind, for adding an override. */
export function actionsFor(catalogue: readonly ActionDef[], kind: string | undefined): ActionDef[] {
  return catalogue.filter((d) => !d.kinds || d.kinds.length === 0 || (kind !== undefined && d.kinds.includes(kind)));
}

export interface EffectiveRow {
  action: string;
  mode: Mode;
  source: string;
  /** Where the mode comes from, in words: "your setting for Work mail". */
  why: string;
  /** "Allowed — your setting for Work mail". */
  text: string;
}

/** What applies to one scout, as the agent resolved it (GET
 * /api/v1/policies?scout_id=): each action its kind can run, in the
 * catalogue's order, with its mode and where the mode comes from. */
export function effectiveRows(
  catalogue: readonly ActionDef[],
  resolved: readonly ResolvedMode[],
  kind: string | undefined,
  scoutName?: string,
): EffectiveRow[] {
  const byAction = new Map(resolved.map((r) => [r.action, r]));
  const rows: EffectiveRow[] = [];
  for (const d of actionsFor(catalogue, kind)) {
    const r = byAction.get(d.name);
    if (!r) continue;
    const why = modeSourceLabel(r.source, r.risk, scoutName);
    rows.push({ action: d.name, mode: r.mode, source: r.source, why, text: `${modeLabel(r.mode)} — ${why}` });
  }
  return rows;
}

/** The policies after a policy.changed event (a mode set or removed), so
 * the view follows changes made elsewhere without asking again. The
 * resolved modes are left to the next fetch. */
export function applyChange(p: Policies, c: { scout_id?: string; action: string; mode?: Mode }): Policies {
  if (!c.scout_id) {
    const global = { ...p.global };
    if (c.mode) global[c.action] = c.mode;
    else delete global[c.action];
    return { ...p, global };
  }
  const scouts = { ...p.scouts };
  const mine = { ...(scouts[c.scout_id] ?? {}) };
  if (c.mode) mine[c.action] = c.mode;
  else delete mine[c.action];
  if (Object.keys(mine).length === 0) delete scouts[c.scout_id];
  else scouts[c.scout_id] = mine;
  return { ...p, scouts };
}
