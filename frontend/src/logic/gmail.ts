/**
 * Whether a scout's last error means its Gmail access must be granted
 * again: the relay says "Gmail access expired — reconnect", the desktop's
 * own sync "access expired or was revoked — reconnect the account".
 */
export function needsReconnect(err?: string): boolean {
  return !!err && /\breconnect\b/i.test(err);
}
