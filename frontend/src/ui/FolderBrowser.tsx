import { useState } from 'preact/hooks';
import { tildePath } from '../logic/format';
import { useActions, useLoad } from './hooks';

interface Props {
  /** Where to start; empty: the home folder. */
  start: string;
  home?: string;
  onChoose: (path: string) => void;
  onCancel: () => void;
}

const join = (dir: string, name: string) => (dir.endsWith('/') ? dir + name : dir + '/' + name);

/** Browses the folders on this machine through the agent (a web page
 * cannot learn absolute paths from the browser's own file picker). */
export function FolderBrowser({ start, home, onChoose, onCancel }: Props) {
  const actions = useActions();
  const [dir, setDir] = useState(start);
  const [hidden, setHidden] = useState(false);
  const list = useLoad(() => actions.api.folders(dir || undefined, hidden), [dir, hidden]);
  const here = list.state === 'ok' ? list.value.path : dir;

  return (
    <div class="folder-browser" role="group" aria-label="Choose a folder">
      <div class="fb-head">
        <button
          type="button"
          disabled={list.state !== 'ok' || !list.value.parent}
          onClick={() => list.state === 'ok' && list.value.parent && setDir(list.value.parent)}
          aria-label="Up to the parent folder"
        >
          ↑ Up
        </button>
        <code class="fb-path" aria-live="polite">
          {tildePath(here, home) || '…'}
        </code>
        <label class="small nowrap">
          <input type="checkbox" checked={hidden} onChange={() => setHidden(!hidden)} /> Hidden folders
        </label>
      </div>
      {list.state === 'loading' && <p class="muted small">Listing folders…</p>}
      {list.state === 'error' && (
        <p class="error-text small" role="alert">
          {list.error.full}{' '}
          <button type="button" class="link" onClick={() => setDir('')}>
            Back to the home folder
          </button>
        </p>
      )}
      {list.state === 'ok' && (
        <>
          {list.value.dirs.length === 0 ? (
            <p class="muted small">No folders inside this one.</p>
          ) : (
            <ul class="fb-list" aria-label={`Folders in ${tildePath(here, home)}`}>
              {list.value.dirs.map((d) => (
                <li key={d}>
                  <button type="button" class="fb-dir" onClick={() => setDir(join(list.value.path, d))}>
                    <span aria-hidden="true">📁</span> {d}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {list.value.truncated && <p class="muted small">Showing the first 1000 folders: type the path instead.</p>}
        </>
      )}
      <div class="actions">
        <button type="button" class="primary" disabled={list.state !== 'ok'} onClick={() => onChoose(here)}>
          Choose {tildePath(here, home) ? `“${tildePath(here, home)}”` : 'this folder'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
