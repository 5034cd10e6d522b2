/**
 * Whether a scout's last error means its Gmail access must be granted
 * again: the relay says "Gmail access expired — reconnect", the desktop's
 * own sync "access expired or was revoked — reconnect the account".
 */
export function needsReconnect(err?: string): boolean {
  return !!err && /\breconnect\b/i.test(err);
}

export type GmailMode = 'local' | 'relay-ping' | 'relay-triage';

/** What each Gmail mode means for the person choosing it. */
export const GMAIL_MODES: { mode: GmailMode; label: string; help: string; needsRelay: boolean }[] = [
  {
    mode: 'local',
    label: 'On this computer only',
    help: 'Scouts reads new mail every few minutes while this computer is on. Nothing of your mail leaves it.',
    needsRelay: false,
  },
  {
    mode: 'relay-ping',
    label: 'Relay tells, this computer reads',
    help: 'The relay learns when mail arrives and tells this computer, which reads and judges it. The relay holds no Gmail access.',
    needsRelay: true,
  },
  {
    mode: 'relay-triage',
    label: 'Relay judges while you are away',
    help: 'The relay holds an encrypted Gmail token and judges new mail even when this computer is off. It keeps only message ids and verdicts, never the mail.',
    needsRelay: true,
  },
];
