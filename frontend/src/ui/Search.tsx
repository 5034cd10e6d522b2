// The search box above every view and, while it holds a query, the
// results in place of the view (which stays mounted, hidden, so Esc puts
// back exactly what was there). `/` focuses the box (App's keys).

import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { asApiError, type ApiError } from '../api/errors';
import type { SearchHit } from '../api/search';
import { dateTime } from '../logic/format';
import {
  SEARCH_DEBOUNCE_MS,
  flatten,
  groupHits,
  highlight,
  hitHref,
  matchedFields,
  move,
  queryFilters,
  queryTerms,
  searchKey,
  searchProblem,
} from '../logic/search';
import { useActions } from './hooks';
import '../search.css';

type Found =
  | { state: 'idle' }
  | { state: 'loading'; last?: SearchHit[] }
  | { state: 'ok'; hits: SearchHit[] }
  | { state: 'error'; error: ApiError; last?: SearchHit[] };

interface Props {
  /** The route, so that moving anywhere ends the search. */
  routeKey: string;
  /** Set to a function that focuses the box (for `/`). */
  focusRef: { current: (() => void) | null };
  /** True while results show: the view's own keys are off. */
  openRef: { current: boolean };
  children: ComponentChildren;
}

export function Search({ routeKey, focusRef, openRef, children }: Props) {
  const actions = useActions();
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Found>({ state: 'idle' });
  const [active, setActive] = useState(-1);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLDivElement>(null);
  /** What had focus before `/`, for Esc to give it back. */
  const before = useRef<HTMLElement | null>(null);
  const open = query.trim() !== '';
  openRef.current = open;

  focusRef.current = () => {
    const a = document.activeElement;
    if (a instanceof HTMLElement && a !== input.current && a !== document.body) before.current = a;
    input.current?.focus();
    input.current?.select();
  };

  // Ask the agent once typing pauses; a newer query cancels the older
  // request, so a slow answer never replaces a newer one.
  useEffect(() => {
    const q = query.trim();
    setActive(-1);
    if (!q) {
      setFound({ state: 'idle' });
      return;
    }
    setFound((f) => ({ state: 'loading', last: f.state === 'ok' ? f.hits : f.state !== 'idle' ? f.last : undefined }));
    const ac = new AbortController();
    const t = setTimeout(() => {
      actions.api.search(q, ac.signal).then(
        (r) => !ac.signal.aborted && setFound({ state: 'ok', hits: r.results ?? [] }),
        (e) => !ac.signal.aborted && setFound((f) => ({ state: 'error', error: asApiError(e), last: f.state === 'loading' ? f.last : undefined })),
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(t);
      ac.abort();
    };
  }, [query, actions]);

  // Going anywhere (a hit opened, g t, a link) ends the search.
  const firstRoute = useRef(true);
  useEffect(() => {
    if (firstRoute.current) {
      firstRoute.current = false;
      return;
    }
    setQuery('');
  }, [routeKey]);

  const hits = found.state === 'ok' ? found.hits : found.state === 'idle' ? [] : (found.last ?? []);
  const groups = useMemo(() => groupHits(hits), [hits]);
  const flat = useMemo(() => flatten(groups), [groups]);
  const terms = useMemo(() => queryTerms(query), [query]);
  const filters = useMemo(() => queryFilters(query), [query]);

  const focusHit = (i: number) => {
    setActive(i);
    if (i < 0) input.current?.focus();
    else list.current?.querySelector<HTMLElement>(`#search-hit-${i}`)?.focus();
  };

  const close = () => {
    setQuery('');
    input.current?.blur();
    const b = before.current;
    before.current = null;
    if (b?.isConnected) b.focus();
    else document.querySelector<HTMLElement>('main h1')?.focus();
  };

  const openHit = (h: SearchHit | undefined) => {
    if (!h) return;
    (document.activeElement as HTMLElement | null)?.blur();
    before.current = null;
    setQuery('');
    location.hash = hitHref(h);
  };

  const onKey = (e: KeyboardEvent, inBox: boolean) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = searchKey(e.key, inBox);
    if (!k) return;
    if (k === 'close') {
      if (!open && !inBox) return;
      close();
    } else if (k === 'input') focusHit(-1);
    else if (k === 'open') {
      if (!open) return;
      openHit(flat[active < 0 ? 0 : active]);
    } else {
      if (!open) return;
      focusHit(move(active, flat.length, k));
    }
    e.preventDefault();
    e.stopPropagation();
  };

  let index = 0;
  return (
    <>
      <form role="search" class="search-bar" onSubmit={(e) => e.preventDefault()}>
        <input
          ref={input}
          type="search"
          class="search-input"
          aria-label="Search"
          placeholder="Search cards, tasks, notes, events, projects  ( / )"
          value={query}
          autoComplete="off"
          spellcheck={false}
          aria-controls={open ? 'search-results' : undefined}
          onInput={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={(e) => onKey(e, true)}
        />
      </form>
      <main id="main">
        {open && (
          <div
            id="search-results"
            class="search-results"
            ref={list}
            aria-busy={found.state === 'loading'}
            onKeyDown={(e) => onKey(e, false)}
          >
            <h1 tabIndex={-1}>Search</h1>
            {found.state === 'error' ? (
              <p class="error-text" role="alert">
                {searchProblem(found.error.message, query)}
              </p>
            ) : (
              <p class="muted small" aria-live="polite">
                {found.state === 'loading' && !found.last
                  ? 'Searching…'
                  : hits.length === 0
                    ? `Nothing found for “${query.trim()}”.`
                    : `${hits.length === 1 ? '1 result' : `${hits.length} results`} for “${query.trim()}” · ↓ ↑ or j k to move, Enter to open, Esc to go back`}
              </p>
            )}
            {groups.map((g) => (
              <section key={g.label} class="search-group" aria-label={g.label}>
                <h2>
                  {g.label} <span class="muted">({g.hits.length})</span>
                </h2>
                <ul>
                  {g.hits.map((h) => {
                    const i = index++;
                    return (
                      <li key={h.type + h.id}>
                        <HitLink
                          h={h}
                          i={i}
                          active={i === active}
                          terms={terms}
                          filters={filters}
                          onOpen={() => openHit(h)}
                          onFocus={() => setActive(i)}
                        />
                      </li>
                    );
                  })}
                </ul>
              </section>
            ))}
          </div>
        )}
        <div class="search-hidden-view" hidden={open}>
          {children}
        </div>
      </main>
    </>
  );
}

interface HitProps {
  h: SearchHit;
  i: number;
  active: boolean;
  terms: string[];
  filters: string[];
  onOpen: () => void;
  onFocus: () => void;
}

function HitLink({ h, i, active, terms, filters, onOpen, onFocus }: HitProps) {
  const meta: string[] = [];
  if (h.type === 'card' && h.proposed_kind) meta.push(`proposed ${h.proposed_kind}`);
  if (h.sender) meta.push(h.sender);
  if (h.scout) meta.push(h.scout);
  if (h.done) meta.push('done');
  if (h.at) meta.push((h.type === 'event' ? 'starts ' : '') + dateTime(h.at));
  const fields = matchedFields(h, terms);
  const matched = fields.length
    ? `Matched in ${fields.join(', ')}` + (filters.length ? ` · ${filters.join(' ')}` : '')
    : filters.length
      ? `Matched ${filters.join(' ')}`
      : '';
  return (
    <a
      id={`search-hit-${i}`}
      class={'search-hit' + (active ? ' active' : '')}
      href={hitHref(h)}
      tabIndex={-1}
      onFocus={onFocus}
      onClick={(e) => {
        e.preventDefault();
        onOpen();
      }}
    >
      <span class="search-title">
        <Marked text={h.title} terms={terms} />
      </span>
      {meta.length > 0 && <span class="small muted">{meta.join(' · ')}</span>}
      {h.snippet && h.snippet !== h.title && (
        <span class="small search-snippet">
          <Marked text={h.snippet} terms={terms} />
        </span>
      )}
      {matched && <span class="small muted search-matched">{matched}</span>}
    </a>
  );
}

function Marked({ text, terms }: { text: string; terms: string[] }) {
  return (
    <>
      {highlight(text, terms).map((s, i) => (s.match ? <mark key={i}>{s.text}</mark> : s.text))}
    </>
  );
}
