// Drawing the graph of scouts: where each box goes, and the loop a
// refused save names.

import type { Graph, GraphEdge } from '../api/graph';

export interface Placed {
  id: string;
  name: string;
  kind: string;
  cycle: boolean;
  x: number;
  y: number;
}

export const BOX_W = 150;
export const BOX_H = 36;
const GAP_X = 70;
const GAP_Y = 24;

/** Columns by how many edges lead to a scout from one nothing leads to
 * (a scout on a loop that nothing outside leads to starts a column 0),
 * rows in the order the agent lists the scouts. Only scouts with an
 * edge are placed: the others have nothing to draw. */
export function layout(g: Graph, extra: GraphEdge[] = []): { boxes: Placed[]; width: number; height: number } {
  const edges = [...g.edges, ...extra];
  const linked = new Set(edges.flatMap((e) => [e.from, e.to]));
  const nodes = g.nodes.filter((n) => linked.has(n.id));
  const layer = new Map<string, number>();
  const into = new Map<string, number>();
  for (const e of edges) if (e.from !== e.to) into.set(e.to, (into.get(e.to) ?? 0) + 1);
  let frontier = nodes.filter((n) => !into.get(n.id)).map((n) => n.id);
  if (frontier.length === 0 && nodes.length > 0) frontier = [nodes[0].id];
  frontier.forEach((id) => layer.set(id, 0));
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const e of edges) {
        if (e.from === id && !layer.has(e.to)) {
          layer.set(e.to, layer.get(id)! + 1);
          next.push(e.to);
        }
      }
    }
    frontier = next;
    if (frontier.length === 0) {
      const left = nodes.find((n) => !layer.has(n.id));
      if (left) {
        layer.set(left.id, 0);
        frontier = [left.id];
      }
    }
  }
  const rows = new Map<number, number>();
  const boxes = nodes.map((n) => {
    const col = layer.get(n.id) ?? 0;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    return { id: n.id, name: n.name, kind: n.kind, cycle: n.cycle, x: 10 + col * (BOX_W + GAP_X), y: 10 + row * (BOX_H + GAP_Y) };
  });
  const cols = Math.max(0, ...boxes.map((b) => b.x));
  const rowsMax = Math.max(0, ...boxes.map((b) => b.y));
  return { boxes, width: cols + BOX_W + 20, height: rowsMax + BOX_H + 20 };
}

/** The loop a refused save names ("… a loop of scouts: A → B → A — …"),
 * as names; null when the message names none. */
export function loopInRefusal(message: string): string[] | null {
  const m = /loop of scouts: (.+?) —/.exec(message);
  if (!m) return null;
  const names = m[1].split(' → ');
  return names.length > 1 ? names : null;
}

/** The edges of a refused loop, between the scouts it names, that the
 * graph does not have yet: what the save would have added. */
export function refusedEdges(g: Graph, loop: string[]): GraphEdge[] {
  const byName = new Map(g.nodes.map((n) => [n.name, n.id]));
  const out: GraphEdge[] = [];
  for (let i = 0; i + 1 < loop.length; i++) {
    const from = byName.get(loop[i]) ?? `refused:${loop[i]}`;
    const to = byName.get(loop[i + 1]) ?? `refused:${loop[i + 1]}`;
    if (!g.edges.some((e) => e.from === from && e.to === to)) {
      out.push({ from, to, kind: 'refused', label: 'refused: would make a loop', cycle: true });
    }
  }
  return out;
}
