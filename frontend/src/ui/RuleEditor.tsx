import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { asApiError } from '../api/errors';
import { VERDICTS, type RuleDoc, type RuleList, type RulePreview } from '../api/plans';
import { ENTITY_KINDS } from '../api/types';
import { withArticle } from '../logic/format';
import {
  docFromForm,
  emptyCondition,
  formFromDoc,
  newRuleForm,
  OP_LABEL,
  opsFor,
  parseRuleText,
  pathTarget,
  ruleProblem,
  VERDICT_LABEL,
  type RuleForm,
  type RuleProblem,
} from '../logic/rules';
import { changeManaged, type ManagedRefusal } from '../state/managed';
import { useActions } from './hooks';
import { RulePreviewList } from './RulePreviewList';
import { WriteFileOffer } from './WriteFileOffer';

interface Props {
  scoutId: string;
  /** The scout's name, for the agent's refusals. */
  scoutName: string;
  list: RuleList;
  /** The rule edited; absent: a new one. */
  rule?: RuleDoc;
  /** The home folder, to show paths as ~/…. */
  home?: string;
  onSaved: (doc: RuleDoc) => void;
  onCancel: () => void;
}

/** How long typing may pause before the preview asks the agent. */
const PREVIEW_AFTER_MS = 350;

/** One rule, in a form for the common cases or as JSON for everything,
 * with what it would have done to the scout's latest 50 items before it
 * is saved. */
export function RuleEditor({ scoutId, scoutName, list, rule, home, onSaved, onCancel }: Props) {
  const actions = useActions();
  const taken = list.rules.map((r) => r.rule.id);
  const initialForm = rule ? formFromDoc(rule) : newRuleForm(list.fields, taken);
  const [mode, setMode] = useState<'form' | 'json'>(initialForm ? 'form' : 'json');
  const [form, setForm] = useState<RuleForm | undefined>(initialForm);
  const [text, setText] = useState(() =>
    JSON.stringify(rule ?? { id: initialForm?.id ?? 'rule-1', when: {}, then: { verdict: 'show' } }, null, 2),
  );
  const [switchNote, setSwitchNote] = useState('');
  const [saveProblem, setSaveProblem] = useState<RuleProblem | null>(null);
  // The agent refused the save because a definitions file manages the
  // scout: the offer to write the file holds for the rule as refused.
  const [refusal, setRefusal] = useState<ManagedRefusal<unknown> | null>(null);
  const [busy, setBusy] = useState(false);

  // The document the editor says now, or what keeps it from being one.
  const built = useMemo(
    () => (mode === 'form' && form ? docFromForm(form, list.fields) : parseRuleText(text)),
    [mode, form, text, list.fields],
  );
  const docJSON = built.doc ? JSON.stringify(built.doc) : '';
  // A refusal is about the rule as it was saved: once the rule changes,
  // the preview says what the agent thinks of it now.
  useEffect(() => (setRefusal(null), setSaveProblem(null)), [docJSON]);

  // The live preview: asked for once typing pauses; an older answer never
  // replaces a newer one.
  const [preview, setPreview] = useState<
    { state: 'idle' | 'loading' } | { state: 'ok'; value: RulePreview } | { state: 'error'; problem: RuleProblem }
  >({ state: 'idle' });
  const asked = useRef(0);
  useEffect(() => {
    if (!built.doc) return;
    const n = ++asked.current;
    setPreview((p) => (p.state === 'ok' ? p : { state: 'loading' }));
    const t = setTimeout(() => {
      actions.api.previewRule(scoutId, built.doc).then(
        (value) => n === asked.current && setPreview({ state: 'ok', value }),
        (e) => n === asked.current && setPreview({ state: 'error', problem: ruleProblem(asApiError(e).message) }),
      );
    }, PREVIEW_AFTER_MS);
    return () => clearTimeout(t);
  }, [docJSON, scoutId]);

  const toJSON = () => {
    if (built.doc) setText(JSON.stringify(built.doc, null, 2));
    setSwitchNote('');
    setMode('json');
  };
  const toForm = () => {
    const parsed = parseRuleText(text);
    const f = parsed.doc && formFromDoc(parsed.doc);
    if (!f) {
      setSwitchNote(
        parsed.error ??
          'This rule says more than the form can show ($not, nested groups, case_sensitive, several operators on a field): edit it here.',
      );
      return;
    }
    setForm(f);
    setSwitchNote('');
    setMode('form');
  };

  const save = async (e: Event) => {
    e.preventDefault();
    if (!built.doc) return;
    const doc = built.doc;
    setBusy(true);
    setSaveProblem(null);
    try {
      const r = await changeManaged(scoutName, (writeFile) =>
        rule ? actions.api.putRule(scoutId, rule.id, doc, writeFile) : actions.api.addRule(scoutId, doc, writeFile),
      );
      if ('refused' in r) setRefusal(r.refused);
      else onSaved(doc);
    } catch (err) {
      setSaveProblem(ruleProblem(asApiError(err).message));
    } finally {
      setBusy(false);
    }
  };

  // The agent's word on the rule as it stands: the preview checks it as a
  // save would, so it is shown before the person saves.
  const problem = saveProblem ?? (preview.state === 'error' ? preview.problem : null);
  const target = mode === 'form' ? pathTarget(problem?.path, form) : undefined;
  const title = rule ? `Edit rule ${rule.id}` : 'New rule';

  return (
    <form class="panel rule-editor stack" aria-label={title} onSubmit={save}>
      <div class="rule-top">
        <h2>{title}</h2>
        <span class="spacer" />
        <div class="segmented compact" role="group" aria-label="Edit as">
          <button type="button" class={mode === 'form' ? 'on' : ''} aria-pressed={mode === 'form'} onClick={toForm}>
            Form
          </button>
          <button type="button" class={mode === 'json' ? 'on' : ''} aria-pressed={mode === 'json'} onClick={toJSON}>
            JSON
          </button>
        </div>
      </div>
      {switchNote && (
        <p class="warning-text small" role="status">
          {switchNote}
        </p>
      )}
      {mode === 'form' && form ? (
        <RuleFormFields form={form} list={list} isNew={!rule} onChange={setForm} target={target} />
      ) : (
        <label class="field">
          <span>
            The rule as JSON <span class="muted small">(grammar and fields: docs/rules.md)</span>
          </span>
          <textarea
            class="mono"
            rows={16}
            spellcheck={false}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            aria-invalid={!!built.error || !!problem}
          />
        </label>
      )}
      {built.error && (
        <p class={'small ' + (mode === 'json' ? 'error-text' : 'warning-text')} role="status">
          {built.error}
        </p>
      )}
      {problem && !built.error && (
        <div class="error-text small rule-problem" role="alert">
          {problem.path && (
            <>
              At <code>{problem.path}</code>
              {target && <> ({target.replace(/^condition-(\d+)$/, (_, i) => `condition ${Number(i) + 1}`)})</>}:{' '}
            </>
          )}
          {problem.message}
        </div>
      )}
      {refusal && (
        <WriteFileOffer
          refusal={refusal}
          onWritten={() => onSaved(built.doc!)}
          onFailed={(e) => (setRefusal(null), setSaveProblem(ruleProblem(e.message)))}
        />
      )}
      <section class="rule-preview" aria-labelledby="preview-h" aria-busy={preview.state === 'loading'}>
        <h3 id="preview-h">What it would have done to the last 50 items</h3>
        {preview.state === 'idle' && <p class="muted small">Complete the rule to see what it would have done.</p>}
        {preview.state === 'loading' && <p class="muted small">Trying it on the latest items…</p>}
        {preview.state === 'error' && <p class="muted small">The preview waits for the rule to be valid.</p>}
        {preview.state === 'ok' && <RulePreviewList p={preview.value} home={home} />}
      </section>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || !built.doc}>
          {busy ? 'Saving…' : rule ? 'Save rule' : 'Add rule'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <span class="muted small">Nothing changes until you save.</span>
      </div>
    </form>
  );
}

interface FormProps {
  form: RuleForm;
  list: RuleList;
  isNew: boolean;
  onChange: (f: RuleForm) => void;
  /** The part of the form the agent's error names. */
  target?: string;
}

function RuleFormFields({ form, list, isNew, onChange, target }: FormProps) {
  const set = (p: Partial<RuleForm>) => onChange({ ...form, ...p });
  const typeOf = (field: string) => list.fields.find((f) => f.name === field)?.type;
  const setCond = (i: number, p: Partial<RuleForm['conditions'][number]>) => {
    const conditions = form.conditions.map((c, j) => {
      if (j !== i) return c;
      const next = { ...c, ...p };
      // A field of another type: keep the operator only if it still fits.
      if (p.field && !opsFor(typeOf(p.field), list.operators).includes(next.op)) {
        next.op = opsFor(typeOf(p.field), list.operators)[0] ?? next.op;
      }
      return next;
    });
    set({ conditions });
  };
  const bad = (name: string) => (target === name ? { 'aria-invalid': true as const } : {});
  return (
    <>
      <div class="field-row">
        <label class="field">
          <span>Id</span>
          <input
            type="text"
            value={form.id}
            disabled={!isNew}
            title={isNew ? 'Letters, digits, - and _' : 'An id cannot change: delete the rule and add it again'}
            onInput={(e) => set({ id: e.currentTarget.value })}
            {...bad('id')}
          />
        </label>
        <label class="field grow">
          <span>Name</span>
          <input
            type="text"
            value={form.name}
            placeholder="What the rule is for"
            onInput={(e) => set({ name: e.currentTarget.value })}
          />
        </label>
        <label class="setting-label">
          <input type="checkbox" checked={form.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} />
          <span>On</span>
        </label>
      </div>
      <fieldset class="conditions">
        <legend>
          When{' '}
          {form.conditions.length > 1 ? (
            <select
              aria-label="Match"
              value={form.match}
              onChange={(e) => set({ match: e.currentTarget.value as RuleForm['match'] })}
            >
              <option value="all">all of these hold</option>
              <option value="any">any of these holds</option>
            </select>
          ) : (
            'this holds'
          )}
        </legend>
        {form.conditions.map((c, i) => {
          const type = typeOf(c.field);
          const doc = list.fields.find((f) => f.name === c.field)?.doc;
          const boolValue = c.op === 'exists' || (type === 'bool' && c.op !== 'in' && c.op !== 'not_in');
          return (
            <div key={i} class="condition" role="group" aria-label={`Condition ${i + 1}`}>
              <select
                aria-label="Field"
                value={c.field}
                title={doc}
                onChange={(e) => setCond(i, { field: e.currentTarget.value })}
                {...bad(`condition-${i}`)}
              >
                {list.fields.map((f) => (
                  <option key={f.name} value={f.name}>
                    {f.name}
                  </option>
                ))}
                {!list.fields.some((f) => f.name === c.field) && <option value={c.field}>{c.field}</option>}
              </select>
              <select aria-label="Operator" value={c.op} onChange={(e) => setCond(i, { op: e.currentTarget.value })}>
                {opsFor(type, list.operators).map((o) => (
                  <option key={o} value={o}>
                    {OP_LABEL[o] ?? o}
                  </option>
                ))}
              </select>
              {boolValue ? (
                <select aria-label="Value" value={c.value} onChange={(e) => setCond(i, { value: e.currentTarget.value })}>
                  <option value="">…</option>
                  <option value="true">{c.op === 'exists' ? 'yes' : 'true'}</option>
                  <option value="false">{c.op === 'exists' ? 'no' : 'false'}</option>
                </select>
              ) : (
                <input
                  type="text"
                  aria-label="Value"
                  class="grow"
                  value={c.value}
                  placeholder={c.op === 'in' || c.op === 'not_in' ? 'a, b, c' : type === 'number' ? 'a number' : ''}
                  onInput={(e) => setCond(i, { value: e.currentTarget.value })}
                  {...bad(`condition-${i}`)}
                />
              )}
              <button
                type="button"
                class="quiet small-btn"
                aria-label={`Remove condition ${i + 1}`}
                disabled={form.conditions.length === 1}
                onClick={() => set({ conditions: form.conditions.filter((_, j) => j !== i) })}
              >
                ✕
              </button>
              {doc && <span class="muted small condition-doc">{doc}</span>}
            </div>
          );
        })}
        <div>
          <button
            type="button"
            class="small-btn"
            onClick={() => set({ conditions: [...form.conditions, emptyCondition(list.fields)] })}
          >
            Add a condition
          </button>
        </div>
      </fieldset>
      <fieldset class="then">
        <legend>Then</legend>
        <div class="field-row">
          <label class="field">
            <span>Put the card in</span>
            <select value={form.verdict} onChange={(e) => set({ verdict: e.currentTarget.value })} {...bad('verdict')}>
              {VERDICTS.map((v) => (
                <option key={v} value={v}>
                  {VERDICT_LABEL[v]}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Propose as</span>
            <select value={form.kind} onChange={(e) => set({ kind: e.currentTarget.value })} {...bad('kind')}>
              <option value="">as the scout decides</option>
              {ENTITY_KINDS.map((k) => (
                <option key={k} value={k}>
                  {withArticle(k)}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Due</span>
            <input
              type="text"
              value={form.due}
              placeholder="+3d, 2026-05-01"
              onInput={(e) => set({ due: e.currentTarget.value })}
              {...bad('due')}
            />
          </label>
          <label class="field">
            <span>Project</span>
            <input
              type="text"
              value={form.project}
              placeholder="a project’s name"
              onInput={(e) => set({ project: e.currentTarget.value })}
              {...bad('project')}
            />
          </label>
        </div>
        <label class="field">
          <span>
            Title <span class="muted small">(a template: {'{{.subject}}'}, {'{{.name}}'}…; empty keeps the item’s)</span>
          </span>
          <input type="text" value={form.title} onInput={(e) => set({ title: e.currentTarget.value })} {...bad('title')} />
        </label>
        {!!form.actions?.length && (
          <p class={'small' + (target === 'actions' ? ' error-text' : ' muted')}>
            And {form.actions.map((a) => a.action).join(', ')} — actions are edited as JSON.
          </p>
        )}
      </fieldset>
    </>
  );
}
