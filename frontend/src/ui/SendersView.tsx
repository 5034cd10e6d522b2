import { useEffect, useState } from 'preact/hooks';
import { asApiError } from '../api/errors';
import type { Sender, SenderList, UnsubscribeMethod } from '../api/senders';
import { fullTime, plural } from '../logic/format';
import type { Command } from '../logic/keys';
import { href } from '../logic/router';
import type { AppState } from '../state/model';
import { Dialog } from './Dialog';
import { useActions, useKeyHandler } from './hooks';
import '../senders.css';

type Sort = 'volume' | 'approve' | 'last';

const SORTS: ReadonlyArray<[Sort, string]> = [
  ['volume', 'Most cards'],
  ['approve', 'Lowest approve rate'],
  ['last', 'Longest since an approval'],
];

const METHOD: Record<UnsubscribeMethod, string> = {
  'one-click': 'One-click',
  mailto: 'By mail',
  link: 'Web page',
};

/** Orders senders as the person asked; the agent's ranking (most cards,
 * then lowest approve rate, then longest since an approval) breaks ties. */
export function sortSenders(list: readonly Sender[], by: Sort): Sender[] {
  // A sender with nothing decided yet comes after every rate.
  const rate = (s: Sender) => s.approve_rate ?? 2;
  const last = (s: Sender) => (s.last_approval ? Date.parse(s.last_approval) : 0);
  const out = list.map((s, i) => ({ s, i }));
  out.sort((a, b) => {
    let c = 0;
    if (by === 'approve') c = rate(a.s) - rate(b.s);
    else if (by === 'last') c = last(a.s) - last(b.s);
    return c || a.i - b.i;
  });
  return out.map((x) => x.s);
}

/** What became of a sender: unsubscribing, unsubscribed, failing, the
 * page to open, screened. */
function stateWords(s: Sender) {
  const u = s.unsubscribed;
  const parts = [];
  if (u) {
    if (u.state === 'done' && u.link)
      parts.push(
        <span key="u">
          Open{' '}
          <a href={u.link} target="_blank" rel="noopener noreferrer nofollow">
            the list’s unsubscribe page
          </a>{' '}
          to finish
        </span>,
      );
    else if (u.state === 'done') parts.push(<span key="u">Unsubscribed ({u.method === 'mailto' ? 'by mail' : 'one-click'})</span>);
    else if (u.state === 'queued' && u.error)
      parts.push(
        <span key="u" class="error-text">
          Unsubscribing failed, trying again: {u.error}
        </span>,
      );
    else if (u.state === 'failed')
      parts.push(
        <span key="u" class="error-text">
          Unsubscribing failed: {u.error} —{' '}
          <a href={href({ view: 'suggestion', id: u.suggestion_id })}>retry or drop it on the card</a>
        </span>,
      );
    else parts.push(<span key="u">Unsubscribing…</span>);
  }
  if (s.screened) parts.push(<span key="s">{s.screened.choice === 'screen' ? 'Screened' : 'Always shown'}</span>);
  return parts.length ? parts.flatMap((p, i) => (i ? [' · ', p] : [p])) : <span class="muted">—</span>;
}

/** A Gmail scout's senders and mailing lists: how much each sends, how
 * much of it the person approves, when they last approved one, and how
 * its mail offers to unsubscribe; "unsubscribe and screen" for one or
 * several, after one confirmation. Reached from the scout's card. */
export function SendersView({ s, scoutId, keys }: { s: AppState; scoutId: string; keys: { current: ((c: Command) => boolean) | null } }) {
  const actions = useActions();
  const sc = s.scouts.items[scoutId];
  const name = sc?.name ?? scoutId;
  const [list, setList] = useState<SenderList | undefined>();
  const [problem, setProblem] = useState('');
  const [sort, setSort] = useState<Sort>('volume');
  const [current, setCurrent] = useState<string | undefined>();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState<Sender[] | undefined>();
  const [busy, setBusy] = useState(false);

  const load = async () => {
    try {
      setList(await actions.api.senders(scoutId));
      setProblem('');
    } catch (e) {
      setProblem(asApiError(e).full);
    }
  };
  // Cards come and are decided, unsubscriptions run: read again.
  useEffect(() => void load(), [scoutId, s.suggestions, s.planSeq, s.rulesSeq[scoutId]]);

  const rows = list ? sortSenders(list.senders, sort) : [];
  const cur = rows.find((r) => r.key === current) ?? rows[0];
  const toggle = (key: string) =>
    setSelected((sel) => {
      const next = new Set(sel);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const ask = () => {
    const chosen = selected.size ? rows.filter((r) => selected.has(r.key)) : cur ? [cur] : [];
    if (chosen.length) setConfirming(chosen);
  };

  const unsubscribe = async (chosen: Sender[]) => {
    setBusy(true);
    await actions.changeScout(
      name,
      'Could not unsubscribe.',
      (writeFile) =>
        actions.api.unsubscribe(
          scoutId,
          chosen.map((c) => c.key),
          writeFile,
        ),
      async () => {
        setConfirming(undefined);
        setSelected(new Set());
        await load();
        actions.info(`Unsubscribing from ${plural(chosen.length, 'sender')} and screening ${chosen.length === 1 ? 'it' : 'them'} from now on.`);
      },
    );
    setBusy(false);
  };

  useKeyHandler(keys, (k: Command): boolean => {
    if (confirming || rows.length === 0) return false;
    const i = Math.max(0, rows.findIndex((r) => r.key === cur?.key));
    switch (k.type) {
      case 'next':
      case 'prev': {
        const j = Math.min(rows.length - 1, Math.max(0, i + (k.type === 'next' ? 1 : -1)));
        setCurrent(rows[j]!.key);
        if (k.extend) setSelected((sel) => new Set([...sel, rows[i]!.key, rows[j]!.key]));
        document.getElementById(`sender-${j}`)?.focus();
        return true;
      }
      case 'toggle':
        if (cur) toggle(cur.key);
        return true;
      case 'selectAll':
        setSelected(new Set(rows.map((r) => r.key)));
        return true;
      case 'escape':
        if (!selected.size) return false;
        setSelected(new Set());
        return true;
      case 'screenSender':
        if (k.choice !== 'screen') return false;
        ask();
        return true;
      default:
        return false;
    }
  });

  return (
    <section class="view" aria-labelledby="senders-h">
      <header class="view-head">
        <h1 id="senders-h" tabIndex={-1}>
          Senders of {name}
        </h1>
        <p class="muted">
          Who sends to this scout, and how much of it you keep. <kbd>-</kbd> unsubscribes from the selected senders (or
          this one) and screens them from now on. <a href={href({ view: 'scouts' })}>Back to Scouts</a>
        </p>
      </header>
      {problem && (
        <p class="error-text" role="alert">
          Could not load the senders: {problem}
        </p>
      )}
      {!list && !problem && <p class="muted">Loading senders…</p>}
      {list && list.senders.length === 0 && (
        <div class="empty">
          <p>No senders yet: this scout has no card from a sender or a mailing list.</p>
        </div>
      )}
      {rows.length > 0 && (
        <>
          <div class="actions senders-bar" role="toolbar" aria-label="Senders">
            <label>
              Order{' '}
              <select value={sort} onChange={(e) => setSort((e.target as HTMLSelectElement).value as Sort)}>
                {SORTS.map(([v, label]) => (
                  <option key={v} value={v}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            <span class="spacer" />
            {selected.size > 0 && <span>{plural(selected.size, 'sender')} selected</span>}
            <button type="button" class="danger" disabled={busy || (!selected.size && !cur)} onClick={ask} aria-keyshortcuts="-">
              {selected.size > 1 ? `Unsubscribe and screen ${selected.size}` : 'Unsubscribe and screen'} <kbd>-</kbd>
            </button>
          </div>
          <table class="senders" aria-label={`Senders of ${name}`}>
            <thead>
              <tr>
                <th scope="col">
                  <span class="sr-only">Selected</span>
                </th>
                <th scope="col">Sender</th>
                <th scope="col">Cards</th>
                <th scope="col">Approved</th>
                <th scope="col">Last approval</th>
                <th scope="col">Unsubscribe</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr
                  key={r.key}
                  id={`sender-${i}`}
                  tabIndex={0}
                  class={r.key === cur?.key ? 'current' : undefined}
                  aria-selected={selected.has(r.key)}
                  onFocus={() => setCurrent(r.key)}
                  onClick={() => setCurrent(r.key)}
                >
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select ${r.value}`}
                      checked={selected.has(r.key)}
                      onChange={() => toggle(r.key)}
                    />
                  </td>
                  <th scope="row">
                    {r.value} <span class="muted small">{r.of === 'list' ? 'list' : r.name}</span>
                  </th>
                  <td>
                    {r.cards}
                    {r.pending > 0 && <span class="muted small"> ({r.pending} waiting)</span>}
                  </td>
                  <td>
                    {r.approve_rate === null
                      ? '—'
                      : `${Math.round(r.approve_rate * 100)}% (${r.approved} of ${r.approved + r.rejected})`}
                  </td>
                  <td title={r.last_approval ? fullTime(r.last_approval) : undefined}>
                    {r.last_approval ? new Date(r.last_approval).toLocaleDateString() : 'Never'}
                  </td>
                  <td>{r.unsubscribe ? METHOD[r.unsubscribe] : <span class="muted">—</span>}</td>
                  <td>{stateWords(r)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {confirming && (
        <Dialog
          title={confirming.length === 1 ? `Unsubscribe from ${confirming[0]!.value}?` : `Unsubscribe from ${confirming.length} senders?`}
          onClose={() => setConfirming(undefined)}
        >
          <ul class="confirm-list">
            {confirming.map((c) => (
              <li key={c.key}>
                <strong>{c.value}</strong>{' '}
                <span class="muted small">
                  {c.unsubscribe === 'one-click'
                    ? 'one-click unsubscribe (a request to the list)'
                    : c.unsubscribe === 'mailto'
                      ? 'a mail to the list’s unsubscribe address, from your account'
                      : c.unsubscribe === 'link'
                        ? 'the list’s unsubscribe page, opened for you'
                        : 'no way to unsubscribe is known: screened only'}
                </span>
              </li>
            ))}
          </ul>
          <p class="small">
            Their cards waiting now are rejected, and their next mail goes to Screened (a rule first in the scout’s rules,
            which you can remove).
          </p>
          <div class="actions">
            <button type="button" class="danger" autoFocus disabled={busy} onClick={() => void unsubscribe(confirming)}>
              Unsubscribe and screen
            </button>
            <button type="button" onClick={() => setConfirming(undefined)}>
              Cancel
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
