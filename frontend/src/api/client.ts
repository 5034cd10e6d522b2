// The local API over fetch: relative URLs, the page's own cookie for
// authentication, and one method per endpoint the UI uses.

import { ApiError, errorFromResponse, offlineError } from './errors';
import type {
  Approve,
  AuditEvent,
  Content,
  CreateScout,
  Entity,
  EntityInput,
  EntityKind,
  Folders,
  GmailAccount,
  Lane,
  LearnSettings,
  Learning,
  PatchScout,
  Scout,
  ScreenerChoice,
  ScreenSenderResult,
  Settings,
  Status,
  Suggestion,
  SuggestionStatus,
} from './types';
import { API_BASE } from './types';
import type { Brief } from './brief';
import type { SenderList, UnsubscribeResult } from './senders';
import type { SearchResults } from './search';
import type { ActionDef, Plan, PlanAction, Policies, PutPolicies, Rule, RuleDoc, RuleList, RulePreview } from './plans';
import type { RelayStatus } from './types';

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** Who is calling, for the audit trail ("approved by user (browser)"). The
 * desktop window exposes Wails' runtime on window. */
export function clientName(w: unknown = globalThis): 'window' | 'browser' {
  const rt = (w as { runtime?: { EventsOn?: unknown } }).runtime;
  return typeof rt?.EventsOn === 'function' ? 'window' : 'browser';
}

export class Api {
  constructor(
    private readonly fetchFn: Fetch = (i, init) => fetch(i, init),
    private readonly client = clientName(),
  ) {}

  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json', 'X-Scouts-Client': this.client };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await this.fetchFn(API_BASE + path, {
        method,
        headers,
        credentials: 'same-origin',
        cache: 'no-store',
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch {
      throw offlineError();
    }
    if (res.status === 204 || res.status === 202) return undefined as T;
    let parsed: unknown;
    try {
      parsed = await res.json();
    } catch {
      parsed = undefined;
    }
    if (!res.ok) throw errorFromResponse(res.status, parsed);
    if (parsed === undefined) throw errorFromResponse(res.status, undefined);
    return parsed as T;
  }

  status = () => this.request<Status>('GET', '/status');
  pause = () => this.request<Status>('POST', '/pause');
  resume = () => this.request<Status>('POST', '/resume');
  sync = () => this.request<void>('POST', '/sync');
  settings = () => this.request<Settings>('GET', '/settings');
  putSettings = (s: Settings) => this.request<Settings>('PUT', '/settings', s);

  /** Suggestions; in one lane (default every lane), the ones most likely
   * approved first when order is "likely" (default oldest first). */
  suggestions = (status: SuggestionStatus | 'all' = 'pending', limit = 1000, lane?: Lane, order?: 'likely') =>
    this.request<Suggestion[]>(
      'GET',
      `/suggestions?status=${status}&limit=${limit}` + (lane ? `&lane=${lane}` : '') + (order ? `&order=${order}` : ''),
    );
  suggestion = (id: string) => this.request<Suggestion>('GET', `/suggestions/${enc(id)}`);
  approve = (id: string, a: Approve) => this.request<Entity>('POST', `/suggestions/${enc(id)}/approve`, a);
  reject = (id: string) => this.request<Suggestion>('POST', `/suggestions/${enc(id)}/reject`, {});
  undo = (id: string) => this.request<Suggestion>('POST', `/suggestions/${enc(id)}/undo`, {});
  markSpam = (id: string) => this.request<Suggestion>('POST', `/suggestions/${enc(id)}/spam`, {});
  bringBack = (id: string) => this.request<Suggestion>('POST', `/suggestions/${enc(id)}/bring-back`, {});
  /** Puts a card off until a time in words or RFC 3339. */
  snooze = (id: string, until: string) => this.request<Suggestion>('POST', `/suggestions/${enc(id)}/snooze`, { until });
  /** Leaves an open task out of the lists until a time in words or RFC 3339. */
  snoozeTask = (id: string, until: string) =>
    this.request<{ task: Entity; snoozed_until: string }>('POST', `/tasks/${enc(id)}/snooze`, { until });
  /** Cards and entities matching what a person typed (docs/api.md
   * "Search"); signal cancels a search that typing made stale. */
  search = (q: string, signal?: AbortSignal, limit = 50) =>
    this.request<SearchResults>('GET', `/search?q=${enc(q)}&limit=${limit}`, undefined, signal);
  /** The daily brief as of now. */
  brief = () => this.request<Brief>('GET', '/brief');
  unsnooze = (id: string) => this.request<Suggestion>('POST', `/suggestions/${enc(id)}/unsnooze`, {});
  screen = (id: string) => this.request<Suggestion>('POST', `/suggestions/${enc(id)}/screen`, {});
  /** The screener: always show or always screen the card's sender (its
   * list, its folder) — a rule first in its scout's rules. */
  screenSender = (id: string, choice: ScreenerChoice) =>
    this.request<ScreenSenderResult>('POST', `/suggestions/${enc(id)}/screen-sender`, { choice });
  /** A scout's senders and lists, ranked (docs/api.md "Senders"). */
  senders = (scoutId: string) => this.request<SenderList>('GET', `/scouts/${enc(scoutId)}/senders`);
  /** Unsubscribe from and screen senders of a scout, by key. */
  unsubscribe = (scoutId: string, keys: string[], writeFile = false) =>
    this.request<UnsubscribeResult>('POST', `/scouts/${enc(scoutId)}/senders/unsubscribe${writing(writeFile)}`, { senders: keys });
  /** Expired suggestions, the latest first, each with why it expired. */
  expired = (limit = 500) => this.request<Suggestion[]>('GET', `/suggestions?status=expired&order=newest&limit=${limit}`);
  /** Brings an expired suggestion back to pending, with a new deadline. */
  revive = (id: string) => this.request<Suggestion>('POST', `/suggestions/${enc(id)}/revive`, {});
  content = (id: string) => this.request<Content>('GET', `/suggestions/${enc(id)}/content`);
  audit = (traceId: string) => this.request<AuditEvent[]>('GET', `/audit?trace_id=${enc(traceId)}`);

  // Plans, actions and policies (docs/actions.md).
  actionCatalogue = () => this.request<ActionDef[]>('GET', '/actions');
  /** What approving a card as `as` (default its proposed kind) would run,
   * after what it already ran. */
  plan = (id: string, as?: EntityKind) =>
    this.request<Plan>('GET', `/suggestions/${enc(id)}/plan` + (as ? `?as=${as}` : ''));
  failingActions = () => this.request<PlanAction[]>('GET', '/actions/failing');
  retryAction = (id: string, n: number) => this.request<PlanAction>('POST', `/suggestions/${enc(id)}/actions/${n}/retry`, {});
  dropAction = (id: string, n: number) => this.request<PlanAction>('POST', `/suggestions/${enc(id)}/actions/${n}/drop`, {});
  policies = () => this.request<Policies>('GET', '/policies');
  /** The policies, with `resolved` saying what applies to this scout. */
  policiesFor = (scoutId: string) => this.request<Policies>('GET', `/policies?scout_id=${enc(scoutId)}`);
  putPolicies = (p: PutPolicies) => this.request<Policies>('PUT', '/policies', p);

  // A scout's rules (docs/rules.md). writeFile on a change: as for
  // updateScout.
  rules = (scoutId: string) => this.request<RuleList>('GET', `/scouts/${enc(scoutId)}/rules`);
  addRule = (scoutId: string, r: RuleDoc, writeFile = false) =>
    this.request<Rule>('POST', `/scouts/${enc(scoutId)}/rules${writing(writeFile)}`, r);
  putRule = (scoutId: string, id: string, r: RuleDoc, writeFile = false) =>
    this.request<Rule>('PUT', `/scouts/${enc(scoutId)}/rules/${enc(id)}${writing(writeFile)}`, r);
  enableRule = (scoutId: string, id: string, enabled: boolean, writeFile = false) =>
    this.request<Rule>('PATCH', `/scouts/${enc(scoutId)}/rules/${enc(id)}${writing(writeFile)}`, { enabled });
  deleteRule = (scoutId: string, id: string, writeFile = false) =>
    this.request<void>('DELETE', `/scouts/${enc(scoutId)}/rules/${enc(id)}${writing(writeFile)}`);
  reorderRules = (scoutId: string, ids: string[], writeFile = false) =>
    this.request<RuleList>('POST', `/scouts/${enc(scoutId)}/rules/reorder${writing(writeFile)}`, { ids });
  /** What a rule, saved or not, would have done to the scout's latest 50 items. */
  previewRule = (scoutId: string, r: unknown) =>
    this.request<RulePreview>('POST', `/scouts/${enc(scoutId)}/rules/preview`, r);

  entities = (kind: EntityKind) => this.request<Entity[]>('GET', `/${kind}s`);
  entity = (kind: EntityKind, id: string) => this.request<Entity>('GET', `/${kind}s/${enc(id)}`);
  createEntity = (kind: EntityKind, e: EntityInput) => this.request<Entity>('POST', `/${kind}s`, e);
  updateEntity = (kind: EntityKind, id: string, e: EntityInput) =>
    this.request<Entity>('PATCH', `/${kind}s/${enc(id)}`, e);
  deleteEntity = (kind: EntityKind, id: string) => this.request<void>('DELETE', `/${kind}s/${enc(id)}`);

  scouts = () => this.request<Scout[]>('GET', '/scouts');
  scout = (id: string) => this.request<Scout>('GET', `/scouts/${enc(id)}`);
  createScout = (s: CreateScout) => this.request<Scout>('POST', '/scouts', s);
  /** writeFile: a scout a definitions file manages is changed by writing
   * its file too (else the agent refuses, 409). */
  updateScout = (id: string, p: PatchScout, writeFile = false) =>
    this.request<Scout>('PATCH', `/scouts/${enc(id)}${writing(writeFile)}`, p);
  deleteScout = (id: string) => this.request<void>('DELETE', `/scouts/${enc(id)}`);
  runScout = (id: string) => this.request<void>('POST', `/scouts/${enc(id)}/run`, {});
  learning = (id: string) => this.request<Learning>('GET', `/scouts/${enc(id)}/learning`);
  setLearning = (id: string, s: LearnSettings, writeFile = false) =>
    this.request<Learning>('PUT', `/scouts/${enc(id)}/learning${writing(writeFile)}`, s);
  resetLearning = (id: string) => this.request<Learning>('POST', `/scouts/${enc(id)}/learning/reset`, {});
  /** Starts connecting a Gmail account: the agent opens Google's consent page. */
  connectGmail = () => this.request<{ auth_url: string }>('POST', '/gmail/connect', {});
  gmailAccounts = () => this.request<GmailAccount[]>('GET', '/gmail/accounts');

  folders = (path?: string, hidden = false) => {
    const q = new URLSearchParams();
    if (path) q.set('path', path);
    if (hidden) q.set('hidden', '1');
    const qs = q.toString();
    return this.request<Folders>('GET', '/folders' + (qs ? '?' + qs : ''));
  };

  /** The names of the secrets in the OS keyring; values never come back. */
  secrets = () => this.request<{ names: string[] }>('GET', '/secrets');
  /** Keeps a secret's value in the OS keyring (never in the database). */
  putSecret = (name: string, value: string) => this.request<void>('PUT', `/secrets/${enc(name)}`, { value });
  deleteSecret = (name: string) => this.request<void>('DELETE', `/secrets/${enc(name)}`);

  /** The relay link; state "none" without a relay. */
  relay = () => this.request<RelayLink>('GET', '/relay');
  /** Logs in to a relay: the agent checks the token by connecting, then
   * keeps it in the OS keyring (never in its database). */
  relayLogin = (url: string, token: string) => this.request<RelayLink>('PUT', '/relay', { url, token });
  /** Forgets the relay: the token leaves the keyring, the agent disconnects. */
  relayLogout = () => this.request<RelayLogout>('DELETE', '/relay');
}

const enc = encodeURIComponent;

/** The query that asks the agent to write a change to a scout a
 * definitions file manages to that file too (docs/definitions.md). */
const writing = (writeFile: boolean) => (writeFile ? '?write_file=true' : '');

export { ApiError };

/** The relay link as GET/PUT /api/v1/relay answer it. */
export interface RelayLink extends RelayStatus {
  /** login: the URL in the settings, the token in the keyring; flags:
   * --relay and --device-token-file, which the UI cannot change. */
  source?: 'login' | 'flags';
}

/** What DELETE /api/v1/relay forgot. */
export interface RelayLogout {
  /** The relay logged out of; absent when there was none. */
  url?: string;
  token_deleted: boolean;
}
