// Lanes and the learner, as a person meets them in a browser against a real
// agent: a folder scout has learned from decisions on three subfolders
// (bills approved, newsletters rejected, junk marked as spam); new items
// then land in the Inbox, Screened and Spam lanes, each with its reason
// and evidence. Cards move between lanes by keyboard, the approve preview
// has the due date the text mentions, and the Scouts view shows and tunes
// each scout's learner. Screenshots go to test-artifacts/screenshots/.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent, type Agent } from './agent';

test.describe.configure({ mode: 'serial' });

interface Assessment {
  lane_reason?: string;
  why?: string[];
  due?: string;
}
interface Suggestion {
  id: string;
  title: string;
  status: string;
  lane: string;
  rescued?: string;
  path?: string;
  assessment?: Assessment;
}
interface Learning {
  decisions: number;
  state: string;
  settings: { cold_start: number };
}

let agent: Agent;
let page: Page;
let scoutId = '';
const pageErrors: string[] = [];

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
const card = (title: string) => page.getByRole('article', { name: title });
const toast = (text: string | RegExp) => page.locator('.toast').filter({ hasText: text });
const lane = (name: string) => page.getByRole('navigation', { name: 'Lanes' }).getByRole('link', { name: new RegExp(`^${name}`) });
const keys = async (...k: string[]) => {
  for (const key of k) await page.keyboard.press(key);
};

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

const pending = () => agent.api<Suggestion[]>('/suggestions?status=pending&limit=1000');
const byTitle = async (title: string) => (await pending()).find((s) => s.title === title);
const post = (path: string, body: unknown = {}) =>
  agent.api(path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });

const N = 12;

test.beforeAll(async ({ browser }) => {
  agent = await startAgent();
  // What the person has already seen: bills they approve as tasks,
  // newsletters they reject, junk they mark as spam.
  const drop = join(agent.home, 'Drop');
  for (const sub of ['bills', 'news', 'junk']) mkdirSync(join(drop, sub), { recursive: true });
  for (let i = 1; i <= N; i++) {
    writeFileSync(join(drop, 'bills', `invoice-${i}.md`), `# Invoice ${i} from ACME\n\nPlease pay invoice ${i}, amount ${i * 37} EUR.\n`);
    writeFileSync(join(drop, 'news', `digest-${i}.md`), `# Weekly digest ${i}\n\nTen links you might like this week, issue ${i}. Unsubscribe anytime.\n`);
    writeFileSync(join(drop, 'junk', `offer-${i}.md`), `# Cheap pills ${i}\n\nBuy viagra cialis now, best price, click here, winner ${i}.\n`);
  }
  const sc = await post('/scouts', { kind: 'folder', path: drop, include_existing: true });
  scoutId = (sc as { id: string }).id;
  const cards = await until('the first cards', pending, (l) => l.length === 3 * N);
  for (const c of cards) {
    if (c.path!.includes('/bills/')) await post(`/suggestions/${c.id}/approve`, { as: 'task' });
    else if (c.path!.includes('/news/')) await post(`/suggestions/${c.id}/reject`);
    else await post(`/suggestions/${c.id}/spam`);
  }
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

test('the Scouts view shows what the learner learned, and its thresholds can be changed', async () => {
  await page.goto(agent.link);
  await page.goto(agent.origin + '/#/scouts');
  const learning = page.getByRole('region', { name: 'Drop: learning' });
  await expect(learning).toContainText(`trained on ${3 * N} decisions`);
  const l = await agent.api<Learning & { spam_decisions: number; ham_decisions: number }>(`/scouts/${scoutId}/learning`);
  expect(l.spam_decisions).toBe(N);
  await expect(learning).toContainText(`${l.spam_decisions} spam decisions, ${l.ham_decisions} not spam`);

  // A threshold out of range is explained before asking the agent.
  await learning.getByLabel('Screen below').fill('60');
  await learning.getByRole('button', { name: 'Save thresholds' }).click();
  await expect(learning.getByRole('alert')).toHaveText('Screen below: a percentage from 0 to 50 (0 screens nothing).');
  await learning.getByRole('button', { name: 'Cancel' }).click();

  // More decisions before screening: the learner is back to learning.
  await learning.getByLabel('Learn from').fill('50');
  await learning.getByRole('button', { name: 'Save thresholds' }).click();
  await expect(learning).toContainText(`learning — ${3 * N} of 50 decisions`);
  await expect(learning).toContainText('nothing is screened until it has learned');
  expect((await agent.api<Learning>(`/scouts/${scoutId}/learning`)).settings.cold_start).toBe(50);
  await shot('scouts-learning');

  await learning.getByLabel('Learn from').fill('30');
  await learning.getByRole('button', { name: 'Save thresholds' }).click();
  await expect(learning).toContainText(`trained on ${3 * N} decisions`);
});

test('new items land in their lanes, with live counts and the evidence on each card', async () => {
  await keys('g', 'i');
  await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  await expect(lane('Inbox')).toHaveText('Inbox (0)');
  await expect(page.locator('.learning-state')).toHaveText(`Drop: trained on ${3 * N} decisions`);

  agent.drop('Drop/news/digest-99.md', '# Weekly digest 99\n\nTen links you might like this week, issue 99. Unsubscribe anytime.\n');
  agent.drop('Drop/junk/offer-99.md', '# Cheap pills 99\n\nBuy viagra cialis now, best price, click here, winner 99.\n');
  agent.drop('Drop/acme.md', '# Pay the ACME invoice\n\nPay the ACME invoice — due Friday: 1 200 EUR.\n');

  await expect(lane('Inbox')).toHaveText('Inbox (1)');
  await expect(lane('Screened')).toHaveText('Screened (1)');
  await expect(lane('Spam')).toHaveText('Spam (1)');
  expect(await agent.api<{ lanes: Record<string, number> }>('/status')).toMatchObject({
    lanes: { inbox: 1, screened: 1, spam: 1 },
  });

  // The why line names the learner's evidence, as the agent gives it.
  const acme = await until('the ACME card', () => byTitle('Pay the ACME invoice'), (s) => !!s);
  const c = card('Pay the ACME invoice');
  await expect(c).toBeVisible();
  const why = acme!.assessment?.why ?? [];
  expect(why.length, 'the ACME card has evidence').toBeGreaterThan(0);
  for (const w of why) await expect(c.locator('.card-evidence')).toContainText(w);
  await expect(c.locator('.card-evidence')).toContainText(/words like “[a-z]+”/);
  await expect(c).toHaveAttribute('aria-current', 'true');
  await shot('lanes-inbox');
});

test('2 shows Screened with its reason, and b brings the card back to the inbox', async () => {
  await keys('2');
  await expect(page).toHaveURL(/#\/inbox\/screened$/);
  await expect(page.getByRole('heading', { name: 'Screened', level: 1 })).toBeVisible();
  await expect(lane('Screened')).toHaveAttribute('aria-current', 'page');
  const c = card('Weekly digest 99');
  await expect(c.locator('.card-lane')).toContainText('Screened You are unlikely to approve it');
  await expect(c.locator('.card-evidence')).toContainText('you rejected 12 from the folder news');
  await expect(c).toHaveAttribute('aria-current', 'true');
  await shot('lanes-screened');

  await keys('b');
  await expect(c).toHaveCount(0);
  await expect(toast('Back in the inbox: “Weekly digest 99”')).toBeVisible();
  await expect(lane('Screened')).toHaveText('Screened (0)');
  await expect(lane('Inbox')).toHaveText('Inbox (2)');
  await expect(page.getByRole('heading', { name: 'Nothing screened' })).toBeVisible();
  const sg = await byTitle('Weekly digest 99');
  expect(sg).toMatchObject({ lane: 'inbox', rescued: 'screened', status: 'pending' });

  await keys('1');
  await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  const back = card('Weekly digest 99');
  await expect(back).toContainText('brought back from screened');
  // The card that came back is the one to decide next.
  await expect(back).toHaveAttribute('aria-current', 'true');
});

test('! marks the focused card as spam, and u takes it back', async () => {
  await keys('!');
  await expect(card('Weekly digest 99')).toHaveCount(0);
  await expect(toast('Marked as spam “Weekly digest 99”')).toBeVisible();
  await expect(lane('Inbox')).toHaveText('Inbox (1)');
  await until('the card marked as spam', () => agent.api<Suggestion[]>('/suggestions?status=rejected&lane=spam&limit=1000'),
    (l) => l.some((s) => s.title === 'Weekly digest 99'));
  // Marked as spam is a decision: it does not wait in the Spam lane.
  await expect(lane('Spam')).toHaveText('Spam (1)');

  await keys('u');
  await expect(card('Weekly digest 99')).toBeVisible();
  await expect(lane('Inbox')).toHaveText('Inbox (2)');
  expect(await byTitle('Weekly digest 99')).toMatchObject({ lane: 'inbox', status: 'pending' });
});

test('3 shows Spam with its reason; b brings a card back from there too', async () => {
  await keys('3');
  await expect(page.getByRole('heading', { name: 'Spam', level: 1 })).toBeVisible();
  const c = card('Cheap pills 99');
  await expect(c.locator('.card-lane')).toContainText('Spam It looks like what you marked as spam');
  await expect(c.getByRole('button', { name: 'Back to the inbox' })).toBeVisible();
  await shot('lanes-spam');
  await keys('b');
  await expect(c).toHaveCount(0);
  await expect(lane('Spam')).toHaveText('Spam (0)');
  await expect(lane('Inbox')).toHaveText('Inbox (3)');
  expect(await byTitle('Cheap pills 99')).toMatchObject({ lane: 'inbox', rescued: 'spam' });
  await keys('1');
});

test('the approve preview has the due date the text mentions', async () => {
  const acme = (await byTitle('Pay the ACME invoice'))!;
  // The date the agent read from "due Friday", as a local day.
  const due = acme.assessment?.due;
  expect(due, 'the agent proposes a due date for “due Friday”').toBeTruthy();
  const d = new Date(due!);
  const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

  const c = card('Pay the ACME invoice');
  await c.click({ position: { x: 300, y: 12 } });
  await expect(c).toHaveAttribute('aria-current', 'true');
  await expect(c.locator('.chip')).toContainText('due ');
  await keys('Shift+T');
  const dialog = page.getByRole('dialog', { name: 'Approve “Pay the ACME invoice”' });
  await expect(dialog.getByRole('radio', { name: 'Task' })).toBeChecked();
  await expect(dialog.getByLabel('Due')).toHaveValue(day);
  await expect(dialog).toContainText('Filled in from the item’s text: the due date.');
  await shot('lanes-approve-prefilled');
  await keys('Control+Enter');
  await expect(dialog).toHaveCount(0);
  await expect(toast('Approved as task “Pay the ACME invoice”')).toBeVisible();
  const tasks = await agent.api<{ title: string; due?: string }[]>('/tasks');
  const task = tasks.find((t) => t.title === 'Pay the ACME invoice');
  expect(task?.due, 'the task has the proposed due date').toBeTruthy();
  const td = new Date(task!.due!);
  expect([td.getFullYear(), td.getMonth(), td.getDate()]).toEqual([d.getFullYear(), d.getMonth(), d.getDate()]);
});

test('? lists the lane keys', async () => {
  await keys('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toContainText('Bring back to the inbox');
  await expect(help).toContainText('Mark as spam');
  await expect(help).toContainText('Inbox, Screened, Spam, Snoozed lanes');
  await expect(help).toContainText('Snooze the card');
  await shot('lanes-shortcuts');
  await keys('Escape');
  await expect(help).toHaveCount(0);
});

test('resetting a scout’s learning asks first, then starts over', async () => {
  await keys('g', 's');
  const learning = page.getByRole('region', { name: 'Drop: learning' });
  const before = await agent.api<Learning>(`/scouts/${scoutId}/learning`);
  await expect(learning).toContainText(`trained on ${before.decisions} decisions`);
  await learning.getByRole('button', { name: 'Reset the learning of Drop' }).click();
  await expect(learning).toContainText(`Forget ${before.decisions} decisions? The thresholds stay.`);
  await learning.getByRole('button', { name: 'Keep' }).click();
  expect((await agent.api<Learning>(`/scouts/${scoutId}/learning`)).decisions).toBe(before.decisions);

  await learning.getByRole('button', { name: 'Reset the learning of Drop' }).click();
  await learning.getByRole('button', { name: 'Reset', exact: true }).click();
  await expect(learning).toContainText('learning — 0 of 30 decisions');
  await expect(toast('Drop: the learner forgot what it had learned')).toBeVisible();
  expect((await agent.api<Learning>(`/scouts/${scoutId}/learning`)).decisions).toBe(0);
});
