// History → "Change in words" in a browser against a real agent and the
// fake model (bin/scouts-fakellm): "also archive the newsletters" on a
// scout is proposed as a diff (added lines green, removed red, the diff
// reachable by keyboard) with the risks it adds, and saved as a new
// version; another change is shown with its risk, discarded, and leaves
// the definition as it was.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent } from './agent';
import { startFakeModel } from './fakemodel';

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });

interface Version {
  version: number;
  note?: string;
  document: Record<string, unknown>;
}

test('the "Change in words" diff saved and rejected', async ({ page }) => {
  const model = await startFakeModel();
  const agent = await startAgent({ args: (root) => model.args(root) });
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    mkdirSync(join(agent.home, 'Docs'));
    const sc = await agent.api<{ id: string }>('/scouts', {
      method: 'POST',
      body: JSON.stringify({ kind: 'folder', path: join(agent.home, 'Docs'), name: 'Docs' }),
      headers: { 'Content-Type': 'application/json' },
    });
    const [v1] = await agent.api<Version[]>(`/scouts/${sc.id}/versions`);
    // The model answers as a model would: the whole definition, changed.
    const newsletters = {
      ...v1!.document,
      rules: [
        {
          id: 'newsletters',
          name: 'Archive the newsletters',
          when: { name: { contains: 'newsletter' } },
          then: { verdict: 'screen', actions: [{ action: 'file.move', params: { to: '~/Archive/Newsletters' } }] },
        },
      ],
      write_scope: { folders: ['~/Sorted/**', '~/Archive/Newsletters'] },
    };
    await model.script(JSON.stringify(newsletters));

    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/scouts');
    const card = page.getByRole('article', { name: 'Docs' });
    await card.getByRole('button', { name: 'History of Docs' }).click();
    const dialog = page.getByRole('dialog', { name: 'History of Docs' });
    await dialog.getByRole('button', { name: 'Change in words' }).click();
    const words = dialog.getByRole('region', { name: 'Change in words' });
    await words.getByLabel('What should change?').fill('also archive the newsletters');
    await words.getByRole('button', { name: 'Propose the change' }).click();
    await expect(words.getByRole('status')).toContainText('Valid: review the change');
    const diff = words.getByRole('region', { name: 'Proposed changes' });
    // The diff has the focus, to be read (and scrolled) from the keyboard.
    await expect(diff).toBeFocused();
    await expect(diff.locator('.line-add').filter({ hasText: '"id": "newsletters"' })).toBeVisible();
    await expect(diff.locator('.line-add').filter({ hasText: '~/Archive/Newsletters' }).first()).toContainText('added:');
    await expect(diff.locator('.line-remove')).toHaveCount(0);
    const risks = words.getByRole('region', { name: 'Risks it adds' });
    await expect(risks).toContainText('Wider write scope');
    await expect(risks).toContainText('may now move files into ~/Archive/Newsletters');
    await shot(page, 'change-in-words');
    // Nothing is saved before Save.
    expect((await agent.api<Version[]>(`/scouts/${sc.id}/versions`)).length).toBe(1);

    await words.getByRole('button', { name: 'Save' }).click();
    const v2 = dialog.getByRole('listitem', { name: 'Version 2', exact: true });
    await expect(v2).toContainText('Changed in words: “also archive the newsletters”');
    await expect(v2).toContainText('current');
    await expect(v2).toBeFocused();
    await expect(page.locator('.toast').filter({ hasText: 'Docs changed in words: now version 2' })).toBeVisible();
    const rules = await agent.api<{ rules: { rule: { id: string } }[] }>(`/scouts/${sc.id}/rules`);
    expect(rules.rules.map((r) => r.rule.id)).toEqual(['newsletters']);

    // A change that would create without asking: shown with its risk and
    // its removed line in red, then discarded — the definition stays.
    const [cur] = await agent.api<Version[]>(`/scouts/${sc.id}/versions`);
    await model.script(JSON.stringify({ ...cur!.document, review: false }));
    await dialog.getByRole('button', { name: 'Change in words' }).click();
    await words.getByLabel('What should change?').fill('stop asking me, just make the notes');
    await words.getByRole('button', { name: 'Propose the change' }).click();
    await expect(words.getByRole('status')).toContainText('Valid');
    await expect(diff.locator('.line-remove')).toHaveCount(1);
    await expect(diff.locator('.line-remove')).toContainText('removed: − "review": true,');
    await expect(diff.locator('.line-add')).toHaveCount(1);
    await expect(diff.locator('.line-add')).toContainText('added: + "review": false,');
    await expect(risks).toContainText('Auto-create');
    await words.getByRole('button', { name: 'Discard' }).click();
    await expect(diff).toBeHidden();
    await expect(words.getByLabel('What should change?')).toBeFocused();
    expect(await model.requests()).toBe(2);
    const after = await agent.api<Version[]>(`/scouts/${sc.id}/versions`);
    expect(after.length).toBe(2);
    expect((await agent.api<{ review: boolean }>(`/scouts/${sc.id}`)).review).toBe(true);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(card.getByRole('radio', { name: 'Review' })).toBeChecked();
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
    await model.stop();
  }
});
