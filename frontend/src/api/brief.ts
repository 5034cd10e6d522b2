// The daily brief (GET /api/v1/brief), mirroring app/apitype/brief.go.

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
  /** Anything new since the last brief (one without is not sent). */
  new: boolean;
}
