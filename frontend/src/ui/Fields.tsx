import type { ComponentChildren } from 'preact';
import type { Entity, EntityKind } from '../api/types';
import { KIND_FIELDS, type FormFields } from '../logic/fields';

interface Props {
  kind: EntityKind;
  value: FormFields;
  onChange: (f: FormFields) => void;
  /** Projects a task can belong to. */
  projects?: Entity[];
  /** Replaces the body field, e.g. "Loading the file's text…". */
  bodyNote?: string;
  autoFocusTitle?: boolean;
  bodyRows?: number;
  /** Shown under the title: what else it could be. */
  titleNote?: ComponentChildren;
}

/** The editable fields of a task, note, event or project. */
export function Fields({ kind, value, onChange, projects, bodyNote, autoFocusTitle, bodyRows = 6, titleNote }: Props) {
  const set = (k: keyof FormFields) => (e: Event) =>
    onChange({ ...value, [k]: (e.currentTarget as HTMLInputElement).value });
  const has = (f: keyof FormFields) => KIND_FIELDS[kind].includes(f);
  return (
    <div class="fields">
      <label class="field">
        <span>Title</span>
        <input
          type="text"
          name="title"
          required
          value={value.title}
          onInput={set('title')}
          autoFocus={autoFocusTitle}
          autoComplete="off"
        />
      </label>
      {titleNote}
      {has('due') && (
        <div class="field-row">
          <label class="field">
            <span>Due</span>
            <input type="date" name="due" value={value.due} onInput={set('due')} />
          </label>
          {projects && projects.length > 0 && (
            <label class="field">
              <span>Project</span>
              <select name="project_id" value={value.project_id} onChange={set('project_id')}>
                <option value="">No project</option>
                {projects.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.title}
                  </option>
                ))}
              </select>
            </label>
          )}
        </div>
      )}
      {has('starts_at') && (
        <div class="field-row">
          <label class="field">
            <span>Starts</span>
            <input type="datetime-local" name="starts_at" value={value.starts_at} onInput={set('starts_at')} />
          </label>
          <label class="field">
            <span>Ends</span>
            <input type="datetime-local" name="ends_at" value={value.ends_at} onInput={set('ends_at')} />
          </label>
        </div>
      )}
      {has('location') && (
        <label class="field">
          <span>Location</span>
          <input type="text" name="location" value={value.location} onInput={set('location')} autoComplete="off" />
        </label>
      )}
      {bodyNote ? (
        <div class="field">
          <span>{kind === 'note' ? 'Text' : 'Details'}</span>
          <p class="muted small field-note">{bodyNote}</p>
        </div>
      ) : (
        <label class="field">
          <span>{kind === 'note' ? 'Text' : 'Details'}</span>
          <textarea name="body" rows={bodyRows} value={value.body} onInput={set('body')} />
        </label>
      )}
    </div>
  );
}
