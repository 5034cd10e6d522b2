import type { RulePreview, RulePreviewItem } from '../api/plans';
import { day, tildePath, withArticle } from '../logic/format';
import { actionLabel, lcFirst } from '../logic/plan';
import { VERDICT_LABEL } from '../logic/rules';

const RESULT: Record<string, string> = { match: 'Would match', unknown: 'Cannot tell', no_match: 'No match' };

/** What a rule would have done to the scout's latest items: the matches
 * first, then the items it cannot tell about (fields their cards do not
 * keep are never guessed). */
export function RulePreviewList({ p, home }: { p: RulePreview; home?: string }) {
  const total = p.matched + p.unknown + p.no_match;
  const shown = p.items.filter((i) => i.result !== 'no_match');
  const missed = p.items.filter((i) => i.result === 'no_match');
  return (
    <div class="stack">
      <p class="small" role="status">
        {total === 0 ? (
          'This scout has no items yet to try the rule on.'
        ) : (
          <>
            <strong>
              Would have matched {p.matched} of the last {total} {total === 1 ? 'item' : 'items'}
            </strong>
            {p.unknown > 0 && ` · ${p.unknown} it cannot tell (fields their cards do not keep)`}
            {` · ${p.no_match} no match`}
          </>
        )}
      </p>
      {shown.length > 0 && (
        <ul class="preview-list" aria-label="Items the rule would match or cannot tell">
          {shown.map((i) => (
            <PreviewItem key={i.suggestion_id} i={i} home={home} />
          ))}
        </ul>
      )}
      {missed.length > 0 && (
        <details>
          <summary class="small">Items it would not match ({missed.length})</summary>
          <ul class="preview-list">
            {missed.map((i) => (
              <PreviewItem key={i.suggestion_id} i={i} home={home} />
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function PreviewItem({ i, home }: { i: RulePreviewItem; home?: string }) {
  const w = i.would;
  const effects: string[] = [];
  if (w) {
    effects.push(`to ${VERDICT_LABEL[w.verdict] ?? w.lane}`);
    if (w.kind) effects.push(`as ${withArticle(w.kind)}`);
    if (w.title) effects.push(`titled “${w.title}”`);
    if (w.due) effects.push(`due ${day(w.due)}`);
    for (const a of w.actions ?? []) effects.push(lcFirst(actionLabel(a, home)));
  }
  return (
    <li class={`preview-item result-${i.result}`}>
      <span class={`badge result-${i.result}`}>{RESULT[i.result] ?? i.result}</span> <strong>{i.title}</strong>{' '}
      <span class="muted small">{i.sender || tildePath(i.path, home)}</span>
      {w && <div class="small">Would go {effects.join(', ')}.</div>}
      {i.why && <div class="muted small">Because {i.why}.</div>}
      {i.unknown_fields?.length ? (
        <div class="muted small">Depends on {i.unknown_fields.join(', ')}, which the card does not keep.</div>
      ) : null}
      {i.earlier_rule && (
        <div class="warning-text small">Rule “{i.earlier_rule}” comes first and matches too: it would decide instead.</div>
      )}
      {w?.notes?.map((n) => (
        <div key={n} class="warning-text small">
          {n}
        </div>
      ))}
    </li>
  );
}
