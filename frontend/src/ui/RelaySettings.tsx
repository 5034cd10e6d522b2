import { useEffect, useState } from 'preact/hooks';
import type { RelayLink } from '../api/client';
import { asApiError, type ApiError } from '../api/errors';
import type { RelayStatus } from '../api/types';
import { age, fullTime, plural } from '../logic/format';
import { relayStateLabel } from '../logic/relay';
import { useActions, useNow } from './hooks';

const host = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/**
 * Settings → Relay: the link's state, logging in with a device token (the
 * agent checks it by connecting and keeps it in the OS keyring) and
 * logging out. The token is only ever in the password field until it is
 * sent.
 */
export function RelaySettings({ relay }: { relay?: RelayStatus }) {
  const actions = useActions();
  const now = useNow();
  const link = relay && relay.state !== 'none' ? (relay as RelayLink) : undefined;
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState<'login' | 'logout' | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [changing, setChanging] = useState(false);

  // A link the relay refused keeps its address in the form.
  useEffect(() => {
    if (link?.url && !url) setUrl(link.url);
  }, [link?.url]);

  // After a logout the live event says "none": the status is fetched again
  // so that every view agrees there is no relay.
  useEffect(() => {
    if (relay?.state === 'none') void actions.refreshStatus();
  }, [relay?.state]);

  const login = async (e: Event) => {
    e.preventDefault();
    setBusy('login');
    setError(null);
    setDone('');
    try {
      const st = await actions.api.relayLogin(url.trim(), token.trim());
      setToken('');
      setChanging(false);
      setDone(
        `Logged in to ${host(st.url)}${st.user_email ? ` as ${st.user_email}` : ''}. ` +
          'The device token is in this computer’s keyring.',
      );
      await actions.refreshStatus();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(null);
    }
  };

  const logout = async () => {
    setBusy('logout');
    setError(null);
    setDone('');
    try {
      const out = await actions.api.relayLogout();
      setConfirming(false);
      setDone(
        !out.url
          ? 'There was no relay to log out of.'
          : out.token_deleted
            ? `Logged out of ${host(out.url)}: the device token was deleted from the keyring.`
            : `Logged out of ${host(out.url)}.`,
      );
      await actions.refreshStatus();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(null);
    }
  };

  const canManage = link?.source !== 'flags';
  const showForm = canManage && (!link || changing || link.state === 'unauthorized' || link.state === 'revoked');

  return (
    <section class="panel" aria-labelledby="settings-relay-h">
      <h2 id="settings-relay-h">Relay</h2>
      <p class="muted small">
        A relay receives webhooks and Gmail while this computer is off, and hands them over when it is back. Your items’
        content stays sealed to your devices.
      </p>
      {link ? (
        <dl class="facts" aria-label="Relay connection">
          <dt>State</dt>
          <dd>
            <span
              class={`dot ${link.state === 'online' ? 'open' : link.state === 'connecting' ? 'connecting' : 'down'}`}
              aria-hidden="true"
            />{' '}
            <span data-testid="relay-state">{relayStateLabel(link)}</span>{' '}
            <span class="muted" title={fullTime(link.since)}>
              since {age(link.since, now)}
            </span>
            {link.error && link.state !== 'online' && (
              <>
                <br />
                <span class="error-text">{link.error}</span>
              </>
            )}
          </dd>
          <dt>Relay</dt>
          <dd>
            <code>{link.url}</code>
          </dd>
          {link.device_id && (
            <>
              <dt>Device</dt>
              <dd>
                <code>{link.device_id}</code>
                {link.user_email && <span class="muted"> · {link.user_email}</span>}
              </dd>
            </>
          )}
          <dt>Waiting</dt>
          <dd>{link.outbox > 0 ? `${plural(link.outbox, 'change')} waiting to sync` : 'Nothing waiting to sync'}</dd>
        </dl>
      ) : (
        <p>Not connected to a relay: everything stays on this machine.</p>
      )}
      {link && !canManage && (
        <p class="muted small">
          This agent was started with <code>--relay</code> and <code>--device-token-file</code>, which decide its relay:
          restart it without them to log in or out here.
        </p>
      )}
      {link && canManage && !showForm && (
        <div class="actions">
          {confirming ? (
            <>
              <span>
                Log out of {host(link.url)}? The device token is deleted from this computer; logging in again needs it.
              </span>
              <button type="button" class="danger" disabled={busy !== null} onClick={() => void logout()}>
                {busy === 'logout' ? 'Logging out…' : 'Log out'}
              </button>
              <button type="button" class="quiet" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          ) : (
            <>
              <button type="button" onClick={() => setConfirming(true)}>
                Log out…
              </button>
              <button type="button" class="quiet" onClick={() => setChanging(true)}>
                Use another relay or token…
              </button>
            </>
          )}
        </div>
      )}
      {showForm && (
        <form class="stack" onSubmit={login} aria-label="Log in to a relay">
          <label class="field">
            <span>Relay address</span>
            <input
              type="url"
              required
              placeholder="https://relay.example.com"
              value={url}
              autocomplete="url"
              onInput={(e) => setUrl(e.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Device token</span>
            <input
              type="password"
              required
              autocomplete="off"
              spellcheck={false}
              placeholder="sdt_…"
              value={token}
              aria-describedby="relay-token-help"
              onInput={(e) => setToken(e.currentTarget.value)}
            />
          </label>
          <p id="relay-token-help" class="muted small">
            The token <code>scouts-relay device add</code> printed on its last line. Scouts checks it by connecting,
            then keeps it in your keyring, never in its database.
          </p>
          <div class="actions">
            <button type="submit" class="primary" disabled={busy !== null}>
              {busy === 'login' ? 'Checking the token…' : 'Log in'}
            </button>
            {changing && (
              <button type="button" class="quiet" onClick={() => setChanging(false)}>
                Cancel
              </button>
            )}
          </div>
        </form>
      )}
      {error && (
        <p class="error-text" role="alert">
          {/* The agent's message says what to do; "try again" would mislead. */}
          {error.status === 0 ? error.full : error.message}
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
