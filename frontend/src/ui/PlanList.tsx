import type { PlanAction } from '../api/plans';
import { age, fullTime } from '../logic/format';
import {
  actionLabel,
  isEntityAction,
  lcFirst,
  lockReason,
  modeLabel,
  modeSourceLabel,
  originLabel,
  planKey,
  retryText,
  STATE_LABEL,
  type Ticks,
} from '../logic/plan';
import { POLICIES_HREF } from '../logic/router';
import { stepNote } from '../logic/steps';
import { useActions } from './hooks';

interface Props {
  actions: readonly PlanAction[];
  /** With ticks and onTick, the proposed actions can be ticked. */
  ticks?: Ticks;
  onTick?: (key: string, on: boolean) => void;
  scoutName?: string;
  home?: string;
  now: number;
  disabled?: boolean;
}

/** A card's plan: what approving it runs, each action with its mode and
 * where the mode comes from, and what it already ran. */
export function PlanList({ actions, ticks, onTick, scoutName, home, now, disabled }: Props) {
  const recorded = actions.filter((a) => a.state !== 'proposed');
  const proposed = actions.filter((a) => a.state === 'proposed');
  return (
    <div class="plan">
      {proposed.length > 0 && (
        <ul class="plan-list" aria-label="What approving runs">
          {proposed.map((a) => {
            const k = planKey(a);
            const lock = lockReason(a);
            const on = a.mode !== 'deny' && (ticks?.[k] ?? a.enabled);
            const label = actionLabel(a, home);
            return (
              <li key={k} class={'plan-item' + (a.mode === 'deny' ? ' denied' : '')}>
                <label class="plan-tick">
                  <input
                    type="checkbox"
                    checked={on}
                    disabled={disabled || !onTick || !!lock}
                    onChange={(e) => onTick?.(k, e.currentTarget.checked)}
                    aria-describedby={`plan-${k}-mode`}
                  />
                  <span>{label}</span>
                </label>
                <span id={`plan-${k}-mode`}>
                  <ModeBadge a={a} />{' '}
                  <span class="muted small">
                    from {modeSourceLabel(a.mode_source, a.risk, scoutName)}
                    {!isEntityAction(a) && a.origin !== 'default' && <> · proposed by {originLabel(a.origin)}</>}
                    {a.mode === 'deny' && (
                      <>
                        {' '}
                        · never runs (<a href={POLICIES_HREF}>Settings → Policies</a>)
                      </>
                    )}
                  </span>
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {recorded.length > 0 && (
        <ul class="plan-list" aria-label="Actions recorded">
          {recorded.map((a) => (
            <li key={a.n} data-n={a.n} class={'plan-item' + (a.failing ? ' failing' : '')}>
              <span class="plan-tick">
                <span class={`badge run-${a.state}`}>{STATE_LABEL[a.state] ?? a.state}</span>{' '}
                <span>{actionLabel(a, home)}</span>
              </span>
              <ModeBadge a={a} />{' '}
              <span class="muted small">
                {a.phase === 'arrival' ? 'on arrival, ' : ''}
                from {modeSourceLabel(a.mode_source, a.risk, scoutName)}
                {a.output_as && <> · its result is {a.output_as} for the steps after it</>}
                {a.updated_at && (
                  <span title={fullTime(a.updated_at)}> · {age(a.updated_at, now)}</span>
                )}
              </span>
              <StepLine a={a} all={recorded} />
              {a.failing && <FailingDetail a={a} now={now} />}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Where a step of a rule's plan stands: what it waits for, the failed
 * step that holds it (with a button to that step's Retry and Drop), or
 * whose failure added it. */
function StepLine({ a, all }: { a: PlanAction; all: readonly PlanAction[] }) {
  const note = stepNote(a, all);
  if (!note) return null;
  const goTo = (e: Event) => {
    const list = (e.currentTarget as HTMLElement).closest('.plan-list');
    list?.querySelector<HTMLButtonElement>(`li[data-n="${note.heldBy}"] .failing-action button`)?.focus();
  };
  return (
    <p class={'small step-note' + (note.heldBy ? ' held' : ' muted')}>
      <span>{note.text[0]!.toUpperCase() + note.text.slice(1)}</span>
      {note.heldBy && (
        <>
          {' '}
          <button type="button" class="small-btn quiet" onClick={goTo}>
            Go to step {note.heldBy}
          </button>
        </>
      )}
    </p>
  );
}

function ModeBadge({ a }: { a: PlanAction }) {
  return (
    <span class={`badge mode-${a.mode}`} title={`${modeLabel(a.mode)}, from ${modeSourceLabel(a.mode_source, a.risk)}`}>
      {modeLabel(a.mode)}
    </span>
  );
}

/** A failing action's error, when it is tried next, and what the person
 * can do: retry now, or drop it. */
export function FailingDetail({ a, now, home, title }: { a: PlanAction; now: number; home?: string; title?: boolean }) {
  const actions = useActions();
  const what = actionLabel(a, home);
  return (
    <div class="failing-action" role="group" aria-label={`Failing: ${what}`}>
      {title && (
        <p class="small">
          <strong>{what}</strong> <span class={`badge run-${a.state}`}>{STATE_LABEL[a.state] ?? a.state}</span>
        </p>
      )}
      <p class="error-text small">{a.error ? `Failed: ${a.error}` : 'Failed.'}</p>
      <p class="muted small">{retryText(a, now)}</p>
      <div class="actions">
        <button type="button" class="small-btn" onClick={() => void actions.retryAction(a)}>
          Retry
        </button>
        <button type="button" class="small-btn quiet" onClick={() => void actions.dropAction(a)}>
          Drop
        </button>
      </div>
    </div>
  );
}

/** On the current card: what approving it with a key runs besides the
 * entity, so that t (or n, e, p) never archives or posts unseen. */
export function PlanSummary({ actions, home }: { actions: readonly PlanAction[]; home?: string }) {
  const extra = actions.filter((a) => a.state === 'proposed' && !isEntityAction(a));
  if (extra.length === 0) return null;
  const on = extra.filter((a) => a.enabled && a.mode !== 'deny');
  const off = extra.filter((a) => !a.enabled || a.mode === 'deny');
  return (
    <p class="card-plan small">
      <span class="muted">Approving also: </span>
      {on.length ? on.map((a) => lcFirst(actionLabel(a, home))).join(' · ') : 'nothing else'}
      {off.length > 0 && (
        <span class="muted">
          {' '}
          (not: {off.map((a) => lcFirst(actionLabel(a, home)) + (a.mode === 'deny' ? ', denied' : '')).join(' · ')})
        </span>
      )}
      <span class="muted"> — Edit… to choose.</span>
    </p>
  );
}
