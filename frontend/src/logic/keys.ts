// Keyboard shortcuts: from a key press to a command, with no DOM and no
// state besides the "g" prefix, so they are tested in isolation and listed
// in one table for the help dialog.

import type { EntityKind, Lane, ScreenerChoice } from '../api/types';
import type { View } from './router';

export type Command =
  | { type: 'next' | 'prev'; extend: boolean }
  | { type: 'approve'; as: EntityKind; edit: boolean }
  | { type: 'edit' }
  | { type: 'reject' }
  | { type: 'spam' }
  | { type: 'bringBack' }
  | { type: 'snooze' }
  | { type: 'screenSender'; choice: ScreenerChoice }
  | { type: 'lane'; lane: Lane }
  | { type: 'open' }
  | { type: 'why' }
  | { type: 'undo' }
  | { type: 'toggle' }
  | { type: 'selectAll' }
  | { type: 'escape' }
  | { type: 'help' }
  | { type: 'search' }
  | { type: 'new' }
  | { type: 'go'; view: View };

export interface KeyLike {
  key: string;
  shiftKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  /** True when the key goes to a text field, where letters are text. */
  editing?: boolean;
}

const approveKeys: Record<string, EntityKind> = { t: 'task', n: 'note', e: 'event', p: 'project' };

const laneKeys: Record<string, Lane> = { '1': 'inbox', '2': 'screened', '3': 'spam', '4': 'snoozed' };

const goKeys: Record<string, View> = {
  i: 'inbox',
  b: 'brief',
  t: 'tasks',
  n: 'notes',
  e: 'events',
  p: 'projects',
  s: 'scouts',
  a: 'status',
  ',': 'settings',
};

/** How long after "g" the second key still counts. */
export const G_TIMEOUT_MS = 1500;

export class KeyMap {
  private gAt = -Infinity;

  constructor(private readonly now: () => number = () => Date.now()) {}

  handle(e: KeyLike): Command | undefined {
    if (e.ctrlKey || e.metaKey || e.altKey || e.editing) {
      this.gAt = -Infinity;
      return undefined;
    }
    const key = e.key;
    if (this.now() - this.gAt < G_TIMEOUT_MS) {
      this.gAt = -Infinity;
      const view = goKeys[key.toLowerCase()];
      if (view) return { type: 'go', view };
      return undefined;
    }
    if (key === 'g') {
      this.gAt = this.now();
      return undefined;
    }
    const lower = key.length === 1 ? key.toLowerCase() : key;
    const shift = !!e.shiftKey || (key.length === 1 && key !== lower);
    switch (lower) {
      case 'j':
      case 'ArrowDown':
        return { type: 'next', extend: shift };
      case 'k':
      case 'ArrowUp':
        return { type: 'prev', extend: shift };
      case 'Enter':
        return { type: 'edit' };
      case 'x':
        return { type: 'reject' };
      case '!':
        return { type: 'spam' };
      // The screener, on the first card from a new sender: + always shows
      // it, - (or the typographic minus) always screens it.
      case '+':
        return { type: 'screenSender', choice: 'show' };
      case '-':
      case '−':
        return { type: 'screenSender', choice: 'screen' };
      case 'b':
        return shift ? undefined : { type: 'bringBack' };
      case 'z':
        return shift ? undefined : { type: 'snooze' };
      case 'o':
        return { type: 'open' };
      case 'w':
        return { type: 'why' };
      case 'u':
        return { type: 'undo' };
      case ' ':
        return { type: 'toggle' };
      case 'a':
        return shift ? { type: 'selectAll' } : undefined;
      case 'c':
        return { type: 'new' };
      case 'Escape':
        return { type: 'escape' };
      case '?':
        return { type: 'help' };
      case '/':
        return { type: 'search' };
    }
    const as = approveKeys[lower];
    if (as) return { type: 'approve', as, edit: shift };
    const lane = laneKeys[key];
    if (lane) return { type: 'lane', lane };
    return undefined;
  }
}

/** The help dialog's table: keys as shown, and what they do. */
export const SHORTCUTS: ReadonlyArray<{ section: string; keys: ReadonlyArray<[string, string]> }> = [
  {
    section: 'Inbox',
    keys: [
      ['j / k', 'Next / previous card'],
      ['t  n  e  p', 'Approve as task, note, event, project'],
      ['Shift + t n e p', 'Edit, then approve as that kind'],
      ['Enter', 'Edit, then approve as the proposed kind'],
      ['x', 'Reject'],
      ['!', 'Mark as spam'],
      ['b', 'Bring back to the inbox (from Snoozed: now)'],
      ['z', 'Snooze the card (or, in Tasks, the task) until a time you type (“in 3 hours”, “tomorrow morning”)'],
      ['+ / -', 'First card from a new sender: always show it / always screen it (in a scout’s Senders: - unsubscribes from the selected senders and screens them, after one confirmation)'],
      ['o', 'Open the full item'],
      ['w', 'Why am I seeing this? (the audit trail)'],
      ['Space', 'Select or unselect the card'],
      ['Shift + j / k', 'Extend the selection'],
      ['Shift + a', 'Select every card'],
      ['Esc', 'Clear the selection, close a panel'],
    ],
  },
  {
    section: 'Anywhere',
    keys: [
      ['g then i', 'Inbox'],
      ['g then b', 'The daily brief'],
      ['1 / 2 / 3 / 4', 'Inbox, Screened, Spam, Snoozed lanes'],
      ['g then t / n / e / p', 'Tasks, notes, events, projects'],
      ['g then s', 'Scouts'],
      ['g then a', 'Agent status'],
      ['g then ,', 'Settings'],
      ['u', 'Undo the last decision (for 30 seconds)'],
      ['c', 'New task, note, event or project (in its list)'],
      ['/', 'Search cards, tasks, notes, events and projects'],
      ['?', 'This list'],
    ],
  },
  {
    section: 'Search',
    keys: [
      ['↓ / ↑, j / k', 'Next / previous result (j k once on the results)'],
      ['Enter (in search)', 'Open the card, task, note, event or project'],
      ['Esc (in search)', 'Leave the search, back to the view you were in'],
      ['lisb', 'Words match as prefixes (“lisb” finds Lisbon), any case or accent'],
      ['"contract draft"', 'A phrase, as it is'],
      ['-hotels', 'Leave out what has the word'],
      ['from:ana', 'The sender (of a card, or of the card an entity came from)'],
      ['kind:task', 'card, task, note, event or project (several: any of them)'],
      ['lane:spam', 'A card’s lane: inbox, screened or spam'],
      ['scout:work', 'A scout by name or id'],
      ['after:2026-05-01', 'From that day on (an event’s start, else its creation)'],
      ['before:2026-05-31', 'Before that day'],
      ['is:pending', 'A card’s status: pending, approved, rejected, expired'],
      ['is:done / is:open', 'A task’s or project’s state'],
    ],
  },
];
