import { autoFolders, dropPlaces } from '../logic/inbox';
import { href } from '../logic/router';
import { scoutList, type AppState } from '../state/model';

/** An empty inbox says what to do next, with the scouts' real folders. */
export function InboxEmpty({ s }: { s: AppState }) {
  const scouts = scoutList(s);
  if (s.status?.paused) {
    return (
      <div class="empty">
        <h2>Scouts are paused</h2>
        <p>Nothing new is processed while they are paused. Resume them from the banner above, or from Status.</p>
      </div>
    );
  }
  if (s.scouts.loaded && scouts.length === 0) {
    return (
      <div class="empty">
        <h2>Nothing is being watched yet</h2>
        <p>Add a folder scout: every new file in that folder becomes a card here, for you to approve or reject.</p>
        <p>
          <a class="button primary" href={href({ view: 'scouts', id: 'add' })}>
            Add a folder scout
          </a>
        </p>
      </div>
    );
  }
  if (s.scouts.loaded && !scouts.some((sc) => sc.enabled)) {
    return (
      <div class="empty">
        <h2>Every scout is switched off</h2>
        <p>
          Turn one on in <a href={href({ view: 'scouts' })}>Scouts</a> to get new suggestions.
        </p>
      </div>
    );
  }
  // Only folders where a dropped file makes a card: not an auto-create
  // scout's, and a scout taking only some files says which.
  const places = dropPlaces(scouts, s.home);
  const auto = autoFolders(scouts, s.home);
  return (
    <div class="empty">
      <h2>All caught up</h2>
      {places.length > 0 ? (
        <p>
          Drop{' '}
          {places.map((p, i) => (
            <span key={p.path}>
              {i > 0 && (i === places.length - 1 ? ' or ' : ', ')}
              {p.files} into <code>{p.path}</code>
            </span>
          ))}{' '}
          and it appears here as a card, live.
        </p>
      ) : (
        <p>New items your scouts find appear here as cards, live.</p>
      )}
      {auto.length > 0 && (
        <p class="muted small">
          Files in{' '}
          {auto.map((p, i) => (
            <span key={p}>
              {i > 0 && ', '}
              <code>{p}</code>
            </span>
          ))}{' '}
          become tasks, notes, events or projects at once (auto-create), without a card.
        </p>
      )}
      <p class="muted small">
        Press <kbd>?</kbd> for the keyboard shortcuts.
      </p>
    </div>
  );
}
