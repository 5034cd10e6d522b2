import { useState } from 'preact/hooks';
import type { Entity } from '../api/types';
import { changedFields, formFromEntity, formProblem, type FormFields } from '../logic/fields';
import { dateTime, day, preview } from '../logic/format';
import { href } from '../logic/router';
import { eventIcsHref } from '../logic/ics';
import { Fields } from './Fields';
import { useActions } from './hooks';

interface Props {
  e: Entity;
  projects?: Entity[];
  projectName?: string;
  highlight?: boolean;
}

/** One task, note, event or project: shown, completed, edited, deleted. */
export function EntityRow({ e, projects, projectName, highlight }: Props) {
  const actions = useActions();
  const [editing, setEditing] = useState<FormFields | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const hasDone = e.done !== undefined;
  const titleId = `entity-title-${e.id}`;

  const save = async (ev: Event) => {
    ev.preventDefault();
    if (!editing) return;
    const p = formProblem(e.kind, editing);
    if (p) {
      setProblem(p);
      return;
    }
    const input = changedFields(e.kind, editing, formFromEntity(e));
    if (Object.keys(input).length === 0) {
      setEditing(null);
      return;
    }
    setBusy(true);
    const saved = await actions.updateEntity(e, input);
    setBusy(false);
    if (saved) {
      setEditing(null);
      actions.say(`Saved ${e.kind} ${saved.title}`);
      document.getElementById(`entity-${e.id}`)?.focus();
    }
  };

  if (editing) {
    return (
      <li class="entity editing" id={`entity-${e.id}`} tabIndex={-1}>
        <form
          class="stack"
          onSubmit={save}
          aria-label={`Edit ${e.kind} “${e.title}”`}
          onKeyDown={(k) => k.key === 'Escape' && setEditing(null)}
        >
          <Fields
            kind={e.kind}
            value={editing}
            onChange={(f) => {
              setEditing(f);
              setProblem('');
            }}
            projects={projects}
            autoFocusTitle
          />
          {problem && (
            <p class="error-text" role="alert">
              {problem}
            </p>
          )}
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save'}
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      </li>
    );
  }

  const meta: string[] = [];
  if (e.due) meta.push(`Due ${day(e.due)}`);
  if (projectName) meta.push(projectName);
  if (e.starts_at) meta.push(dateTime(e.starts_at) + (e.ends_at ? ` – ${dateTime(e.ends_at)}` : ''));
  if (e.location) meta.push(e.location);
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  const overdue = !!e.due && !e.done && Date.parse(e.due) < today.getTime();

  return (
    <li
      class={'entity' + (e.done ? ' done' : '') + (highlight ? ' highlight' : '')}
      id={`entity-${e.id}`}
      tabIndex={-1}
      aria-labelledby={titleId}
    >
      {hasDone && (
        <input
          type="checkbox"
          class="done-box"
          checked={e.done}
          aria-label={`${e.title}: done`}
          onChange={() => void actions.setDone(e, !e.done)}
        />
      )}
      <div class="entity-main">
        <span id={titleId} class="entity-title">
          {e.title}
        </span>
        {meta.length > 0 && <span class={'small ' + (overdue ? 'overdue' : 'muted')}>{meta.join(' · ')}</span>}
        {e.body && preview(e.body, e.title) && <span class="muted small entity-body">{preview(e.body, e.title)}</span>}
        {e.source_suggestion_id && (
          <a class="small" href={href({ view: 'suggestion', id: e.source_suggestion_id })}>
            From a suggestion: why it exists
          </a>
        )}
      </div>
      <div class="entity-actions">
        {confirming ? (
          <>
            <span class="small">Delete for good?</span>
            <button
              type="button"
              class="danger"
              autoFocus
              onClick={() => void actions.deleteEntity(e).then((ok) => !ok && setConfirming(false))}
            >
              Delete
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </>
        ) : (
          <>
            {e.kind === 'event' && e.starts_at && (
              // The page's own cookie authenticates a plain link (in the
              // desktop window, its proxy does), and the agent names the
              // file: no fetch and Blob needed.
              <a
                class="button quiet"
                href={eventIcsHref(e.id)}
                download
                aria-label={`Download “${e.title}” as .ics`}
              >
                .ics
              </a>
            )}
            <button type="button" aria-label={`Edit “${e.title}”`} onClick={() => setEditing(formFromEntity(e))}>
              Edit
            </button>
            <button type="button" class="quiet" aria-label={`Delete “${e.title}”`} onClick={() => setConfirming(true)}>
              Delete
            </button>
          </>
        )}
      </div>
    </li>
  );
}
