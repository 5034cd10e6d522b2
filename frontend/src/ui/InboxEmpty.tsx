import { tildePath } from '../logic/format';
import { href } from '../logic/router';
import { scoutList, type AppState } from '../state/model';

/** An empty inbox says what to do next, with the scouts' real folders. */
export function InboxEmpty({ s }: { s: AppState }) {
  const scouts = scoutList(s);
  const watching = scouts.filter((sc) => sc.enabled && sc.kind === 'folder' && sc.path);
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
  if (s.scouts.loaded && watching.length === 0) {
    return (
      <div class="empty">
        <h2>Every scout is switched off</h2>
        <p>
          Turn one on in <a href={href({ view: 'scouts' })}>Scouts</a> to get new suggestions.
        </p>
      </div>
    );
  }
  const paths = watching.slice(0, 3).map((sc) => tildePath(sc.path, s.home));
  return (
    <div class="empty">
      <h2>All caught up</h2>
      <p>
        Drop a file into{' '}
        {paths.map((p, i) => (
          <span key={p}>
            {i > 0 && (i === paths.length - 1 ? ' or ' : ', ')}
            <code>{p}</code>
          </span>
        ))}{' '}
        and it appears here as a card, live.
      </p>
      <p class="muted small">
        Press <kbd>?</kbd> for the keyboard shortcuts.
      </p>
    </div>
  );
}
