import { useEffect, useState } from 'preact/hooks';
import { definitionsApi, type ScoutVersion, type VersionDiff } from '../api/definitions';
import { asApiError, type ApiError } from '../api/errors';
import type { Scout } from '../api/types';
import { actorText, changeText, previousVersion, versionWhat } from '../logic/definitions';
import { age, fullTime } from '../logic/format';
import '../definitions.css';
import { ChangeInWords } from './ChangeInWords';
import { Dialog } from './Dialog';
import { useActions, useNow } from './hooks';
import { ScoutRuns } from './ScoutRuns';

/** The History button of a scout's card, and the dialog it opens. */
export function ScoutHistoryButton({ sc, managedBy }: { sc: Scout; managedBy?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" aria-label={`History of ${sc.name}`} onClick={() => setOpen(true)}>
        History
      </button>
      {open && <ScoutHistory sc={sc} managedBy={managedBy} onClose={() => setOpen(false)} />}
    </>
  );
}

type Diffs = Record<number, { state: 'loading' } | { state: 'ok'; diff: VersionDiff } | { state: 'error'; error: ApiError }>;

/** A scout's definition versions, newest first: who made each and what it
 * was, what changed from the version before, and rollback (confirmed
 * first; the agent may refuse, e.g. for a scout its file manages). */
export function ScoutHistory({ sc, managedBy, onClose }: { sc: Scout; managedBy?: string; onClose: () => void }) {
  const actions = useActions();
  const api = definitionsApi(actions.api);
  const now = useNow();
  const [versions, setVersions] = useState<ScoutVersion[] | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [diffs, setDiffs] = useState<Diffs>({});
  const [confirming, setConfirming] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  // What takes the focus once rendered: the row's rollback button after
  // Keep or a refusal (the confirmation that held the focus is gone), the
  // new current version after a rollback (once the list is read again).
  const [focusId, setFocusId] = useState<string | null>(null);
  useEffect(() => {
    const el = focusId ? document.getElementById(focusId) : null;
    if (el) {
      el.focus();
      setFocusId(null);
    }
  }, [focusId, versions]);
  // The version a run's link points at: outlined and scrolled to.
  const [shown, setShown] = useState<number | null>(null);
  const showVersion = (v: number) => {
    setShown(v);
    const el = document.getElementById(`scout-version-${v}`);
    el?.scrollIntoView({ block: 'nearest' });
    el?.focus();
  };

  useEffect(() => {
    let live = true;
    api.versions(sc.id).then(
      (list) => live && (setVersions(list), setLoadError(null)),
      (e) => live && setLoadError(asApiError(e)),
    );
    return () => {
      live = false;
    };
  }, [sc.id, reload]);

  const showDiff = (v: number) => {
    if (!versions) return;
    const from = previousVersion(versions, v);
    if (from === undefined || diffs[v]) {
      // Shown already: the button hides it.
      setDiffs(({ [v]: _, ...rest }) => rest);
      return;
    }
    setDiffs((d) => ({ ...d, [v]: { state: 'loading' } }));
    api.diff(sc.id, from, v).then(
      (diff) => setDiffs((d) => ({ ...d, [v]: { state: 'ok', diff } })),
      (e) => setDiffs((d) => ({ ...d, [v]: { state: 'error', error: asApiError(e) } })),
    );
  };

  const rollback = async (v: number) => {
    setBusy(true);
    setProblem(null);
    try {
      const ch = await api.rollback(sc.id, v);
      setConfirming(null);
      setDiffs({});
      setReload((n) => n + 1);
      setFocusId(`scout-version-${ch.version}`);
      actions.info(
        ch.action === 'unchanged'
          ? `${sc.name} is already as in version ${v}: nothing changed`
          : `${sc.name} is back to version ${v}, as version ${ch.version}`,
      );
    } catch (e) {
      const err = asApiError(e);
      setConfirming(null);
      setFocusId(`rollback-version-${v}`);
      setProblem(
        err.status === 409
          ? `Not rolled back. ${err.message} Its file decides what it is, so the rollback would be undone the next time the file changes.`
          : `Not rolled back. ${err.full}`,
      );
    } finally {
      setBusy(false);
    }
  };

  const file = managedBy?.replace(/^file:/, '');
  const current = versions?.[0]?.version;
  return (
    <Dialog title={`History of ${sc.name}`} onClose={onClose} wide subtitle="Its recent runs and every change to its definition, newest first">
      {file && (
        <p class="small">
          Managed by the file <code>{file}</code>: edit the file to change it or to go back to an earlier version.
        </p>
      )}
      {problem && (
        <p class="error-text" role="alert">
          {problem}
        </p>
      )}
      {loadError && (
        <p class="error-text" role="alert">
          The history could not be read. {loadError.full}
        </p>
      )}
      {!file && (
        <ChangeInWords
          sc={sc}
          onSaved={(v) => {
            setDiffs({});
            setReload((n) => n + 1);
            setFocusId(`scout-version-${v}`);
          }}
        />
      )}
      <ScoutRuns sc={sc} onVersion={showVersion} />
      {!versions && !loadError && <p class="muted">Loading the history…</p>}
      {versions && (
        <ol class="versions" aria-label="Versions">
          {versions.map((v) => {
            const d = diffs[v.version];
            const prev = previousVersion(versions, v.version);
            return (
              <li
                key={v.version}
                id={`scout-version-${v.version}`}
                tabIndex={-1}
                class={v.version === shown ? 'version shown' : 'version'}
                aria-label={`Version ${v.version}`}
              >
                <div class="version-head">
                  <strong>Version {v.version}</strong>
                  {v.version === current && <span class="badge">current</span>}
                  <span>{versionWhat(v)}</span>
                  <span class="muted small">
                    by {actorText(v.actor)} ·{' '}
                    <time dateTime={v.created_at} title={fullTime(v.created_at)}>
                      {age(v.created_at, now)}
                    </time>
                  </span>
                  <span class="spacer" />
                  {prev !== undefined && (
                    <button type="button" class="quiet" aria-expanded={!!d} onClick={() => showDiff(v.version)}>
                      {d ? 'Hide changes' : `Changes from version ${prev}`}
                    </button>
                  )}
                  {v.version !== current &&
                    (confirming === v.version ? (
                      <span class="confirm">
                        <span class="small">
                          Roll back to version {v.version}? It becomes the definition again, as a new version.
                        </span>{' '}
                        <button type="button" class="danger" autoFocus disabled={busy} onClick={() => void rollback(v.version)}>
                          {busy ? 'Rolling back…' : 'Roll back'}
                        </button>
                        <button
                          type="button"
                          disabled={busy}
                          onClick={() => (setConfirming(null), setFocusId(`rollback-version-${v.version}`))}
                        >
                          Keep
                        </button>
                      </span>
                    ) : (
                      <button
                        type="button"
                        id={`rollback-version-${v.version}`}
                        onClick={() => (setConfirming(v.version), setProblem(null))}
                      >
                        Roll back to version {v.version}
                      </button>
                    ))}
                </div>
                {d?.state === 'loading' && <p class="muted small">Comparing…</p>}
                {d?.state === 'error' && (
                  <p class="error-text small" role="alert">
                    {d.error.full}
                  </p>
                )}
                {d?.state === 'ok' && (
                  <div class="diff" aria-label={`Changes from version ${d.diff.from} to ${d.diff.to}`}>
                    {d.diff.changes.length === 0 ? (
                      <p class="muted small">No change to the definition.</p>
                    ) : (
                      <ul>
                        {d.diff.changes.map((c) => {
                          const t = changeText(c);
                          return (
                            <li key={c.path} class={`change change-${t.kind}`}>
                              <code>{t.path}</code>{' '}
                              {t.kind === 'added' ? (
                                <>
                                  added <ins>{c.to}</ins>
                                </>
                              ) : t.kind === 'removed' ? (
                                <>
                                  removed <del>{c.from}</del>
                                </>
                              ) : (
                                <>
                                  <del>{c.from}</del> → <ins>{c.to}</ins>
                                </>
                              )}
                            </li>
                          );
                        })}
                      </ul>
                    )}
                  </div>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </Dialog>
  );
}
