import { useEffect, useMemo, useState } from 'preact/hooks';
import { ENTITY_KINDS, type EntityKind, type Suggestion } from '../api/types';
import {
  changedFields,
  emptyForm,
  formProblem,
  proposedFields,
  proposedForm,
  titleOffer,
  type FormFields,
} from '../logic/fields';
import { KIND_LABEL, tildePath } from '../logic/format';
import { alwaysAllows, approveActions, initialTicks, type Ticks } from '../logic/plan';
import { entityList, type AppState } from '../state/model';
import { Dialog } from './Dialog';
import { Fields } from './Fields';
import { useActions, useLoad, useNow } from './hooks';
import { PlanList } from './PlanList';

interface Props {
  s: AppState;
  sg: Suggestion;
  initialAs: EntityKind;
  onClose: () => void;
  /** After a successful approval. */
  onDone: () => void;
}

/** The editable preview of what an approval creates. */
export function ApproveDialog({ s, sg, initialAs, onClose, onDone }: Props) {
  const actions = useActions();
  const [as, setAs] = useState<EntityKind>(initialAs);
  const content = useLoad(() => actions.api.content(sg.id), [sg.id]);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState('');
  const now = useNow();
  // The plan for the kind chosen: what approving runs, each action with
  // its mode. Ticks carry over when the kind changes.
  const plan = useLoad(() => actions.api.plan(sg.id, as), [sg.id, as]);
  const [ticks, setTicks] = useState<Ticks>({});
  useEffect(() => {
    if (plan.state === 'ok') setTicks((t) => initialTicks(plan.value.actions, t));
  }, [plan]);
  const planActions = plan.state === 'ok' ? plan.value.actions : [];
  const allows = alwaysAllows(planActions, ticks);
  const scoutName = s.scouts.items[sg.scout_id]?.name;

  // What the agent would use without edits: the card's title and the
  // item's text. Only fields changed from this base are sent.
  const base = useMemo<FormFields>(
    () => ({ ...emptyForm, title: sg.title, body: content.state === 'ok' ? content.value.text : '' }),
    [sg.title, content],
  );
  // The content's proposals (a due date, an event's time, a project) are
  // filled in, so they are sent unless the person clears them.
  const [form, setForm] = useState<FormFields>(() => proposedForm(sg, base));
  const pre = proposedFields(sg, as);
  const prefilled = [pre.due && 'the due date', pre.starts_at && 'the time', pre.project_id && 'the project']
    .filter(Boolean)
    .join(' and ');
  // The card keeps the source's title (a mail's subject); the title a
  // model proposes for the entity is offered, never put in silently.
  const offer = titleOffer(sg, form.title);
  const [touchedBody, setTouchedBody] = useState(false);
  useEffect(() => {
    if (!touchedBody) setForm((f) => ({ ...f, body: base.body }));
  }, [base.body]);

  useEffect(() => {
    if (as === 'task') actions.ensureEntities('project');
  }, [as]);

  const binary = content.state === 'ok' && content.value.content_type === 'application/octet-stream';
  let bodyNote: string | undefined;
  if (content.state === 'loading') bodyNote = 'Loading the item’s text…';
  else if (content.state === 'error')
    bodyNote = `The item’s text could not be read (${content.error.message}) The ${as} gets it when it can be read, else the excerpt.`;
  else if (binary) bodyNote = 'This item is not text: the ' + as + ' links to it by its title.';

  const submit = async (e: Event, always = false) => {
    e.preventDefault();
    const p = formProblem(as, form);
    if (p) {
      setProblem(p);
      return;
    }
    setBusy(true);
    const fields = changedFields(as, form, base);
    if (!touchedBody) delete fields.body;
    // Without a plan (still loading, or it could not be read) the agent
    // runs the plan as proposed, which is what the card would have shown.
    const chosen = plan.state === 'ok' ? approveActions(plan.value.actions, ticks) : undefined;
    const done = await actions.decide([sg.id], { as, fields, plan: chosen, always: always ? allows : undefined });
    setBusy(false);
    if (done.length) onDone();
  };

  return (
    <Dialog title={`Approve “${sg.title}”`} subtitle={sg.sender || tildePath(sg.path, s.home)} onClose={onClose} wide>
      <form
        class="stack"
        onSubmit={submit}
        onKeyDown={(e) => e.key === 'Enter' && (e.ctrlKey || e.metaKey) && submit(e)}
      >
        <fieldset class="segmented">
          <legend class="sr-only">Create a</legend>
          {ENTITY_KINDS.map((k) => (
            <label key={k} class={k === as ? 'on' : ''}>
              <input type="radio" name="as" value={k} checked={k === as} onChange={() => setAs(k)} />
              {KIND_LABEL[k]}
              {k === sg.proposed_kind && <span class="muted small"> · proposed</span>}
            </label>
          ))}
        </fieldset>
        <Fields
          kind={as}
          value={form}
          onChange={(f) => {
            if (f.body !== form.body) setTouchedBody(true);
            setForm(f);
            setProblem('');
          }}
          projects={as === 'task' ? entityList(s, 'project') : undefined}
          bodyNote={bodyNote}
          titleNote={
            offer && (
              <p class="muted small title-offer">
                The model proposes the title “{offer}”.{' '}
                <button type="button" class="quiet small-btn" onClick={() => setForm((f) => ({ ...f, title: offer }))}>
                  Use it
                </button>
              </p>
            )
          }
          autoFocusTitle
          bodyRows={10}
        />
        {prefilled && <p class="muted small">Filled in from the item’s text: {prefilled}. Check before approving.</p>}
        {content.state === 'ok' && content.value.truncated && !binary && (
          <p class="muted small">The text is long: this shows its first megabyte.</p>
        )}
        <section class="plan-section" aria-labelledby="plan-h">
          <h3 id="plan-h">When you approve</h3>
          {plan.state === 'loading' && <p class="muted small">Asking the agent what approving runs…</p>}
          {plan.state === 'error' && (
            <p class="warning-text small" role="status">
              Could not read the plan ({plan.error.full}) Approving runs it as the scout proposed.
            </p>
          )}
          {plan.state === 'ok' && (
            <PlanList
              actions={plan.value.actions}
              ticks={ticks}
              onTick={(k, on) => setTicks((t) => ({ ...t, [k]: on }))}
              scoutName={scoutName}
              home={s.home}
              now={now}
              disabled={busy}
            />
          )}
        </section>
        {problem && (
          <p class="error-text" role="alert">
            {problem}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Approving…' : `Approve once as ${as}`}
          </button>
          <button
            type="button"
            disabled={busy || allows.length === 0}
            aria-describedby="always-help"
            onClick={(e) => void submit(e, true)}
          >
            Approve and always allow
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <span class="muted small">Ctrl+Enter approves once · Esc cancels</span>
        </div>
        <p id="always-help" class="muted small">
          {allows.length > 0
            ? `“Always allow” lets ${scoutName ?? 'this scout'} run ${allows.join(', ')} without asking from now on (undo in Settings → Policies).`
            : 'Nothing here needs your approval: every ticked action is already allowed.'}
        </p>
      </form>
    </Dialog>
  );
}
