import { useState } from 'preact/hooks';
import type { ApiError } from '../api/errors';
import type { CreateScout } from '../api/types';
import { FolderBrowser } from './FolderBrowser';
import { useActions } from './hooks';

/** Globs typed as "*.pdf, *.md" or one per line. */
export function splitGlobs(s: string): string[] {
  return s
    .split(/[,\n]/)
    .map((g) => g.trim())
    .filter(Boolean);
}

export function AddFolderScout({ home, onDone }: { home?: string; onDone: () => void }) {
  const actions = useActions();
  const [path, setPath] = useState('');
  const [name, setName] = useState('');
  const [review, setReview] = useState(true);
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [existing, setExisting] = useState(false);
  const [browsing, setBrowsing] = useState(false);
  const [error, setError] = useState<ApiError | string | null>(null);
  const [busy, setBusy] = useState(false);

  const expand = (p: string) => (home && (p === '~' || p.startsWith('~/')) ? home + p.slice(1) : p);

  const submit = async (e: Event) => {
    e.preventDefault();
    const p = expand(path.trim());
    if (!p) {
      setError('Choose the folder to watch: type its path or browse.');
      return;
    }
    const body: CreateScout = { kind: 'folder', path: p, review };
    if (name.trim()) body.name = name.trim();
    if (include.trim()) body.include = splitGlobs(include);
    if (exclude.trim()) body.exclude = splitGlobs(exclude);
    if (existing) body.include_existing = true;
    setBusy(true);
    const r = await actions.createScout(body);
    setBusy(false);
    if ('id' in r) onDone();
    else setError(r);
  };

  const message = typeof error === 'string' ? error : error?.full;

  return (
    <form class="panel stack" onSubmit={submit} aria-labelledby="add-folder-h">
      <h2 id="add-folder-h">Add a folder scout</h2>
      <p class="muted small">Every file that arrives in the folder (and its subfolders) becomes a suggestion.</p>
      <div class="field">
        <label for="scout-path">Folder</label>
        <div class="inline">
          <input
            id="scout-path"
            type="text"
            name="path"
            value={path}
            placeholder="/home/you/Documents/Scans"
            autoComplete="off"
            spellcheck={false}
            autoFocus
            aria-describedby={message ? 'scout-error' : undefined}
            aria-invalid={!!message}
            onInput={(e) => {
              setPath(e.currentTarget.value);
              setError(null);
            }}
          />
          <button type="button" aria-expanded={browsing} onClick={() => setBrowsing(!browsing)}>
            Browse…
          </button>
        </div>
      </div>
      {browsing && (
        <FolderBrowser
          start={expand(path.trim())}
          home={home}
          onChoose={(p) => {
            setPath(p);
            setBrowsing(false);
            setError(null);
            document.getElementById('scout-path')?.focus();
          }}
          onCancel={() => setBrowsing(false)}
        />
      )}
      <label class="field">
        <span>Name (optional)</span>
        <input
          type="text"
          name="name"
          value={name}
          placeholder="The folder's name"
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <fieldset class="choice">
        <legend>When something arrives</legend>
        <label>
          <input type="radio" name="review" checked={review} onChange={() => setReview(true)} /> Suggest it, I review
          each card <span class="muted small">(recommended)</span>
        </label>
        <label>
          <input type="radio" name="review" checked={!review} onChange={() => setReview(false)} /> Create what the scout
          proposes at once <span class="muted small">(auto-create; still audited)</span>
        </label>
      </fieldset>
      <details>
        <summary>Filters</summary>
        <div class="stack">
          <label class="field">
            <span>
              Only files matching (e.g. <code>*.pdf, *.md</code>)
            </span>
            <input type="text" name="include" value={include} onInput={(e) => setInclude(e.currentTarget.value)} />
          </label>
          <label class="field">
            <span>
              Never files matching (e.g. <code>drafts/**</code>)
            </span>
            <input type="text" name="exclude" value={exclude} onInput={(e) => setExclude(e.currentTarget.value)} />
          </label>
          <label>
            <input type="checkbox" checked={existing} onChange={() => setExisting(!existing)} /> Also suggest the files
            already in the folder
          </label>
        </div>
      </details>
      {message && (
        <p id="scout-error" class="error-text" role="alert">
          {message}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add scout'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
