import { useEffect, useState } from 'preact/hooks';
import { asApiError } from '../api/errors';
import type { Rule, RuleDoc, RuleList } from '../api/plans';
import { describeThen, describeWhen, moved } from '../logic/rules';
import { href } from '../logic/router';
import type { AppState } from '../state/model';
import { useActions } from './hooks';
import { RuleEditor } from './RuleEditor';
import { WriteScopeNote } from './WriteScopeNote';

/** A scout's rules, in the order they are tried: add, edit, reorder,
 * switch on and off, delete. Reached from the scout's card. */
export function RulesView({ s, scoutId }: { s: AppState; scoutId: string }) {
  const actions = useActions();
  const sc = s.scouts.items[scoutId];
  const [list, setList] = useState<RuleList | undefined>();
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  // undefined: no editor; null: a new rule; a rule: editing it.
  const [editing, setEditing] = useState<Rule | null | undefined>(undefined);
  const [confirming, setConfirming] = useState<string | null>(null);
  const seq = s.rulesSeq[scoutId] ?? 0;

  const load = async () => {
    try {
      setList(await actions.api.rules(scoutId));
      setProblem('');
    } catch (e) {
      setProblem(asApiError(e).full);
    }
  };
  // Changes made elsewhere (the CLI, another window) show at once.
  useEffect(() => void load(), [scoutId, seq]);

  const ids = list?.rules.map((r) => r.rule.id) ?? [];
  const name = sc?.name ?? scoutId;
  // A change to the rules, then the list again. Refused because a
  // definitions file manages the scout, the toast offers to write it to
  // the file, as the card's switches do.
  const run = async (what: string, f: (writeFile: boolean) => Promise<unknown>, done?: string) => {
    setBusy(true);
    await actions.changeScout(name, what, f, async () => {
      await load();
      if (done) actions.info(done);
    });
    setBusy(false);
  };

  return (
    <section class="view" aria-labelledby="rules-h">
      <header class="view-head">
        <h1 id="rules-h" tabIndex={-1}>
          Rules of {name}
        </h1>
        <p class="muted">
          Tried from the top on every new item, before anything else: the first rule that matches decides where the
          card goes and what it proposes. <a href={href({ view: 'scouts' })}>Back to Scouts</a>
        </p>
      </header>
      {sc && <WriteScopeNote kind={sc.kind} scope={sc.write_scope} name={name} />}
      {problem && (
        <p class="error-text" role="alert">
          Could not load the rules: {problem}
        </p>
      )}
      {!list && !problem && <p class="muted">Loading rules…</p>}
      {list && (
        <>
          {list.rules.length === 0 && editing === undefined && (
            <div class="empty">
              <p>
                No rules yet. A rule sends matching items to the inbox, Screened or Spam, and can set the kind, the
                title, a project, a due date and actions.
              </p>
            </div>
          )}
          {list.rules.length > 0 && (
            <ol class="rules" aria-label={`Rules of ${name}, in the order they are tried`}>
              {list.rules.map((r, i) => {
                const id = r.rule.id;
                const enabled = r.rule.enabled ?? true;
                return (
                  <li key={id} class={'rule' + (enabled ? '' : ' off')} aria-label={`Rule ${id}`}>
                    <div class="rule-top">
                      <span class="muted small">{i + 1}.</span>
                      <strong>{r.rule.name || id}</strong>
                      {r.rule.name && <code class="small">{id}</code>}
                      {r.relay && (
                        <span class="badge" title="The relay applies this rule before the mail reaches this computer">
                          relay
                        </span>
                      )}
                      <span class="spacer" />
                      <label class="switch small">
                        <input
                          type="checkbox"
                          role="switch"
                          checked={enabled}
                          disabled={busy}
                          aria-label={`${id}: on`}
                          onChange={() =>
                            void run(`Could not switch ${id} ${enabled ? 'off' : 'on'}.`, (w) =>
                              actions.api.enableRule(scoutId, id, !enabled, w),
                            )
                          }
                        />
                        <span>{enabled ? 'On' : 'Off'}</span>
                      </label>
                    </div>
                    <p class="small">
                      <span class="muted">When </span>
                      {describeWhen(r.rule.when)}
                      <span class="muted"> → </span>
                      {describeThen(r.rule.then)}
                    </p>
                    {r.problem && (
                      <p class="error-text small" role="status">
                        Skipped until fixed: {r.problem}
                      </p>
                    )}
                    <div class="actions">
                      <button
                        type="button"
                        class="small-btn"
                        aria-label={`Move ${id} up`}
                        disabled={busy || i === 0}
                        onClick={() =>
                          void run('Could not move the rule.', (w) =>
                            actions.api.reorderRules(scoutId, moved(ids, i, -1), w),
                          )
                        }
                      >
                        ↑ Up
                      </button>
                      <button
                        type="button"
                        class="small-btn"
                        aria-label={`Move ${id} down`}
                        disabled={busy || i === ids.length - 1}
                        onClick={() =>
                          void run('Could not move the rule.', (w) =>
                            actions.api.reorderRules(scoutId, moved(ids, i, 1), w),
                          )
                        }
                      >
                        ↓ Down
                      </button>
                      <button
                        type="button"
                        class="small-btn"
                        aria-label={`Edit ${id}`}
                        disabled={busy}
                        onClick={() => setEditing(r)}
                      >
                        Edit
                      </button>
                      {confirming === id ? (
                        <>
                          <span class="small">Delete this rule?</span>
                          <button
                            type="button"
                            class="small-btn danger"
                            autoFocus
                            onClick={() => {
                              setConfirming(null);
                              void run(`Could not delete ${id}.`, (w) => actions.api.deleteRule(scoutId, id, w), `Deleted rule ${id}`);
                            }}
                          >
                            Delete
                          </button>
                          <button type="button" class="small-btn" onClick={() => setConfirming(null)}>
                            Keep
                          </button>
                        </>
                      ) : (
                        <button
                          type="button"
                          class="small-btn quiet"
                          aria-label={`Delete ${id}`}
                          disabled={busy}
                          onClick={() => setConfirming(id)}
                        >
                          Delete
                        </button>
                      )}
                    </div>
                  </li>
                );
              })}
            </ol>
          )}
          {editing === undefined ? (
            <div class="actions">
              <button type="button" class="primary" onClick={() => setEditing(null)}>
                Add a rule
              </button>
            </div>
          ) : (
            <RuleEditor
              key={editing?.rule.id ?? '(new)'}
              scoutId={scoutId}
              scoutName={name}
              list={list}
              rule={editing?.rule}
              home={s.home}
              onCancel={() => setEditing(undefined)}
              onSaved={(doc: RuleDoc) => {
                setEditing(undefined);
                actions.info(editing ? `Saved rule ${doc.id}` : `Added rule ${doc.id}`);
                void load();
              }}
            />
          )}
        </>
      )}
    </section>
  );
}
