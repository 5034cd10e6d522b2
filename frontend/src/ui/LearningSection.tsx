import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../api/errors';
import type { Learning, Scout } from '../api/types';
import { plural } from '../logic/format';
import { settingsForm, settingsFromForm, type LearnForm } from '../logic/learning';
import type { ManagedRefusal } from '../state/managed';
import { useActions } from './hooks';
import { WriteFileOffer } from './WriteFileOffer';

/** A scout's learner: how far it has come, its thresholds, the gates of
 * its actions, and a way to make it forget. */
export function LearningSection({ sc, learning }: { sc: Scout; learning?: Learning }) {
  const actions = useActions();
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [form, setForm] = useState<LearnForm | null>(null);
  const [problem, setProblem] = useState('');
  const [refusal, setRefusal] = useState<ManagedRefusal<Learning> | null>(null);
  const [saving, setSaving] = useState(false);
  const [confirming, setConfirming] = useState(false);

  // Fresh on every visit: decisions teach it all the time.
  useEffect(() => {
    actions.loadLearning(sc.id).then(
      () => setLoadError(null),
      (e) => setLoadError(e as ApiError),
    );
  }, [sc.id]);

  const saved = learning ? settingsForm(learning.settings) : null;
  const shown = form ?? saved;
  const dirty = !!form && !!saved && JSON.stringify(form) !== JSON.stringify(saved);
  const id = (f: string) => `learn-${sc.id}-${f}`;

  const save = async (e: Event) => {
    e.preventDefault();
    if (!learning || !form) return;
    const next = settingsFromForm(form, learning.settings);
    if (typeof next === 'string') {
      setProblem(next);
      return;
    }
    setSaving(true);
    const r = await actions.saveLearning(sc, next);
    setSaving(false);
    if (r && 'write' in r) setRefusal(r);
    else if (r) setProblem(r.message);
    else clearForm();
  };
  const clearForm = () => {
    setForm(null);
    setProblem('');
    setRefusal(null);
  };

  const edit = (f: keyof LearnForm) => (e: Event) => {
    if (!shown) return;
    setForm({ ...shown, [f]: (e.target as HTMLInputElement).value });
    setProblem('');
    setRefusal(null); // the offer was for the values refused
  };

  return (
    <section class="learning" aria-label={`${sc.name}: learning`}>
      <h4>Learning</h4>
      {!learning && !loadError && <p class="muted small">Loading…</p>}
      {loadError && !learning && (
        <p class="error-text small" role="alert">
          The learner could not be loaded. {loadError.full}
        </p>
      )}
      {learning && shown && (
        <>
          <p class="small learning-line">
            <strong>{learning.state}</strong>
            <span class="muted">
              {' · '}
              {plural(learning.spam_decisions, 'spam decision')}, {learning.ham_decisions} not spam
              {learning.trained ? '' : ' · nothing is screened until it has learned'}
            </span>
          </p>
          <form class="learning-form" onSubmit={save} noValidate>
            <label class="field compact" for={id('cold')}>
              <span>Learn from</span>
              <span class="inline">
                <input
                  id={id('cold')}
                  type="number"
                  min={0}
                  max={100000}
                  step={1}
                  value={shown.cold_start}
                  onInput={edit('cold_start')}
                />
                <span class="muted small">decisions first</span>
              </span>
            </label>
            <label class="field compact" for={id('screen')}>
              <span>Screen below</span>
              <span class="inline">
                <input
                  id={id('screen')}
                  type="number"
                  min={0}
                  max={50}
                  step={1}
                  value={shown.screen_below}
                  onInput={edit('screen_below')}
                />
                <span class="muted small">% likely to approve</span>
              </span>
            </label>
            <label class="field compact" for={id('spam')}>
              <span>Spam above</span>
              <span class="inline">
                <input
                  id={id('spam')}
                  type="number"
                  min={50}
                  max={100}
                  step={1}
                  value={shown.spam_above}
                  onInput={edit('spam_above')}
                />
                <span class="muted small">% likely spam</span>
              </span>
            </label>
            <label
              class="field compact"
              for={id('silence')}
              title="A card left alone (never opened) in Spam or Screened teaches as if confirmed, at half the weight of a decision; 0 turns it off"
            >
              <span>Silence teaches after</span>
              <span class="inline">
                <input
                  id={id('silence')}
                  type="number"
                  min={0}
                  max={365}
                  step={1}
                  value={shown.silence_days}
                  onInput={edit('silence_days')}
                />
                <span class="muted small">days left alone</span>
              </span>
            </label>
            {shown.cooldown_minutes !== undefined && (
              <label
                class="field compact"
                for={id('cooldown')}
                title="The same action on the same card with the same params again within this time is blocked, so that rules or approvals cannot make a folder or a mailbox flap"
              >
                <span>Cooldown</span>
                <span class="inline">
                  <input
                    id={id('cooldown')}
                    type="number"
                    min={0.02}
                    max={10080}
                    step="any"
                    value={shown.cooldown_minutes}
                    onInput={edit('cooldown_minutes')}
                  />
                  <span class="muted small">minutes before the same action again</span>
                </span>
              </label>
            )}
            {shown.notify_per_hour !== undefined && (
              <label
                class="field compact"
                for={id('storm')}
                title="Outbound posts (webhook.post) past this many in the last hour are blocked, so that a flooded source cannot drown a receiver"
              >
                <span>Posts an hour</span>
                <span class="inline">
                  <input
                    id={id('storm')}
                    type="number"
                    min={1}
                    max={10000}
                    step={1}
                    value={shown.notify_per_hour}
                    onInput={edit('notify_per_hour')}
                  />
                  <span class="muted small">at most; more are blocked</span>
                </span>
              </label>
            )}
            {shown.quiet_start !== undefined && (
              <fieldset
                class="field compact quiet-hours"
                title="While they last (this computer's time), a write action a policy allows waits on its card for approval"
              >
                <legend>Quiet hours</legend>
                <span class="inline">
                  <label for={id('quiet-from')}>from</label>
                  <input id={id('quiet-from')} type="time" aria-label="Quiet from" value={shown.quiet_start} onInput={edit('quiet_start')} />
                  <label for={id('quiet-to')}>to</label>
                  <input
                    id={id('quiet-to')}
                    type="time"
                    aria-label="Quiet to"
                    value={shown.quiet_end}
                    onInput={edit('quiet_end')}
                  />
                  {(shown.quiet_start || shown.quiet_end) && (
                    <button
                      type="button"
                      class="quiet"
                      onClick={() => {
                        setForm({ ...shown, quiet_start: '', quiet_end: '' });
                        setProblem('');
                        setRefusal(null);
                      }}
                    >
                      No quiet hours
                    </button>
                  )}
                  {!shown.quiet_start && !shown.quiet_end && <span class="muted small">none</span>}
                </span>
              </fieldset>
            )}
            <div class="learning-actions">
              <button type="submit" disabled={!dirty || saving}>
                {saving ? 'Saving…' : 'Save thresholds'}
              </button>
              {dirty && (
                <button type="button" class="quiet" onClick={clearForm}>
                  Cancel
                </button>
              )}
              <span class="spacer" />
              {confirming ? (
                <>
                  <span class="small">
                    Forget {plural(learning.decisions, 'decision')}? The thresholds stay.
                  </span>
                  <button
                    type="button"
                    class="danger"
                    autoFocus
                    onClick={async () => {
                      if (await actions.resetLearning(sc)) setConfirming(false);
                    }}
                  >
                    Reset
                  </button>
                  <button type="button" onClick={() => setConfirming(false)}>
                    Keep
                  </button>
                </>
              ) : (
                <button
                  type="button"
                  class="quiet"
                  aria-label={`Reset the learning of ${sc.name}`}
                  onClick={() => setConfirming(true)}
                >
                  Reset learning…
                </button>
              )}
            </div>
            {problem && (
              <p class="error-text small" role="alert">
                {problem}
              </p>
            )}
            {refusal && (
              <WriteFileOffer
                refusal={refusal}
                onWritten={clearForm}
                onFailed={(e) => (setRefusal(null), setProblem(e.message))}
              />
            )}
          </form>
        </>
      )}
    </section>
  );
}
