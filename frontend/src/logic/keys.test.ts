import { describe, expect, it } from 'vitest';
import { G_TIMEOUT_MS, KeyMap, SHORTCUTS } from './keys';

describe('keyboard shortcuts', () => {
  const km = () => new KeyMap(() => 0);

  it('maps the triage keys', () => {
    const k = km();
    expect(k.handle({ key: 'j' })).toEqual({ type: 'next', extend: false });
    expect(k.handle({ key: 'k' })).toEqual({ type: 'prev', extend: false });
    expect(k.handle({ key: 'ArrowDown' })).toEqual({ type: 'next', extend: false });
    expect(k.handle({ key: 't' })).toEqual({ type: 'approve', as: 'task', edit: false });
    expect(k.handle({ key: 'n' })).toEqual({ type: 'approve', as: 'note', edit: false });
    expect(k.handle({ key: 'e' })).toEqual({ type: 'approve', as: 'event', edit: false });
    expect(k.handle({ key: 'p' })).toEqual({ type: 'approve', as: 'project', edit: false });
    expect(k.handle({ key: 'x' })).toEqual({ type: 'reject' });
    expect(k.handle({ key: 'o' })).toEqual({ type: 'open' });
    expect(k.handle({ key: 'u' })).toEqual({ type: 'undo' });
    expect(k.handle({ key: '?', shiftKey: true })).toEqual({ type: 'help' });
    expect(k.handle({ key: ' ' })).toEqual({ type: 'toggle' });
    expect(k.handle({ key: 'Enter' })).toEqual({ type: 'edit' });
  });

  it('maps + and - to the screener, always show and always screen', () => {
    const k = new KeyMap();
    expect(k.handle({ key: '+', shiftKey: true })).toEqual({ type: 'screenSender', choice: 'show' });
    expect(k.handle({ key: '-' })).toEqual({ type: 'screenSender', choice: 'screen' });
    expect(k.handle({ key: '−' })).toEqual({ type: 'screenSender', choice: 'screen' });
  });

  it('with shift, approves through the editor and extends the selection', () => {
    const k = km();
    expect(k.handle({ key: 'T', shiftKey: true })).toEqual({ type: 'approve', as: 'task', edit: true });
    expect(k.handle({ key: 'J', shiftKey: true })).toEqual({ type: 'next', extend: true });
    expect(k.handle({ key: 'A', shiftKey: true })).toEqual({ type: 'selectAll' });
    expect(k.handle({ key: 'a' })).toBeUndefined();
  });

  it('leaves keys alone in text fields and with modifiers (copy, paste, browser shortcuts)', () => {
    const k = km();
    expect(k.handle({ key: 't', editing: true })).toBeUndefined();
    expect(k.handle({ key: 'x', ctrlKey: true })).toBeUndefined();
    expect(k.handle({ key: 'u', metaKey: true })).toBeUndefined();
    expect(k.handle({ key: 'j', altKey: true })).toBeUndefined();
  });

  it('navigates with g then a letter, within a moment', () => {
    let now = 0;
    const k = new KeyMap(() => now);
    expect(k.handle({ key: 'g' })).toBeUndefined();
    expect(k.handle({ key: 't' })).toEqual({ type: 'go', view: 'tasks' });
    // The prefix is used up: t approves again.
    expect(k.handle({ key: 't' })).toEqual({ type: 'approve', as: 'task', edit: false });
    k.handle({ key: 'g' });
    now += G_TIMEOUT_MS + 1;
    expect(k.handle({ key: 's' })).toBeUndefined();
    k.handle({ key: 'g' });
    expect(k.handle({ key: 'i' })).toEqual({ type: 'go', view: 'inbox' });
    k.handle({ key: 'g' });
    expect(k.handle({ key: ',' })).toEqual({ type: 'go', view: 'settings' });
  });

  it('moves cards between lanes and switches lanes', () => {
    const k = km();
    expect(k.handle({ key: 'b' })).toEqual({ type: 'bringBack' });
    expect(k.handle({ key: 'B', shiftKey: true })).toBeUndefined();
    expect(k.handle({ key: '!', shiftKey: true })).toEqual({ type: 'spam' });
    expect(k.handle({ key: '1' })).toEqual({ type: 'lane', lane: 'inbox' });
    expect(k.handle({ key: '2' })).toEqual({ type: 'lane', lane: 'screened' });
    expect(k.handle({ key: '3' })).toEqual({ type: 'lane', lane: 'spam' });
    expect(k.handle({ key: '4' })).toEqual({ type: 'lane', lane: 'snoozed' });
    expect(k.handle({ key: '5' })).toBeUndefined();
    expect(k.handle({ key: 'z' })).toEqual({ type: 'snooze' });
    expect(k.handle({ key: 'z', editing: true })).toBeUndefined();
    expect(k.handle({ key: 'b', editing: true })).toBeUndefined();
    expect(k.handle({ key: '2', editing: true })).toBeUndefined();
    // g i is still the inbox view, g s the scouts.
    k.handle({ key: 'g' });
    expect(k.handle({ key: 's' })).toEqual({ type: 'go', view: 'scouts' });
  });

  it('lists every key once in the help', () => {
    const keys = SHORTCUTS.flatMap((s) => s.keys.map(([k]) => k));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(expect.arrayContaining(['b', '!', 'z', '1 / 2 / 3 / 4']));
  });

  it('forgets a g prefix typed into a field', () => {
    const k = km();
    k.handle({ key: 'g' });
    k.handle({ key: 'x', editing: true });
    expect(k.handle({ key: 't' })).toEqual({ type: 'approve', as: 'task', edit: false });
  });
});
