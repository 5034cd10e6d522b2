// The scope on a scout: the rules view of a folder scout shows where its
// actions may write beside the actions its rules propose — the default,
// ~/Sorted/**, then the scope its definition sets, live — and a card whose
// rule moves a file out of it shows the refusal on its trail, naming the
// scope.

import { expect, test, type Page } from '@playwright/test';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Scout } from '../src/api/types';
import { ARTIFACTS, startAgent } from './agent';

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

test('the scope on a scout', async ({ page }) => {
  const agent = await startAgent();
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    for (const d of ['Drop', '.ssh', 'Sorted']) mkdirSync(join(agent.home, d));
    const scout = await agent.api<Scout>('/scouts', json('POST', { kind: 'folder', name: 'Drop', path: join(agent.home, 'Drop') }));
    await agent.api(
      `/scouts/${scout.id}/rules`,
      json('POST', {
        id: 'sort',
        when: { name: { exists: true } },
        then: { verdict: 'show', actions: [{ action: 'file.move', params: { to: '~/{{.text | trim}}' } }] },
      }),
    );
    await agent.api('/policies', json('PUT', { global: { 'file.move': 'allow' } }));

    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/scouts');
    await page.getByRole('article', { name: 'Drop' }).getByRole('link', { name: 'Rules of Drop' }).click();
    const scope = page.getByRole('region', { name: 'Drop: write scope' });
    await expect(scope).toContainText('Moves files into ~/Sorted/** (the default for a folder scout)');
    await expect(scope).toContainText('Posts to localhost, 127.0.0.1, ::1 (the default: this computer only)');
    await expect(page.getByRole('list', { name: /Rules of Drop/ }).getByRole('listitem', { name: 'Rule sort' })).toContainText('file.move');
    await shot(page, 'write-scope-default');

    // A file whose text names ~/.ssh: refused when planned, the file
    // stays, and the card's page shows the refusal naming the scope.
    const tmp = join(tmpdir(), `keys-${Date.now()}.txt`);
    writeFileSync(tmp, '.ssh\n');
    renameSync(tmp, join(agent.home, 'Drop', 'keys.txt'));
    let id = '';
    await expect
      .poll(async () => {
        const list = await agent.api<{ id: string; path?: string }[]>(`/suggestions?scout_id=${scout.id}`);
        id = list.find((c) => c.path?.endsWith('keys.txt'))?.id ?? '';
        return id;
      })
      .not.toBe('');
    await page.goto(agent.origin + `/#/suggestion/${id}`);
    await expect(page.getByText("~/.ssh is outside the scout's write scope [~/Sorted/**] (the default)").first()).toBeVisible();
    expect(existsSync(join(agent.home, 'Drop', 'keys.txt'))).toBe(true);
    await shot(page, 'write-scope-refused');

    // The scope set on the scout shows at once in its rules view.
    await agent.api(`/scouts/${scout.id}`, json('PATCH', { write_scope: { folders: ['~/Sorted/bills', '~/Archive/**'], hosts: [] } }));
    await page.goto(agent.origin + `/#/scouts`);
    await page.getByRole('article', { name: 'Drop' }).getByRole('link', { name: 'Rules of Drop' }).click();
    await expect(scope).toContainText('Moves files into ~/Sorted/bills, ~/Archive/** (set in its definition)');
    await expect(scope).toContainText('Posts to nothing (set in its definition)');
    await shot(page, 'write-scope-set');
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
