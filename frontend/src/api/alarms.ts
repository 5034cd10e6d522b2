// Alarms (docs/api.md, "Alarms"): a mirror of app/apitype/alarms.go.

import type { Api } from './client';

/** What failed, said until its cause goes away. */
export interface Alarm {
  id: string;
  dedupe_key: string;
  /** runs_failing, budget_spent, definitions_broken, gmail_token, … */
  kind: string;
  severity: 'warning' | 'critical' | string;
  scout_id?: string;
  status: 'open' | 'acknowledged' | 'resolved' | string;
  /** What is wrong and what to do about it. */
  message: string;
  raised_at: string;
  updated_at: string;
  acknowledged_at?: string;
  resolved_at?: string;
}

/** The alarms endpoints, over the app's Api. */
export function alarmsApi(api: Api) {
  return {
    list: () => api.request<Alarm[]>('GET', '/alarms'),
    ack: (id: string) => api.request<Alarm>('POST', `/alarms/${encodeURIComponent(id)}/ack`),
  };
}
