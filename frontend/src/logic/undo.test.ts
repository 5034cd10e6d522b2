import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Toaster, type Toast } from './toasts';
import { UNDO_TOAST_MS, UNDO_WINDOW_MS, UndoHistory } from './undo';

describe('undo history', () => {
  it('undoes newest first, while the agent still allows it', () => {
    let now = 0;
    const h = new UndoHistory(() => now);
    const a = h.record(['a'], 'Rejected a');
    now = 1000;
    const b = h.record(['b', 'c'], 'Approved b and c');
    expect(h.peek()).toBe(b);
    expect(h.take()).toBe(b);
    expect(h.take()).toBe(a);
    expect(h.take()).toBeUndefined();
  });

  it('forgets decisions older than the window', () => {
    let now = 0;
    const h = new UndoHistory(() => now);
    h.record(['a'], 'a');
    now = UNDO_WINDOW_MS - 1;
    expect(h.peek()?.ids).toEqual(['a']);
    now = UNDO_WINDOW_MS;
    expect(h.take()).toBeUndefined();
  });

  it('stays inside the agent’s 30 seconds', () => {
    expect(UNDO_WINDOW_MS).toBeLessThan(30_000);
    expect(UNDO_TOAST_MS).toBeLessThan(UNDO_WINDOW_MS);
  });

  it('removes a particular decision (its toast’s button) only while it can be undone', () => {
    let now = 0;
    const h = new UndoHistory(() => now);
    const a = h.record(['a'], 'a');
    const b = h.record(['b'], 'b');
    expect(h.remove(a)).toBe(true);
    expect(h.remove(a)).toBe(false);
    expect(h.peek()).toBe(b);
    now = UNDO_WINDOW_MS + 1;
    expect(h.remove(b)).toBe(false);
  });

  it('puts a decision back in time order after a failed undo', () => {
    let now = 0;
    const h = new UndoHistory(() => now);
    const a = h.record(['a'], 'a');
    now = 10;
    const b = h.record(['b'], 'b');
    h.take();
    h.take();
    h.restore(b);
    h.restore(a);
    expect(h.take()).toBe(b);
  });
});

describe('toasts', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows an undo toast for 8 seconds, and errors until dismissed', () => {
    let shown: readonly Toast[] = [];
    const t = new Toaster((l) => (shown = l));
    t.show({ tone: 'info', text: 'Rejected “x”', action: { label: 'Undo', run: () => {} } }, UNDO_TOAST_MS);
    const err = t.show({ tone: 'error', text: 'The agent is not reachable.' });
    vi.advanceTimersByTime(UNDO_TOAST_MS - 1);
    expect(shown.map((x) => x.text)).toEqual(['Rejected “x”', 'The agent is not reachable.']);
    vi.advanceTimersByTime(1);
    expect(shown.map((x) => x.text)).toEqual(['The agent is not reachable.']);
    vi.advanceTimersByTime(60_000);
    expect(shown).toHaveLength(1);
    t.dismiss(err);
    expect(shown).toHaveLength(0);
  });

  it('keeps at most a few at once, dropping the oldest', () => {
    let shown: readonly Toast[] = [];
    const t = new Toaster((l) => (shown = l), 2);
    t.show({ tone: 'info', text: '1' });
    t.show({ tone: 'info', text: '2' });
    t.show({ tone: 'info', text: '3' });
    expect(shown.map((x) => x.text)).toEqual(['2', '3']);
  });
});

describe('the decision slot', () => {
  it('keeps one decision toast: a newer decision replaces the older one', () => {
    let shown: readonly Toast[] = [];
    const t = new Toaster((l) => (shown = l));
    t.show({ tone: 'info', text: 'Scout added' });
    t.show({ tone: 'info', text: 'Rejected “a”', slot: 'decision' }, UNDO_TOAST_MS);
    t.show({ tone: 'info', text: 'Approved as task “b”', slot: 'decision' }, UNDO_TOAST_MS);
    expect(shown.map((x) => x.text)).toEqual(['Scout added', 'Approved as task “b”']);
  });
});
