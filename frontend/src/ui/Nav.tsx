import { href, type View } from '../logic/router';
import type { AppState } from '../state/model';

const ITEMS: ReadonlyArray<{ view: View; label: string; key: string }> = [
  { view: 'inbox', label: 'Inbox', key: 'g i' },
  { view: 'brief', label: 'Brief', key: 'g b' },
  { view: 'tasks', label: 'Tasks', key: 'g t' },
  { view: 'notes', label: 'Notes', key: 'g n' },
  { view: 'events', label: 'Events', key: 'g e' },
  { view: 'projects', label: 'Projects', key: 'g p' },
  { view: 'scouts', label: 'Scouts', key: 'g s' },
  { view: 'status', label: 'Status', key: 'g a' },
  { view: 'settings', label: 'Settings', key: 'g ,' },
];

const CONN: Record<AppState['conn'], string> = { open: 'Live', connecting: 'Connecting…', down: 'Reconnecting…' };

interface Props {
  view: View;
  pending?: number;
  conn: AppState['conn'];
  paused?: boolean;
  problem?: string;
}

export function Nav({ view, pending, conn, paused, problem }: Props) {
  let label = paused ? 'Paused' : CONN[conn];
  if (problem === 'unauthorized') label = 'Not signed in';
  else if (problem === 'offline') label = 'Agent unreachable';
  return (
    <nav class="nav" aria-label="Sections">
      <div class="brand" aria-hidden="true">
        <span class="logo">◎</span> Scouts
      </div>
      <ul>
        {ITEMS.map((it) => (
          <li key={it.view}>
            <a
              href={href({ view: it.view })}
              aria-current={view === it.view ? 'page' : undefined}
              aria-keyshortcuts={it.key.replace(' ', ' ')}
              title={`${it.label} (${it.key})`}
            >
              <span>{it.label}</span>
              {it.view === 'inbox' && pending !== undefined && pending > 0 && (
                <span class="count" aria-label={`${pending} waiting`}>
                  {pending}
                </span>
              )}
            </a>
          </li>
        ))}
      </ul>
      <p class="conn small" title="Connection to the agent">
        <span class={`dot ${problem ? 'down' : conn}`} aria-hidden="true" /> {label}
      </p>
    </nav>
  );
}
