import { createContext } from 'preact';
import { useContext, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api/errors';
import type { Command } from '../logic/keys';
import { asApiError } from '../api/errors';
import { parseHash, type Route } from '../logic/router';
import type { Actions } from '../state/actions';
import type { AppState } from '../state/model';

export const ActionsContext = createContext<Actions | null>(null);

export function useActions(): Actions {
  const a = useContext(ActionsContext);
  if (!a) throw new Error('useActions outside ActionsContext');
  return a;
}

/** The app state; re-renders on every change. */
export function useAppState(): AppState {
  const a = useActions();
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => a.store.subscribe(() => bump(undefined)), [a]);
  return a.store.state;
}

/** The current time, refreshed every ms, for ages like "5 min ago". */
export function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

export function useRoute(): Route {
  const [hash, setHash] = useState(() => location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    // The hash can change between the first render and this effect (a
    // link followed while the page loads): that hashchange had no
    // listener yet, so the route is read again now.
    on();
    return () => removeEventListener('hashchange', on);
  }, []);
  return useMemo(() => parseHash(hash), [hash]);
}

export type Loaded<T> = { state: 'loading' } | { state: 'ok'; value: T } | { state: 'error'; error: ApiError };

/** Loads something on demand (a trail, a file's text) for as long as the
 * component shows; deps change → load again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [v, setV] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    setV({ state: 'loading' });
    load().then(
      (value) => live && setV({ state: 'ok', value }),
      (e) => live && setV({ state: 'error', error: asApiError(e) }),
    );
    return () => {
      live = false;
    };
  }, deps);
  return v;
}

/** True when a key press belongs to a text field (letters are text there). */
export function isTextTarget(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable) return true;
  if (t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return true;
  if (t instanceof HTMLInputElement) {
    return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(t.type);
  }
  return false;
}

/** True when Space or Enter would activate the focused control natively. */
export function isControlTarget(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  return !!t.closest('button, a[href], input, select, textarea, summary, [role="button"], [role="switch"]');
}

/**
 * Makes handler the view's answer to the keyboard's commands while it is
 * shown. On leaving, the keys are let go only if no other view took them:
 * the view navigated to renders before this one unmounts, and clearing
 * them then left the new view deaf to its keys until it happened to render
 * again (z on a task did nothing after g t).
 */
export function useKeyHandler(keys: { current: ((c: Command) => boolean) | null }, handler: (c: Command) => boolean): void {
  const own = useRef(handler);
  own.current = handler;
  keys.current = handler;
  useEffect(
    () => () => {
      if (keys.current === own.current) keys.current = null;
    },
    [],
  );
}
