// The rules editor after a refused save: once the person changes the rule,
// the agent's old refusal goes away (the preview checks the rule as it
// now is); it stayed under the editor, saying the rule was still wrong.

import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent } from './agent';

test('a refused save stops being shown once the rule is changed', async ({ page }) => {
  const agent = await startAgent();
  try {
    mkdirSync(join(agent.home, 'Drop'));
    const sc = await agent.api<{ id: string }>('/scouts', {
      method: 'POST',
      body: JSON.stringify({ kind: 'folder', name: 'Drop', path: join(agent.home, 'Drop') }),
    });
    await agent.api(`/scouts/${sc.id}/rules`, {
      method: 'POST',
      body: JSON.stringify({ id: 'taken', when: { name: { contains: 'a' } }, then: { verdict: 'show' } }),
    });
    await page.goto(agent.link);
    await page.goto(agent.origin + `/#/rules/${sc.id}`);
    await page.getByRole('button', { name: 'Add a rule' }).click();
    const editor = page.getByRole('form', { name: 'New rule' });
    await editor.getByRole('button', { name: 'JSON' }).click();
    const text = editor.getByLabel(/The rule as JSON/);
    const rule = (id: string) => JSON.stringify({ id, when: { name: { contains: 'b' } }, then: { verdict: 'show' } }, null, 2);
    await text.fill(rule('taken'));
    await expect(editor.getByRole('region', { name: /What it would have done/ })).not.toHaveAttribute('aria-busy', 'true');
    await editor.getByRole('button', { name: 'Add rule' }).click();
    await expect(editor.getByRole('alert')).toContainText('already has a rule "taken"');

    await text.fill(rule('fresh'));
    await expect(editor.getByText(/Trying it on the latest items/)).toBeHidden();
    await expect(editor.getByRole('alert')).toBeHidden();
    await editor.getByRole('button', { name: 'Add rule' }).click();
    await expect(page.getByRole('list', { name: /Rules of Drop/ }).getByRole('listitem')).toHaveCount(2);
  } finally {
    await agent.stop();
  }
});
