import { useEffect, useState } from 'preact/hooks';
import { alarmsApi, type Alarm } from '../api/alarms';
import { asApiError } from '../api/errors';
import { age, fullTime } from '../logic/format';
import type { AppState } from '../state/model';
import { useActions } from './hooks';

/** Status → Alarms: what is failing until its cause goes away, each with
 * what to do, acknowledged here once seen (it stays listed, no longer
 * counted in the tray, until the agent sees its cause gone). Read again
 * with each reading of the status. */
export function AlarmsPanel({ s, now }: { s: AppState; now: number }) {
  const actions = useActions();
  const api = alarmsApi(actions.api);
  const [list, setList] = useState<Alarm[] | null>(null);
  const [problem, setProblem] = useState('');
  const load = () =>
    api.list().then(
      (v) => {
        setList(v);
        setProblem('');
      },
      (e) => setProblem(asApiError(e).full),
    );
  useEffect(() => {
    void load();
  }, [s.status]);
  const ack = (id: string) =>
    api.ack(id).then(
      () => {
        void load();
        void actions.refreshStatus();
      },
      (e) => setProblem(asApiError(e).full),
    );
  return (
    <div class="panel alarms" aria-labelledby="alarms-h">
      <h2 id="alarms-h">Alarms</h2>
      {problem && (
        <p class="error-text small" role="alert">
          {problem}
        </p>
      )}
      {list === null && !problem && <p class="muted small">Loading the alarms…</p>}
      {list !== null && list.length === 0 && <p class="muted small">No alarms: nothing is failing.</p>}
      {list !== null && list.length > 0 && (
        <ul class="alarm-list">
          {list.map((a) => (
            <li key={a.id} class={`alarm alarm-${a.status} alarm-${a.severity}`} data-alarm={a.dedupe_key}>
              <p>
                <strong>{a.severity === 'critical' ? 'Critical' : 'Warning'}:</strong> {a.message}
              </p>
              <p class="small muted">
                <span title={fullTime(a.raised_at)}>raised {age(a.raised_at, now)}</span>
                {a.status === 'acknowledged' && ' — acknowledged; it clears itself once fixed'}
              </p>
              {a.status === 'open' && (
                <button type="button" onClick={() => void ack(a.id)}>
                  Acknowledge
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
