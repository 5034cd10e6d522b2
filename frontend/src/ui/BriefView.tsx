import { useEffect, useState } from 'preact/hooks';
import type { Brief } from '../api/brief';
import type { Suggestion } from '../api/types';
import { fullTime, plural } from '../logic/format';
import { href } from '../logic/router';
import type { AppState } from '../state/model';
import { useActions } from './hooks';

/** The daily brief: what waits, what was filed away since the last brief
 * (each with bring back: the button or b on the row), tasks due, today's
 * events and the alarms still open. The desktop notification of the brief
 * opens it. */
export function BriefView({ s }: { s: AppState }) {
  const actions = useActions();
  const [brief, setBrief] = useState<Brief | undefined>();
  const [error, setError] = useState('');
  // Read again when cards change (a bring back, a new card) or the status
  // does (an alarm raised or resolved): the page keeps what it shows
  // meanwhile.
  useEffect(() => {
    let live = true;
    actions.api.brief().then(
      (b) => live && (setBrief(b), setError('')),
      (e: { message?: string }) => live && setError(e?.message ?? 'Could not read the brief.'),
    );
    return () => {
      live = false;
    };
  }, [s.suggestions, s.status]);

  const bringBack = (id: string) => void actions.bringBack([id]);
  const filed = (title: string, list: Suggestion[]) => (
    <section aria-label={title}>
      <h2>
        {title} <span class="muted">({list.length})</span>
      </h2>
      {list.length === 0 ? (
        <p class="muted">Nothing since the last brief.</p>
      ) : (
        <ul class="brief-list">
          {list.map((sg) => (
            <li
              key={sg.id}
              tabIndex={0}
              aria-label={sg.title}
              aria-keyshortcuts="b"
              onKeyDown={(e) => {
                if (e.key === 'b' && !e.ctrlKey && !e.metaKey && !e.altKey) {
                  e.preventDefault();
                  bringBack(sg.id);
                }
              }}
            >
              <span>{sg.title}</span> <span class="muted small">{sg.sender || sg.path}</span>{' '}
              <button type="button" class="quiet small-btn" onClick={() => bringBack(sg.id)}>
                Bring back <kbd>b</kbd>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );

  return (
    <section class="view" aria-labelledby="brief-h">
      <header class="view-head">
        <h1 id="brief-h" tabIndex={-1}>
          Daily brief
        </h1>
        {brief && (
          <p class="muted" title={fullTime(brief.since)}>
            Since the last brief · {brief.brief_at === 'off' ? 'the daily brief is off' : `sent at ${brief.brief_at} when something is new`}
          </p>
        )}
      </header>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!brief && !error && (
        <p class="muted" aria-busy="true">
          Loading the brief…
        </p>
      )}
      {brief && (
        <>
          <section aria-label="Inbox">
            <h2>
              Inbox <span class="muted">({plural(brief.inbox_count, 'card')} waiting, {brief.inbox_new} new)</span>
            </h2>
            <ul class="brief-list">
              {brief.inbox.slice(0, 10).map((sg) => (
                <li key={sg.id}>
                  <a href={href({ view: 'suggestion', id: sg.id })}>{sg.title}</a>
                </li>
              ))}
            </ul>
            <p>
              <a href={href({ view: 'inbox' })}>Review the inbox</a>
            </p>
          </section>
          {filed('Screened', brief.screened)}
          {filed('Spam', brief.spam)}
          <section aria-label="Tasks due">
            <h2>
              Tasks due <span class="muted">({brief.tasks.length})</span>
            </h2>
            <ul class="brief-list">
              {brief.tasks.map((t) => (
                <li key={t.id}>
                  <a href={href({ view: 'tasks', id: t.id })}>{t.title}</a>
                </li>
              ))}
            </ul>
          </section>
          <section aria-label="Events today">
            <h2>
              Events today <span class="muted">({brief.events.length})</span>
            </h2>
            <ul class="brief-list">
              {brief.events.map((e) => (
                <li key={e.id}>
                  <a href={href({ view: 'events', id: e.id })}>{e.title}</a>
                </li>
              ))}
            </ul>
          </section>
          <section aria-label="Alarms">
            <h2>
              Alarms <span class="muted">({brief.alarms.length})</span>
            </h2>
            {brief.alarms.length === 0 ? (
              <p class="muted">No alarms: nothing is failing.</p>
            ) : (
              <>
                <ul class="brief-list">
                  {brief.alarms.map((a) => (
                    <li key={a.id} data-alarm={a.dedupe_key}>
                      <strong>{a.severity === 'critical' ? 'Critical' : 'Warning'}:</strong> {a.message}
                      {a.status === 'acknowledged' && <span class="muted small"> (acknowledged)</span>}
                    </li>
                  ))}
                </ul>
                <p>
                  <a href={href({ view: 'status' })}>See them on Status</a>
                </p>
              </>
            )}
          </section>
        </>
      )}
    </section>
  );
}
