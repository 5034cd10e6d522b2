import type { Suggestion } from '../api/types';
import { dateTime, fullTime, tildeText } from '../logic/format';
import { useActions, useLoad } from './hooks';

const STAGE: Record<string, string> = {
  source: 'Found',
  triage: 'Judged',
  decision: 'Decided',
  execute: 'Done',
};

/** "Why am I seeing this?": every step of the item's story, from the
 * source to the entity, as the agent's audit trail records it. */
export function WhyTrail({ sg, home }: { sg: Suggestion; home?: string }) {
  const actions = useActions();
  const trail = useLoad(() => actions.api.audit(sg.trace_id), [sg.trace_id, sg.status]);
  return (
    <section class="why" aria-label={`Why “${sg.title}” is here`}>
      <h4>Audit trail</h4>
      {trail.state === 'loading' && <p class="muted small">Loading the trail…</p>}
      {trail.state === 'error' && (
        <p class="error-text small" role="alert">
          The trail could not be loaded. {trail.error.full}
        </p>
      )}
      {trail.state === 'ok' && trail.value.length === 0 && (
        <p class="muted small">No steps are recorded for this item.</p>
      )}
      {trail.state === 'ok' && trail.value.length > 0 && (
        <ol class="trail">
          {trail.value.map((ev) => (
            <li key={ev.id} class={ev.outcome && ev.outcome !== 'ok' ? 'bad' : ''}>
              <span class="trail-stage">{STAGE[ev.stage] ?? ev.stage}</span>
              <span class="trail-summary">
                {tildeText(ev.summary, home)}
                {ev.outcome && ev.outcome !== 'ok' && <span class="badge warn"> {ev.outcome}</span>}
              </span>
              <time class="muted small" dateTime={ev.at} title={fullTime(ev.at)}>
                {dateTime(ev.at)}
              </time>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
