import { graphApi, type Graph, type GraphEdge } from '../api/graph';
import { BOX_H, BOX_W, layout, refusedEdges } from '../logic/graph';
import { useActions, useLoad } from './hooks';
import '../graph.css';

/** Scouts → How scouts lead to one another (docs/desktop.md): the graph
 * of scouts as GET /api/v1/graph has it — a box per scout with an edge,
 * an arrow where a chain scout runs on another's events (solid) or a
 * folder scout may move files where another watches (dashed), a loop in
 * red. A loop a save was just refused for (refusedLoop, its scouts'
 * names) is drawn too, its missing arrows dashed red. Each box is a
 * stop of the Tab key that says what leads to it and where it leads,
 * and the arrows are listed in words below. Read again when scouts
 * change (seq). */
export function ScoutGraph({ seq, refusedLoop }: { seq: string; refusedLoop: string[] | null }) {
  const api = graphApi(useActions().api);
  const loaded = useLoad(() => api.get(), [seq]);
  if (loaded.state === 'error') {
    return (
      <p class="error-text small" role="alert">
        The graph of scouts could not be read. {loaded.error.full}
      </p>
    );
  }
  if (loaded.state !== 'ok') return null;
  const g: Graph = loaded.value;
  const extra = refusedLoop ? refusedEdges(g, refusedLoop) : [];
  const nodes = [...g.nodes];
  for (const e of extra) {
    for (const id of [e.from, e.to]) {
      if (!nodes.some((n) => n.id === id)) nodes.push({ id, name: id.replace(/^refused:/, ''), kind: 'new', enabled: false, cycle: true });
    }
  }
  if (refusedLoop) {
    for (const n of nodes) if (refusedLoop.includes(n.name)) n.cycle = true;
  }
  const all: GraphEdge[] = [...g.edges, ...extra];
  if (all.length === 0) {
    return (
      <section class="panel scout-graph" aria-labelledby="graph-h">
        <h2 id="graph-h">How scouts lead to one another</h2>
        <p class="muted small">No scout runs on another's events or writes where another watches.</p>
      </section>
    );
  }
  const full: Graph = { ...g, nodes, edges: all };
  const { boxes, width, height } = layout(full);
  const at = new Map(boxes.map((b) => [b.id, b]));
  const name = (id: string) => at.get(id)?.name ?? id;
  const loops = [...g.loops, ...(refusedLoop ? [refusedLoop.join(' → ') + ' (refused)'] : [])];
  return (
    <section class="panel scout-graph" aria-labelledby="graph-h">
      <h2 id="graph-h">How scouts lead to one another</h2>
      {loops.map((l) => (
        <p key={l} class="graph-loop small" role="alert">
          Loop: {l}
        </p>
      ))}
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="group" aria-label="Graph of scouts">
        <defs>
          <marker id="graph-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="currentColor" />
          </marker>
        </defs>
        {all.map((e, i) => {
          const a = at.get(e.from);
          const b = at.get(e.to);
          if (!a || !b) return null;
          const x1 = a.x + BOX_W;
          const y1 = a.y + BOX_H / 2;
          let d: string;
          if (b.x > a.x) {
            d = `M ${x1} ${y1} L ${b.x} ${b.y + BOX_H / 2}`;
          } else {
            // Back (or same column): round below the boxes.
            const low = Math.max(a.y, b.y) + BOX_H + 14 + i * 4;
            d = `M ${a.x + BOX_W / 2} ${a.y + BOX_H} C ${a.x + BOX_W / 2} ${low}, ${b.x + BOX_W / 2} ${low}, ${b.x + BOX_W / 2} ${b.y + BOX_H}`;
          }
          return (
            <path
              key={i}
              d={d}
              class={`graph-edge ${e.kind}${e.cycle ? ' cycle' : ''}`}
              data-edge={`${name(e.from)} → ${name(e.to)}`}
              style={{ color: e.cycle ? 'var(--danger)' : 'var(--muted)' }}
              marker-end="url(#graph-arrow)"
            >
              <title>{`${name(e.from)} → ${name(e.to)}: ${e.label}`}</title>
            </path>
          );
        })}
        {boxes.map((b) => {
          const ins = all.filter((e) => e.to === b.id).map((e) => name(e.from));
          const outs = all.filter((e) => e.from === b.id).map((e) => name(e.to));
          const label =
            `${b.name} (${b.kind})` +
            (ins.length ? `, after ${ins.join(', ')}` : '') +
            (outs.length ? `, leads to ${outs.join(', ')}` : '') +
            (b.cycle ? ', on a loop' : '');
          return (
            <g key={b.id} class={`graph-box${b.cycle ? ' cycle' : ''}`} tabindex={0} role="img" aria-label={label}>
              <rect x={b.x} y={b.y} width={BOX_W} height={BOX_H} />
              <text x={b.x + 8} y={b.y + BOX_H / 2 + 4}>
                {b.name.length > 20 ? b.name.slice(0, 19) + '…' : b.name}
              </text>
            </g>
          );
        })}
      </svg>
      <ul class="graph-edges small" aria-label="Arrows of the graph">
        {all.map((e, i) => (
          <li key={i} class={e.cycle ? 'graph-loop' : undefined}>
            {name(e.from)} → {name(e.to)}: {e.label}
            {e.cycle ? ' (on a loop)' : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}
