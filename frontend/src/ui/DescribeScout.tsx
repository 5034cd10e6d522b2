import { useEffect, useState } from 'preact/hooks';
import { definitionsApi, type Draft } from '../api/definitions';
import { asApiError } from '../api/errors';
import { definitionText, parseDefinitionText, riskLabel, validityText } from '../logic/definitions';
import '../definitions.css';
import { loopInRefusal } from '../logic/graph';
import { Dialog } from './Dialog';
import { useActions } from './hooks';

type Step =
  | { at: 'ask' }
  | { at: 'drafting' }
  | { at: 'review'; draft: Draft; text: string; edited: boolean; from: string };

/** "Describe a scout": the person says what they want in plain words (or
 * picks a template), the model drafts a definition, the agent checks it
 * and says what it will do and what is risky; the person edits it and
 * creates it, or cancels. Nothing is saved before the Create click.
 * drafting: a model is configured (else only the templates are offered). */
export function DescribeScout({
  drafting,
  onClose,
  onLoop,
}: {
  drafting: boolean;
  onClose: () => void;
  /** Told the loop of scouts a refusal names (null: none), to draw it. */
  onLoop?: (loop: string[] | null) => void;
}) {
  const actions = useActions();
  const api = definitionsApi(actions.api);
  const [description, setDescription] = useState('');
  const [templates, setTemplates] = useState<Draft[] | null>(null);
  const [step, setStep] = useState<Step>({ at: 'ask' });
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ name: string; token?: string } | null>(null);

  useEffect(() => {
    api.templates().then(setTemplates, (e) => setProblem(`The templates could not be read. ${asApiError(e).full}`));
  }, []);

  const draft = async (e: Event) => {
    e.preventDefault();
    if (!description.trim()) {
      setProblem('Describe the scout you want first: what it watches and what should become of what arrives.');
      return;
    }
    setProblem(null);
    setStep({ at: 'drafting' });
    try {
      const d = await api.draft(description.trim());
      setStep({ at: 'review', draft: d, text: definitionText(d.definition), edited: false, from: 'the model’s draft' });
    } catch (e) {
      setStep({ at: 'ask' });
      setProblem(`No draft. ${asApiError(e).full}`);
    }
  };

  const pick = (t: Draft) => {
    setProblem(null);
    setStep({ at: 'review', draft: t, text: definitionText(t.definition), edited: false, from: `the template “${t.title}”` });
  };

  /** Checks the edited text again: the answer replaces the draft's checks. */
  const check = async (text: string, from: string): Promise<Draft | null> => {
    const parsed = parseDefinitionText(text);
    if ('error' in parsed) {
      setProblem(parsed.error);
      return null;
    }
    const d = await api.check(parsed.doc);
    onLoop?.(d.errors?.map((e) => loopInRefusal(e.reason)).find((l) => l) ?? null);
    setStep({ at: 'review', draft: { ...d, definition: parsed.doc }, text, edited: false, from });
    return d;
  };

  const create = async () => {
    if (step.at !== 'review') return;
    setBusy(true);
    setProblem(null);
    try {
      // An edited definition is checked again (Check again) before this
      // button comes back: what is created is what the person looked at.
      if (step.edited || !step.draft.valid) return;
      const parsed = parseDefinitionText(step.text);
      if ('error' in parsed) {
        setProblem(parsed.error);
        return;
      }
      // An import updates the scout of the same id, or name and kind:
      // asked first, so that Create never rewrites one of the person's
      // scouts (its folder, its rules) in place.
      const plan = (await api.importDefinition(parsed.doc, false)).changes[0];
      if (plan && plan.action !== 'create') {
        const id = (parsed.doc as { id?: unknown } | null)?.id;
        const which = id ? `the scout ${String(id)}` : `a scout named “${plan.name}”`;
        setProblem(
          `Not created: ${which} already exists, and this would change it. Give the new scout another name (and no id) in the definition, then Check again.`,
        );
        return;
      }
      const res = await api.importDefinition(parsed.doc, true);
      const ch = res.changes[0];
      if (!ch) throw new Error('the agent created nothing');
      actions.info(`Created scout “${ch.name}”`);
      if (ch.hook_token) setCreated({ name: ch.name, token: ch.hook_token });
      else onClose();
    } catch (e) {
      setProblem(`Not created. ${asApiError(e).full}`);
      onLoop?.(loopInRefusal(asApiError(e).full));
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    return (
      <Dialog title="Describe a scout" onClose={onClose}>
        <p>Created scout “{created.name}”.</p>
        <p class="small">
          Its webhook token, shown only now: <code>{created.token}</code>
        </p>
        <div class="actions">
          <button type="button" class="primary" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  const templateList = templates && templates.length > 0 && (
    <div class="templates">
      <h3 class="small">{drafting ? 'Or start from a template' : 'Start from a template'}</h3>
      <ul>
        {templates.map((t) => (
          <li key={t.title}>
            <button type="button" onClick={() => pick(t)}>
              {t.title}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );

  return (
    <Dialog title="Describe a scout" onClose={onClose} wide>
      {step.at !== 'review' ? (
        <div class="stack">
          {drafting ? (
            <form class="stack" onSubmit={draft}>
              <div class="field">
                <label for="describe-scout">What should the scout do?</label>
                <textarea
                  id="describe-scout"
                  rows={3}
                  value={description}
                  autoFocus
                  placeholder="Invoices from my landlord become tasks due on the date in the mail"
                  onInput={(e) => setDescription(e.currentTarget.value)}
                />
              </div>
              <p class="muted small">The model drafts a definition; you see what it will do before anything is saved.</p>
              <div class="actions">
                <button type="submit" class="primary" disabled={step.at === 'drafting'}>
                  {step.at === 'drafting' ? 'Drafting…' : 'Draft the scout'}
                </button>
                <button type="button" onClick={onClose}>
                  Cancel
                </button>
              </div>
            </form>
          ) : (
            <p role="status">
              No model is configured, so Scouts cannot draft a scout from a description. Start from a template, or
              start the agent with a model (<code>--llm-url</code>) to describe scouts in plain words.
            </p>
          )}
          {problem && (
            <p class="error-text" role="alert">
              {problem}
            </p>
          )}
          {templateList}
          {!drafting && (
            <div class="actions">
              <button type="button" onClick={onClose}>
                Cancel
              </button>
            </div>
          )}
        </div>
      ) : (
        <Review
          step={step}
          busy={busy}
          problem={problem}
          onEdit={(text) => setStep({ ...step, text, edited: true })}
          onCheck={() => void check(step.text, step.from + ', edited').catch((e) => setProblem(asApiError(e).full))}
          onCreate={() => void create()}
          onBack={() => (setStep({ at: 'ask' }), setProblem(null))}
          onCancel={onClose}
        />
      )}
    </Dialog>
  );
}

function Review(p: {
  step: Extract<Step, { at: 'review' }>;
  busy: boolean;
  problem: string | null;
  onEdit: (text: string) => void;
  onCheck: () => void;
  onCreate: () => void;
  onBack: () => void;
  onCancel: () => void;
}) {
  const { draft: d, text, edited, from } = p.step;
  const risks = d.risks ?? [];
  return (
    <div class="stack draft-review">
      <p class="muted small">
        From {from}
        {d.tokens ? ` · the model used ${d.tokens.toLocaleString()} tokens of today’s budget` : ''}
      </p>
      {edited ? (
        <p class="small" role="status">
          Edited: check it again before creating it.
        </p>
      ) : d.valid ? (
        <p class="ok-text" role="status">
          {validityText(d)}
        </p>
      ) : (
        <div class="error-text" role="alert">
          <p>Not valid: the agent cannot create this scout.</p>
          <ul>
            {(d.errors ?? []).map((e, i) => (
              <li key={i}>
                {e.line ? `Line ${e.line}: ` : ''}
                {e.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      {!edited && (d.summary?.length ?? 0) > 0 && (
        <section aria-label="What it will do">
          <h3 class="small">What it will do</h3>
          <ul>
            {d.summary!.map((s, i) => (
              <li key={i}>{s}</li>
            ))}
          </ul>
        </section>
      )}
      {!edited && risks.length > 0 && (
        <section aria-label="Risks" class="risks">
          <h3 class="small warning-text">Look at these before creating it</h3>
          <ul>
            {risks.map((r, i) => (
              <li key={i} class={`risk risk-${r.code}`}>
                <span class="badge warn">{riskLabel(r.code)}</span> {r.message}
              </li>
            ))}
          </ul>
        </section>
      )}
      {!edited && d.valid && risks.length === 0 && <p class="muted small">Nothing risky found.</p>}
      <div class="field">
        <label for="draft-definition">Definition (JSON; edit it if you like)</label>
        <textarea
          id="draft-definition"
          class="code"
          rows={14}
          spellcheck={false}
          value={text}
          onInput={(e) => p.onEdit(e.currentTarget.value)}
        />
      </div>
      {p.problem && (
        <p class="error-text" role="alert">
          {p.problem}
        </p>
      )}
      <div class="actions">
        {edited ? (
          <button type="button" class="primary" disabled={p.busy} onClick={p.onCheck}>
            Check again
          </button>
        ) : (
          <button type="button" class="primary" disabled={p.busy || !d.valid} onClick={p.onCreate}>
            {p.busy ? 'Creating…' : 'Create scout'}
          </button>
        )}
        <button type="button" disabled={p.busy} onClick={p.onBack}>
          Back
        </button>
        <button type="button" disabled={p.busy} onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
