// Dialogs against a real agent, used as a person does with a mouse: a
// text selected inside a dialog and released outside it must not close
// the dialog (and lose what was typed); a click on the backdrop still
// does.

import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent } from './agent';

test('selecting text in a dialog and letting go outside it keeps the dialog and its text', async ({ page }) => {
  const agent = await startAgent();
  try {
    mkdirSync(join(agent.home, 'Scans'));
    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/scouts');
    await page.getByRole('button', { name: 'Describe a scout' }).click();
    const dialog = page.getByRole('dialog', { name: 'Describe a scout' });
    await dialog.getByRole('button', { name: 'Files in ~/Scans become notes' }).click();
    const text = dialog.getByLabel('Definition (JSON; edit it if you like)');
    const edited = '{"version": 1, "kind": "folder", "name": "Edited by hand"}';
    await text.fill(edited);

    // Press in the text, drag out of the dialog, release on the backdrop.
    const box = (await text.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 10);
    await page.mouse.down();
    await page.mouse.move(3, 3, { steps: 4 });
    await page.mouse.up();
    await expect(dialog).toBeVisible();
    await expect(text).toHaveValue(edited);

    // A real click on the backdrop closes it.
    await page.mouse.click(3, 3);
    await expect(dialog).toBeHidden();
  } finally {
    await agent.stop();
  }
});

// "Describe a scout" creates a scout; an import matches a definition
// without id to a scout of the same name and kind, so Create used to
// rewrite the person's own "Scans" scout (its folder and rules) with the
// template's and say "Created".
test('Describe a scout never changes a scout that has the same name', async ({ page }) => {
  const agent = await startAgent();
  try {
    mkdirSync(join(agent.home, 'Scans'));
    mkdirSync(join(agent.home, 'Paper'));
    const mine = await agent.api<{ id: string }>('/scouts', {
      method: 'POST',
      body: JSON.stringify({ kind: 'folder', name: 'Scans', path: join(agent.home, 'Paper') }),
    });
    await agent.api(`/scouts/${mine.id}/rules`, {
      method: 'POST',
      body: JSON.stringify({ id: 'mine', when: { name: { contains: 'receipt' } }, then: { verdict: 'show', kind: 'task' } }),
    });

    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/scouts');
    await page.getByRole('button', { name: 'Describe a scout' }).click();
    const dialog = page.getByRole('dialog', { name: 'Describe a scout' });
    await dialog.getByRole('button', { name: 'Files in ~/Scans become notes' }).click();
    await dialog.getByRole('button', { name: 'Create scout' }).click();
    await expect(dialog.getByRole('alert')).toContainText('a scout named “Scans” already exists');
    await expect(dialog).toBeVisible();

    const scout = await agent.api<{ path: string }>(`/scouts/${mine.id}`);
    expect(scout.path).toBe(join(agent.home, 'Paper'));
    const rules = await agent.api<{ rules: { rule: { id: string } }[] }>(`/scouts/${mine.id}/rules`);
    expect(rules.rules.map((r) => r.rule.id)).toEqual(['mine']);
    expect((await agent.api<unknown[]>('/scouts')).length).toBe(1);
  } finally {
    await agent.stop();
  }
});
