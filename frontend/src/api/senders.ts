// The Senders view (GET /api/v1/scouts/{id}/senders, POST
// …/senders/unsubscribe), mirroring app/apitype/senders.go.

import type { Rule } from './plans';
import type { ScreenerRule, Suggestion } from './types';

/** How a sender's mail offers to unsubscribe. */
export type UnsubscribeMethod = 'one-click' | 'mailto' | 'link';

export interface SenderUnsubscription {
  suggestion_id: string;
  n: number;
  state: string;
  error?: string;
  method?: UnsubscribeMethod;
  /** The page the person opens, when the list offers nothing else. */
  link?: string;
  at: string;
}

export interface Sender {
  /** "sender:ADDRESS" or "list:LIST-ID". */
  key: string;
  of: 'sender' | 'list';
  value: string;
  name: string;
  cards: number;
  approved: number;
  rejected: number;
  pending: number;
  /** null while none of its cards is decided. */
  approve_rate: number | null;
  last_card: string;
  last_approval?: string;
  unsubscribe?: UnsubscribeMethod;
  screened?: ScreenerRule;
  unsubscribed?: SenderUnsubscription;
}

export interface SenderList {
  scout_id: string;
  senders: Sender[];
}

export interface UnsubscribeOutcome {
  sender: Sender;
  queued: boolean;
  rule?: Rule;
  already_screened?: boolean;
  settled?: Suggestion[];
  note?: string;
}

export interface UnsubscribeResult {
  outcomes: UnsubscribeOutcome[];
}
