import type { Scout, Suggestion } from '../api/types';
import { chainActivity } from '../logic/health';
import { useActions, useLoad } from './hooks';

/** A chain scout's line in place of a run's: what it runs on, and when its
 * newest card arrived. That card may be decided and gone from the cards the
 * window holds, so it is asked of the agent — again whenever a card of the
 * scout arrives (newestHeld: the newest of those the window holds). */
export function ChainActivity({
  sc,
  scouts,
  newestHeld,
  now,
}: {
  sc: Scout;
  scouts: readonly Scout[];
  newestHeld?: string;
  now: number;
}) {
  const api = useActions().api;
  const newest = useLoad(
    () =>
      api.request<Suggestion[]>(
        'GET',
        `/suggestions?status=all&scout_id=${encodeURIComponent(sc.id)}&order=newest&limit=1`,
      ),
    [sc.id, newestHeld],
  );
  const asked = newest.state === 'ok' ? newest.value[0]?.created_at : undefined;
  const last = [asked, newestHeld].filter((t): t is string => !!t).sort().pop();
  return <p class="muted small">{chainActivity(sc, scouts, last, now)}</p>;
}
