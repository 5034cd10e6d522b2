// An event's .ics download (GET /api/v1/events/{id}/ics).

import { API_BASE } from '../api/types';

/** The event's own .ics, on the same origin as the page, so that the
 * page's cookie (or the desktop window's proxy) authenticates it; the
 * agent names the file (Content-Disposition). */
export function eventIcsHref(id: string): string {
  return `${API_BASE}/events/${encodeURIComponent(id)}/ics`;
}
