import { useEffect, useState } from 'preact/hooks';
import { relayNotice } from '../logic/relay';
import { href } from '../logic/router';
import { failingList, type AppState } from '../state/model';
import { actionLabel, lcFirst } from '../logic/plan';
import { useActions, useNow } from './hooks';

/** How long the stream may be down before we say so: EventSource often
 * reconnects within a second, and a flashing banner is noise. */
const GRACE_MS = 2000;

/** What is wrong right now, across every view. */
export function Banners({ s }: { s: AppState }) {
  const actions = useActions();
  const [downLong, setDownLong] = useState(false);
  useEffect(() => {
    if (s.conn !== 'down') {
      setDownLong(false);
      return;
    }
    const t = setTimeout(() => setDownLong(true), GRACE_MS);
    return () => clearTimeout(t);
  }, [s.conn]);

  const p = s.problem;
  const now = useNow(1000);
  const relay = p ? undefined : relayNotice(s.status?.relay, now);
  const failing = failingList(s);
  return (
    <div class="banners">
      {p && (
        <div class="banner error" role="alert">
          <div>
            <strong>{p.message}</strong> {p.hint}
          </div>
          <button type="button" onClick={() => void actions.loadAll()}>
            Try again
          </button>
        </div>
      )}
      {!p && downLong && (
        <div class="banner error" role="alert">
          <div>
            <strong>Lost the connection to the agent.</strong> Reconnecting by itself; what you see may be out of date.
            Is <code>scouts agent</code> still running?
          </div>
        </div>
      )}
      {relay && (
        <div class={`banner ${relay.tone}`} role={relay.tone === 'error' ? 'alert' : 'status'}>
          <div>
            <strong>{relay.title}</strong> {relay.text} <a href={href({ view: 'status' })}>Details</a>
          </div>
          {relay.tone === 'warn' && (
            <button type="button" onClick={() => void actions.syncNow()}>
              Try now
            </button>
          )}
        </div>
      )}
      {failing.length > 0 && (
        <div class="banner warn" role="status">
          <div>
            <strong>
              {failing.length === 1
                ? `An action is failing: ${lcFirst(actionLabel(failing[0]!, s.home))}.`
                : `${failing.length} actions are failing.`}
            </strong>{' '}
            Nothing is lost: retry or drop {failing.length === 1 ? 'it' : 'them'}.{' '}
            <a href={href({ view: 'status' })}>See them in Status</a>
          </div>
        </div>
      )}
      {s.status?.paused && (
        <div class="banner warn" role="status">
          <div>
            <strong>Scouts are paused.</strong> Nothing new is processed until you resume; deciding cards still works.
          </div>
          <button type="button" onClick={() => void actions.setPaused(false)}>
            Resume
          </button>
        </div>
      )}
    </div>
  );
}
