import type { PlanAction } from '../api/plans';

/** What the card says of a step of a rule's plan, beside its state. */
export interface StepNote {
  text: string;
  /** The n of the step failed for good that holds this one: the person
   * retries or drops it there. */
  heldBy?: number;
}

const stepName = (n: number, all: readonly PlanAction[]) => {
  const s = all.find((o) => o.n === n);
  return s ? `step ${n} (${s.action})` : `step ${n}`;
};

/** What a recorded step waits for, or why it runs (docs/actions.md,
 * "Steps"): a queued step waits for the step it names until that one is
 * done; if a step before it (directly or through other waiting steps)
 * failed for good, it is held until that one is retried or dropped. An
 * on_failure step says whose failure added it. Undefined for an action
 * that is no step, or a step whose turn has come. */
export function stepNote(a: PlanAction, all: readonly PlanAction[]): StepNote | undefined {
  const parts: string[] = [];
  if (a.on_failure && a.failed_n) parts.push(`runs because ${stepName(a.failed_n, all)} failed`);
  let heldBy: number | undefined;
  if (a.state === 'queued' && a.after) {
    const seen = new Set<number>();
    let waiting = false;
    for (let k: number | undefined = a.after; k && !seen.has(k); ) {
      seen.add(k);
      const w = all.find((o) => o.n === k);
      if (!w || w.state === 'done') break;
      waiting = true;
      if (w.state === 'failed') {
        heldBy = k;
        break;
      }
      k = w.after;
    }
    if (heldBy) return { text: [...parts, `held: step ${heldBy} failed — retry or drop it`].join('; '), heldBy };
    if (waiting) parts.push(`waits for ${stepName(a.after, all)}`);
  }
  return parts.length ? { text: parts.join('; ') } : undefined;
}
