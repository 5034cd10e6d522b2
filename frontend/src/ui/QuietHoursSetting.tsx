import { useEffect, useState } from 'preact/hooks';
import type { QuietHours } from '../api/types';
import { DEFAULT_QUIET, describeQuiet, hasProblems, parseTime, quietProblems } from '../logic/settings';
import { SaveState, type Save } from './SaveState';

interface Props {
  /** As shown: stored, or on its way to the agent. */
  q?: QuietHours;
  notifications: boolean;
  save?: Save;
  /** undefined: no quiet hours. */
  onSave: (q: QuietHours | undefined) => void;
}

/** A checkbox and two times of day; a change is saved once both are valid. */
export function QuietHoursSetting({ q, notifications, save, onSave }: Props) {
  const [start, setStart] = useState(q?.start ?? DEFAULT_QUIET.start);
  const [end, setEnd] = useState(q?.end ?? DEFAULT_QUIET.end);
  const [touched, setTouched] = useState(false);
  // The stored times changed (elsewhere, or a save was refused): show them.
  useEffect(() => {
    if (!q) return;
    setStart(q.start);
    setEnd(q.end);
    setTouched(false);
  }, [q?.start, q?.end]);

  const on = !!q;
  const problems = touched ? quietProblems(start, end) : {};
  const commit = (s: string, e: string) => {
    setTouched(true);
    if (!q || hasProblems(quietProblems(s, e))) return;
    const next = { start: parseTime(s)!, end: parseTime(e)! };
    if (next.start !== q.start || next.end !== q.end) onSave(next);
  };
  const toggle = (want: boolean) => {
    if (!want) {
      // Half-typed times go: they come back as they were stored.
      if (q) {
        setStart(q.start);
        setEnd(q.end);
      }
      setTouched(false);
      onSave(undefined);
      return;
    }
    // Times left invalid when quiet hours were last switched off: start over.
    const ok = !hasProblems(quietProblems(start, end));
    const s = ok ? parseTime(start)! : DEFAULT_QUIET.start;
    const e = ok ? parseTime(end)! : DEFAULT_QUIET.end;
    setStart(s);
    setEnd(e);
    setTouched(false);
    onSave({ start: s, end: e });
  };

  const time = (id: 'start' | 'end', label: string, v: string, set: (v: string) => void) => (
    <div class="field time-field">
      <label for={`quiet-${id}`}>{label}</label>
      <input
        id={`quiet-${id}`}
        type="time"
        value={v}
        disabled={!on}
        required
        aria-invalid={problems[id] || problems.both ? 'true' : undefined}
        aria-describedby={`quiet-help${problems[id] ? ` quiet-${id}-error` : ''}${problems.both ? ' quiet-both-error' : ''}`}
        onInput={(e) => set(e.currentTarget.value)}
        onChange={(e) => {
          const val = e.currentTarget.value;
          set(val);
          commit(id === 'start' ? val : start, id === 'end' ? val : end);
        }}
      />
      {problems[id] && (
        <span id={`quiet-${id}-error`} class="error-text small">
          {problems[id]}
        </span>
      )}
    </div>
  );

  return (
    <fieldset class="setting">
      <legend class="sr-only">Quiet hours</legend>
      <label class="setting-label">
        <input
          type="checkbox"
          checked={on}
          aria-describedby="quiet-help"
          onChange={(e) => toggle(e.currentTarget.checked)}
        />
        <span>Quiet hours: hold notifications at night</span>
      </label>
      <SaveState save={save} />
      <div class="field-row setting-help">
        {time('start', 'From', start, setStart)}
        {time('end', 'Until', end, setEnd)}
      </div>
      {problems.both && (
        <p id="quiet-both-error" class="error-text small setting-help">
          {problems.both}
        </p>
      )}
      <p id="quiet-help" class="muted small setting-help">
        {on && !hasProblems(problems) && q ? describeQuiet(q) + ' ' : ''}
        Times are this computer’s local time. A start after the end spans midnight: from 22:00 until 07:00 is
        overnight. What arrives meanwhile is not announced later; the inbox keeps it.
        {!notifications && ' Notifications are off, so quiet hours change nothing until you turn them back on.'}
      </p>
    </fieldset>
  );
}
