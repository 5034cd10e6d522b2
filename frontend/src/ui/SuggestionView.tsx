import { useState } from 'preact/hooks';
import { age, fullTime, KIND_LABEL, tildePath, tildeText } from '../logic/format';
import { evidence, LANE_LABEL, laneReason } from '../logic/lanes';
import { href, KIND_VIEW, laneHref } from '../logic/router';
import type { AppState } from '../state/model';
import { ContentDialog } from './ContentDialog';
import { useActions, useLoad, useNow } from './hooks';
import { PlanList } from './PlanList';
import { EvidenceLines } from './Evidence';
import { WhyTrail } from './WhyTrail';

const STATUS: Record<string, string> = {
  pending: 'Waiting for you in the Inbox',
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired: nobody decided within 30 days',
};

/** One suggestion, decided or not, with its whole story: where an entity
 * links back to ("why does this task exist?"). */
export function SuggestionView({ s, id }: { s: AppState; id: string }) {
  const actions = useActions();
  const now = useNow();
  const known = s.suggestions.items[id];
  // Read again when it is decided or one of its actions changes.
  const fetched = useLoad(() => actions.api.suggestion(id), [id, known?.status, s.planSeq[id]]);
  const [open, setOpen] = useState(false);
  const sg = fetched.state === 'ok' ? fetched.value : known;

  if (!sg) {
    return (
      <section class="view">
        <h1 tabIndex={-1}>Suggestion</h1>
        {fetched.state === 'error' ? (
          <p class="error-text" role="alert">
            {fetched.error.code === 'not_found'
              ? 'This suggestion is gone: its scout was deleted before anyone decided.'
              : fetched.error.full}
          </p>
        ) : (
          <p class="muted">Loading…</p>
        )}
      </section>
    );
  }
  const scout = s.scouts.items[sg.scout_id];
  const lane = sg.lane ?? 'inbox';
  const markedSpam = sg.status === 'rejected' && lane === 'spam';
  let status = STATUS[sg.status] ?? sg.status;
  if (sg.status === 'pending' && lane !== 'inbox') status = `Waiting in ${LANE_LABEL[lane]}`;
  if (markedSpam) status = 'Marked as spam';
  const because = evidence(sg);
  return (
    <section class="view" aria-labelledby="sg-h">
      <header class="view-head">
        <h1 id="sg-h" tabIndex={-1}>
          {sg.title}
        </h1>
      </header>
      <div class="panel stack">
        <p>
          <strong>{status}</strong>
          {sg.resolved_kind && ` as ${KIND_LABEL[sg.resolved_kind].toLowerCase()}`}
          {sg.resolved_at && (
            <span class="muted" title={fullTime(sg.resolved_at)}>
              {' '}
              · {age(sg.resolved_at, now)}
            </span>
          )}
          {sg.resolved_kind && sg.resolved_entity_id && (
            <>
              {' · '}
              <a href={href({ view: KIND_VIEW[sg.resolved_kind], id: sg.resolved_entity_id })}>
                Open the {sg.resolved_kind}
              </a>
            </>
          )}
          {sg.status === 'pending' && (
            <>
              {' · '}
              <a href={laneHref(lane)}>Decide in {lane === 'inbox' ? 'the Inbox' : LANE_LABEL[lane]}</a>
            </>
          )}
        </p>
        <p class="muted small">
          {sg.sender || tildePath(sg.path, s.home)}
          {scout && ` · found by ${scout.name}`} ·{' '}
          <span title={fullTime(sg.created_at)}>{age(sg.created_at, now)}</span>
        </p>
        {sg.excerpt && <p class="card-excerpt">{sg.excerpt}</p>}
        <p class="small">
          <span class="muted">Why: </span>
          {tildeText(sg.reason, s.home)}
        </p>
        {sg.status === 'pending' && lane !== 'inbox' && <p class="small">{laneReason(sg)}</p>}
        {because.length > 0 && (
          <p class="small">
            <EvidenceLines sg={sg} />
          </p>
        )}
        <div class="actions">
          <button type="button" onClick={() => setOpen(true)}>
            Open the full item
          </button>
        </div>
        {sg.plan && sg.plan.actions.length > 0 && (
          <section class="plan-section" aria-labelledby="sg-plan-h">
            <h2 id="sg-plan-h">{sg.status === 'pending' ? 'Approving it runs' : 'Actions'}</h2>
            {sg.plan.failing > 0 && (
              <p class="error-text small" role="status">
                {sg.plan.failing === 1 ? 'An action is failing' : `${sg.plan.failing} actions are failing`}: retry or
                drop it below.
              </p>
            )}
            <PlanList actions={sg.plan.actions} scoutName={scout?.name} home={s.home} now={now} />
          </section>
        )}
        <WhyTrail sg={sg} home={s.home} />
      </div>
      {open && <ContentDialog sg={sg} home={s.home} onClose={() => setOpen(false)} />}
    </section>
  );
}
