import { useEffect, useRef, useState } from 'preact/hooks';
import { asApiError, type ApiError } from '../api/errors';
import { LANES, type Suggestion } from '../api/types';
import type { Command } from '../logic/keys';
import { age, fullTime, plural } from '../logic/format';
import { LANE_KEY, LANE_LABEL } from '../logic/lanes';
import { EXPIRED_HREF, laneHref } from '../logic/router';
import type { AppState } from '../state/model';
import { useActions, useNow, useKeyHandler } from './hooks';

interface Props {
  s: AppState;
  /** Cards per lane, live, for the lane tabs. */
  counts?: Record<string, number>;
  keys: { current: ((c: Command) => boolean) | null };
}

/** How many expired suggestions the list holds. */
const LIMIT = 500;

/**
 * Expired suggestions: nobody decided in time (or their source said they
 * were gone). Each says why it expired, and b (or its button) brings it
 * back to pending with a new deadline.
 */
export function ExpiredView({ s, counts, keys }: Props) {
  const actions = useActions();
  const now = useNow();
  const [list, setList] = useState<Suggestion[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [current, setCurrent] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const expiredCount = s.status?.suggestions?.expired;

  // Loaded on arrival, and again when the agent's count changes (the
  // sweeper expired more, or another window brought one back).
  useEffect(() => {
    let live = true;
    actions.api.expired(LIMIT).then(
      (l) => {
        if (!live) return;
        setList(l);
        setError(null);
      },
      (e) => live && setError(asApiError(e)),
    );
    return () => {
      live = false;
    };
  }, [expiredCount]);

  useEffect(() => {
    if (!list || list.length === 0) return setCurrent(null);
    if (!current || !list.some((sg) => sg.id === current)) setCurrent(list[0]!.id);
  }, [list]);

  useEffect(() => {
    if (!current) return;
    const a = document.activeElement;
    const idle = !a || a === document.body || (a as HTMLElement).id === 'main' || (a as HTMLElement).id === 'expired-h';
    if (!idle && !listRef.current?.contains(a)) return;
    document.getElementById(`expired-${current}`)?.focus({ preventScroll: false });
  }, [current]);

  const revive = async (sg: Suggestion) => {
    setBusy(sg.id);
    try {
      const back = await actions.api.revive(sg.id);
      setList((l) => (l ? l.filter((x) => x.id !== sg.id) : l));
      const where = LANE_LABEL[back.lane ?? 'inbox'];
      actions.info(`Brought back to ${where}: “${back.title}”. It waits until ${fullTime(back.expires_at)}.`);
      void actions.refreshStatus();
    } catch (e) {
      actions.fail('Could not bring the suggestion back:', e);
    } finally {
      setBusy(null);
    }
  };

  useKeyHandler(keys, (k: Command): boolean => {
    if (!list || list.length === 0) return false;
    const i = Math.max(0, list.findIndex((sg) => sg.id === current));
    switch (k.type) {
      case 'next':
      case 'prev': {
        const j = Math.min(list.length - 1, Math.max(0, i + (k.type === 'next' ? 1 : -1)));
        setCurrent(list[j]!.id);
        return true;
      }
      case 'bringBack': {
        const sg = list[i];
        if (sg && busy !== sg.id) void revive(sg);
        return true;
      }
      default:
        return false;
    }
  });

  return (
    <section class="view" aria-labelledby="expired-h">
      <header class="view-head">
        <h1 id="expired-h" tabIndex={-1}>
          Expired
        </h1>
        {list && (
          <p class="muted">
            {list.length === 0 ? 'Nothing expired' : plural(expiredCount ?? list.length, 'suggestion') + ' expired'}
          </p>
        )}
      </header>
      <div class="lane-bar">
        <nav class="tabs lanes" aria-label="Lanes">
          {LANES.map((l) => (
            <a key={l} href={laneHref(l)} class="button" aria-keyshortcuts={LANE_KEY[l]} title={`${LANE_LABEL[l]} (${LANE_KEY[l]})`}>
              {LANE_LABEL[l]}
              {counts && <span class="lane-count"> ({counts[l] ?? 0})</span>}
            </a>
          ))}
          <a href={EXPIRED_HREF} class="button on" aria-current="page">
            Expired
            {expiredCount !== undefined && <span class="lane-count"> ({expiredCount})</span>}
          </a>
        </nav>
      </div>
      <p class="muted small lane-intro">
        Suggestions nobody decided in time, or whose source said they were gone. Nothing was created from them. Press b
        (or Bring back) to put one back where it waited, with a new deadline.
      </p>
      {error && <p class="error-text">The expired suggestions could not be listed: {error.full}</p>}
      {!list && !error && (
        <p class="muted" aria-busy="true">
          Loading expired suggestions…
        </p>
      )}
      {list && list.length === 0 && (
        <div class="empty">
          <h2>Nothing expired</h2>
          <p>A suggestion nobody decides within its deadline (30 days unless the agent says otherwise) waits here.</p>
        </div>
      )}
      {list && list.length > 0 && (
        <ol class="cards" ref={listRef} aria-label="Expired suggestions, most recent first">
          {list.map((sg) => {
            const scout = s.scouts.items[sg.scout_id];
            const hid = `expired-${sg.id}-h`;
            return (
              <li key={sg.id}>
                <article
                  id={`expired-${sg.id}`}
                  class={'card expired' + (sg.id === current ? ' current' : '')}
                  aria-labelledby={hid}
                  tabIndex={sg.id === current ? 0 : -1}
                  onFocus={() => setCurrent(sg.id)}
                >
                  <h2 id={hid} class="card-title">
                    {sg.title}
                  </h2>
                  <p class="muted small">
                    {scout ? scout.name + ' · ' : ''}
                    expired{' '}
                    <time dateTime={sg.resolved_at ?? sg.expires_at} title={fullTime(sg.resolved_at ?? sg.expires_at)}>
                      {age(sg.resolved_at ?? sg.expires_at, now)}
                    </time>
                  </p>
                  <p class="small expired-reason">
                    <span class="muted">Why: </span>
                    {sg.expired_reason || 'nobody decided before its deadline'}
                  </p>
                  <div class="card-actions">
                    <button
                      type="button"
                      disabled={busy === sg.id}
                      aria-keyshortcuts="b"
                      aria-label={`Bring back “${sg.title}”`}
                      onClick={() => void revive(sg)}
                    >
                      Bring back <kbd>b</kbd>
                    </button>
                  </div>
                </article>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
