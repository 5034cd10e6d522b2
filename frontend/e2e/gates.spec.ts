// A scout's gates in the window (issue 20): the Scouts view shows the
// cooldown, the cap of posts an hour and the quiet hours in force, the
// defaults included, and changes them with the learner's thresholds; they
// stay after a reload, and quiet hours given by halves are explained
// before asking the agent.

import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Learning, Scout } from '../src/api/types';
import { ARTIFACTS, startAgent } from './agent';

test('the gates of a scout are shown, changed and kept', async ({ page }) => {
  const agent = await startAgent();
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    mkdirSync(join(agent.home, 'Drop'));
    const sc = await agent.api<Scout>('/scouts', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ kind: 'folder', name: 'Drop', path: join(agent.home, 'Drop') }),
    });
    const settings = async () => (await agent.api<Learning>(`/scouts/${sc.id}/learning`)).settings;

    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/scouts');
    const learning = page.getByRole('region', { name: 'Drop: learning' });
    // The defaults, as in force.
    await expect(learning.getByLabel('Cooldown')).toHaveValue('5');
    await expect(learning.getByLabel('Posts an hour')).toHaveValue('30');
    await expect(learning.getByLabel('Quiet from')).toHaveValue('');
    await expect(learning.getByLabel('Quiet to')).toHaveValue('');

    // Half of the quiet hours is explained, and nothing is asked.
    await learning.getByLabel('Quiet from').fill('22:00');
    await learning.getByRole('button', { name: 'Save thresholds' }).click();
    await expect(learning.getByRole('alert')).toHaveText('Quiet hours: give both times, from and to, or neither.');
    expect((await settings()).quiet_start).toBe('');

    await learning.getByLabel('Cooldown').fill('2');
    await learning.getByLabel('Posts an hour').fill('5');
    await learning.getByLabel('Quiet to').fill('07:00');
    await learning.getByRole('button', { name: 'Save thresholds' }).click();
    await expect(learning.getByRole('button', { name: 'Save thresholds' })).toBeDisabled();
    expect(await settings()).toMatchObject({ cooldown_seconds: 120, notify_per_hour: 5, quiet_start: '22:00', quiet_end: '07:00' });

    await page.reload();
    await expect(learning.getByLabel('Cooldown')).toHaveValue('2');
    await expect(learning.getByLabel('Posts an hour')).toHaveValue('5');
    await expect(learning.getByLabel('Quiet from')).toHaveValue('22:00');
    await expect(learning.getByLabel('Quiet to')).toHaveValue('07:00');
    await learning.screenshot({ path: join(ARTIFACTS, 'screenshots', 'scouts-gates.png') });

    // No quiet hours again, by keyboard.
    await learning.getByRole('button', { name: 'No quiet hours' }).focus();
    await page.keyboard.press('Enter');
    await learning.getByRole('button', { name: 'Save thresholds' }).click();
    await expect(learning.getByRole('button', { name: 'Save thresholds' })).toBeDisabled();
    expect(await settings()).toMatchObject({ cooldown_seconds: 120, notify_per_hour: 5, quiet_start: '', quiet_end: '' });
    await page.reload();
    await expect(learning.getByLabel('Quiet from')).toHaveValue('');
    await expect(learning.getByLabel('Cooldown')).toHaveValue('2');
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
