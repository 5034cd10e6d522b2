// Undo of decisions. The agent takes a decision back for 30 seconds; the
// toast that offers it shows for 8, and `u` keeps working a little longer,
// newest decision first, until the agent's window closes.

export const UNDO_TOAST_MS = 8000;
/** The agent's window is 30 s from its own clock; stop a little earlier so
 * that a late press gets no confusing "decided too long ago". */
export const UNDO_WINDOW_MS = 28000;

export interface Decision {
  /** The suggestions one key press decided (several with a selection). */
  ids: string[];
  /** "Approved as task “Pay the invoice”": what undo takes back. */
  label: string;
  at: number;
}

export class UndoHistory {
  private items: Decision[] = [];

  constructor(
    private readonly now: () => number = () => Date.now(),
    private readonly windowMs = UNDO_WINDOW_MS,
  ) {}

  record(ids: string[], label: string): Decision {
    const d = { ids, label, at: this.now() };
    this.items.push(d);
    this.prune();
    return d;
  }

  /** The newest decision that can still be undone. */
  peek(): Decision | undefined {
    this.prune();
    return this.items[this.items.length - 1];
  }

  /** Removes and returns the newest decision that can still be undone. */
  take(): Decision | undefined {
    this.prune();
    return this.items.pop();
  }

  /** Takes out one particular decision (its toast's Undo button). */
  remove(d: Decision): boolean {
    const i = this.items.indexOf(d);
    if (i < 0 || this.now() - d.at >= this.windowMs) return false;
    this.items.splice(i, 1);
    return true;
  }

  /** Puts a decision back after its undo failed for a passing reason. */
  restore(d: Decision): void {
    this.items.push(d);
    this.items.sort((a, b) => a.at - b.at);
    this.prune();
  }

  private prune() {
    const t = this.now();
    this.items = this.items.filter((d) => t - d.at < this.windowMs);
  }
}
