import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { KeyMap, type Command } from '../logic/keys';
import { href, isExpiredRoute, laneHref, routeLane, viewKind } from '../logic/router';
import { laneCounts } from '../state/model';
import { Banners } from './Banners';
import { EntityView } from './EntityView';
import { ExpiredView } from './ExpiredView';
import { Inbox } from './Inbox';
import { Nav } from './Nav';
import { RulesView } from './RulesView';
import { Search } from './Search';
import { ScoutsView } from './ScoutsView';
import { SettingsView } from './SettingsView';
import { ShortcutsDialog } from './ShortcutsDialog';
import { StatusView } from './StatusView';
import { BriefView } from './BriefView';
import { SendersView } from './SendersView';
import { SuggestionView } from './SuggestionView';
import { Toasts } from './Toasts';
import { isControlTarget, isTextTarget, useActions, useAppState, useRoute } from './hooks';

export function App() {
  const actions = useActions();
  const s = useAppState();
  const route = useRoute();
  const [help, setHelp] = useState(false);
  /** The shown view's handler for the keys that are its own. */
  const viewKeys = useRef<((c: Command) => boolean) | null>(null);
  const keymap = useMemo(() => new KeyMap(), []);
  const first = useRef(true);
  /** The search box's focus, and whether its results cover the view. */
  const searchFocus = useRef<(() => void) | null>(null);
  const searchOpen = useRef(false);

  // Moving to another view puts focus on its heading, so that screen
  // readers announce it and Tab starts from the top of the new content.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    // Someone fast already typed into the new view (g p c Garden), or
    // already chose a place in it (a row clicked or focused before this
    // effect ran, a deep link's row): stay. The old view's elements are
    // gone by now, so focus inside main is the new view's.
    const active = document.activeElement;
    if (isTextTarget(active)) return;
    if (active && active !== document.body && document.querySelector('main')?.contains(active)) return;
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [route.view, route.id]);

  useEffect(() => {
    const onHelp = () => setHelp(true);
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || document.querySelector('dialog[open]')) return;
      if ((e.key === ' ' || e.key === 'Enter') && isControlTarget(e.target)) return;
      const cmd = keymap.handle({
        key: e.key,
        shiftKey: e.shiftKey,
        ctrlKey: e.ctrlKey,
        metaKey: e.metaKey,
        altKey: e.altKey,
        editing: isTextTarget(e.target),
      });
      if (!cmd) return;
      let handled = true;
      if (cmd.type === 'go') location.hash = href({ view: cmd.view });
      else if (cmd.type === 'lane') location.hash = laneHref(cmd.lane);
      else if (cmd.type === 'help') setHelp(true);
      else if (cmd.type === 'undo') void actions.undo();
      else if (cmd.type === 'search') searchFocus.current?.();
      // The view is hidden under the results: its keys must not act on it.
      else if (searchOpen.current) handled = false;
      else handled = viewKeys.current?.(cmd) ?? false;
      if (handled) e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('scouts:help', onHelp);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('scouts:help', onHelp);
    };
  }, [actions, keymap]);

  const kind = viewKind(route.view);
  const counts = laneCounts(s);
  const pending = s.suggestions.loaded ? counts?.inbox : undefined;

  useEffect(() => {
    document.title = pending ? `(${pending}) Scouts` : 'Scouts';
  }, [pending]);

  let view;
  if (kind) view = <EntityView s={s} kind={kind} focusId={route.id} keys={viewKeys} />;
  else if (route.view === 'scouts') view = <ScoutsView s={s} add={route.id === 'add'} />;
  else if (route.view === 'status') view = <StatusView s={s} />;
  else if (route.view === 'brief') view = <BriefView s={s} />;
  else if (route.view === 'settings') view = <SettingsView s={s} />;
  else if (route.view === 'suggestion' && route.id) view = <SuggestionView s={s} id={route.id} />;
  else if (route.view === 'rules' && route.id) view = <RulesView s={s} scoutId={route.id} />;
  else if (route.view === 'senders' && route.id) view = <SendersView s={s} scoutId={route.id} keys={viewKeys} />;
  else if (isExpiredRoute(route)) view = <ExpiredView s={s} counts={counts} keys={viewKeys} />;
  else view = <Inbox s={s} lane={routeLane(route)} counts={counts} keys={viewKeys} />;

  return (
    <div class="shell">
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.querySelector<HTMLElement>('main h1')?.focus();
        }}
      >
        Skip to content
      </a>
      <Nav
        view={route.view === 'rules' || route.view === 'senders' ? 'scouts' : route.view}
        pending={pending}
        conn={s.conn}
        paused={s.status?.paused}
        problem={s.problem?.code}
      />
      <div class="main-col">
        <Banners s={s} />
        <Search routeKey={route.view + '/' + (route.id ?? '')} focusRef={searchFocus} openRef={searchOpen}>
          {view}
        </Search>
      </div>
      <Toasts toasts={s.toasts} />
      <div class="sr-only" aria-live="polite" aria-atomic="true">
        {s.announce.text}
      </div>
      {help && <ShortcutsDialog onClose={() => setHelp(false)} />}
    </div>
  );
}
