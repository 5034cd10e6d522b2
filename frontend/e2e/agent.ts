// Starts a real `scouts agent --ui` for a spec: its own HOME, its own data
// directory (real SQLite), port 0. The URL it prints is the only thing we
// wait for: no sleeping.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = process.env.SCOUTS_BIN || fileURLToPath(new URL('../../bin/scouts', import.meta.url));
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

export interface Agent {
  /** The link the agent printed: http://127.0.0.1:PORT/?token=… */
  link: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  home: string;
  data: string;
  /** The agent's XDG config folder ($XDG_CONFIG_HOME when absolute, else HOME/.config):
   * where its autostart entry goes. */
  config: string;
  /** Writes a file under HOME, as a person dropping it there would. */
  drop(rel: string, content: string): void;
  /** Calls the local API directly (to check what the UI claims). */
  api<T>(path: string, init?: RequestInit): Promise<T>;
  output(): string;
  stop(): Promise<void>;
}

export interface AgentOptions {
  /** More arguments for `scouts agent`, given the temporary root folder. */
  args?: (root: string) => string[];
  /** More environment variables for the agent (a file keyring's passphrase). */
  env?: Record<string, string>;
}

export async function startAgent(opts: AgentOptions = {}): Promise<Agent> {
  if (!existsSync(BIN)) {
    throw new Error(`${BIN} does not exist: run \`make build\` first (it builds the UI into the binary)`);
  }
  const root = mkdtempSync(join(tmpdir(), 'scouts-ui-e2e-'));
  const home = join(root, 'home');
  const data = join(root, 'data');
  mkdirSync(home);
  const env = { ...process.env, HOME: home, SCOUTS_DATA: '', XDG_DATA_HOME: '', XDG_CONFIG_HOME: '', ...opts.env };
  const args = ['agent', '--ui', '--data', data, '--inbox', '', ...(opts.args?.(root) ?? [])];
  const proc: ChildProcess = spawn(BIN, args, {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((res) => proc.on('exit', (code) => res(code)));

  const link = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`the agent printed no link within 30 s:\n${buf}\n${out}`)), 30_000);
    proc.stdout!.on('data', (b: Buffer) => {
      buf += b.toString();
      out += b.toString();
      const m = /^Open Scouts: (\S+)$/m.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the agent exited (${code}) before printing its link:\n${out}`));
    });
  });
  const origin = new URL(link).origin;
  const token = readFileSync(join(data, 'local-api.token'), 'utf8').trim();

  return {
    link,
    origin,
    home,
    data,
    config: isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config'),
    drop(rel, content) {
      const p = join(home, rel);
      mkdirSync(dirname(p), { recursive: true });
      // Write beside, then rename: the file appears whole, as a download does.
      writeFileSync(p + '.part', content);
      renameSync(p + '.part', p);
    },
    async api<T>(path: string, init?: RequestInit) {
      const res = await fetch(origin + '/api/v1' + path, {
        ...init,
        headers: { Authorization: `Bearer ${token}`, ...(init?.headers ?? {}) },
      });
      if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
      return (res.status === 204 ? undefined : await res.json()) as T;
    },
    output: () => out,
    async stop() {
      if (proc.exitCode === null) {
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
