import type { Scout } from '../api/types';
import { fullTime } from '../logic/format';
import { nextRunText, scheduleText } from '../logic/schedule';

/** A scout's schedule and model budget, in one line of its card. */
export function RunSettingsLine({ sc, now }: { sc: Scout; now: number }) {
  const text = scheduleText(sc);
  const next = sc.health.next_run_at;
  const b = sc.health.model_budget;
  if (!text && !b) return null;
  return (
    <p class="muted small run-settings">
      {text}
      {next && (
        <>
          {' · next '}
          <time dateTime={next} title={fullTime(next)}>
            {nextRunText(next, now)}
          </time>
        </>
      )}
      {b && (
        <>
          {text ? ' · ' : ''}model {b.spent_today.toLocaleString()} of {b.day_cap.toLocaleString()} tokens today
          {b.run_cap ? ` (at most ${b.run_cap.toLocaleString()} a run)` : ''}
        </>
      )}
    </p>
  );
}
