// Errors that say what happened and how to fix it. Every failed call ends up
// as an ApiError whose message a person can act on.

import type { ApiErrorBody } from './types';

/** Codes beyond the API's own: the agent did not answer at all, or it
 * answered something that is not the API. */
export type ClientCode = 'offline' | 'bad_response';

export class ApiError extends Error {
  readonly code: string;
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** What the user can do about it, when there is something. */
  readonly hint: string;

  constructor(code: string, status: number, message: string, hint = '') {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.hint = hint;
  }

  /** The message and the hint, for a toast or a banner. */
  get full(): string {
    return this.hint ? `${this.message} ${this.hint}` : this.message;
  }
}

export const OFFLINE_MESSAGE = 'The agent is not reachable.';
export const OFFLINE_HINT = 'Is `scouts agent` running? Start it with `scouts agent --ui` and open the link it prints.';

/** The agent did not answer (stopped, restarted on another port, no network). */
export function offlineError(): ApiError {
  return new ApiError('offline', 0, OFFLINE_MESSAGE, OFFLINE_HINT);
}

function isBody(v: unknown): v is ApiErrorBody {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as ApiErrorBody).code === 'string' &&
    typeof (v as ApiErrorBody).error === 'string'
  );
}

/** Turns a non-2xx answer into an ApiError. body is the parsed JSON, or
 * undefined when the answer was not JSON. */
export function errorFromResponse(status: number, body: unknown): ApiError {
  if (!isBody(body)) {
    return new ApiError(
      'bad_response',
      status,
      `The agent answered HTTP ${status} with something that is not the Scouts API.`,
      'Is this address really a Scouts agent? Open the link `scouts agent --ui` prints.',
    );
  }
  const msg = sentence(body.error);
  switch (body.code) {
    case 'unauthorized':
      return new ApiError(
        body.code,
        status,
        'This page is not signed in to the agent.',
        'Open the link that `scouts agent --ui` printed: it carries the token.',
      );
    case 'forbidden':
      return new ApiError(body.code, status, msg, 'Open Scouts through the 127.0.0.1 link the agent prints.');
    case 'unavailable':
      return new ApiError(body.code, status, msg, 'Try again in a moment.');
    case 'internal':
      return new ApiError(
        body.code,
        status,
        'Something went wrong inside the agent.',
        "This is a bug: the details are in the agent's log.",
      );
    default:
      // invalid, not_found, conflict: the server's message already says what
      // is wrong with the request, in the user's terms.
      return new ApiError(body.code, status, msg);
  }
}

/** Capitalised, with a full stop: server messages are lower-case clauses. */
export function sentence(s: string): string {
  const t = s.trim();
  if (!t) return t;
  const first = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : first + '.';
}

/** Any thrown value as an ApiError (a bug in our code stays readable). */
export function asApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new ApiError('client', 0, sentence(msg || 'Something went wrong.'));
}
