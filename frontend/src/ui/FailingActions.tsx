import { href } from '../logic/router';
import { failingList, type AppState } from '../state/model';
import { FailingDetail } from './PlanList';

/** Status: every card's failing action, with its error, its next attempt,
 * and Retry and Drop; nothing fails silently. */
export function FailingActions({ s, now }: { s: AppState; now: number }) {
  const list = failingList(s);
  if (!s.failing.loaded && !s.status?.failing_actions) return null;
  return (
    <div class="panel" aria-labelledby="failing-h">
      <h2 id="failing-h">Actions</h2>
      {list.length === 0 ? (
        <p class="muted small">Every action of approved cards ran, or is waiting its turn.</p>
      ) : (
        <ul class="failing-list">
          {list.map((a) => {
            const card = a.suggestion_id ? s.suggestions.items[a.suggestion_id] : undefined;
            return (
              <li key={`${a.suggestion_id}:${a.n}`}>
                <FailingDetail a={a} now={now} home={s.home} title />
                {a.suggestion_id && (
                  <p class="small">
                    <a href={href({ view: 'suggestion', id: a.suggestion_id })}>
                      {card ? `The card “${card.title}”` : 'Its card'}
                    </a>
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
