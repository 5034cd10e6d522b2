import { useState } from 'preact/hooks';
import { runsApi } from '../api/runs';
import type { Scout } from '../api/types';
import { fullTime } from '../logic/format';
import { runResult, runTime, runTokens, triggerText } from '../logic/runs';
import { useActions, useLoad, useNow } from './hooks';

const SHOWN = 5;
const MORE = 50;

/** A scout's latest runs, newest first: when, what started each, what it
 * found and the definition version it ran, which onVersion shows in the
 * history. Read again after each run the scout's health records. */
export function ScoutRuns({ sc, onVersion }: { sc: Scout; onVersion: (version: number) => void }) {
  const actions = useActions();
  const now = useNow();
  const [limit, setLimit] = useState(SHOWN);
  const runs = useLoad(() => runsApi(actions.api).list(sc.id, limit), [sc.id, sc.health.last_run_at, limit]);
  return (
    <section class="runs" aria-label="Recent runs">
      <h3>Recent runs</h3>
      {runs.state === 'loading' && <p class="muted small">Loading the runs…</p>}
      {runs.state === 'error' && (
        <p class="error-text small" role="alert">
          The runs could not be read. {runs.error.full}
        </p>
      )}
      {runs.state === 'ok' && runs.value.length === 0 && <p class="muted small">No runs yet.</p>}
      {runs.state === 'ok' && runs.value.length > 0 && (
        <ol class="run-list">
          {runs.value.map((r) => {
            const tokens = runTokens(r);
            return (
              <li key={r.id} class={`run run-${r.outcome}`}>
                <time dateTime={r.started_at} title={fullTime(r.started_at)}>
                  Run at {runTime(r.started_at, now)}
                </time>{' '}
                <span class="muted">{triggerText(r.trigger)}</span> — <span>{runResult(r)}</span>
                {tokens && <span class="muted"> — {tokens}</span>}
                {r.definition_version > 0 && (
                  <>
                    {' '}
                    —{' '}
                    <button type="button" class="link" onClick={() => onVersion(r.definition_version)}>
                      version {r.definition_version}
                    </button>
                  </>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {runs.state === 'ok' && runs.value.length === limit && limit < MORE && (
        <button type="button" class="quiet" onClick={() => setLimit(MORE)}>
          More runs
        </button>
      )}
    </section>
  );
}
