import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { EntityKind } from '../api/types';
import type { Command } from '../logic/keys';
import { plural } from '../logic/format';
import { href } from '../logic/router';
import { entityList, type AppState } from '../state/model';
import { EntityRow } from './EntityRow';
import { NewEntity } from './NewEntity';
import { SnoozeDialog } from './SnoozeDialog';
import { useActions, useKeyHandler } from './hooks';

const TITLE: Record<EntityKind, string> = { task: 'Tasks', note: 'Notes', event: 'Events', project: 'Projects' };

const EMPTY: Record<EntityKind, string> = {
  task: 'No tasks yet. Approve a card as a task (press t in the Inbox), or add one above.',
  note: 'No notes yet. Approve a card as a note (press n in the Inbox), or add one above.',
  event: 'No events yet. Approve a card as an event (press e in the Inbox), or add one above.',
  project: 'No projects yet. Approve a card as a project (press p in the Inbox), or add one above.',
};

type Filter = 'open' | 'done' | 'all';

interface Props {
  s: AppState;
  kind: EntityKind;
  /** An entity to show first and highlight (#/tasks/tk_…). */
  focusId?: string;
  keys: { current: ((c: Command) => boolean) | null };
}

export function EntityView({ s, kind, focusId, keys }: Props) {
  const actions = useActions();
  const hasDone = kind === 'task' || kind === 'project';
  const [filter, setFilter] = useState<Filter>(hasDone ? 'open' : 'all');
  const newRef = useRef<HTMLInputElement>(null);
  const [snoozing, setSnoozing] = useState<string | null>(null);

  useEffect(() => {
    actions.ensureEntities(kind);
    if (kind === 'task') actions.ensureEntities('project');
    setFilter(hasDone ? 'open' : 'all');
  }, [kind]);

  const col = s.entities[kind];
  const all = useMemo(() => entityList(s, kind), [col]);
  const shown = all.filter((e) => filter === 'all' || (filter === 'done' ? e.done : !e.done) || e.id === focusId);
  const projects = kind === 'task' ? entityList(s, 'project') : undefined;
  const projectName = (id?: string) => (id ? s.entities.project.items[id]?.title : undefined);

  useEffect(() => {
    if (focusId && col.loaded) document.getElementById(`entity-${focusId}`)?.focus();
  }, [focusId, col.loaded]);

  useKeyHandler(keys, (k) => {
    // z on a task (the row that has focus) snoozes it.
    if (k.type === 'snooze' && kind === 'task' && !snoozing) {
      const row = (document.activeElement as HTMLElement | null)?.closest('li[id^="entity-"]');
      if (!row) return false;
      setSnoozing(row.id.slice('entity-'.length));
      return true;
    }
    if (k.type !== 'new') return false;
    newRef.current?.focus();
    return true;
  });

  const counts = hasDone ? { open: all.filter((e) => !e.done).length, done: all.filter((e) => e.done).length } : null;

  return (
    <section class="view" aria-labelledby="entities-h">
      <header class="view-head">
        <h1 id="entities-h" tabIndex={-1}>
          {TITLE[kind]}
        </h1>
        {col.loaded && <p class="muted">{plural(all.length, kind)}</p>}
      </header>
      <NewEntity kind={kind} inputRef={newRef} projects={projects} />
      {hasDone && counts && (
        <div class="tabs" role="group" aria-label="Show">
          {(['open', 'done', 'all'] as Filter[]).map((f) => (
            <button
              key={f}
              type="button"
              aria-pressed={filter === f}
              class={filter === f ? 'on' : ''}
              onClick={() => setFilter(f)}
            >
              {f === 'open' ? `Open (${counts.open})` : f === 'done' ? `Done (${counts.done})` : 'All'}
            </button>
          ))}
        </div>
      )}
      {!col.loaded && <p class="muted">Loading {kind}s…</p>}
      {col.loaded && all.length === 0 && (
        <div class="empty">
          <p>{EMPTY[kind]}</p>
          <p>
            <a href={href({ view: 'inbox' })}>Go to the Inbox</a>
          </p>
        </div>
      )}
      {col.loaded && all.length > 0 && shown.length === 0 && (
        <p class="empty muted">{filter === 'open' ? `Every ${kind} is done.` : `No ${kind} is done yet.`}</p>
      )}
      {shown.length > 0 && (
        <ul class="entities" aria-label={TITLE[kind]}>
          {shown.map((e) => (
            <EntityRow
              key={e.id}
              e={e}
              projects={projects}
              projectName={projectName(e.project_id)}
              highlight={e.id === focusId}
            />
          ))}
        </ul>
      )}
      {snoozing && (
        <SnoozeDialog count={1} onSnooze={(until) => actions.snoozeTask(snoozing, until)} onClose={() => setSnoozing(null)} />
      )}
    </section>
  );
}
