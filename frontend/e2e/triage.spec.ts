// What a person does with Scouts in a browser, against a real agent: add a
// folder scout through the UI, drop files into it, triage the cards with the
// keyboard, edit what they became, and see honest errors when the agent is
// gone. Screenshots of every view go to test-artifacts/screenshots/.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent, type Agent } from './agent';

test.describe.configure({ mode: 'serial' });

let agent: Agent;
let page: Page;
/** Uncaught exceptions in the page: each test ends with none. */
const pageErrors: string[] = [];

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
const card = (title: string) => page.getByRole('article', { name: title });
const toast = (text: string | RegExp) => page.locator('.toast').filter({ hasText: text });
const keys = async (...k: string[]) => {
  for (const key of k) await page.keyboard.press(key);
};

test.beforeAll(async ({ browser }) => {
  agent = await startAgent();
  mkdirSync(join(agent.home, 'Drop'));
  mkdirSync(join(agent.home, 'Papers'));
  mkdirSync(join(agent.home, '.hidden-stuff'));
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

test('the printed link signs the browser in and the empty inbox says what to do', async () => {
  await page.goto(agent.link);
  // The token moved into a cookie and out of the address bar.
  await expect(page).toHaveURL(agent.origin + '/');
  await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Nothing is being watched yet' })).toBeVisible();
  await expect(page.locator('.conn')).toHaveText(/Live/);
  await shot('inbox-no-scouts');
});

test('a folder scout is added through the folder browser', async () => {
  await page.getByRole('link', { name: 'Add a folder scout' }).click();
  await expect(page.getByRole('heading', { name: 'Add a folder scout' })).toBeVisible();
  await page.getByRole('button', { name: 'Browse…' }).click();
  const browser = page.getByRole('group', { name: 'Choose a folder' });
  // The home folder, without hidden folders.
  await expect(browser.getByRole('button', { name: 'Papers' })).toBeVisible();
  await expect(browser.getByRole('button', { name: '.hidden-stuff' })).toHaveCount(0);
  await browser.getByRole('button', { name: 'Drop' }).click();
  await expect(browser.locator('.fb-path')).toHaveText('~/Drop');
  await shot('scouts-add-folder');
  await browser.getByRole('button', { name: /^Choose/ }).click();
  await expect(page.getByLabel('Folder', { exact: true })).toHaveValue(join(agent.home, 'Drop'));
  await page.getByRole('button', { name: 'Add scout' }).click();

  const scout = page.getByRole('article', { name: 'Drop' });
  await expect(scout).toContainText('Watching ~/Drop');
  await expect(scout.locator('.badge')).toHaveText('Working');
  await expect(page.getByRole('switch', { name: 'Drop: on' })).toBeChecked();
  await shot('scouts');
});

test('a file dropped into the folder appears live as a card', async () => {
  await keys('g', 'i');
  await expect(page.getByRole('heading', { name: 'All caught up' })).toBeVisible();
  await expect(page.locator('.empty')).toContainText('Drop a file into ~/Drop');
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

  agent.drop('Drop/acme-invoice.md', '# Pay the ACME invoice\n\nDue Friday: 1 200 EUR to ACME Ltd.\n');

  const c = card('Pay the ACME invoice');
  await expect(c).toBeVisible();
  await expect(c).toContainText('~/Drop/acme-invoice.md');
  await expect(c).toContainText('Due Friday: 1 200 EUR');
  await expect(c).toContainText('Why: New file in');
  await expect(c).toHaveAttribute('aria-current', 'true');
  await expect(page.locator('[aria-live="polite"]')).toHaveText('New suggestion: Pay the ACME invoice');
  await expect(page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: /Inbox/ })).toContainText('1');
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  await shot('inbox');
});

test('w shows why the card exists and o opens the whole file', async () => {
  await keys('w');
  const trail = page.getByRole('region', { name: /Why “Pay the ACME invoice” is here/ });
  await expect(trail.getByRole('listitem').first()).toContainText('Found');
  // The content cues propose a task for "Pay … due Friday".
  await expect(trail).toContainText('Suggested as task');
  await shot('inbox-why');
  await keys('w');
  await expect(trail).toHaveCount(0);

  await keys('o');
  const dialog = page.getByRole('dialog', { name: 'Pay the ACME invoice' });
  await expect(dialog.getByLabel('Full text')).toContainText('# Pay the ACME invoice');
  await shot('inbox-open-item');
  await keys('Escape');
  await expect(dialog).toHaveCount(0);
});

test('t approves as a task, which can then be edited', async () => {
  await keys('t');
  await expect(card('Pay the ACME invoice')).toHaveCount(0);
  await expect(toast('Approved as task “Pay the ACME invoice”')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'All caught up' })).toBeVisible();

  await keys('g', 't');
  await expect(page.getByRole('heading', { name: 'Tasks', level: 1 })).toBeVisible();
  const row = page.getByRole('listitem').filter({ hasText: 'Pay the ACME invoice' });
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'Edit “Pay the ACME invoice”' }).click();
  const form = page.getByRole('form', { name: 'Edit task “Pay the ACME invoice”' });
  await form.getByLabel('Title').fill('Pay the ACME invoice (1 200 EUR)');
  await form.getByLabel('Due').fill('2026-12-04');
  await form.getByRole('button', { name: 'Save' }).click();

  const saved = page.getByRole('listitem').filter({ hasText: 'Pay the ACME invoice (1 200 EUR)' });
  await expect(saved).toContainText('Due Fri, Dec 4, 2026');
  await shot('tasks');
  // What the page shows is what the agent has.
  const tasks = await agent.api<Array<{ title: string; due?: string; source_suggestion_id?: string }>>('/tasks');
  expect(tasks).toHaveLength(1);
  expect(tasks[0]!.title).toBe('Pay the ACME invoice (1 200 EUR)');
  expect(tasks[0]!.due).toBeTruthy();

  // The task links back to the card it came from, with its story.
  await saved.getByRole('link', { name: /From a suggestion/ }).click();
  await expect(page.getByRole('main')).toContainText('Approved as task');
  await expect(page.getByRole('link', { name: 'Open the task' })).toBeVisible();
  await expect(page.getByRole('region', { name: /Why/ })).toContainText('Approved as task by user (browser)');
  await shot('suggestion');
});

test('x rejects, u undoes, and the card is back and current', async () => {
  await keys('g', 'i');
  agent.drop('Drop/newsletter.txt', 'Weekly newsletter\nTen things about gardening.\n');
  await expect(card('Weekly newsletter')).toBeVisible();
  agent.drop('Drop/receipt.txt', 'Dentist appointment\nThursday 10:00 at Dr Weiss, Main Street 3.\n');
  await expect(card('Dentist appointment')).toBeVisible();
  await expect(card('Weekly newsletter')).toHaveAttribute('aria-current', 'true');

  await keys('x');
  await expect(card('Weekly newsletter')).toHaveCount(0);
  await expect(toast('Rejected “Weekly newsletter”')).toBeVisible();
  await expect(card('Dentist appointment')).toHaveAttribute('aria-current', 'true');
  await shot('inbox-after-reject');

  await keys('u');
  await expect(card('Weekly newsletter')).toHaveAttribute('aria-current', 'true');
  await expect(toast('Undone: “Weekly newsletter” is back in the inbox')).toBeVisible();
  const back = await agent.api<Array<{ title: string }>>('/suggestions?status=pending');
  expect(back.map((s) => s.title).sort()).toEqual(['Dentist appointment', 'Weekly newsletter']);
});

test('shift+e edits the preview before approving as an event', async () => {
  await keys('j');
  await expect(card('Dentist appointment')).toHaveAttribute('aria-current', 'true');
  await keys('Shift+E');
  const dialog = page.getByRole('dialog', { name: 'Approve “Dentist appointment”' });
  await expect(dialog.getByRole('radio', { name: 'Event' })).toBeChecked();
  // The body is the file's text, ready to edit.
  await expect(dialog.getByLabel('Details')).toHaveValue(/Dr Weiss/);
  await dialog.getByLabel('Title').fill('Dentist (Dr Weiss)');
  await dialog.getByLabel('Starts').fill('2026-12-03T10:00');
  await dialog.getByLabel('Location').fill('Main Street 3');
  await shot('inbox-approve-preview');
  await keys('Control+Enter');
  await expect(dialog).toHaveCount(0);
  await expect(card('Dentist appointment')).toHaveCount(0);

  await keys('g', 'e');
  const row = page.getByRole('listitem').filter({ hasText: 'Dentist (Dr Weiss)' });
  await expect(row).toContainText('Main Street 3');
  await shot('events');
});

test('several cards are selected and rejected at once, and undone as one', async () => {
  await keys('g', 'i');
  agent.drop('Drop/a.txt', 'Flyer A\n');
  agent.drop('Drop/b.txt', 'Flyer B\n');
  await expect(page.getByRole('article')).toHaveCount(3);
  await keys('Shift+A');
  await expect(page.getByRole('toolbar')).toContainText('3 cards selected');
  await shot('inbox-bulk');
  await keys('x');
  await expect(page.getByRole('article')).toHaveCount(0);
  await expect(toast('Rejected: 3 cards')).toBeVisible();
  await keys('u');
  await expect(page.getByRole('article')).toHaveCount(3);
});

test('every other view, the shortcuts and dark mode', async () => {
  await keys('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toContainText(
    'Approve as task, note, event, project',
  );
  await shot('shortcuts');
  await keys('Escape');

  await keys('g', 'n');
  await expect(page.getByText('No notes yet.')).toBeVisible();
  await shot('notes');
  await keys('g', 'p');
  await expect(page.getByRole('heading', { name: 'Projects', level: 1 })).toBeFocused();
  await keys('c');
  await expect(page.getByRole('textbox', { name: 'New project title' })).toBeFocused();
  await page.keyboard.type('Garden');
  await keys('Enter');
  await expect(page.getByRole('listitem').filter({ hasText: 'Garden' })).toBeVisible();
  await page.getByRole('checkbox', { name: 'Garden: done' }).click();
  await expect(page.getByText('Every project is done.')).toBeVisible();
  await shot('projects');
  await keys('g', 'a');
  await expect(page.getByRole('heading', { name: 'Agent' })).toBeVisible();
  await expect(page.getByText('Live: changes appear as they happen')).toBeVisible();
  await shot('status');

  await page.emulateMedia({ colorScheme: 'dark' });
  await keys('g', 'i');
  await expect(page.getByRole('article')).toHaveCount(3);
  await shot('inbox-dark');
  await page.emulateMedia({ colorScheme: 'light' });
});

test('a browser without the link is told how to sign in', async ({ browser }) => {
  const other = await browser.newPage();
  await other.goto(agent.origin + '/');
  await expect(other.getByRole('alert').filter({ hasText: 'This page is not signed in to the agent.' })).toContainText(
    'Open the link that `scouts agent --ui` printed',
  );
  await other.screenshot({ path: join(ARTIFACTS, 'screenshots', 'not-signed-in.png') });
  await other.close();
});

test('when the agent stops, the page says so and decisions fail honestly', async () => {
  await agent.stop();
  await expect(page.getByRole('alert').filter({ hasText: 'Lost the connection to the agent.' })).toBeVisible();
  await keys('x');
  await expect(toast(/Could not reject “.*”\. The agent is not reachable\./)).toBeVisible();
  // The card came back: nothing was decided.
  await expect(page.getByRole('article')).toHaveCount(3);
  await shot('agent-gone');
});
