import type { Suggestion } from '../api/types';
import { evidenceBySource } from '../logic/lanes';

/** A card's evidence, a line per source, each saying where its hints
 * come from ("From its content", "Learned from your decisions"). */
export function EvidenceLines({ sg }: { sg: Suggestion }) {
  return (
    <>
      {evidenceBySource(sg).map((g, i) => (
        <span key={g.from}>
          {i > 0 && <br />}
          <span class="muted">{g.label}: </span>
          {g.hints.join(' · ')}
        </span>
      ))}
    </>
  );
}
