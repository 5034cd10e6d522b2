// A tiny hash router: #/tasks, #/tasks/tk_…, #/suggestion/sg_…. The hash
// works wherever the page is served from (the agent, the Wails asset
// server, a file), with no server-side routes.

import type { EntityKind, Lane } from '../api/types';

export type View =
  | 'inbox'
  | 'tasks'
  | 'notes'
  | 'events'
  | 'projects'
  | 'scouts'
  | 'status'
  | 'settings'
  | 'suggestion'
  | 'rules'
  | 'senders'
  | 'brief';

export interface Route {
  view: View;
  /** An entity to highlight, or the suggestion to show. */
  id?: string;
}

const views = new Set<View>([
  'inbox',
  'tasks',
  'notes',
  'events',
  'projects',
  'scouts',
  'status',
  'settings',
  'suggestion',
  'rules',
  'senders',
  'brief',
]);

export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const view = (parts[0] ?? 'inbox') as View;
  if (!views.has(view)) return { view: 'inbox' };
  if (view === 'suggestion' && !parts[1]) return { view: 'inbox' };
  // A scout's rules editor: #/rules/sc_…
  if (view === 'rules' && !parts[1]) return { view: 'scouts' };
  // A scout's senders: #/senders/sc_…
  if (view === 'senders' && !parts[1]) return { view: 'scouts' };
  return parts[1] ? { view, id: parts[1] } : { view };
}

export function href(r: Route): string {
  return '#/' + r.view + (r.id ? '/' + encodeURIComponent(r.id) : '');
}

export const KIND_VIEW: Record<EntityKind, View> = {
  task: 'tasks',
  note: 'notes',
  event: 'events',
  project: 'projects',
};

export function viewKind(v: View): EntityKind | undefined {
  switch (v) {
    case 'tasks':
      return 'task';
    case 'notes':
      return 'note';
    case 'events':
      return 'event';
    case 'projects':
      return 'project';
  }
  return undefined;
}

/** Settings → Policies: where "always allow" is undone. */
export const POLICIES_HREF = '#/settings/policies';

/** Expired suggestions are listed beside the lanes, at #/inbox/expired. */
export const EXPIRED_HREF = '#/inbox/expired';

export function isExpiredRoute(r: Route): boolean {
  return r.view === 'inbox' && r.id === 'expired';
}

/** The inbox's lane: #/inbox (the inbox itself), #/inbox/screened,
 * #/inbox/spam, #/inbox/snoozed. */
export function routeLane(r: Route): Lane {
  return r.view === 'inbox' && (r.id === 'screened' || r.id === 'spam' || r.id === 'snoozed') ? r.id : 'inbox';
}

export function laneHref(lane: Lane): string {
  return href({ view: 'inbox', id: lane === 'inbox' ? undefined : lane });
}
