// The title a categorisation model proposes, in a browser against a real
// agent and the fake model (bin/scouts-fakellm): the card keeps the file's
// own title, the approve dialog offers the model's, and the task gets it
// only when the person uses it.

import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Scout, Suggestion } from '../src/api/types';
import { ARTIFACTS, startAgent } from './agent';
import { startFakeModel } from './fakemodel';

test('the approve dialog offers the model’s title; the task gets it when used', async ({ page }) => {
  const model = await startFakeModel();
  const agent = await startAgent({ args: (root) => model.args(root) });
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    mkdirSync(join(agent.home, 'Drop'));
    await agent.api<Scout>('/scouts', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ kind: 'folder', name: 'Drop', path: join(agent.home, 'Drop') }),
    });
    // The model answers at once, without looking anything up.
    await model.script(
      JSON.stringify({ kind: 'task', title: 'Send the homepage copy', due: null, starts_at: null, ends_at: null, project_id: null }),
    );
    await page.goto(agent.link);
    agent.drop('Drop/copy.md', '# Homepage copy for the relaunch\n\nCould you send the homepage copy by Friday?\n');

    const card = page.getByRole('article', { name: 'Homepage copy for the relaunch' });
    await expect(card).toBeVisible();
    const sg = (await agent.api<Suggestion[]>('/suggestions?status=all')).find((s) => s.title === 'Homepage copy for the relaunch')!;
    expect(sg.assessment?.proposed_title).toBe('Send the homepage copy');

    await card.click({ position: { x: 300, y: 12 } });
    await card.getByRole('button', { name: 'Edit, then approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve “Homepage copy for the relaunch”' });
    const title = dialog.getByRole('textbox', { name: 'Title' });
    await expect(title).toHaveValue('Homepage copy for the relaunch');
    const offer = dialog.locator('.title-offer');
    await expect(offer).toHaveText(/The model proposes the title “Send the homepage copy”\./);
    await page.screenshot({ path: join(ARTIFACTS, 'screenshots', 'approve-proposed-title.png'), fullPage: true });
    await offer.getByRole('button', { name: 'Use it' }).click();
    await expect(title).toHaveValue('Send the homepage copy');
    await expect(offer).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Approve once as task' }).click();
    await expect(dialog).toHaveCount(0);

    const tasks = await agent.api<{ title: string; source_suggestion_id?: string }[]>('/tasks');
    expect(tasks.filter((t) => t.source_suggestion_id === sg.id).map((t) => t.title)).toEqual(['Send the homepage copy']);
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
    await model.stop();
  }
});
