// Settings → Secrets against a real agent with the encrypted file
// keyring: a secret is added with its value in a password field, listed by
// name only, and removed after a confirmation. The value is nowhere in the
// page, the agent's answers or its data files; the keyring holds it
// encrypted.

import { expect, test } from '@playwright/test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent } from './agent';

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...files(p));
    else if (st.isFile()) out.push(p); // not the agent's socket
  }
  return out;
}

test('Settings → Secrets: add by name and value, listed by name, removed after a confirmation', async ({ page }) => {
  process.env.SCOUTS_KEYRING_PASSPHRASE = 'ui e2e keyring passphrase';
  const agent = await startAgent({ args: () => ['--keyring', 'file'] });
  delete process.env.SCOUTS_KEYRING_PASSPHRASE;
  const value = 'PLANTED-ui-secret-9d2b7e';
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(agent.link);
    await page.keyboard.press('g');
    await page.keyboard.press(',');
    const panel = page.getByRole('region', { name: 'Secrets' });
    await expect(panel).toContainText('No secrets yet.');

    const name = panel.getByLabel('Secret name');
    const val = panel.getByLabel('Secret value');
    await expect(val).toHaveAttribute('type', 'password');
    await name.fill('bad name!');
    await val.fill(value);
    await panel.getByRole('button', { name: 'Add' }).click();
    await expect(panel.getByRole('alert')).toContainText('letters, digits, dots, dashes or underscores');
    expect((await agent.api<{ names: string[] }>('/secrets')).names).toEqual([]);

    await name.fill('crm-webhook-token');
    await panel.getByRole('button', { name: 'Add' }).click();
    await expect(panel.getByRole('status')).toContainText('crm-webhook-token is in this computer’s keyring');
    await expect(panel.getByRole('list', { name: 'Secrets' })).toHaveText(/crm-webhook-token/);
    await expect(val).toHaveValue('');
    expect((await agent.api<{ names: string[] }>('/secrets')).names).toEqual(['crm-webhook-token']);
    expect(await page.content()).not.toContain(value);
    for (const p of ['/secrets', '/status', '/scouts', '/settings', '/audit']) {
      expect(JSON.stringify(await agent.api(p)), p).not.toContain(value);
    }
    for (const f of files(agent.data)) {
      expect(readFileSync(f).includes(value), `${f} holds the value`).toBe(false);
    }
    expect(readdirSync(join(agent.data, 'keyring'))).toHaveLength(1);
    await shot('settings-secrets');

    await panel.getByRole('button', { name: 'Remove secret crm-webhook-token' }).click();
    await panel.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect(panel.getByRole('status')).toContainText('crm-webhook-token removed');
    await expect(panel).toContainText('No secrets yet.');
    expect((await agent.api<{ names: string[] }>('/secrets')).names).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
