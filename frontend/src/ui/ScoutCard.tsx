import { useState } from 'preact/hooks';
import type { Learning, Scout } from '../api/types';
import { age, fullTime, plural, tildePath } from '../logic/format';
import { useActions } from './hooks';
import { needsReconnect } from '../logic/gmail';
import { href } from '../logic/router';
import { scoutState } from '../logic/health';
import { ChainActivity } from './ChainActivity';
import { LearningSection } from './LearningSection';
import { RunSettingsLine } from './RunSettingsLine';
import { ScoutHistoryButton } from './ScoutHistory';

const KIND_NAME: Record<string, string> = {
  folder: 'Folder',
  webhook: 'Webhook',
  gmail: 'Gmail',
  agent: 'AI agent',
  chain: 'Chain',
};

const STATE_LABEL: Record<string, string> = {
  ok: 'Working',
  error: 'Failing',
  disabled: 'Off',
  starting: 'Starting',
};

/** One scout: is it working, what does it watch, how does it decide. */
export function ScoutCard({
  sc,
  home,
  now,
  learning,
  managedBy,
  scouts = [],
  newestCard,
}: {
  sc: Scout;
  home?: string;
  now: number;
  learning?: Learning;
  /** Every scout: a chain scout names the one it follows. */
  scouts?: readonly Scout[];
  /** When the newest of the scout's cards the window holds arrived. */
  newestCard?: string;
  /** "file:NAME" when a definitions file manages the scout. */
  managedBy?: string;
}) {
  const actions = useActions();
  const [confirming, setConfirming] = useState(false);
  const h = sc.health;
  const hid = `scout-${sc.id}-h`;
  const state = scoutState(sc);
  // A chain scout has no runner: it runs when the scout it follows has its
  // event (docs/definitions.md, "Chaining scouts").
  const chain = sc.kind === 'chain';
  const notRunning = sc.enabled && !sc.running && h.state !== 'starting' && !chain;
  return (
    <article class="scout" aria-labelledby={hid}>
      <div class="scout-top">
        <h3 id={hid}>{sc.name}</h3>
        <span class={`badge state-${state}`}>{STATE_LABEL[state] ?? state}</span>
        <span class="muted small">{KIND_NAME[sc.kind] ?? sc.kind}</span>
      </div>
      {sc.hook_url && (
        <p class="small">
          Receives items posted to <code>{sc.hook_url}</code>
        </p>
      )}
      {sc.path && (
        <p class="small">
          Watching <code>{tildePath(sc.path, home)}</code>
          {sc.include?.length ? <span class="muted"> · only {sc.include.join(', ')}</span> : null}
          {sc.exclude?.length ? <span class="muted"> · never {sc.exclude.join(', ')}</span> : null}
        </p>
      )}
      {chain ? (
        <ChainActivity sc={sc} scouts={scouts} newestHeld={newestCard} now={now} />
      ) : (
        <p class="muted small">
          {h.last_run_at ? (
            <>
              Last looked{' '}
              <time dateTime={h.last_run_at} title={fullTime(h.last_run_at)}>
                {age(h.last_run_at, now)}
              </time>
            </>
          ) : sc.enabled ? (
            'Has not looked yet'
          ) : (
            'Off'
          )}
          {' · '}
          {plural(h.total_new, 'item')} found so far
        </p>
      )}
      <RunSettingsLine sc={sc} now={now} />
      {managedBy && (
        <p class="muted small">
          Managed by the definitions file <code>{managedBy.replace(/^file:/, '')}</code>: edit the file to change it, or
          change it here and write the change to the file.
        </p>
      )}
      {h.model_budget?.message && (
        <p class={'small' + (h.model_budget.spent ? ' warning-text' : ' muted')} role="status">
          {h.model_budget.message[0]!.toUpperCase() + h.model_budget.message.slice(1)}.
        </p>
      )}
      {sc.held_message && (
        <p class="warning-text small scout-held" role="status">
          {sc.held_message}.
        </p>
      )}
      {h.watch && (
        <p class="warning-text small" role="status">
          Not watched live: {h.watch}.
        </p>
      )}
      {h.last_error && (
        <p class="error-text small" role="status">
          The last run failed: {h.last_error}.{' '}
          {sc.kind === 'folder' ? 'Check that the folder exists and is readable, then press Run now.' : ''}
        </p>
      )}
      {sc.kind === 'gmail' && needsReconnect(h.last_error) && (
        <p class="small">
          <button type="button" class="primary" onClick={() => void actions.connectGmail()}>
            Reconnect Gmail
          </button>{' '}
          <span class="muted">Opens Google’s sign-in in your browser; the scout resumes once you allow access.</span>
        </p>
      )}
      {notRunning && !h.last_error && (
        <p class="error-text small">
          This scout is on but not running: it could not start. Switch it off and on, or check the agent’s log.
        </p>
      )}
      <LearningSection sc={sc} learning={learning} />
      <div class="scout-controls">
        <label class="switch">
          <input
            type="checkbox"
            role="switch"
            checked={sc.enabled}
            aria-label={`${sc.name}: on`}
            onChange={() => void actions.updateScout(sc, { enabled: !sc.enabled })}
          />
          <span>{sc.enabled ? 'On' : 'Off'}</span>
        </label>
        <fieldset class="segmented compact">
          <legend class="sr-only">{sc.name}: when something arrives</legend>
          <label class={sc.review ? 'on' : ''}>
            <input
              type="radio"
              name={`mode-${sc.id}`}
              checked={sc.review}
              onChange={() => void actions.updateScout(sc, { review: true })}
            />
            Review
          </label>
          <label class={!sc.review ? 'on' : ''}>
            <input
              type="radio"
              name={`mode-${sc.id}`}
              checked={!sc.review}
              onChange={() => void actions.updateScout(sc, { review: false })}
            />
            Auto-create
          </label>
        </fieldset>
        <span class="spacer" />
        <a class="button" href={href({ view: 'rules', id: sc.id })} aria-label={`Rules of ${sc.name}`}>
          Rules
        </a>
        {sc.kind === 'gmail' && (
          <a class="button" href={href({ view: 'senders', id: sc.id })} aria-label={`Senders of ${sc.name}`}>
            Senders
          </a>
        )}
        <button type="button" disabled={!sc.running} onClick={() => void actions.runScout(sc)}>
          Run now
        </button>
        <ScoutHistoryButton sc={sc} managedBy={managedBy} />
        {confirming ? (
          <>
            <span class="small">Delete? Its waiting cards go too; approved items stay.</span>
            <button type="button" class="danger" autoFocus onClick={() => void actions.deleteScout(sc)}>
              Delete
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </>
        ) : (
          <button
            type="button"
            class="quiet"
            aria-label={`Delete scout ${sc.name}`}
            onClick={() => setConfirming(true)}
          >
            Delete
          </button>
        )}
      </div>
    </article>
  );
}
