// A scout its definitions file manages, changed in the window beyond its
// card's switches: a rule added in the rules editor, a rule switched off
// in the list and its learning thresholds are each refused by the agent
// (409), the window says so with "Write to scans.json", and that makes the
// change and writes it to the file (?write_file=true). The card's own
// switches are in definitions.spec.ts.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent } from './agent';

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });

interface FileDef {
  rules?: Array<{ id: string; enabled?: boolean }>;
  learning?: { cold_start: number };
}

test('the rules editor, the rules list and the learning thresholds offer to write the file', async ({ page }) => {
  const agent = await startAgent();
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const defs = join(agent.config, 'scouts', 'scouts.d');
    mkdirSync(defs, { recursive: true });
    mkdirSync(join(agent.home, 'Scans'));
    const file = join(defs, 'scans.json');
    writeFileSync(file, JSON.stringify({ version: 1, kind: 'folder', name: 'Scans', source: { path: join(agent.home, 'Scans') } }));
    const inFile = () => JSON.parse(readFileSync(file, 'utf8')) as FileDef;

    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/scouts');
    const card = page.getByRole('article', { name: 'Scans' });
    await expect(card).toContainText('Managed by the definitions file scans.json');

    // The learning thresholds: refused, the form keeps the value and
    // offers to write it; written, the file and the agent hold it.
    const learning = page.getByRole('region', { name: 'Scans: learning' });
    await learning.getByLabel('Learn from').fill('12');
    await learning.getByRole('button', { name: 'Save thresholds' }).click();
    const learnOffer = learning.getByRole('alert');
    await expect(learnOffer).toContainText('Not changed: the definitions file scans.json decides scout “Scans”');
    await expect(learning.getByLabel('Learn from')).toHaveValue('12');
    expect(inFile().learning?.cold_start).not.toBe(12);
    await shot(page, 'managed-learning-offer');
    await learnOffer.getByRole('button', { name: 'Write to scans.json' }).click();
    await expect(learnOffer).toHaveCount(0);
    await expect.poll(() => inFile().learning?.cold_start).toBe(12);
    const scouts = await agent.api<{ id: string; name: string }[]>('/scouts');
    const id = scouts.find((s) => s.name === 'Scans')!.id;
    expect((await agent.api<{ settings: { cold_start: number } }>(`/scouts/${id}/learning`)).settings.cold_start).toBe(12);

    // A rule added in the editor: refused under the editor, then written.
    await card.getByRole('link', { name: 'Rules of Scans' }).click();
    await page.getByRole('button', { name: 'Add a rule' }).click();
    const editor = page.getByRole('form', { name: 'New rule' });
    await editor.getByLabel('Id', { exact: true }).fill('pdfs');
    const cond = editor.getByRole('group', { name: 'Condition 1' });
    await cond.getByLabel('Field').selectOption('ext');
    await cond.getByLabel('Operator').selectOption('equals');
    await cond.getByLabel('Value').fill('pdf');
    await editor.getByRole('button', { name: 'Add rule' }).click();
    const ruleOffer = editor.getByRole('alert').filter({ hasText: 'the definitions file scans.json decides' });
    await expect(ruleOffer).toBeVisible();
    expect(inFile().rules ?? []).toEqual([]);
    await shot(page, 'managed-rule-offer');
    await ruleOffer.getByRole('button', { name: 'Write to scans.json' }).click();
    const rules = page.getByRole('list', { name: /Rules of Scans/ });
    await expect(rules.getByRole('listitem', { name: 'Rule pdfs' })).toBeVisible();
    await expect.poll(() => inFile().rules?.map((r) => r.id)).toEqual(['pdfs']);

    // Switched off in the list: the toast offers it, as on the card.
    await page.getByRole('switch', { name: 'pdfs: on' }).click();
    const toast = page.locator('.toast').filter({ hasText: 'the definitions file scans.json decides scout “Scans”' });
    await expect(toast).toBeVisible();
    await expect(page.getByRole('switch', { name: 'pdfs: on' })).toBeChecked();
    await toast.getByRole('button', { name: 'Write to scans.json' }).click();
    await expect(page.getByRole('switch', { name: 'pdfs: on' })).not.toBeChecked();
    await expect.poll(() => inFile().rules?.[0]?.enabled).toBe(false);

    // Still the file's scout, with what the window wrote.
    await page.goto(agent.origin + '/#/scouts');
    await expect(card).toContainText('Managed by the definitions file scans.json');
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
