import { useEffect, useState } from 'preact/hooks';
import { asApiError, type ApiError } from '../api/errors';
import type { GmailAccount } from '../api/types';
import { GMAIL_MODES, type GmailMode } from '../logic/gmail';
import { useActions } from './hooks';

/**
 * Connect a Gmail account (Google's sign-in opens in the browser) and add
 * a Gmail scout on it, choosing where the mail is read.
 */
export function AddGmailScout({ hasRelay, onDone }: { hasRelay: boolean; onDone: () => void }) {
  const actions = useActions();
  const api = actions.api;
  const [accounts, setAccounts] = useState<GmailAccount[] | null>(null);
  const [unavailable, setUnavailable] = useState<string | null>(null);
  const [authURL, setAuthURL] = useState<string | undefined>();
  const [email, setEmail] = useState('');
  const [mode, setMode] = useState<GmailMode>('local');
  const [review, setReview] = useState(true);
  const [autoTrash, setAutoTrash] = useState(false);
  const [watchSent, setWatchSent] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const load = async () => {
    try {
      const list = await api.gmailAccounts();
      setAccounts(list);
      setUnavailable(null);
      if (list.length && !list.some((a) => a.email === email)) setEmail(list[0].email);
    } catch (err) {
      // The agent's message says what to configure; a generic "try again"
      // hint would mislead, unless the agent is not answering at all.
      const e = asApiError(err);
      setUnavailable(e.status === 0 ? e.full : e.message);
    }
  };
  useEffect(() => void load(), []);

  const connect = async () => setAuthURL(await actions.connectGmail());

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const r = await actions.createScout({
      kind: 'gmail',
      name: name.trim() || undefined,
      review,
      // The relay never reads sent mail: awaiting reply is the desktop's.
      config: { email, mode, auto_trash_spam: autoTrash, watch_sent: watchSent && mode !== 'relay-triage' },
    });
    setBusy(false);
    if ('id' in r) onDone();
    else setError(r);
  };

  return (
    <form class="panel stack" onSubmit={submit} aria-labelledby="add-gmail-h">
      <h2 id="add-gmail-h">Add a Gmail scout</h2>
      {unavailable && (
        <p class="error-text" role="alert">
          {unavailable}
        </p>
      )}
      {accounts && (
        <div class="field">
          <span>Account</span>
          {accounts.length === 0 ? (
            <p class="muted small">No Gmail account is connected yet.</p>
          ) : (
            <select aria-label="Gmail account" value={email} onChange={(e) => setEmail(e.currentTarget.value)}>
              {accounts.map((a) => (
                <option key={a.email} value={a.email}>
                  {a.email}
                </option>
              ))}
            </select>
          )}
          <div class="inline">
            <button type="button" onClick={() => void connect()}>
              Connect a Gmail account…
            </button>
            <button type="button" class="quiet" onClick={() => void load()}>
              Refresh
            </button>
          </div>
          {authURL && (
            <p class="small">
              Google’s sign-in opened in your browser. If it did not,{' '}
              <a href={authURL} target="_blank" rel="noopener noreferrer">
                open it here
              </a>
              , allow access, then press Refresh.
            </p>
          )}
        </div>
      )}
      <fieldset class="choice">
        <legend>Where your mail is read</legend>
        {GMAIL_MODES.map((m) => (
          <label key={m.mode}>
            <input
              type="radio"
              name="gmail-mode"
              checked={mode === m.mode}
              disabled={m.needsRelay && !hasRelay}
              onChange={() => setMode(m.mode)}
            />{' '}
            {m.label} <span class="muted small">— {m.help}</span>
            {m.needsRelay && !hasRelay && <span class="muted small"> (needs a relay)</span>}
          </label>
        ))}
      </fieldset>
      <fieldset class="choice">
        <legend>When relevant mail arrives</legend>
        <label>
          <input type="radio" name="gmail-review" checked={review} onChange={() => setReview(true)} /> Suggest it, I
          review each card <span class="muted small">(recommended)</span>
        </label>
        <label>
          <input type="radio" name="gmail-review" checked={!review} onChange={() => setReview(false)} /> Create a task at
          once
        </label>
      </fieldset>
      <label>
        <input type="checkbox" checked={autoTrash} onChange={() => setAutoTrash(!autoTrash)} /> Move mail judged as spam
        to the Trash <span class="muted small">(never deleted; Gmail empties the Trash after 30 days)</span>
      </label>
      <label>
        <input
          type="checkbox"
          checked={watchSent && mode !== 'relay-triage'}
          disabled={mode === 'relay-triage'}
          onChange={() => setWatchSent(!watchSent)}
        />{' '}
        Remind me when nobody answers mail I sent{' '}
        <span class="muted small">
          {mode === 'relay-triage'
            ? '(local and relay-ping modes only: the relay never reads sent mail)'
            : '(a follow-up card after 3 days without an answer; withdrawn when one comes)'}
        </span>
      </label>
      <label class="field">
        <span>Name (optional)</span>
        <input type="text" value={name} placeholder="Gmail you@example.com" onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      {error && (
        <p class="error-text" role="alert">
          {error.full}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || !email}>
          {busy ? 'Adding…' : 'Add Gmail scout'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
