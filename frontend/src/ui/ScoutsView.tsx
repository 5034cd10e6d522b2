import { useEffect, useRef, useState } from 'preact/hooks';
import { scoutList, type AppState } from '../state/model';
import { AddFolderScout } from './AddFolderScout';
import { AddGmailScout } from './AddGmailScout';
import { ScoutCard } from './ScoutCard';
import { DescribeScout } from './DescribeScout';
import { ScoutGraph } from './ScoutGraph';
import { definitionsApi, type DefinitionsStatus } from '../api/definitions';
import { useActions, useLoad, useNow } from './hooks';

export function ScoutsView({ s, add }: { s: AppState; add?: boolean }) {
  const now = useNow();
  const scouts = scoutList(s);
  // The newest card of each scout the window holds: a chain scout's line
  // says when its last item came.
  const newestCard: Record<string, string> = {};
  for (const c of Object.values(s.suggestions.items))
    if (!newestCard[c.scout_id] || c.created_at > newestCard[c.scout_id]!) newestCard[c.scout_id] = c.created_at;
  const [adding, setAdding] = useState(!!add);
  const [addingGmail, setAddingGmail] = useState(false);
  const [describing, setDescribing] = useState(false);
  // The loop the last refused save named, drawn on the graph (after the
  // dialog closes too) until the next description starts.
  const [refusedLoop, setRefusedLoop] = useState<string[] | null>(null);
  useEffect(() => setAdding(!!add), [add]);
  const api = useActions().api;
  // Read again whenever the agent has read its definitions folder (a file
  // added, fixed, broken or removed) and when scouts come and go. The last
  // answer stays shown while the next one loads, so the list does not blink.
  const defs = useLoad(() => definitionsApi(api).status(), [scouts.map((x) => x.id).join(), s.definitionsSeq]);
  const lastStatus = useRef<DefinitionsStatus | undefined>(undefined);
  if (defs.state === 'ok') lastStatus.current = defs.value;
  const status = lastStatus.current;
  return (
    <section class="view" aria-labelledby="scouts-h">
      <header class="view-head">
        <h1 id="scouts-h" tabIndex={-1}>
          Scouts
        </h1>
        <p class="muted">They watch where work arrives and suggest what to do with it.</p>
      </header>
      {adding ? (
        <AddFolderScout
          home={s.home}
          onDone={() => {
            setAdding(false);
            if (add) location.hash = '#/scouts';
          }}
        />
      ) : addingGmail ? (
        <AddGmailScout hasRelay={!!s.status?.relay} onDone={() => setAddingGmail(false)} />
      ) : (
        <div class="actions">
          <button type="button" class="primary" onClick={() => setAdding(true)}>
            Add a folder scout
          </button>
          <button type="button" onClick={() => setAddingGmail(true)}>
            Add a Gmail scout
          </button>
          <button
            type="button"
            onClick={() => {
              setRefusedLoop(null);
              setDescribing(true);
            }}
          >
            Describe a scout
          </button>
        </div>
      )}
      {describing && (
        <DescribeScout
          drafting={!!status?.drafting}
          onLoop={setRefusedLoop}
          onClose={() => setDescribing(false)}
        />
      )}
      {status && status.definition_errors.length > 0 && (
        <div class="panel definition-errors" role="alert">
          <p>
            {status.definition_errors.length === 1 ? 'A definitions file is' : 'Definitions files are'} broken and
            change nothing until fixed:
          </p>
          <ul>
            {status.definition_errors.map((e, i) => (
              <li key={i}>
                <code>
                  {e.file}
                  {e.line ? `:${e.line}` : ''}
                </code>{' '}
                {e.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      {!s.scouts.loaded && <p class="muted">Loading scouts…</p>}
      {s.scouts.loaded && scouts.length === 0 && !adding && (
        <div class="empty">
          <p>No scouts yet. Add a folder scout: pick a folder, and each new file in it becomes a card in the Inbox.</p>
        </div>
      )}
      {s.scouts.loaded && scouts.length > 0 && (
        <ScoutGraph seq={scouts.map((x) => x.id + x.name + x.updated_at).join()} refusedLoop={refusedLoop} />
      )}
      <div class="scouts">
        {scouts.map((sc) => (
          <ScoutCard
            key={sc.id}
            sc={sc}
            home={s.home}
            now={now}
            learning={s.learning[sc.id]}
            managedBy={status?.managed_by[sc.id]}
            scouts={scouts}
            newestCard={newestCard[sc.id]}
          />
        ))}
      </div>
    </section>
  );
}
