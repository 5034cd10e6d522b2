import type { Suggestion } from '../api/types';
import { tildePath } from '../logic/format';
import { Dialog } from './Dialog';
import { useActions, useLoad } from './hooks';

/** The item's full text, read from its source now and never stored. */
export function ContentDialog({ sg, home, onClose }: { sg: Suggestion; home?: string; onClose: () => void }) {
  const actions = useActions();
  const c = useLoad(() => actions.api.content(sg.id), [sg.id]);
  const where = sg.sender || tildePath(sg.path, home);
  return (
    <Dialog title={sg.title} subtitle={where} onClose={onClose} wide>
      {sg.url && (
        <p>
          <a href={sg.url} target="_blank" rel="noopener noreferrer">
            Open at the source ↗
          </a>
        </p>
      )}
      <div class="content-view" aria-busy={c.state === 'loading'}>
        {c.state === 'loading' && <p class="muted">Reading the item…</p>}
        {c.state === 'error' && (
          <p class="error-text" role="alert">
            {c.error.code === 'not_found'
              ? `The item is gone from its source: ${c.error.message}`
              : `The item could not be read. ${c.error.full}`}
          </p>
        )}
        {c.state === 'ok' && c.value.content_type === 'application/octet-stream' && (
          <p class="muted">This item is not text, so there is nothing to show here. Its file is {where}.</p>
        )}
        {c.state === 'ok' && c.value.content_type !== 'application/octet-stream' && (
          <>
            {c.value.text.trim() === '' ? (
              <p class="muted">The item is empty.</p>
            ) : (
              <pre tabIndex={0} aria-label="Full text">
                {c.value.text}
              </pre>
            )}
            {c.value.truncated && <p class="muted small">Only the first megabyte is shown.</p>}
          </>
        )}
      </div>
    </Dialog>
  );
}
