import { useEffect, useState } from 'preact/hooks';
import { asApiError, type ApiError } from '../api/errors';
import type { AppState } from '../state/model';
import { useActions } from './hooks';

/** The names a definition can refer to, as the agent checks them. */
const NAME = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * Settings → Secrets: the names of the secrets kept in the OS keyring,
 * adding one (its value typed into a password field, sent once, never
 * shown again) and removing one. Definitions refer to a secret by name:
 * {"secret": "crm-webhook-token"}. llm-api-key is the model's key.
 */
export function SecretsSettings({ s }: { s: AppState }) {
  const actions = useActions();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | string | null>(null);
  const [done, setDone] = useState('');
  const [confirming, setConfirming] = useState<string | null>(null);
  const names = s.secretNames;

  const load = async () => {
    try {
      const r = await actions.api.secrets();
      actions.store.update((st) => ({ ...st, secretNames: r.names }));
    } catch (e) {
      setError(asApiError(e));
    }
  };
  useEffect(() => void load(), []);

  const add = async (e: Event) => {
    e.preventDefault();
    const n = name.trim();
    if (!NAME.test(n)) {
      setError('Name it with letters, digits, dots, dashes or underscores (up to 100).');
      return;
    }
    if (value === '') {
      setError('Type or paste the value.');
      return;
    }
    setBusy('add');
    setError(null);
    setDone('');
    try {
      await actions.api.putSecret(n, value);
      setValue('');
      setName('');
      setDone(`${n} is in this computer’s keyring. Definitions refer to it as {"secret": "${n}"}.`);
      await load();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(null);
    }
  };

  const remove = async (n: string) => {
    setBusy(n);
    setError(null);
    setDone('');
    try {
      await actions.api.deleteSecret(n);
      setConfirming(null);
      setDone(`${n} removed from the keyring.`);
      await load();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(null);
    }
  };

  return (
    <section class="panel" aria-labelledby="settings-secrets-h">
      <h2 id="settings-secrets-h">Secrets</h2>
      <p class="muted small">
        Tokens and keys your scouts’ actions need, kept in this computer’s keyring. Only their names are shown or stored;
        a definition names one as <code>{'{"secret": "NAME"}'}</code>. The secret <code>llm-api-key</code> is the
        model’s API key.
      </p>
      {names === undefined && !error && <p class="muted small">Asking the agent…</p>}
      {names !== undefined && names.length === 0 && <p class="small">No secrets yet.</p>}
      {names !== undefined && names.length > 0 && (
        <ul class="secret-list" aria-label="Secrets">
          {names.map((n) => (
            <li key={n}>
              <code>{n}</code>{' '}
              {confirming === n ? (
                <>
                  <span class="small">Remove it? Actions that name it will fail.</span>{' '}
                  <button type="button" class="danger" autoFocus disabled={busy === n} onClick={() => void remove(n)}>
                    Remove
                  </button>{' '}
                  <button type="button" onClick={() => setConfirming(null)}>
                    Keep
                  </button>
                </>
              ) : (
                <button type="button" class="quiet" aria-label={`Remove secret ${n}`} onClick={() => setConfirming(n)}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <form class="field-row secret-form" onSubmit={(e) => void add(e)} aria-label="Add a secret">
        <label class="field">
          <span>Secret name</span>
          <input
            type="text"
            value={name}
            autoComplete="off"
            spellcheck={false}
            placeholder="crm-webhook-token"
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Secret value</span>
          <input
            type="password"
            value={value}
            autoComplete="new-password"
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy === 'add'}>
          {names?.includes(name.trim()) ? 'Replace' : 'Add'}
        </button>
      </form>
      {error && (
        <p class="error-text small" role="alert">
          {typeof error === 'string' ? error : error.full}
        </p>
      )}
      {done && (
        <p class="small" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
