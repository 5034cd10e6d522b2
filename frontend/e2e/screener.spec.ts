// The screener, as a person meets it in a browser against a real agent: the
// first card from a new folder of a folder scout offers two keys, always
// show and always screen; pressing one settles the folder's waiting cards,
// the next file from it is screened with a why line naming the screener,
// and the rule it wrote is in the scout's rules editor, first, like any
// other rule. Screenshots go to test-artifacts/screenshots/.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent, type Agent } from './agent';

test.describe.configure({ mode: 'serial' });

interface Suggestion {
  id: string;
  title: string;
  status: string;
  lane: string;
  path?: string;
  screener_offer?: { of: string; value: string };
  screener?: { rule_id: string; why: string };
}

let agent: Agent;
let page: Page;
let scoutId = '';
const pageErrors: string[] = [];

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
const card = (title: string) => page.getByRole('article', { name: title });
const lane = (name: string) => page.getByRole('navigation', { name: 'Lanes' }).getByRole('link', { name: new RegExp(`^${name}`) });

/** Polls the agent until check finds what it waits for. */
async function until<T>(what: string, get: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await get();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const all = () => agent.api<Suggestion[]>('/suggestions?status=all&limit=1000');
const post = (path: string, body: unknown = {}) =>
  agent.api(path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });

test.beforeAll(async ({ browser }) => {
  agent = await startAgent();
  const drop = join(agent.home, 'Drop');
  for (const sub of ['news', 'bills']) mkdirSync(join(drop, sub), { recursive: true });
  writeFileSync(join(drop, 'news', 'digest-1.md'), '# Weekly digest 1\n\nTen links you might like this week.\n');
  writeFileSync(join(drop, 'news', 'digest-2.md'), '# Weekly digest 2\n\nTen more links you might like.\n');
  writeFileSync(join(drop, 'bills', 'invoice-1.md'), '# Invoice 1 from ACME\n\nPlease pay invoice 1.\n');
  const sc = await post('/scouts', { kind: 'folder', path: drop, include_existing: true });
  scoutId = (sc as { id: string }).id;
  await until('the first cards', all, (l) => l.length === 3);
  page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

test.afterEach(() => {
  expect(pageErrors, 'uncaught errors in the page').toEqual([]);
});

test.afterAll(async () => {
  await page?.close();
  await agent?.stop();
});

test('the first card from a new folder offers the two keys; one settles the folder', async () => {
  await page.goto(agent.link);
  await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  const cards = await all();
  const first = cards.find((c) => c.screener_offer && c.path!.includes('/news/'))!;
  const second = cards.find((c) => c.path!.includes('/news/') && c.id !== first.id)!;
  expect(first.screener_offer!.of).toBe('folder');

  const keys = card(first.title).getByRole('group', { name: /^New folder: / });
  await expect(keys.getByRole('button', { name: 'Always show this folder' })).toBeVisible();
  await expect(keys.getByRole('button', { name: 'Always screen this folder' })).toBeVisible();
  await expect(card(first.title)).toContainText('−');
  // Only the first card from the folder offers them.
  await expect(card(second.title).getByRole('button', { name: 'Always screen this folder' })).toHaveCount(0);
  await shot('screener-keys');

  // The key by keyboard, on the first card: "-" always screens.
  await card(first.title).click();
  await page.keyboard.press('-');
  await expect(page.locator('.toast').filter({ hasText: /^Always screened: folder .*news\/ \(2 cards rejected in Screened\)/ })).toBeVisible();
  await expect(card(first.title)).toHaveCount(0);
  await expect(card(second.title)).toHaveCount(0);
  const after = await all();
  for (const c of after.filter((c) => c.path!.includes('/news/'))) {
    expect([c.status, c.lane]).toEqual(['rejected', 'screened']);
  }
});

test('the next file from the folder is screened, its why line naming the screener', async () => {
  agent.drop('Drop/news/digest-3.md', '# Weekly digest 3\n\nYet more links.\n');
  await expect(lane('Screened')).toHaveText('Screened (1)');
  await lane('Screened').click();
  const next = card('Weekly digest 3');
  await expect(next.locator('.card-reason')).toContainText(/Why: you screened this folder on \d{1,2} [A-Z][a-z]{2}/);
  await shot('screener-why');
});

test('the rule is in the scout’s rules editor, first', async () => {
  const list = await agent.api<{ rules: { rule: { id: string } }[] }>(`/scouts/${scoutId}/rules`);
  const id = list.rules[0]!.rule.id;
  expect(id).toMatch(/^screener-screen-folder-\d{8}-[0-9a-f]{8}$/);
  await page.goto(agent.origin + `/#/rules/${scoutId}`);
  const rules = page.getByRole('list', { name: /Rules of Drop/ });
  const first = rules.getByRole('listitem').first();
  await expect(first).toHaveAccessibleName(`Rule ${id}`);
  await expect(first).toContainText('Screener: always screen folder');
  await expect(first).toContainText('news/');
  await expect(first).toContainText('Screened');
  await shot('screener-rule');
});
