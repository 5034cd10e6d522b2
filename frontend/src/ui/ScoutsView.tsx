import { useEffect, useState } from 'preact/hooks';
import { scoutList, type AppState } from '../state/model';
import { AddFolderScout } from './AddFolderScout';
import { AddGmailScout } from './AddGmailScout';
import { ScoutCard } from './ScoutCard';
import { useNow } from './hooks';

export function ScoutsView({ s, add }: { s: AppState; add?: boolean }) {
  const now = useNow();
  const scouts = scoutList(s);
  const [adding, setAdding] = useState(!!add);
  const [addingGmail, setAddingGmail] = useState(false);
  useEffect(() => setAdding(!!add), [add]);
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
        </div>
      )}
      {!s.scouts.loaded && <p class="muted">Loading scouts…</p>}
      {s.scouts.loaded && scouts.length === 0 && !adding && (
        <div class="empty">
          <p>No scouts yet. Add a folder scout: pick a folder, and each new file in it becomes a card in the Inbox.</p>
        </div>
      )}
      <div class="scouts">
        {scouts.map((sc) => (
          <ScoutCard key={sc.id} sc={sc} home={s.home} now={now} learning={s.learning[sc.id]} />
        ))}
      </div>
    </section>
  );
}
