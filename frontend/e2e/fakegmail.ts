// Starts bin/scouts-fakegmail --oauth: the fake Gmail API the Go tests use
// (fakegoogle/gmailfake) and the fake Google OAuth endpoints, as one
// process, for a spec's agent to connect a Gmail account and read and
// change its mail. Its first two lines are the API root and the OAuth
// root: nothing else is waited for. Tests drive and inspect the mailbox
// through the fake's admin API (/_fake/, cmd/scouts-fakegmail/admin.go).

import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FAKE_GMAIL_BIN =
  process.env.SCOUTS_FAKEGMAIL_BIN || fileURLToPath(new URL('../../bin/scouts-fakegmail', import.meta.url));

// The fake's one OAuth client (fakegoogle/oauthfake's defaults).
const CLIENT_ID = '1234567890-fake.apps.googleusercontent.com';
const CLIENT_SECRET = 'GOCSPX-fake-client-secret';

/** What a client did to a message, labels by name (a user label's name,
 * a system label's id: INBOX, UNREAD…). */
export interface Modifications {
  /** messages.modify calls naming it, whether they changed anything or not. */
  calls: number;
  /** How many times each label was in effect added / removed. */
  added: Record<string, number>;
  removed: Record<string, number>;
}

export interface FakeGmail {
  /** The mailbox, the account that consents. */
  email: string;
  /** Agent arguments that use the fake for Google (the client secret in a
   * file under root); the agent also needs `env` for its file keyring. */
  args(root: string): string[];
  env: Record<string, string>;
  /** Delivers a message into the inbox; resolves to its Gmail id. */
  deliver(raw: string): Promise<string>;
  /** Counts of the Gmail API calls the mailbox received, by method. */
  calls(): Promise<Record<string, number>>;
  /** The message's labels by name. */
  labels(id: string): Promise<string[]>;
  modifications(id: string): Promise<Modifications>;
  stop(): Promise<void>;
}

export async function startFakeGmail(email = 'ann@example.com'): Promise<FakeGmail> {
  if (!existsSync(FAKE_GMAIL_BIN)) {
    throw new Error(
      `${FAKE_GMAIL_BIN} does not exist: run \`make test-browser\` (or go build -o bin/scouts-fakegmail ./cmd/scouts-fakegmail)`,
    );
  }
  const proc = spawn(FAKE_GMAIL_BIN, ['--oauth', '--mailbox', email], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<void>((res) => proc.on('exit', () => res()));
  const [url, oauth] = await new Promise<[string, string]>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`the fake Gmail printed no address within 30 s:\n${buf}${err}`)), 30_000);
    proc.stdout!.on('data', (b: Buffer) => {
      buf += b.toString();
      const api = /^listening on (\S+)$/m.exec(buf);
      const auth = /^oauth at (\S+)$/m.exec(buf);
      if (api && auth) {
        clearTimeout(timer);
        resolve([api[1]!, auth[1]!]);
      }
    });
    exited.then(() => reject(new Error(`the fake Gmail exited:\n${buf}${err}`)));
  });
  const admin = async <T>(method: string, path: string, body?: string): Promise<T> => {
    const res = await fetch(`${url}/_fake/${path}`, { method, body });
    if (!res.ok) throw new Error(`${method} /_fake/${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const q = (id?: string) => `email=${encodeURIComponent(email)}` + (id ? `&id=${encodeURIComponent(id)}` : '');
  return {
    email,
    env: { SCOUTS_KEYRING_PASSPHRASE: 'browser e2e keyring passphrase' },
    args(root) {
      const secret = join(root, 'google-client-secret');
      writeFileSync(secret, CLIENT_SECRET, { mode: 0o600 });
      return [
        '--google-client-id', CLIENT_ID,
        '--google-client-secret-file', secret,
        '--google-auth-url', `${oauth}/o/oauth2/v2/auth`,
        '--google-token-url', `${oauth}/token`,
        '--google-revoke-url', `${oauth}/revoke`,
        '--gmail-api-url', url,
        '--keyring', 'file',
        '--open-browser=false',
        '--poll-interval', '2s',
      ];
    },
    async deliver(raw) {
      return (await admin<{ id: string }>('POST', `deliver?${q()}`, raw)).id;
    },
    async calls() {
      return (await admin<{ calls: Record<string, number> }>('GET', `quota?${q()}`)).calls;
    },
    async labels(id) {
      return (await admin<{ labels: string[] }>('GET', `message?${q(id)}`)).labels;
    },
    modifications: (id) => admin<Modifications>('GET', `modifications?${q(id)}`),
    async stop() {
      if (proc.exitCode === null) {
        proc.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** A plain-text message as a mail program sends it, to deliver into the
 * fake mailbox (ann@example.com), with CRLF line ends: extra headers come
 * after To, messageId is the whole Message-ID (without angle brackets). */
export function plainMail(m: { from: string; subject: string; messageId: string; body: string; headers?: string[] }): string {
  return [
    `From: ${m.from}`,
    'To: ann@example.com',
    ...(m.headers ?? []),
    `Subject: ${m.subject}`,
    'Date: Mon, 2 Nov 2026 10:00:00 +0000',
    `Message-ID: <${m.messageId}>`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    m.body,
    '',
  ].join('\r\n');
}
