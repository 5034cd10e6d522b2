// Transient messages at the bottom of the window: what just happened, with
// Undo when it can be taken back. Errors stay until dismissed.

export type Tone = 'info' | 'error';

export interface Toast {
  id: number;
  tone: Tone;
  text: string;
  /** A toast replaces the one already in its slot (one "what you just
   * decided" message at a time, however fast the person works). */
  slot?: string;
  /** Shown as the toast's button; the toast closes when it is used. */
  action?: { label: string; run: () => void };
}

/** How long a toast shows, by tone; errors wait for the person. */
export const TOAST_MS: Record<Tone, number | null> = { info: 5000, error: null };

export class Toaster {
  private toasts: Toast[] = [];
  private timers = new Map<number, ReturnType<typeof setTimeout>>();
  private seq = 0;

  constructor(
    private readonly onChange: (toasts: readonly Toast[]) => void,
    /** At most this many at once: the oldest leaves first. */
    private readonly max = 4,
  ) {}

  /** Shows a toast for ms (default by tone; null: until dismissed). */
  show(t: Omit<Toast, 'id'>, ms: number | null = TOAST_MS[t.tone]): number {
    const id = ++this.seq;
    if (t.slot) {
      for (const old of this.toasts.filter((x) => x.slot === t.slot)) this.dismiss(old.id, false);
    }
    this.toasts = [...this.toasts, { ...t, id }];
    while (this.toasts.length > this.max) this.dismiss(this.toasts[0]!.id, false);
    if (ms !== null)
      this.timers.set(
        id,
        setTimeout(() => this.dismiss(id), ms),
      );
    this.onChange(this.toasts);
    return id;
  }

  dismiss(id: number, notify = true): void {
    const timer = this.timers.get(id);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(id);
    const before = this.toasts.length;
    this.toasts = this.toasts.filter((t) => t.id !== id);
    if (notify && this.toasts.length !== before) this.onChange(this.toasts);
  }

  list(): readonly Toast[] {
    return this.toasts;
  }
}
