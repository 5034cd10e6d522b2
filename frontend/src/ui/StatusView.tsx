import { useEffect } from 'preact/hooks';
import { scoutList, type AppState } from '../state/model';
import { scoutsHealth } from '../logic/health';
import { age, fullTime, plural } from '../logic/format';
import { relayStateLabel } from '../logic/relay';
import { EXPIRED_HREF } from '../logic/router';
import { AlarmsPanel } from './AlarmsPanel';
import { FailingActions } from './FailingActions';
import { useActions, useNow } from './hooks';

const CONN: Record<AppState['conn'], string> = {
  open: 'Live: changes appear as they happen',
  connecting: 'Connecting…',
  down: 'Interrupted: reconnecting…',
};

export function StatusView({ s }: { s: AppState }) {
  const actions = useActions();
  const now = useNow();
  const st = s.status;
  // The counts change with every decision: ask again while this shows.
  useEffect(() => {
    void actions.refreshStatus();
    const t = setInterval(() => void actions.refreshStatus(), 5000);
    return () => clearInterval(t);
  }, []);
  const count = (n: number | undefined) => n ?? 0;
  return (
    <section class="view" aria-labelledby="status-h">
      <header class="view-head">
        <h1 id="status-h" tabIndex={-1}>
          Status
        </h1>
      </header>
      {!st && <p class="muted">{s.problem ? 'The agent did not answer.' : 'Asking the agent…'}</p>}
      {st && (
        <>
          <div class="panel">
            <h2>Scouts</h2>
            <p>
              {st.paused ? (
                <strong>Paused: nothing new is processed.</strong>
              ) : (
                s.scouts.loaded ? scoutsHealth(scoutList(s)) : `${plural(st.scouts_total, 'scout')}.`
              )}
            </p>
            <div class="actions">
              <button
                type="button"
                class={st.paused ? 'primary' : ''}
                onClick={() => void actions.setPaused(!st.paused)}
              >
                {st.paused ? 'Resume' : 'Pause all scouts'}
              </button>
              <button type="button" onClick={() => void actions.syncNow()} disabled={st.paused}>
                Look for new items now
              </button>
            </div>
            {st.model_budget?.map((b) => (
              <p key={b.scout_id} class="small budget-spent" role="status">
                <strong>{b.scout_name}:</strong> {b.message}{' '}
                <span class="muted" title={fullTime(b.resets_at)}>
                  (resets {fullTime(b.resets_at)})
                </span>
              </p>
            ))}
            {count(st.suggestions.expired) > 0 && (
              <p class="small">
                <a href={EXPIRED_HREF}>{plural(count(st.suggestions.expired), 'suggestion')} expired</a>{' '}
                <span class="muted">— see why, and bring one back.</span>
              </p>
            )}
          </div>
          <AlarmsPanel s={s} now={now} />
          <FailingActions s={s} now={now} />
          <div class="panel">
            <h2>Agent</h2>
            <dl class="facts">
              <dt>Live updates</dt>
              <dd>
                <span class={`dot ${s.conn}`} aria-hidden="true" /> {CONN[s.conn]}
              </dd>
              <dt>Relay</dt>
              {st.relay ? (
                <dd>
                  <span
                    class={`dot ${st.relay.state === 'online' ? 'open' : st.relay.state === 'connecting' ? 'connecting' : 'down'}`}
                    aria-hidden="true"
                  />{' '}
                  {relayStateLabel(st.relay)}{' '}
                  <span class="muted" title={fullTime(st.relay.since)}>
                    since {age(st.relay.since, now)}
                  </span>
                  <br />
                  <code>{st.relay.url}</code>
                  {st.relay.user_email && <span class="muted"> · {st.relay.user_email}</span>}
                  {st.relay.error && st.relay.state !== 'online' && (
                    <>
                      <br />
                      <span class="error-text">{st.relay.error}</span>
                    </>
                  )}
                  <br />
                  {st.relay.outbox > 0
                    ? `${plural(st.relay.outbox, 'change')} waiting to sync`
                    : 'Nothing waiting to sync'}
                </dd>
              ) : (
                <dd>Not set up: everything stays on this machine (start the agent with --relay for webhook scouts).</dd>
              )}
              <dt>Version</dt>
              <dd>{st.version}</dd>
              <dt>Running since</dt>
              <dd title={fullTime(st.started_at)}>{age(st.started_at, now)}</dd>
              <dt>Data</dt>
              <dd>
                <code>{st.data_dir}</code>
              </dd>
            </dl>
          </div>
          <div class="panel">
            <h2>Counts</h2>
            <dl class="facts">
              <dt>Suggestions</dt>
              <dd>
                {count(st.suggestions.pending)} waiting · {count(st.suggestions.approved)} approved ·{' '}
                {count(st.suggestions.rejected)} rejected · {count(st.suggestions.expired)} expired
              </dd>
              {st.lanes && (
                <>
                  <dt>Waiting</dt>
                  <dd>
                    {count(st.lanes.inbox)} in the inbox · {count(st.lanes.screened)} screened · {count(st.lanes.spam)}{' '}
                    in spam
                  </dd>
                </>
              )}
              <dt>Created</dt>
              <dd>
                {plural(count(st.entities.task), 'task')} · {plural(count(st.entities.note), 'note')} ·{' '}
                {plural(count(st.entities.event), 'event')} · {plural(count(st.entities.project), 'project')}
              </dd>
            </dl>
          </div>
        </>
      )}
    </section>
  );
}
