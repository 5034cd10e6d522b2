// The daily brief (GET /api/v1/brief), mirroring app/apitype/brief.go.

import type { Alarm } from './alarms';
import type { Api } from './client';
import type { Entity, Suggestion } from './types';

export interface Brief {
  at: string;
  /** The last brief sent (or a day before now, before the first). */
  since: string;
  /** The time of day it is sent ("08:30", local) or "off". */
  brief_at: string;
  inbox: Suggestion[];
  inbox_count: number;
  inbox_new: number;
  /** Filed in Screened and Spam since the last brief; each can be brought back. */
  screened: Suggestion[];
  spam: Suggestion[];
  tasks: Entity[];
  events: Entity[];
  /** The alarms not resolved yet (open or acknowledged), newest first. */
  alarms: Alarm[];
  /** Anything new since the last brief (one without is not sent). */
  new: boolean;
}

/** The body and answer of PUT /api/v1/brief/time. */
export interface BriefTime {
  /** "HH:MM" (local) or "off". */
  at: string;
}

/** Sets the time of day of the daily brief ("HH:MM" or "off"). */
export const setBriefTime = (api: Api, at: string) => api.request<BriefTime>('PUT', '/brief/time', { at });
