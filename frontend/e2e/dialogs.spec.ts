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
