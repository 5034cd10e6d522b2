// A card proposed by an AI agent, decided in the window (issue 21): a small
// agent (e2e/mcp-agent-client.cjs, the official TypeScript SDK from
// build/mcptest) drives `scouts mcp serve` against a real agent, proposes a
// task and waits in get_decision; the card is in the inbox under the
// agent's own scout, the person approves it there, and get_decision
// answers approved with the task it created.

import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, BIN, startAgent } from './agent';

const MCPTEST = fileURLToPath(new URL('../../build/mcptest/', import.meta.url));
const CLIENT = fileURLToPath(new URL('./mcp-agent-client.cjs', import.meta.url));

interface Proposal {
  id: string;
  status: string;
  created: boolean;
}
interface Decision {
  status: string;
  created?: { kind: string; id: string; title: string };
}

test('a card proposed by an agent is approved from the inbox, and get_decision says so', async ({ page }) => {
  if (!existsSync(join(MCPTEST, 'node_modules', '@modelcontextprotocol', 'sdk'))) {
    throw new Error('build/mcptest has no @modelcontextprotocol/sdk: run make deps-test');
  }
  const agent = await startAgent();
  const title = 'Post the 2.4 release note';
  const client = spawn(process.execPath, [CLIENT, MCPTEST, BIN, agent.data, title], {
    env: { ...process.env, HOME: agent.home, SCOUTS_DATA: '', XDG_DATA_HOME: '', XDG_CONFIG_HOME: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let errOut = '';
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  client.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
    const all = out.split('\n');
    out = all.pop()!;
    lines.push(...all.filter((l) => l.trim() !== ''));
    waiters.splice(0).forEach((w) => w());
  });
  client.stderr!.on('data', (b: Buffer) => (errOut += b.toString()));
  const exited = new Promise<number | null>((res) => client.on('exit', (code) => res(code)));
  const line = async (n: number): Promise<string> => {
    while (lines.length <= n) {
      const more = new Promise<void>((res) => waiters.push(res));
      const code = await Promise.race([more.then(() => undefined), exited.then((c) => ({ c }))]);
      if (code && lines.length <= n) throw new Error(`the agent's client exited (${code.c}):\n${errOut}`);
    }
    return lines[n]!;
  };
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const p = JSON.parse(await line(0)) as Proposal;
    expect(p.status).toBe('pending');
    expect(p.created).toBe(true);

    await page.goto(agent.link);
    const card = page.getByRole('article', { name: title });
    await expect(card).toBeVisible();
    await expect(card).toContainText('playwright-coder');
    await card.click({ position: { x: 300, y: 12 } });
    await expect(card).toHaveAttribute('aria-current', 'true');
    await page.screenshot({ path: join(ARTIFACTS, 'screenshots', 'agent-proposal.png'), fullPage: true });
    await page.keyboard.press('t');
    await expect(card).toHaveCount(0);
    await expect(page.locator('.toast').filter({ hasText: `Approved as task “${title}”` })).toBeVisible();

    const d = JSON.parse(await line(1)) as Decision;
    expect(d.status).toBe('approved');
    expect(d.created?.kind).toBe('task');
    expect(d.created?.title).toBe(title);
    const sg = await agent.api<{ status: string; resolved_entity_id?: string }>(`/suggestions/${p.id}`);
    expect(sg.status).toBe('approved');
    const task = await agent.api<{ id: string; title: string }>(`/tasks/${d.created!.id}`);
    expect(task.title).toBe(title);
    expect(await exited).toBe(0);
    expect(errors).toEqual([]);
  } finally {
    if (client.exitCode === null) client.kill();
    await agent.stop();
  }
});
