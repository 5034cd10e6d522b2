import { useRef, useState } from 'preact/hooks';
import { definitionsApi, type EditDraft } from '../api/definitions';
import { asApiError } from '../api/errors';
import type { Scout } from '../api/types';
import { riskLabel } from '../logic/definitions';
import { useActions } from './hooks';

const MARK = { same: ' ', add: '+', remove: '−' } as const;
const SAID = { same: '', add: 'added: ', remove: 'removed: ' } as const;

/** History → "Change in words": the person says what to change, the
 * agent's model proposes the definition changed; it is shown as a diff
 * (added lines green, removed red) with the risks it adds, and saved only
 * by Save — refused if the scout changed meanwhile. Discard leaves the
 * scout as it is. */
export function ChangeInWords({ sc, onSaved }: { sc: Scout; onSaved: (version: number) => void }) {
  const actions = useActions();
  const api = definitionsApi(actions.api);
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [draft, setDraft] = useState<EditDraft | null>(null);
  const [busy, setBusy] = useState<'draft' | 'save' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const field = useRef<HTMLTextAreaElement>(null);
  const diffRef = useRef<HTMLDivElement>(null);

  const propose = async () => {
    setBusy('draft');
    setProblem(null);
    setDraft(null);
    try {
      const d = await api.editDraft(sc.id, text);
      setDraft(d);
      // The diff takes the focus: what to read next.
      requestAnimationFrame(() => diffRef.current?.focus());
    } catch (e) {
      const err = asApiError(e);
      setProblem(err.status === 503 ? `No change proposed. ${err.message}` : `No change proposed. ${err.full}`);
    } finally {
      setBusy(null);
    }
  };

  const save = async () => {
    if (!draft) return;
    setBusy('save');
    setProblem(null);
    try {
      const ch = await api.saveEdit(draft);
      setDraft(null);
      setText('');
      setOpen(false);
      actions.info(`${sc.name} changed in words: now version ${ch.version}`);
      onSaved(ch.version ?? 0);
    } catch (e) {
      const err = asApiError(e);
      setProblem(`Not saved. ${err.status === 409 ? err.message : err.full}`);
    } finally {
      setBusy(null);
    }
  };

  const discard = () => {
    setDraft(null);
    setProblem(null);
    // Once rendered: the field is disabled while a draft is shown.
    requestAnimationFrame(() => field.current?.focus());
  };

  if (!open) {
    return (
      <p>
        <button type="button" aria-expanded={false} onClick={() => (setOpen(true), requestAnimationFrame(() => field.current?.focus()))}>
          Change in words
        </button>
      </p>
    );
  }
  const changed = draft?.diff.some((l) => l.op !== 'same');
  return (
    <section class="change-in-words stack" aria-label="Change in words">
      <div class="field">
        <label for="change-in-words-text">What should change?</label>
        <textarea
          id="change-in-words-text"
          ref={field}
          rows={2}
          value={text}
          placeholder="also archive the newsletters"
          disabled={busy !== null || draft !== null}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </div>
      {!draft && (
        <div class="actions">
          <button type="button" class="primary" disabled={busy !== null || text.trim() === ''} onClick={() => void propose()}>
            {busy === 'draft' ? 'Asking the model…' : 'Propose the change'}
          </button>
          <button type="button" disabled={busy !== null} onClick={() => (setOpen(false), setProblem(null))}>
            Cancel
          </button>
        </div>
      )}
      {problem && (
        <p class="error-text" role="alert">
          {problem}
        </p>
      )}
      {draft && (
        <>
          <p class="muted small">
            From version {draft.base_version}
            {draft.tokens ? ` · the model used ${draft.tokens.toLocaleString()} tokens of today’s budget` : ''}
          </p>
          {draft.valid ? (
            <p class="ok-text" role="status">
              {changed ? 'Valid: review the change, then save it or discard it.' : 'The model changed nothing.'}
            </p>
          ) : (
            <div class="error-text" role="alert">
              <p>Not valid: this change cannot be saved.</p>
              <ul>
                {(draft.errors ?? []).map((e, i) => (
                  <li key={i}>
                    {e.line ? `Line ${e.line}: ` : ''}
                    {e.reason}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {/* Focusable, so that the keyboard scrolls it; each line says
              whether it is added or removed, not only by its colour. */}
          <div class="line-diff" ref={diffRef} tabIndex={0} role="region" aria-label="Proposed changes">
            {draft.diff.map((l, i) => (
              <div key={i} class={`line line-${l.op}`}>
                {l.op !== 'same' && <span class="sr-only">{SAID[l.op]}</span>}
                <span aria-hidden="true">{MARK[l.op]} </span>
                {l.op === 'add' ? <ins>{l.text}</ins> : l.op === 'remove' ? <del>{l.text}</del> : <span>{l.text}</span>}
              </div>
            ))}
          </div>
          {draft.valid && (
            <section aria-label="Risks it adds" class="risks">
              <h3 class="small">Risks it adds</h3>
              {draft.risks_added.length === 0 ? (
                <p class="muted small">None.</p>
              ) : (
                <ul>
                  {draft.risks_added.map((r, i) => (
                    <li key={i} class={`risk risk-${r.code}`}>
                      <span class="badge warn">{riskLabel(r.code)}</span> {r.message}
                    </li>
                  ))}
                </ul>
              )}
            </section>
          )}
          <div class="actions">
            <button type="button" class="primary" disabled={busy !== null || !draft.valid || !changed} onClick={() => void save()}>
              {busy === 'save' ? 'Saving…' : 'Save'}
            </button>
            <button type="button" disabled={busy !== null} onClick={discard}>
              Discard
            </button>
          </div>
        </>
      )}
    </section>
  );
}
