import { useEffect, useRef, useState } from 'preact/hooks';
import { setBriefTime } from '../api/brief';
import { asApiError } from '../api/errors';
import { parseTime } from '../logic/settings';
import { useActions } from './hooks';
import { SaveState, type Save } from './SaveState';

/** The daily brief's time of day is the agent's (GET /brief's brief_at,
 * PUT /brief/time), not one of /settings: a checkbox and a time, saved as
 * soon as the time is whole. */
export function BriefTimeSetting() {
  const actions = useActions();
  const [at, setAt] = useState<string | undefined>(); // "HH:MM" or "off" as stored
  const [time, setTime] = useState('08:30');
  const [save, setSave] = useState<Save | undefined>();
  const seq = useRef(0);
  useEffect(() => {
    let live = true;
    actions.api.brief().then(
      (b) => {
        if (!live) return;
        setAt(b.brief_at);
        if (b.brief_at !== 'off') setTime(b.brief_at);
      },
      (e) => live && setSave({ id: 0, state: 'error', text: asApiError(e).full }),
    );
    return () => {
      live = false;
    };
  }, []);

  const put = async (want: string) => {
    const id = ++seq.current;
    const before = at;
    // Shown as asked at once: a checkbox held to the stored value until the
    // agent answered would spring back under the person's click.
    setAt(want);
    setSave({ id, state: 'saving' });
    try {
      const got = await setBriefTime(actions.api, want);
      if (seq.current !== id) return;
      setAt(got.at);
      if (got.at !== 'off') setTime(got.at);
      setSave({ id, state: 'saved' });
    } catch (e) {
      if (seq.current !== id) return;
      setAt(before);
      setSave({ id, state: 'error', text: asApiError(e).full });
    }
  };
  const on = at !== undefined && at !== 'off';
  return (
    <fieldset class="setting">
      <legend class="sr-only">Daily brief</legend>
      <label class="setting-label">
        <input
          type="checkbox"
          checked={on}
          disabled={at === undefined}
          aria-describedby="brief-help"
          onChange={(e) => void put(e.currentTarget.checked ? parseTime(time) ?? '08:30' : 'off')}
        />
        <span>Daily brief</span>
      </label>
      <SaveState save={save} />
      <div class="field-row setting-help">
        <div class="field time-field">
          <label for="brief-at">At</label>
          <input
            id="brief-at"
            type="time"
            value={time}
            disabled={!on}
            required
            aria-describedby="brief-help"
            onInput={(e) => setTime(e.currentTarget.value)}
            onChange={(e) => {
              const v = parseTime(e.currentTarget.value);
              setTime(e.currentTarget.value);
              if (v && v !== at) void put(v);
            }}
          />
        </div>
      </div>
      <p id="brief-help" class="muted small setting-help">
        Once a day, at this local time, a notification sums up what waits in the inbox, what was screened or filed as
        spam since the last brief, the tasks due, today’s events and the alarms still open — only when something is
        new. Within the quiet hours it comes when they end.
      </p>
    </fieldset>
  );
}
