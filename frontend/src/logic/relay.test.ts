import { describe, expect, it } from 'vitest';
import type { RelayStatus } from '../api/types';
import { relayNotice } from './relay';

const relay = (over: Partial<RelayStatus>): RelayStatus => ({
  url: 'https://relay.example.com',
  state: 'online',
  since: '2026-11-22T09:00:00Z',
  outbox: 0,
  last_seq: 0,
  ...over,
});
const now = Date.parse('2026-11-22T09:00:00Z');

describe('the relay banner', () => {
  it('says nothing without a relay, or when it is online or connecting', () => {
    expect(relayNotice(undefined, now)).toBeUndefined();
    expect(relayNotice(relay({}), now)).toBeUndefined();
    expect(relayNotice(relay({ state: 'connecting' }), now)).toBeUndefined();
  });

  it('says offline work goes on, what will sync, and when it retries', () => {
    const n = relayNotice(
      relay({ state: 'offline', error: 'connection refused', outbox: 2, next_retry: '2026-11-22T09:00:08Z' }),
      now,
    )!;
    expect(n.tone).toBe('warn');
    expect(n.title).toBe('Offline: the relay is unreachable.');
    expect(n.text).toBe(
      'Everything here keeps working: review and decide as usual. 2 changes will sync when it is back. Next try in 8 s.',
    );
    const later = relayNotice(relay({ state: 'offline', next_retry: '2026-11-22T08:59:00Z' }), now)!;
    expect(later.text).toBe(
      'Everything here keeps working: review and decide as usual. Scouts keeps trying on its own.',
    );
  });

  it('says how to fix a refused or revoked device', () => {
    const n = relayNotice(relay({ state: 'revoked' }), now)!;
    expect(n.tone).toBe('error');
    expect(n.title).toBe('The relay revoked this device.');
    expect(n.text).toContain('--device-token-file');
    expect(relayNotice(relay({ state: 'unauthorized', error: 'token not recognised' }), now)!.text).toMatch(
      /^token not recognised\. Get a new device token/,
    );
  });
});
