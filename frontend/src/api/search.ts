// GET /api/v1/search (docs/api.md "Search"): what the agent found.

/** One thing a search found: a card (any lane or status), a task, note,
 * event or project. */
export interface SearchHit {
  type: 'card' | 'task' | 'note' | 'event' | 'project';
  id: string;
  title: string;
  /** The indexed text around the match, plain (never a mail's body). */
  snippet: string;
  sender?: string;
  scout_id?: string;
  scout?: string;
  /** A card's. */
  lane?: string;
  status?: string;
  proposed_kind?: string;
  /** Tasks and projects. */
  done?: boolean;
  /** An event's start, anything else's creation. */
  at: string;
}

export interface SearchResults {
  query: string;
  results: SearchHit[];
}
