// Chaining scouts (issue 20, item 3): the Scouts view draws the graph of
// scouts — a chain scout after the folder scout whose events it runs on —
// and a scout saved into a loop is refused naming it, the loop drawn in
// red on the graph: a folder scout that would move files into the folder
// Sorter watches, where Sorter moves its files.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Scout, Suggestion } from '../src/api/types';
import { ARTIFACTS, startAgent } from './agent';

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

test('a refused loop of scouts, drawn in red on the graph', async ({ page }) => {
  const agent = await startAgent();
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    for (const d of ['Drop', 'Filed', 'Scans']) mkdirSync(join(agent.home, d));
    await agent.api<Scout>(
      '/scouts',
      json('POST', { kind: 'folder', name: 'Sorter', path: join(agent.home, 'Drop'), write_scope: { folders: ['~/Filed/**'] } }),
    );
    await agent.api<Scout>(
      '/scouts',
      json('POST', { kind: 'chain', name: 'Follow-ups', config: { on: { scout: 'Sorter', event: 'entity.created' } } }),
    );

    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/scouts');
    const graph = page.getByRole('region', { name: 'How scouts lead to one another' });
    await expect(graph.getByRole('list', { name: 'Arrows of the graph' })).toContainText('Sorter → Follow-ups: on entity.created');
    await expect(graph.getByRole('img', { name: /^Follow-ups \(chain\), after Sorter$/ })).toBeVisible();
    await expect(graph.locator('path.graph-edge.cycle')).toHaveCount(0);
    // The chain scout has no runs of its own: its card says what it runs
    // on, not "Starting" for ever.
    const chainCard = page.getByRole('article', { name: 'Follow-ups' });
    await expect(chainCard).toContainText('Runs on entity.created of Sorter · no item yet');
    await expect(chainCard.locator('.badge')).toHaveText('Working');
    // Each box is a stop of the Tab key.
    await graph.getByRole('img', { name: /^Sorter/ }).focus();
    await page.keyboard.press('Tab');
    await expect(graph.getByRole('img', { name: /^Follow-ups/ })).toBeFocused();

    // A folder scout over ~/Filed that moves files into ~/Drop: Sorter
    // moves its files into ~/Filed, so each would feed the other.
    await page.getByRole('button', { name: 'Describe a scout' }).click();
    const dialog = page.getByRole('dialog', { name: 'Describe a scout' });
    await dialog.getByRole('button', { name: 'Files in ~/Scans become notes' }).click();
    const filer = {
      version: 1,
      kind: 'folder',
      name: 'Filer',
      enabled: true,
      review: true,
      source: { path: join(agent.home, 'Filed') },
      write_scope: { folders: ['~/Drop/**'] },
    };
    await dialog.getByLabel('Definition (JSON; edit it if you like)').fill(JSON.stringify(filer, null, 2));
    await dialog.getByRole('button', { name: 'Check again' }).click();
    await expect(dialog.getByRole('status')).toContainText('Valid');
    await dialog.getByRole('button', { name: 'Create scout' }).click();
    await expect(dialog).toContainText('Not created.');
    await expect(dialog).toContainText('would make a loop of scouts: Filer → Sorter → Filer');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(graph.getByRole('alert')).toContainText('Loop: Filer → Sorter → Filer (refused)');
    const red = graph.locator('path.graph-edge.cycle');
    await expect(red).toHaveCount(2);
    await expect(red.first()).toHaveCSS('stroke', 'rgb(201, 42, 42)');
    await expect(graph.getByRole('img', { name: /^Filer .*on a loop$/ })).toBeVisible();
    await graph.scrollIntoViewIfNeeded();
    await shot(page, 'scout-graph-refused-loop');
    expect((await agent.api<Scout[]>('/scouts')).map((s) => s.name).sort()).toEqual(['Follow-ups', 'Sorter']);

    // A card of Sorter approved as a task is an entity.created: the chain
    // scout's card says its item has come.
    agent.drop('Drop/invoice.md', '# Invoice 7\n\nPlease pay 40 EUR.\n');
    const sorterCard = page.getByRole('article', { name: 'Invoice 7' });
    await page.goto(agent.origin + '/#/inbox');
    await expect(sorterCard).toBeVisible();
    const [card] = await agent.api<Suggestion[]>('/suggestions?status=pending&limit=10');
    await agent.api('/suggestions/' + card!.id + '/approve', json('POST', { as: 'task' }));
    await page.goto(agent.origin + '/#/scouts');
    await expect(chainCard).toContainText('Runs on entity.created of Sorter · last item just now');
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
