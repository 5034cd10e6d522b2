// The Settings view against a real agent: "Start Scouts when I log in"
// writes and removes the agent's XDG autostart entry under the test's HOME,
// quiet hours are checked as typed and survive a reload, and a login entry
// that cannot be written is reported, with the checkbox put back.

import { expect, test } from '@playwright/test';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Settings } from '../src/api/types';
import { ARTIFACTS, startAgent } from './agent';

test('settings: start at login writes and removes the autostart entry; quiet hours persist', async ({ page }) => {
  const agent = await startAgent();
  const shot = (name: string) =>
    page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
  const settings = () => agent.api<Settings>('/settings');
  const entry = join(agent.config, 'autostart', 'scouts.desktop');
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(agent.link);
    await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();

    // g , opens Settings from anywhere, like the other views' g shortcuts.
    await page.keyboard.press('g');
    await page.keyboard.press(',');
    await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeFocused();
    await expect(page.getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page');
    const autostart = page.getByRole('checkbox', { name: 'Start Scouts when I log in' });
    const notify = page.getByRole('checkbox', { name: 'Notify me of new suggestions' });
    await expect(autostart).not.toBeChecked();
    await expect(notify).toBeChecked();
    expect(existsSync(entry)).toBe(false);

    // On, from the keyboard: Tab from the heading, Space.
    await page.keyboard.press('Tab');
    await expect(autostart).toBeFocused();
    await page.keyboard.press('Space');
    const desktop = page.getByRole('region', { name: 'Desktop' });
    await expect(desktop.locator('.save-state')).toHaveText('✓ Saved');
    await expect(autostart).toBeChecked();
    expect((await settings()).autostart).toBe(true);
    const written = readFileSync(entry, 'utf8');
    expect(written).toContain('[Desktop Entry]');
    expect(written).toContain(`X-Scouts-Data=${agent.data}`);

    await autostart.click();
    await expect(autostart).not.toBeChecked();
    await expect.poll(async () => (await settings()).autostart).toBe(false);
    await expect(desktop.locator('.save-state')).toHaveText('✓ Saved');
    expect(existsSync(entry)).toBe(false);

    // Quiet hours: a first choice is saved, an impossible one is refused as
    // typed, then 22:00 until 07:00 (across midnight).
    await page.getByRole('checkbox', { name: /^Quiet hours/ }).check();
    const from = page.getByLabel('From', { exact: true });
    const until = page.getByLabel('Until', { exact: true });
    await from.fill('21:00');
    await until.fill('07:00');
    await expect.poll(async () => (await settings()).quiet_hours).toEqual({ start: '21:00', end: '07:00' });
    await from.fill('07:00');
    await expect(page.getByText('The start and the end are the same time')).toBeVisible();
    await expect(from).toHaveAttribute('aria-invalid', 'true');
    await from.fill('22:00');
    await expect(page.getByText('The start and the end are the same time')).toHaveCount(0);
    await expect(page.getByText('No notifications from 22:00 until 07:00 the next morning.')).toBeVisible();
    await expect.poll(async () => (await settings()).quiet_hours).toEqual({ start: '22:00', end: '07:00' });
    await shot('settings');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('settings-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.reload();
    await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
    await expect(page.getByRole('checkbox', { name: /^Quiet hours/ })).toBeChecked();
    await expect(from).toHaveValue('22:00');
    await expect(until).toHaveValue('07:00');
    await expect(autostart).not.toBeChecked();
    expect(await settings()).toEqual({ notifications: true, autostart: false, quiet_hours: { start: '22:00', end: '07:00' } });

    // A file where the autostart folder should be: the agent answers 503,
    // the page says why and how to fix it, and the checkbox goes back.
    rmSync(join(agent.config, 'autostart'), { recursive: true, force: true });
    writeFileSync(join(agent.config, 'autostart'), 'not a folder\n');
    await autostart.click();
    await expect(page.getByRole('alert').filter({ hasText: 'Could not add Scouts to the programs that start at login' }))
      .toContainText('not a directory. Check that the autostart folder');
    await expect(autostart).not.toBeChecked();
    expect((await settings()).autostart).toBe(false);
    await shot('settings-error');
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
