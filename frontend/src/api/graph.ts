// The graph of scouts (docs/api.md, "Graph of scouts"): a mirror of
// app/apitype/graph.go.

import type { Api } from './client';

export interface GraphNode {
  id: string;
  name: string;
  kind: string;
  enabled: boolean;
  /** On a loop. */
  cycle: boolean;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** trigger (a chain scout runs on the other's events) or write_watch. */
  kind: 'trigger' | 'write_watch' | string;
  label: string;
  cycle: boolean;
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  cycle: boolean;
  /** Each loop named, "A → B → A". */
  loops: string[];
}

export function graphApi(api: Api) {
  return { get: () => api.request<Graph>('GET', '/graph') };
}
