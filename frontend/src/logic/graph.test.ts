import { describe, expect, it } from 'vitest';
import type { Graph } from '../api/graph';
import { layout, loopInRefusal, refusedEdges } from './graph';

const g: Graph = {
  nodes: [
    { id: 'a', name: 'Drop', kind: 'folder', enabled: true, cycle: false },
    { id: 'b', name: 'Follow-ups', kind: 'chain', enabled: true, cycle: false },
    { id: 'c', name: 'Alone', kind: 'folder', enabled: true, cycle: false },
  ],
  edges: [{ from: 'a', to: 'b', kind: 'trigger', label: 'on entity.created', cycle: false }],
  cycle: false,
  loops: [],
};

describe('the graph of scouts', () => {
  it('places a chain left to right and leaves out scouts with no edge', () => {
    const { boxes } = layout(g);
    expect(boxes.map((b) => b.id)).toEqual(['a', 'b']);
    expect(boxes[1].x).toBeGreaterThan(boxes[0].x);
  });
  it('reads the loop a refusal names, and the edges it would add', () => {
    const loop = loopInRefusal('this would make a loop of scouts: Follow-ups → Drop → Follow-ups — each would start');
    expect(loop).toEqual(['Follow-ups', 'Drop', 'Follow-ups']);
    expect(refusedEdges(g, loop!)).toEqual([{ from: 'b', to: 'a', kind: 'refused', label: 'refused: would make a loop', cycle: true }]);
    expect(loopInRefusal('name is required')).toBeNull();
  });
});
