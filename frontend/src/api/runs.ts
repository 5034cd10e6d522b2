// A scout's run history (docs/schedules.md, "Runs"): a mirror of
// app/apitype/runs.go's Run.

import type { Api } from './client';

/** What started a run. */
export type RunTrigger = 'start' | 'schedule' | 'catch-up' | 'manual' | 'resume' | 'source' | 'poll';

/** One run of a scout, newest first in a history. */
export interface ScoutRunEntry {
  id: string;
  scout_id: string;
  trigger: RunTrigger | string;
  started_at: string;
  /** null while the run runs, and for an interrupted run. */
  finished_at: string | null;
  /** ok, failed (error says why), skipped (note says why), stopped,
   * running, or interrupted (the agent died before it ended; note says so). */
  outcome: 'ok' | 'failed' | 'skipped' | 'stopped' | 'running' | 'interrupted' | string;
  error?: string;
  note?: string;
  items_seen: number;
  items_new: number;
  /** null without a model. */
  model_tokens: number | null;
  /** The definition version in force when the run started; 0: none yet. */
  definition_version: number;
}

/** The runs endpoint, over the app's Api. */
export function runsApi(api: Api) {
  return {
    list: (id: string, limit = 10) =>
      api.request<ScoutRunEntry[]>('GET', `/scouts/${encodeURIComponent(id)}/runs?limit=${limit}`),
  };
}
