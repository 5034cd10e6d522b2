// Builders for tests.
import type { Entity, Scout, Suggestion } from '../api/types';

export function sug(id: string, over: Partial<Suggestion> = {}): Suggestion {
  return {
    id,
    scout_id: 'sc_1',
    source_type: 'folder',
    source_ref: id + '.md@1',
    status: 'pending',
    title: 'Card ' + id,
    excerpt: '',
    path: '/home/ann/Scouts/Inbox/' + id + '.md',
    proposed_kind: 'note',
    reason: 'New file',
    trace_id: 'tr_' + id,
    created_at: '2026-11-22T09:00:00Z',
    expires_at: '2026-12-22T09:00:00Z',
    ...over,
  };
}

export function ent(id: string, over: Partial<Entity> = {}): Entity {
  return {
    id,
    kind: 'task',
    title: 'Entity ' + id,
    body: '',
    done: false,
    created_at: '2026-11-22T09:00:00Z',
    updated_at: '2026-11-22T09:00:00Z',
    ...over,
  };
}

export function scout(id: string, over: Partial<Scout> = {}): Scout {
  return {
    id,
    kind: 'folder',
    name: 'Inbox',
    enabled: true,
    review: true,
    running: true,
    path: '/home/ann/Scouts/Inbox',
    config: {},
    created_at: '2026-11-22T09:00:00Z',
    updated_at: '2026-11-22T09:00:00Z',
    health: { state: 'ok', last_run_new: 0, total_new: 0 },
    ...over,
  };
}
