import { memo } from 'preact/compat';
import { ENTITY_KINDS, type EntityKind, type Lane, type Scout, type ScreenerChoice, type Suggestion } from '../api/types';
import { proposedWhen } from '../logic/fields';
import { age, fullTime, KIND_LABEL, tildePath, tildeText, withArticle } from '../logic/format';
import { evidence, LANE_LABEL, laneReason } from '../logic/lanes';
import type { PlanAction } from '../api/plans';
import { FailingDetail, PlanSummary } from './PlanList';
import { EvidenceLines } from './Evidence';
import { WhyTrail } from './WhyTrail';

export type CardCommand =
  | { type: 'approve'; as: EntityKind }
  | { type: 'screenSender'; choice: ScreenerChoice }
  | { type: 'edit' | 'reject' | 'open' | 'why' | 'spam' | 'bringBack' };

interface Props {
  sg: Suggestion;
  scout?: Scout;
  home?: string;
  /** The lane shown: below the inbox, the card says why it is there and
   * offers to bring it back. */
  lane: Lane;
  now: number;
  current: boolean;
  selected: boolean;
  whyOpen: boolean;
  /** The card's actions that failed or wait to retry (a rule's, run on
   * arrival): shown with their error, to retry or drop. */
  failing?: readonly PlanAction[];
  /** The current card's plan, for a line saying what approving also runs. */
  plan?: readonly PlanAction[];
  onCommand: (id: string, c: CardCommand) => void;
  onSelect: (id: string) => void;
  onFocus: (id: string) => void;
}

const KEY: Record<EntityKind, string> = { task: 't', note: 'n', event: 'e', project: 'p' };

/** One suggestion: what arrived, from where, what the scout proposes and
 * why, and the decisions. */
export const Card = memo(function Card(p: Props) {
  const { sg, current } = p;
  const tid = `card-title-${sg.id}`;
  const did = `card-text-${sg.id}`;
  const tab = current ? 0 : -1;
  const where = sg.sender || tildePath(sg.path, p.home);
  const cmd = (c: CardCommand) => () => p.onCommand(sg.id, c);
  const below = p.lane !== 'inbox';
  const because = evidence(sg);
  const when = proposedWhen(sg);
  return (
    <article
      id={`card-${sg.id}`}
      data-id={sg.id}
      class={'card' + (current ? ' current' : '') + (p.selected ? ' selected' : '')}
      tabIndex={tab}
      aria-labelledby={tid}
      aria-describedby={sg.excerpt ? did : undefined}
      aria-current={current ? 'true' : undefined}
      onFocusCapture={() => p.onFocus(sg.id)}
    >
      <div class="card-top">
        <input
          type="checkbox"
          class="select"
          tabIndex={tab}
          checked={p.selected}
          onChange={() => p.onSelect(sg.id)}
          aria-label={`Select “${sg.title}”`}
        />
        <h3 id={tid} class="card-title">
          {sg.title}
        </h3>
        <span class={`badge kind-${sg.proposed_kind}`} title={`The scout proposes ${withArticle(sg.proposed_kind)}`}>
          {KIND_LABEL[sg.proposed_kind] ?? sg.proposed_kind}?
        </span>
        {when && (
          <span class="chip small" title="Read from the item; the approve preview has it filled in">
            {when}
          </span>
        )}
        <time class="muted small nowrap" dateTime={sg.created_at} title={fullTime(sg.created_at)}>
          {age(sg.created_at, p.now)}
        </time>
      </div>
      <p class="card-source muted small">
        <span class="path" title={sg.path || sg.sender}>
          {where}
        </span>
        {p.scout && <span> · {p.scout.name}</span>}
        {sg.rescued && <span> · brought back from {LANE_LABEL[sg.rescued].toLowerCase()}</span>}
        {sg.returned_at && p.lane === 'inbox' && <span class="returned"> · back from snooze</span>}
      </p>
      {below && (
        <p class="card-lane small">
          <span class={`badge lane-${p.lane}`}>{LANE_LABEL[p.lane]}</span>{' '}
          {laneReason(sg, { evidenceShown: because.length > 0 })}
        </p>
      )}
      {sg.excerpt && (
        <p id={did} class="card-excerpt">
          {sg.excerpt}
        </p>
      )}
      <p class="card-reason small">
        <span class="muted">Why: </span>
        {sg.screener && (
          <span class="screener-why" title={`Screener rule ${sg.screener.rule_id}: edit or remove it in the scout’s rules`}>
            {sg.screener.why}
            {' — '}
          </span>
        )}
        {tildeText(sg.reason, p.home)}{' '}
        <button type="button" class="link" tabIndex={tab} aria-expanded={p.whyOpen} onClick={cmd({ type: 'why' })}>
          {p.whyOpen ? 'Hide the trail' : 'Show the trail'}
        </button>
      </p>
      {because.length > 0 && (
        <p class="card-evidence small">
          <EvidenceLines sg={sg} />
        </p>
      )}
      {p.plan && <PlanSummary actions={p.plan} home={p.home} />}
      {p.failing?.map((a) => (
        <FailingDetail key={a.n} a={a} now={p.now} home={p.home} title />
      ))}
      {p.whyOpen && <WhyTrail sg={sg} home={p.home} />}
      {sg.screener_offer && <ScreenerKeys sg={sg} tab={tab} home={p.home} onCommand={cmd} />}
      <div class="card-actions" role="group" aria-label="Decide">
        {below && (
          <button
            type="button"
            tabIndex={tab}
            class="primary"
            aria-label="Back to the inbox"
            aria-keyshortcuts="b"
            onClick={cmd({ type: 'bringBack' })}
          >
            Back to inbox <kbd>b</kbd>
          </button>
        )}
        {/* Below the inbox, only the proposed kind: the row is full, and t n e p still work. */}
        {(below ? [sg.proposed_kind] : ENTITY_KINDS).map((k) => (
          <button
            key={k}
            type="button"
            tabIndex={tab}
            class={k === sg.proposed_kind && !below ? 'primary' : ''}
            aria-label={`Approve as ${k}`}
            aria-keyshortcuts={KEY[k]}
            onClick={cmd({ type: 'approve', as: k })}
          >
            {KIND_LABEL[k]} <kbd>{KEY[k]}</kbd>
          </button>
        ))}
        {!below && (
          <button
            type="button"
            tabIndex={tab}
            aria-label="Edit, then approve"
            aria-keyshortcuts="Enter"
            onClick={cmd({ type: 'edit' })}
          >
            Edit… <kbd>↵</kbd>
          </button>
        )}
        <span class="spacer" />
        <button
          type="button"
          tabIndex={tab}
          class="quiet"
          aria-label="Open the full item"
          aria-keyshortcuts="o"
          onClick={cmd({ type: 'open' })}
        >
          Open <kbd>o</kbd>
        </button>
        <button
          type="button"
          tabIndex={tab}
          class="quiet"
          aria-label={p.lane === 'spam' ? 'Confirm spam' : 'Mark as spam'}
          aria-keyshortcuts="!"
          onClick={cmd({ type: 'spam' })}
        >
          {p.lane === 'spam' ? 'Confirm spam' : 'Spam'} <kbd>!</kbd>
        </button>
        <button
          type="button"
          tabIndex={tab}
          class="danger"
          aria-label="Reject"
          aria-keyshortcuts="x"
          onClick={cmd({ type: 'reject' })}
        >
          Reject <kbd>x</kbd>
        </button>
      </div>
    </article>
  );
});


const OF_WORD = { sender: 'sender', list: 'list', folder: 'folder' } as const;

/** The screener's two keys, on the first card from a new sender (list,
 * folder), and on a card held because its sender kept writing
 * unanswered: what the person says here holds for every card from it. */
function ScreenerKeys(p: { sg: Suggestion; tab: number; home?: string; onCommand: (c: CardCommand) => () => void }) {
  const o = p.sg.screener_offer!;
  const what = OF_WORD[o.of] ?? o.of;
  const lead = p.sg.assessment?.unanswered ? 'Unanswered' : 'New';
  return (
    <div class="card-screener small" role="group" aria-label={`${lead} ${what}: ${o.value}`}>
      <span class="muted">
        {lead} {what} <span class="path">{o.of === 'folder' ? tildePath(o.value, p.home) : o.value}</span>:
      </span>
      <button
        type="button"
        tabIndex={p.tab}
        aria-label={`Always show this ${what}`}
        aria-keyshortcuts="+"
        onClick={p.onCommand({ type: 'screenSender', choice: 'show' })}
      >
        Always show <kbd>+</kbd>
      </button>
      <button
        type="button"
        tabIndex={p.tab}
        aria-label={`Always screen this ${what}`}
        aria-keyshortcuts="-"
        onClick={p.onCommand({ type: 'screenSender', choice: 'screen' })}
      >
        Always screen <kbd>−</kbd>
      </button>
    </div>
  );
}
