// The Gmail scout form against a real agent started without a Google OAuth
// client: the form says exactly what to configure instead of failing later,
// and offers no relay modes without a relay.

import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { ARTIFACTS, startAgent } from './agent';

test('adding a Gmail scout on an agent without a Google client says how to set one up', async ({ page }) => {
  const agent = await startAgent();
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(agent.link);
    await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
    await page.goto(agent.link.replace(/\?.*$/, '') + '#/scouts');
    await expect(page.getByRole('heading', { name: 'Scouts', level: 1 })).toBeVisible();
    await page.getByRole('button', { name: 'Add a Gmail scout' }).click();
    const form = page.getByRole('form', { name: 'Add a Gmail scout' });
    await expect(form.getByRole('alert')).toContainText('--google-client-id');
    await expect(form.getByRole('alert')).not.toContainText('Try again');
    await expect(form.getByRole('radio', { name: /On this computer only/ })).toBeChecked();
    await expect(form.getByRole('radio', { name: /Relay judges while you are away/ })).toBeDisabled();
    await expect(form.getByRole('button', { name: 'Add Gmail scout' })).toBeDisabled();
    await page.screenshot({ path: join(ARTIFACTS, 'screenshots', 'scouts-add-gmail-unconfigured.png'), fullPage: true });
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('button', { name: 'Add a Gmail scout' })).toBeVisible();
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
