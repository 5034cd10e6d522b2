import type { RefObject } from 'preact';
import { useState } from 'preact/hooks';
import type { Entity, EntityKind } from '../api/types';
import { changedFields, emptyForm, formProblem, type FormFields } from '../logic/fields';
import { Fields } from './Fields';
import { useActions } from './hooks';

interface Props {
  kind: EntityKind;
  inputRef: RefObject<HTMLInputElement | null>;
  projects?: Entity[];
}

/** A one-line "add" field that opens up into the full form for details. */
export function NewEntity({ kind, inputRef, projects }: Props) {
  const actions = useActions();
  const [title, setTitle] = useState('');
  const [more, setMore] = useState(false);
  const [form, setForm] = useState<FormFields>(emptyForm);
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const f = more ? form : { ...emptyForm, title };
    const p = formProblem(kind, f);
    if (p) {
      setProblem(p);
      return;
    }
    setBusy(true);
    const created = await actions.createEntity(kind, changedFields(kind, f, emptyForm));
    setBusy(false);
    if (created) {
      setTitle('');
      setForm(emptyForm);
      setMore(false);
      setProblem('');
      inputRef.current?.focus();
    }
  };

  return (
    <form class="new-entity" onSubmit={submit} aria-label={`New ${kind}`}>
      {more ? (
        <Fields kind={kind} value={form} onChange={setForm} projects={projects} autoFocusTitle bodyRows={4} />
      ) : (
        <input
          ref={inputRef}
          type="text"
          name="title"
          value={title}
          placeholder={`New ${kind}…  (press c)`}
          aria-label={`New ${kind} title`}
          autoComplete="off"
          onInput={(e) => {
            setTitle(e.currentTarget.value);
            setProblem('');
          }}
          onKeyDown={(e) => e.key === 'Escape' && e.currentTarget.blur()}
        />
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Add {kind}
        </button>
        <button
          type="button"
          class="quiet"
          aria-expanded={more}
          onClick={() => {
            if (!more) setForm({ ...emptyForm, title });
            else setTitle(form.title);
            setMore(!more);
          }}
        >
          {more ? 'Fewer fields' : 'More fields…'}
        </button>
      </div>
      {problem && (
        <p class="error-text" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
