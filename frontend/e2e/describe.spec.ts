// "Describe a scout" in a browser against a real agent: without a model
// the dialog says so and offers the templates (one is created); with the
// fake model (bin/scouts-fakellm) a dangerous draft shows its risk flags,
// is edited, checked again and created; an invalid draft says why and
// creates nothing.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent } from './agent';
import { startFakeModel } from './fakemodel';

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });

test('without a model the dialog offers the templates, and one becomes a scout', async ({ page }) => {
  const agent = await startAgent();
  try {
    mkdirSync(join(agent.home, 'Scans'));
    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/scouts');
    await page.getByRole('button', { name: 'Describe a scout' }).click();
    const dialog = page.getByRole('dialog', { name: 'Describe a scout' });
    await expect(dialog.getByRole('status')).toContainText('No model is configured');
    await dialog.getByRole('button', { name: 'Files in ~/Scans become notes' }).click();
    await expect(dialog.getByRole('status')).toContainText('Valid: the agent can create this scout.');
    await expect(dialog.getByLabel('What it will do')).toContainText(`Watches the folder ${join(agent.home, 'Scans')}`);
    await dialog.getByRole('button', { name: 'Create scout' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('article', { name: 'Scans' })).toBeVisible();
  } finally {
    await agent.stop();
  }
});

test('a drafted scout shows its risks, is edited, checked again and created', async ({ page }) => {
  const model = await startFakeModel();
  const agent = await startAgent({ args: (root) => model.args(root) });
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    mkdirSync(join(agent.home, 'Inbox'));
    // The model drafts a scout over the whole home folder, every file,
    // creating without asking; then one of a kind that does not exist.
    const risky = {
      version: 1,
      kind: 'folder',
      name: 'Everything',
      enabled: true,
      review: false,
      source: { path: agent.home, include: ['**/*'] },
    };
    await model.script(JSON.stringify(risky), JSON.stringify({ version: 1, kind: 'ftp', name: 'Files' }));

    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/scouts');
    await page.getByRole('button', { name: 'Describe a scout' }).click();
    const dialog = page.getByRole('dialog', { name: 'Describe a scout' });
    await dialog.getByLabel('What should the scout do?').fill('everything in my home folder becomes notes, no questions');
    await dialog.getByRole('button', { name: 'Draft the scout' }).click();
    await expect(dialog.getByRole('status')).toContainText('Valid: the agent can create this scout.');
    const risks = dialog.getByLabel('Risks');
    await expect(risks).toContainText('Auto-create');
    await expect(risks).toContainText('Broad folder');
    await expect(risks).toContainText('Broad pattern');
    await expect(dialog).toContainText('the model used');
    await shot(page, 'describe-risky-draft');
    expect(await model.requests()).toBe(1);

    // A folder that is not there yet: the check says so before Create
    // would refuse it.
    const elsewhere = { ...risky, review: true, source: { path: join(agent.home, 'Receipts') } };
    await dialog.getByLabel('Definition (JSON; edit it if you like)').fill(JSON.stringify(elsewhere, null, 2));
    await dialog.getByRole('button', { name: 'Check again' }).click();
    await expect(dialog.getByRole('status')).toContainText('Valid, but its folder does not exist yet');
    await expect(dialog.getByLabel('Risks')).toContainText('Missing folder');
    await expect(dialog.getByLabel('Risks')).toContainText('Receipts does not exist yet');

    // Made safe by hand: review, a folder of its own, no glob.
    const safe = { ...risky, name: 'Inbox notes', review: true, source: { path: join(agent.home, 'Inbox') } };
    await dialog.getByLabel('Definition (JSON; edit it if you like)').fill(JSON.stringify(safe, null, 2));
    await expect(dialog.getByRole('button', { name: 'Create scout' })).toBeHidden();
    await dialog.getByRole('button', { name: 'Check again' }).click();
    await expect(dialog.getByRole('status')).toContainText('Valid');
    await expect(dialog).toContainText('Nothing risky found.');
    await expect(dialog.getByLabel('Risks')).toBeHidden();
    expect((await agent.api<unknown[]>('/scouts')).length).toBe(0);
    await dialog.getByRole('button', { name: 'Create scout' }).click();
    await expect(dialog).toBeHidden();
    const card = page.getByRole('article', { name: 'Inbox notes' });
    await expect(card).toBeVisible();
    await expect(card.getByRole('radio', { name: 'Review' })).toBeChecked();

    // An invalid draft: why, and no Create.
    await page.getByRole('button', { name: 'Describe a scout' }).click();
    await dialog.getByLabel('What should the scout do?').fill('watch my ftp server');
    await dialog.getByRole('button', { name: 'Draft the scout' }).click();
    await expect(dialog.getByRole('alert')).toContainText('Not valid');
    await expect(dialog.getByRole('alert')).toContainText('kind');
    await expect(dialog.getByRole('button', { name: 'Create scout' })).toBeDisabled();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    expect((await agent.api<{ name: string }[]>('/scouts')).map((s) => s.name)).toEqual(['Inbox notes']);
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
    await model.stop();
  }
});
