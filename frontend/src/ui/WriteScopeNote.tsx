import type { ScopeInEffect } from '../api/types';
import { scopeLines } from '../logic/writescope';

/** Where a scout's actions may write, shown beside the actions its rules
 * propose: an action outside it is refused, and its card's trail says
 * which scope refused it. */
export function WriteScopeNote({ kind, scope, name }: { kind: string; scope?: ScopeInEffect; name: string }) {
  const lines = scopeLines(kind, scope);
  if (!lines.length) return null;
  return (
    <section class="write-scope" aria-label={`${name}: write scope`}>
      <h2>Where its actions may write</h2>
      <ul>
        {lines.map((l) => (
          <li key={l.what}>
            {l.what} <code>{l.globs}</code> <span class="muted small">({l.source})</span>
          </li>
        ))}
      </ul>
      <p class="muted small">
        An action outside this scope is refused, and the card’s trail says so. Change it with{' '}
        <code>write_scope</code> in the scout’s definition.
      </p>
    </section>
  );
}
