// Starts bin/scouts-fakellm, the Go tests' fake model (scouts/triage/triagetest)
// as a process, for a spec's agent to use with --llm-url. Its first two
// lines are the model's API root and its admin address: nothing else is
// waited for.

import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FAKE_BIN =
  process.env.SCOUTS_FAKELLM_BIN || fileURLToPath(new URL('../../bin/scouts-fakellm', import.meta.url));

export interface FakeModel {
  /** The API root to give --llm-url. */
  url: string;
  model: string;
  /** Agent arguments that use it, with the key in a file under root. */
  args(root: string): string[];
  /** Queues the contents of the coming answers, in order. */
  script(...contents: string[]): Promise<void>;
  /** How many requests the model received. */
  requests(): Promise<number>;
  stop(): Promise<void>;
}

export async function startFakeModel(): Promise<FakeModel> {
  if (!existsSync(FAKE_BIN)) {
    throw new Error(`${FAKE_BIN} does not exist: run \`make test-browser\` (or go build -o bin/scouts-fakellm ./cmd/scouts-fakellm)`);
  }
  const key = 'fake-key',
    model = 'fake-model';
  const proc = spawn(FAKE_BIN, ['--key', key, '--model', model], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<void>((res) => proc.on('exit', () => res()));
  const [url, admin] = await new Promise<[string, string]>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`the fake model printed no address within 30 s:\n${buf}${err}`)), 30_000);
    proc.stdout!.on('data', (b: Buffer) => {
      buf += b.toString();
      const api = /^listening on (\S+)$/m.exec(buf);
      const adm = /^admin on (\S+)$/m.exec(buf);
      if (api && adm) {
        clearTimeout(timer);
        resolve([api[1]!, adm[1]!]);
      }
    });
    exited.then(() => reject(new Error(`the fake model exited:\n${buf}${err}`)));
  });
  return {
    url,
    model,
    args(root) {
      const file = join(root, 'llm.key');
      writeFileSync(file, key + '\n', { mode: 0o600 });
      return ['--llm-url', url, '--llm-model', model, '--llm-key-file', file];
    },
    async script(...contents) {
      const res = await fetch(admin + '/script', { method: 'POST', body: JSON.stringify(contents) });
      if (res.status !== 204) throw new Error(`script: HTTP ${res.status} ${await res.text()}`);
    },
    async requests() {
      const res = await fetch(admin + '/requests');
      return ((await res.json()) as { count: number }).count;
    },
    async stop() {
      if (proc.exitCode === null) {
        proc.kill('SIGTERM');
        await exited;
      }
    },
  };
}
