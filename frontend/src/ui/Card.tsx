import { memo } from 'preact/compat';
import { ENTITY_KINDS, type EntityKind, type Scout, type Suggestion } from '../api/types';
import { age, fullTime, KIND_LABEL, tildePath, tildeText } from '../logic/format';
import { WhyTrail } from './WhyTrail';

export type CardCommand = { type: 'approve'; as: EntityKind } | { type: 'edit' | 'reject' | 'open' | 'why' };

interface Props {
  sg: Suggestion;
  scout?: Scout;
  home?: string;
  now: number;
  current: boolean;
  selected: boolean;
  whyOpen: boolean;
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
        <span class={`badge kind-${sg.proposed_kind}`} title={`The scout proposes a ${sg.proposed_kind}`}>
          {KIND_LABEL[sg.proposed_kind] ?? sg.proposed_kind}?
        </span>
        <time class="muted small nowrap" dateTime={sg.created_at} title={fullTime(sg.created_at)}>
          {age(sg.created_at, p.now)}
        </time>
      </div>
      <p class="card-source muted small">
        <span class="path" title={sg.path || sg.sender}>
          {where}
        </span>
        {p.scout && <span> · {p.scout.name}</span>}
      </p>
      {sg.excerpt && (
        <p id={did} class="card-excerpt">
          {sg.excerpt}
        </p>
      )}
      <p class="card-reason small">
        <span class="muted">Why: </span>
        {tildeText(sg.reason, p.home)}{' '}
        <button type="button" class="link" tabIndex={tab} aria-expanded={p.whyOpen} onClick={cmd({ type: 'why' })}>
          {p.whyOpen ? 'Hide the trail' : 'Show the trail'}
        </button>
      </p>
      {p.whyOpen && <WhyTrail sg={sg} home={p.home} />}
      <div class="card-actions" role="group" aria-label="Decide">
        {ENTITY_KINDS.map((k) => (
          <button
            key={k}
            type="button"
            tabIndex={tab}
            class={k === sg.proposed_kind ? 'primary' : ''}
            aria-label={`Approve as ${k}`}
            aria-keyshortcuts={KEY[k]}
            onClick={cmd({ type: 'approve', as: k })}
          >
            {KIND_LABEL[k]} <kbd>{KEY[k]}</kbd>
          </button>
        ))}
        <button
          type="button"
          tabIndex={tab}
          aria-label="Edit, then approve"
          aria-keyshortcuts="Enter"
          onClick={cmd({ type: 'edit' })}
        >
          Edit… <kbd>↵</kbd>
        </button>
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
