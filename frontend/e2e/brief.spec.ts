// The daily brief page, against a real agent: a folder the person screened
// (the screener's key) files a new receipt in Screened; the Brief page
// lists it under Screened, and b on it (or its button) brings it back to
// the inbox. A broken definitions file's alarm is listed in the brief, and
// Settings sets the brief's time of day or turns it off.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent, type Agent } from './agent';

test.describe.configure({ mode: 'serial' });

interface Suggestion {
  id: string;
  title: string;
  lane: string;
  status: string;
  path?: string;
}

let agent: Agent;
let page: Page;
const pageErrors: string[] = [];

const post = (path: string, body: unknown = {}) =>
  agent.api(path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });

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

test.beforeAll(async ({ browser }) => {
  agent = await startAgent();
  const drop = join(agent.home, 'Drop');
  mkdirSync(join(drop, 'receipts'), { recursive: true });
  const sc = (await post('/scouts', { kind: 'folder', path: drop })) as { id: string };
  const put = (name: string, text: string) => {
    const tmp = join(agent.home, name.replace('/', '-'));
    writeFileSync(tmp, text);
    renameSync(tmp, join(drop, name));
  };
  put('receipts/first.md', '# Receipt one\n\nThanks for your order.\n');
  const all = () => agent.api<Suggestion[]>(`/suggestions?status=all&scout_id=${sc.id}`);
  const first = (await until('the first receipt', all, (l) => l.length === 1))[0]!;
  await post(`/suggestions/${first.id}/screen-sender`, { choice: 'screen' });
  put('receipts/second.md', '# Receipt two\n\nThanks for your order.\n');
  const second = await until('the second receipt, screened', all, (l) =>
    l.some((s) => s.title === 'Receipt two' && s.lane === 'screened' && s.status === 'pending'),
  );
  expect(second.length).toBe(2);
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

test('the Brief page lists what was screened since the last brief, and b brings it back', async () => {
  await page.goto(agent.link);
  await page.keyboard.press('g');
  await page.keyboard.press('b');
  await expect(page.getByRole('heading', { name: 'Daily brief', level: 1 })).toBeVisible();
  const screened = page.getByRole('region', { name: 'Screened' });
  await expect(screened.getByRole('heading')).toContainText('(1)');
  const row = screened.getByRole('listitem', { name: 'Receipt two' });
  await expect(row).toBeVisible();
  await page.screenshot({ path: join(ARTIFACTS, 'screenshots', 'brief.png'), fullPage: true });
  await row.focus();
  await page.keyboard.press('b');
  await expect(row).toBeHidden();
  await expect(screened.getByRole('heading')).toContainText('(0)');
  await expect(page.getByRole('region', { name: 'Inbox' }).getByRole('link', { name: 'Receipt two' })).toBeVisible();
  const back = await agent.api<Suggestion[]>('/suggestions?status=pending&lane=inbox');
  expect(back.map((s) => s.title)).toContain('Receipt two');
});

test('the Brief page lists the alarms still open', async () => {
  const defs = join(agent.config, 'scouts', 'scouts.d');
  mkdirSync(defs, { recursive: true });
  writeFileSync(join(defs, 'notes.yaml'), 'version: 1\nkind: folder\nname: [broken\n');
  await until('the definitions alarm', () => agent.api<Array<{ dedupe_key: string }>>('/alarms'), (l) =>
    l.some((a) => a.dedupe_key === 'definitions_broken:notes.yaml'),
  );
  // Opened anew (from the inbox, g b), the page reads the brief again.
  await page.goto(agent.origin + '/#/inbox');
  await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  await page.keyboard.press('g');
  await page.keyboard.press('b');
  const alarms = page.getByRole('region', { name: 'Alarms' });
  await expect(alarms.getByRole('heading')).toContainText('(1)');
  await expect(alarms.locator('[data-alarm="definitions_broken:notes.yaml"]')).toContainText(
    'The definitions file notes.yaml is not applied',
  );
  await expect(alarms.getByRole('link', { name: 'See them on Status' })).toBeVisible();
});

test('Settings sets the time of the daily brief, or turns it off', async () => {
  const briefAt = async () => (await agent.api<{ brief_at: string }>('/brief')).brief_at;
  await page.goto(agent.origin + '/#/settings');
  const on = page.getByRole('checkbox', { name: 'Daily brief' });
  const at = page.getByLabel('At', { exact: true });
  await expect(on).toBeChecked();
  await expect(at).toHaveValue('08:30');
  await at.fill('07:45');
  await expect.poll(briefAt).toBe('07:45');
  await expect(page.locator('fieldset', { has: on }).locator('.save-state')).toHaveText('✓ Saved');
  await on.uncheck();
  await expect.poll(briefAt).toBe('off');
  await expect(at).toBeDisabled();
  await page.reload();
  await expect(on).not.toBeChecked();
  // Back on, it comes at the default time (off keeps no time).
  await on.check();
  await expect.poll(briefAt).toBe('08:30');
  await expect(at).toHaveValue('08:30');
});
