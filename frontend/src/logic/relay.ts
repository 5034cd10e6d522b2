// What the relay connection means for the person, in words: nothing when
// it is fine or still starting, a banner when it is down.

import type { RelayStatus } from '../api/types';
import { plural } from './format';

export interface RelayNotice {
  tone: 'warn' | 'error';
  title: string;
  text: string;
}

const host = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

function waiting(r: RelayStatus): string {
  return r.outbox > 0 ? ` ${plural(r.outbox, 'change')} will sync when it is back.` : '';
}

export function relayNotice(r: RelayStatus | undefined, now: number): RelayNotice | undefined {
  if (!r) return undefined;
  switch (r.state) {
    case 'offline': {
      // The details (the network error) are in Status; the banner says
      // what it means and that it mends itself.
      const retry = r.next_retry ? Math.round((Date.parse(r.next_retry) - now) / 1000) : 0;
      return {
        tone: 'warn',
        title: 'Offline: the relay is unreachable.',
        text:
          `Everything here keeps working: review and decide as usual.${waiting(r)}` +
          (retry > 1 ? ` Next try in ${retry} s.` : ' Scouts keeps trying on its own.'),
      };
    }
    case 'unauthorized':
    case 'revoked':
      return {
        tone: 'error',
        title:
          r.state === 'revoked'
            ? 'The relay revoked this device.'
            : `The relay at ${host(r.url)} does not accept this device.`,
        text:
          (r.error ? `${r.error}. ` : '') +
          'Get a new device token (scouts-relay device add) and restart the agent with --device-token-file.' +
          waiting(r),
      };
  }
  return undefined;
}

export function relayStateLabel(r: RelayStatus): string {
  switch (r.state) {
    case 'online':
      return 'Connected';
    case 'connecting':
      return 'Connecting…';
    case 'offline':
      return 'Unreachable, retrying';
    case 'unauthorized':
      return 'Refused this device';
    case 'revoked':
      return 'Device revoked';
  }
  return r.state;
}
