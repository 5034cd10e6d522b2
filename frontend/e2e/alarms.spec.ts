// Status → Alarms: a broken definitions file raises an alarm the window
// lists with what to do; Acknowledge marks it seen (the agent says so too);
// fixing the file resolves it and the panel says nothing is failing.

import { expect, test } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent } from './agent';

test('an alarm is listed on Status, acknowledged there, and goes once fixed', async ({ page }) => {
  const agent = await startAgent();
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const defs = join(agent.config, 'scouts', 'scouts.d');
    mkdirSync(defs, { recursive: true });
    const file = join(defs, 'notes.yaml');
    writeFileSync(file, 'version: 1\nkind: folder\nname: [broken\n');

    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/status');
    const panel = page.getByRole('region', { name: 'Alarms' }).or(page.locator('.panel.alarms'));
    const item = panel.locator('[data-alarm="definitions_broken:notes.yaml"]');
    await expect(item).toContainText('The definitions file notes.yaml is not applied');
    await expect(item).toContainText('Fix the file');
    await item.getByRole('button', { name: 'Acknowledge' }).click();
    await expect(item).toContainText('acknowledged');
    await expect(item.getByRole('button', { name: 'Acknowledge' })).toHaveCount(0);
    const live = await agent.api<Array<{ dedupe_key: string; status: string }>>('/alarms');
    expect(live.map((a) => `${a.dedupe_key} ${a.status}`)).toEqual(['definitions_broken:notes.yaml acknowledged']);

    mkdirSync(join(agent.home, 'Notes'));
    writeFileSync(file, `version: 1\nkind: folder\nname: Notes\nsource:\n  path: ${join(agent.home, 'Notes')}\n`);
    await expect(panel).toContainText('No alarms: nothing is failing.');
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
