// With a relay that cannot be reached, the page says so, and deciding
// still works: everything the desktop needs is local.

import { expect, test } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent } from './agent';

test('an unreachable relay shows the offline banner, and approving still works', async ({ page }) => {
  const agent = await startAgent({
    args: (root) => {
      const tok = join(root, 'device.token');
      writeFileSync(tok, 'dev_not-a-real-token\n', { mode: 0o600 });
      // Nothing listens on port 9 of this machine: the relay is "down".
      return ['--relay', 'http://127.0.0.1:9', '--device-token-file', tok];
    },
  });
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    mkdirSync(join(agent.home, 'Inbox'));
    await agent.api('/scouts', {
      method: 'POST',
      body: JSON.stringify({ kind: 'folder', path: join(agent.home, 'Inbox') }),
    });
    await page.goto(agent.link);

    const banner = page.getByRole('status').filter({ hasText: 'Offline: the relay is unreachable.' });
    await expect(banner).toContainText('Everything here keeps working');

    agent.drop('Inbox/call-bob.txt', 'Call Bob about the roof\n');
    await expect(page.getByRole('article', { name: 'Call Bob about the roof' })).toBeVisible();
    await page.keyboard.press('t');
    await expect(
      page.locator('.toast').filter({ hasText: 'Approved as task “Call Bob about the roof”' }),
    ).toBeVisible();
    await expect(page.getByRole('article')).toHaveCount(0);
    await page.screenshot({ path: join(ARTIFACTS, 'screenshots', 'relay-offline.png'), fullPage: true });

    await page.keyboard.press('g');
    await page.keyboard.press('a');
    await expect(page.getByText('Unreachable, retrying')).toBeVisible();
    await expect(page.getByText('http://127.0.0.1:9', { exact: true })).toBeVisible();
    await page.screenshot({ path: join(ARTIFACTS, 'screenshots', 'status-relay-offline.png'), fullPage: true });
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
