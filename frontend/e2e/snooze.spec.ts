// Snooze, as a person meets it in a browser against a real agent: z on a
// card asks when, in words; what cannot be read is said in the dialog; the
// card leaves the inbox for the Snoozed lane (4), b takes it back now, and
// a card whose time comes returns to the top of the inbox on its own.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent, type Agent } from './agent';

test.describe.configure({ mode: 'serial' });

interface Suggestion {
  id: string;
  title: string;
  lane: string;
  snoozed_until?: string;
  returned_at?: string;
}

let agent: Agent;
let page: Page;
const pageErrors: string[] = [];

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
const card = (title: string) => page.getByRole('article', { name: title });
const lane = (name: string) => page.getByRole('navigation', { name: 'Lanes' }).getByRole('link', { name: new RegExp(`^${name}`) });
const pending = () => agent.api<Suggestion[]>('/suggestions?status=pending&limit=1000');

test.beforeAll(async ({ browser }) => {
  agent = await startAgent();
  const drop = join(agent.home, 'Drop');
  mkdirSync(drop, { recursive: true });
  writeFileSync(join(drop, 'report.md'), '# Read the quarterly report\n\nBefore the board meeting.\n');
  writeFileSync(join(drop, 'plants.md'), '# Water the plants\n\nThe ones in the office.\n');
  await agent.api('/scouts', {
    method: 'POST',
    body: JSON.stringify({ kind: 'folder', path: drop, include_existing: true }),
    headers: { 'Content-Type': 'application/json' },
  });
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

test('z snoozes the card until a time typed in words, and b takes it back from the Snoozed lane', async () => {
  await page.goto(agent.link);
  await expect(lane('Inbox')).toHaveText('Inbox (2)');
  const report = card('Read the quarterly report');
  await report.click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('z');
  const dialog = page.getByRole('dialog', { name: 'Snooze until…' });
  await expect(dialog).toBeVisible();

  // Words the agent cannot read are said, and the dialog stays.
  await dialog.getByLabel('When').fill('whenever');
  await dialog.getByLabel('When').press('Enter');
  await expect(dialog.getByRole('alert')).toContainText('Cannot read a time in "whenever"');

  await dialog.getByLabel('When').fill('tomorrow morning');
  await dialog.getByLabel('When').press('Enter');
  await expect(dialog).toBeHidden();
  await expect(report).toBeHidden();
  await expect(lane('Inbox')).toHaveText('Inbox (1)');
  await expect(lane('Snoozed')).toHaveText('Snoozed (1)');
  const s = (await pending()).find((c) => c.title === 'Read the quarterly report')!;
  expect(s.lane).toBe('snoozed');
  const until = new Date(s.snoozed_until!);
  const tomorrow = new Date();
  tomorrow.setDate(tomorrow.getDate() + 1);
  expect(until.getDate()).toBe(tomorrow.getDate());
  expect(until.getHours()).toBe(8);

  // 4 shows the Snoozed lane, with when each card returns.
  await page.keyboard.press('Escape');
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  await page.keyboard.press('4');
  await expect(page.getByRole('heading', { name: 'Snoozed', level: 1 })).toBeVisible();
  await expect(report).toContainText('Until');
  await shot('snoozed-lane');
  await report.click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('b');
  await expect(report).toBeHidden();
  await expect(lane('Snoozed')).toHaveText('Snoozed (0)');
  await expect(lane('Inbox')).toHaveText('Inbox (2)');
});

test('a snoozed card returns to the top of the inbox when its time comes', async () => {
  const plants = (await pending()).find((c) => c.title === 'Water the plants')!;
  // A few seconds ahead; the page waits on the agent's stream, not a timer.
  const at = new Date(Date.now() + 3000).toISOString();
  await agent.api(`/suggestions/${plants.id}/snooze`, {
    method: 'POST',
    body: JSON.stringify({ until: at }),
    headers: { 'Content-Type': 'application/json' },
  });
  await page.keyboard.press('1');
  await expect(card('Water the plants')).toBeHidden();
  await expect(lane('Snoozed')).toHaveText('Snoozed (1)');
  const first = page.locator('ol.cards > li').first();
  await expect(first).toContainText('Water the plants', { timeout: 30_000 });
  await expect(first).toContainText('back from snooze');
  await expect(lane('Snoozed')).toHaveText('Snoozed (0)');
  await shot('back-from-snooze');
});

test('z on a task in Tasks snoozes it out of the list', async () => {
  const task = await agent.api<{ id: string }>('/tasks', {
    method: 'POST',
    body: JSON.stringify({ title: 'Call the plumber' }),
    headers: { 'Content-Type': 'application/json' },
  });
  const row = page.locator(`#entity-${task.id}`);
  // Tasks once, back to the Inbox, then Tasks again: the second time the
  // list is already loaded and nothing renders the view again after the
  // Inbox lets go of the keys (which used to leave z unanswered).
  await page.keyboard.press('g');
  await page.keyboard.press('t');
  await expect(row).toContainText('Call the plumber');
  await page.keyboard.press('g');
  await page.keyboard.press('i');
  await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  // The row takes focus the moment it is in the page, before the view's
  // move of focus to its heading has run: a place chosen in the new view
  // stays chosen (a CI run saw the heading take focus back from the row,
  // and z go to the heading).
  await page.evaluate((id) => {
    const mo = new MutationObserver(() => {
      const el = document.getElementById(id);
      if (el) {
        el.focus();
        mo.disconnect();
      }
    });
    mo.observe(document.body, { childList: true, subtree: true });
  }, `entity-${task.id}`);
  await page.keyboard.press('g');
  await page.keyboard.press('t');
  await expect(row).toContainText('Call the plumber');
  // Two frames: the view's effects have run.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await expect(row).toBeFocused();
  await page.keyboard.press('z');
  const dialog = page.getByRole('dialog', { name: 'Snooze until…' });
  await dialog.getByLabel('When').fill('in 3 hours');
  await dialog.getByLabel('When').press('Enter');
  await expect(dialog).toBeHidden();
  await expect(row).toBeHidden();
  const tasks = await agent.api<{ id: string }[]>('/tasks');
  expect(tasks.map((t) => t.id)).not.toContain(task.id);
});
