import { useEffect, useRef, useState } from 'preact/hooks';
import { asApiError } from '../api/errors';
import { MODES, type ActionDef, type Mode, type Policies, type ResolvedMode } from '../api/plans';
import type { Scout } from '../api/types';
import { modeLabel } from '../logic/plan';
import {
  actionsFor,
  effectiveRows,
  globalRows,
  overrideModes,
  overrideRows,
  riskHint,
  setGlobal,
  setOverride,
} from '../logic/policies';
import { POLICIES_HREF } from '../logic/router';
import { scoutList, type AppState } from '../state/model';
import { useActions } from './hooks';

/**
 * Settings → Policies: each action's mode for every scout, each scout's
 * own overrides ("approve and always allow" writes one; removing it
 * undoes that), and what Gmail cards propose by default.
 */
export function PoliciesSettings({ s }: { s: AppState }) {
  const actions = useActions();
  const ref = useRef<HTMLElement>(null);
  const [error, setError] = useState<{ where: string; text: string } | null>(null);
  const [loadError, setLoadError] = useState('');
  const [busy, setBusy] = useState(false);
  const scouts = scoutList(s);
  const [addScout, setAddScout] = useState('');
  const [addAction, setAddAction] = useState('');
  const [addMode, setAddMode] = useState<Mode>('allow');
  const [label, setLabel] = useState<string | undefined>(undefined);

  useEffect(() => {
    actions.loadPolicies().catch((e) => setLoadError(String((e as Error).message ?? e)));
  }, []);
  // Reached from a toast or a card's plan: show this section.
  const ready = !!s.policies && !!s.catalogue;
  useEffect(() => {
    if (ready && location.hash === POLICIES_HREF) ref.current?.scrollIntoView({ block: 'start' });
  }, [ready]);

  const save = async (where: string, patch: Parameters<typeof actions.savePolicies>[0], done?: string) => {
    setBusy(true);
    setError(null);
    const err = await actions.savePolicies(patch, done);
    setBusy(false);
    if (err) setError({ where, text: err.full });
  };
  const errorAt = (where: string) =>
    error?.where === where && (
      <p class="error-text small" role="alert">
        {error.text}
      </p>
    );

  const p = s.policies;
  const cat = s.catalogue;
  const names = Object.fromEntries(scouts.map((sc) => [sc.id, sc.name]));
  const kindOf = scouts.find((sc) => sc.id === addScout)?.kind;
  const offered = cat ? actionsFor(cat, kindOf) : [];

  return (
    <section class="panel" id="policies" aria-labelledby="settings-policies-h" ref={ref}>
      <h2 id="settings-policies-h">Policies</h2>
      <p class="muted small">
        Every side effect Scouts can cause is an action. <strong>Allowed</strong> runs without asking,{' '}
        <strong>Needs approval</strong> waits until you approve the card, <strong>Denied</strong> never runs. A
        scout’s own setting wins over the one for every scout — except that Denied for every scout cannot be lifted
        for one.
      </p>
      {!ready && <p class="muted small">{loadError ? `Could not load the policies: ${loadError}` : 'Loading…'}</p>}
      {p && cat && (
        <>
          <h3>Every scout</h3>
          <table class="policies">
            <thead>
              <tr>
                <th scope="col">Action</th>
                <th scope="col">Risk</th>
                <th scope="col">Mode</th>
              </tr>
            </thead>
            <tbody>
              {globalRows(cat, p).map((r) => (
                <tr key={r.action}>
                  <td>
                    <code>{r.action}</code>
                    <div class="muted small">{r.description}</div>
                    {!r.available && <div class="muted small">Not available on this computer.</div>}
                    {errorAt(`global:${r.action}`)}
                  </td>
                  <td>
                    <span class={`badge risk-${r.risk}`}>{r.risk}</span>
                    <div class="muted small">{riskHint(r.risk)}</div>
                  </td>
                  <td>
                    <select
                      aria-label={`${r.action}: mode for every scout`}
                      value={r.mode ?? ''}
                      disabled={busy}
                      onChange={(e) => {
                        const v = e.currentTarget.value as Mode | '';
                        void save(`global:${r.action}`, setGlobal(r.action, v || null));
                      }}
                    >
                      <option value="">Default ({modeLabel(r.inferred).toLowerCase()})</option>
                      {MODES.map((m) => (
                        <option key={m} value={m}>
                          {modeLabel(m)}
                        </option>
                      ))}
                    </select>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>

          <h3>Per scout</h3>
          {overrideRows(p, names).length === 0 ? (
            <p class="muted small">
              No scout has its own setting. “Approve and always allow” on a card adds one here.
            </p>
          ) : (
            <ul class="overrides" aria-label="Per-scout settings">
              {overrideRows(p, names).map((o) => {
                const what = `${o.scoutName}: ${o.action}`;
                const where = `scout:${o.scoutId}:${o.action}`;
                return (
                  <li key={where} class="override">
                    <span>
                      <strong>{o.scoutName}</strong> · <code>{o.action}</code>
                    </span>
                    <select
                      aria-label={`${what}: mode`}
                      value={o.mode}
                      disabled={busy}
                      onChange={(e) =>
                        void save(where, setOverride(o.scoutId, o.action, e.currentTarget.value as Mode))
                      }
                    >
                      {MODES.map((m) => (
                        <option key={m} value={m} disabled={!overrideModes(p, o.action).includes(m) && m !== o.mode}>
                          {modeLabel(m)}
                        </option>
                      ))}
                    </select>
                    <button
                      type="button"
                      class="quiet small-btn"
                      aria-label={`Remove ${what}`}
                      disabled={busy}
                      onClick={() =>
                        void save(
                          where,
                          setOverride(o.scoutId, o.action, null),
                          `Removed: ${o.scoutName} follows the setting for every scout for ${o.action} again`,
                        )
                      }
                    >
                      Remove
                    </button>
                    {o.underGlobalDeny && (
                      <span class="muted small">Denied for every scout: this setting has no effect.</span>
                    )}
                    {errorAt(where)}
                  </li>
                );
              })}
            </ul>
          )}
          {scouts.length > 0 && (
            <form
              class="inline override-add"
              aria-label="Add a per-scout setting"
              onSubmit={(e) => {
                e.preventDefault();
                if (!addScout || !addAction) {
                  setError({ where: 'add', text: 'Choose a scout and an action.' });
                  return;
                }
                void save('add', setOverride(addScout, addAction, addMode));
              }}
            >
              <select aria-label="Scout" value={addScout} onChange={(e) => setAddScout(e.currentTarget.value)}>
                <option value="">Scout…</option>
                {scouts.map((sc) => (
                  <option key={sc.id} value={sc.id}>
                    {sc.name}
                  </option>
                ))}
              </select>
              <select aria-label="Action" value={addAction} onChange={(e) => setAddAction(e.currentTarget.value)}>
                <option value="">Action…</option>
                {offered.map((d) => (
                  <option key={d.name} value={d.name}>
                    {d.name}
                  </option>
                ))}
              </select>
              <select aria-label="Mode" value={addMode} onChange={(e) => setAddMode(e.currentTarget.value as Mode)}>
                {MODES.map((m) => (
                  <option key={m} value={m}>
                    {modeLabel(m)}
                  </option>
                ))}
              </select>
              <button type="submit" disabled={busy}>
                Add
              </button>
              {errorAt('add')}
            </form>
          )}

          {scouts.length > 0 && <EffectivePolicies scouts={scouts} catalogue={cat} policies={p} />}

          <h3>Gmail cards propose</h3>
          <div class="inline">
            <label class="setting-label">
              <input
                type="checkbox"
                checked={p.defaults.gmail_archive}
                disabled={busy}
                onChange={(e) =>
                  void save('defaults', { defaults: { ...p.defaults, gmail_archive: e.currentTarget.checked } })
                }
              />
              <span>Archive the email (ticked on the card)</span>
            </label>
          </div>
          <form
            class="inline policies-label"
            onSubmit={(e) => {
              e.preventDefault();
              void save('defaults', { defaults: { ...p.defaults, gmail_label: (label ?? p.defaults.gmail_label).trim() } });
            }}
          >
            <label class="field-row">
              <span>Add the label</span>
              <input
                type="text"
                value={label ?? p.defaults.gmail_label}
                placeholder="none"
                onInput={(e) => setLabel(e.currentTarget.value)}
              />
            </label>
            <button type="submit" disabled={busy || label === undefined || label.trim() === p.defaults.gmail_label}>
              Save label
            </button>
          </form>
          {errorAt('defaults')}
        </>
      )}
    </section>
  );
}

/** What applies to one scout, as the agent resolves it: each action its
 * kind can run, with the mode in effect and where it comes from (its own
 * setting, the one for every scout, or the action's risk). Asked again
 * whenever the policies change, here or elsewhere. */
function EffectivePolicies({
  scouts,
  catalogue,
  policies,
}: {
  scouts: Scout[];
  catalogue: readonly ActionDef[];
  policies: Policies;
}) {
  const actions = useActions();
  const [id, setId] = useState(scouts[0]!.id);
  const chosen = scouts.find((sc) => sc.id === id) ?? scouts[0]!;
  // The last answer stays shown while the next is asked for.
  const [got, setGot] = useState<{ id: string; resolved: ResolvedMode[] } | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    actions.api.policiesFor(chosen.id).then(
      (r) => {
        if (!live) return;
        setGot({ id: chosen.id, resolved: r.resolved });
        setError('');
      },
      (e) => live && setError(asApiError(e).full),
    );
    return () => {
      live = false;
    };
  }, [chosen.id, policies]);
  const rows = got?.id === chosen.id ? effectiveRows(catalogue, got.resolved, chosen.kind, chosen.name) : null;

  return (
    <>
      <h3>What applies to a scout</h3>
      <div class="inline">
        <select aria-label="What applies to" value={chosen.id} onChange={(e) => setId(e.currentTarget.value)}>
          {scouts.map((sc) => (
            <option key={sc.id} value={sc.id}>
              {sc.name}
            </option>
          ))}
        </select>
        <span class="muted small">each action its kind can run, with the mode in effect and where it comes from</span>
      </div>
      {error && (
        <p class="error-text small" role="alert">
          Could not ask the agent: {error}
        </p>
      )}
      {!rows && !error && <p class="muted small">Loading…</p>}
      {rows && (
        <table class="policies effective" aria-label={`What applies to ${chosen.name}`}>
          <thead>
            <tr>
              <th scope="col">Action</th>
              <th scope="col">In effect</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.action}>
                <td>
                  <code>{r.action}</code>
                </td>
                <td>
                  <span class={`badge mode-${r.mode}`}>{modeLabel(r.mode)}</span>{' '}
                  <span class="muted small">from {r.why}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
