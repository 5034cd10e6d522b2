// Settings → Relay against a real relay (bin/scouts-relay on its own
// SQLite file) and a real agent with the encrypted file keyring: a wrong
// token is refused with nothing saved, a good one connects and lands in
// the keyring only, logging out deletes it and disconnects.

import { expect, test } from '@playwright/test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, startAgent } from './agent';

const RELAY_BIN =
  process.env.SCOUTS_RELAY_BIN || fileURLToPath(new URL('../../bin/scouts-relay', import.meta.url));

interface Relay {
  url: string;
  token: string;
  stop(): Promise<void>;
}

function admin(db: string, ...args: string[]): string {
  const r = spawnSync(RELAY_BIN, [...args, '--database', db], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  if (r.status !== 0) throw new Error(`scouts-relay ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** A relay with one user and one device; the URL it prints is what we wait for. */
async function startRelay(): Promise<Relay> {
  if (!existsSync(RELAY_BIN)) throw new Error(`${RELAY_BIN} does not exist: run \`make build\` first`);
  const root = mkdtempSync(join(tmpdir(), 'scouts-ui-relay-'));
  const db = join(root, 'relay.db');
  // serve creates the database; the admin commands then work on it (they
  // refuse a database that does not exist).
  const proc: ChildProcess = spawn(RELAY_BIN, ['serve', '--listen', '127.0.0.1:0', '--database', db], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((res) => proc.on('exit', () => res()));
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`the relay did not start within 30 s:\n${out}`)), 30_000);
    proc.stdout!.on('data', (b: Buffer) => {
      buf += b.toString();
      const m = / listening on (\S+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the relay exited before serving:\n${out}`));
    });
  });
  const token = (() => {
    try {
      admin(db, 'user', 'add', 'ann@example.com');
      const lines = admin(db, 'device', 'add', 'ann@example.com', '--name', 'laptop').trim().split('\n');
      return lines[lines.length - 1]!.trim();
    } catch (e) {
      proc.kill('SIGKILL');
      throw e;
    }
  })();
  return {
    url,
    token,
    async stop() {
      proc.kill('SIGKILL');
      await exited;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Every file under dir, for looking for the token in plain text. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile());
}

test('Settings → Relay: a wrong token is refused; log in keeps the token in the keyring; log out forgets it', async ({
  page,
}) => {
  const relay = await startRelay();
  // The agent inherits this: its file keyring's passphrase.
  process.env.SCOUTS_KEYRING_PASSPHRASE = 'ui e2e keyring passphrase';
  const agent = await startAgent({ args: () => ['--keyring', 'file'] });
  delete process.env.SCOUTS_KEYRING_PASSPHRASE;
  const keyring = join(agent.data, 'keyring');
  const shot = (name: string) =>
    page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(agent.link);
    await page.keyboard.press('g');
    await page.keyboard.press(',');
    const panel = page.getByRole('region', { name: 'Relay' });
    await expect(panel).toContainText('Not connected to a relay');

    const address = panel.getByLabel('Relay address');
    const token = panel.getByLabel('Device token');
    await expect(token).toHaveAttribute('type', 'password');
    await address.fill(relay.url);
    await token.fill('sdt_' + 'x'.repeat(43));
    await panel.getByRole('button', { name: 'Log in' }).click();
    await expect(panel.getByRole('alert')).toContainText('does not know this device token');
    await expect(panel.getByRole('alert')).toContainText('nothing was saved');
    expect((await agent.api<{ state: string }>('/relay')).state).toBe('none');
    expect(existsSync(keyring) ? readdirSync(keyring) : []).toEqual([]);
    await shot('settings-relay-wrong-token');

    await token.fill(relay.token);
    await panel.getByRole('button', { name: 'Log in' }).click();
    await expect(panel.getByRole('status')).toContainText('Logged in to');
    await expect(panel.getByTestId('relay-state')).toHaveText('Connected');
    await expect(panel).toContainText('ann@example.com');
    await expect(panel.getByText(relay.url, { exact: true })).toBeVisible();
    await expect(panel.getByLabel('Device token')).toHaveCount(0);
    const st = await agent.api<{ state: string; source: string; url: string }>('/relay');
    expect([st.state, st.source, st.url]).toEqual(['online', 'login', relay.url]);
    // The token is in the keyring (one encrypted entry) and nowhere in plain text.
    expect(readdirSync(keyring)).toHaveLength(1);
    for (const f of files(agent.data)) {
      expect(readFileSync(f).includes(relay.token), `${f} holds the token`).toBe(false);
    }
    for (const p of ['/relay', '/status', '/settings']) {
      expect(JSON.stringify(await agent.api(p))).not.toContain(relay.token);
    }
    await shot('settings-relay-online');

    await panel.getByRole('button', { name: 'Log out…' }).click();
    await panel.getByRole('button', { name: 'Log out', exact: true }).click();
    await expect(panel.getByRole('status')).toContainText('the device token was deleted from the keyring');
    await expect(panel).toContainText('Not connected to a relay');
    expect((await agent.api<{ state: string }>('/relay')).state).toBe('none');
    expect(readdirSync(keyring)).toEqual([]);
    await shot('settings-relay-logged-out');
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
    await relay.stop();
  }
});
