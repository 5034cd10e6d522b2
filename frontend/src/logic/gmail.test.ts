import { describe, expect, it } from 'vitest';
import { needsReconnect } from './gmail';

describe('needsReconnect', () => {
  it('spots expired Gmail access from the relay and from the desktop', () => {
    expect(needsReconnect('Gmail access expired — reconnect')).toBe(true);
    expect(
      needsReconnect('gmail: access expired or was revoked — reconnect the account: history.list: 401'),
    ).toBe(true);
  });
  it('leaves other failures alone', () => {
    expect(needsReconnect(undefined)).toBe(false);
    expect(needsReconnect('')).toBe(false);
    expect(needsReconnect('Gmail sync failed, retrying: 503')).toBe(false);
    expect(needsReconnect('reconnecting to the relay')).toBe(false);
  });
});
