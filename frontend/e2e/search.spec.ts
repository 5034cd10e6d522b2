// Search and an event's .ics, as a person meets them in a browser against
// a real agent: / focuses the search box from any view, results come
// grouped by type as one types, the keyboard walks them (↓ ↑ j k), Enter
// opens one, Esc gives back the view one was in; a filter the agent
// refuses is said inline. An event's .ics link downloads a calendar file
// a calendar app reads.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent, type Agent } from './agent';

test.describe.configure({ mode: 'serial' });

interface Entity {
  id: string;
  title: string;
}

let agent: Agent;
let page: Page;
const pageErrors: string[] = [];
const ids: Record<string, string> = {};

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
const box = () => page.getByRole('searchbox', { name: 'Search' });
const results = () => page.locator('#search-results');
const group = (label: string) => results().getByRole('region', { name: label });
const post = <T>(path: string, body: unknown) =>
  agent.api<T>(path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });

test.beforeAll(async ({ browser }) => {
  agent = await startAgent();
  const drop = join(agent.home, 'Drop');
  mkdirSync(drop, { recursive: true });
  writeFileSync(join(drop, 'invoice.md'), '# Invoice for the Lisbon workshop\n\nPlease pay by Friday.\n');
  writeFileSync(join(drop, 'plants.md'), '# Water the plants\n\nThe ones in the office.\n');
  await post('/scouts', { kind: 'folder', path: drop, include_existing: true });
  ids.task = (await post<Entity>('/tasks', { title: 'Book a hotel in Lisbon' })).id;
  ids.note = (await post<Entity>('/notes', { title: 'Packing list', body: 'Sunscreen for Lisbon.' })).id;
  ids.event = (
    await post<Entity>('/events', {
      title: 'Workshop in Lisbon',
      starts_at: '2026-06-10T09:00:00Z',
      ends_at: '2026-06-10T17:00:00Z',
      location: 'Alfama',
    })
  ).id;
  ids.project = (await post<Entity>('/projects', { title: 'Lisbon trip' })).id;
  page = await browser.newPage({ acceptDownloads: true });
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

test.afterEach(() => {
  expect(pageErrors, 'uncaught errors in the page').toEqual([]);
});

test.afterAll(async () => {
  await page?.close();
  await agent?.stop();
});

test('/ searches as one types, grouped by type; ↓ ↑ j k move, Esc gives back the view', async () => {
  await page.goto(agent.link);
  await expect(page.getByRole('article', { name: 'Invoice for the Lisbon workshop' })).toBeVisible();
  await page.keyboard.press('g');
  await page.keyboard.press('t');
  await expect(page.getByRole('heading', { name: 'Tasks', level: 1 })).toBeVisible();

  await page.keyboard.press('/');
  await expect(box()).toBeFocused();
  await page.keyboard.type('lisb');
  await expect(box()).toHaveValue('lisb');
  await expect(page.getByRole('heading', { name: 'Search', level: 1 })).toBeVisible();
  await expect(results().locator('h2')).toHaveText(['Cards · Inbox (1)', 'Tasks (1)', 'Notes (1)', 'Events (1)', 'Projects (1)']);
  await expect(page.getByRole('heading', { name: 'Tasks', level: 1 })).toBeHidden();
  const card = group('Cards · Inbox').getByRole('link');
  await expect(card).toContainText('Invoice for the Lisbon workshop');
  await expect(card.locator('mark')).toHaveText('Lisb');
  await expect(card).toContainText('Matched in title');
  // The note's title lacks the word: its text matched, and says so.
  const note = group('Notes').getByRole('link');
  await expect(note).toContainText('Sunscreen for Lisbon.');
  await expect(note).toContainText('Matched in text');
  await shot('search-results');

  const hits = results().getByRole('link');
  await page.keyboard.press('ArrowDown');
  await expect(hits.nth(0)).toBeFocused();
  await page.keyboard.press('j');
  await expect(hits.nth(1)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(hits.nth(2)).toBeFocused();
  await page.keyboard.press('k');
  await expect(hits.nth(1)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(hits.nth(0)).toBeFocused();
  // x on a result is not the hidden inbox's reject: nothing happens.
  await page.keyboard.press('x');
  await expect(hits.nth(0)).toBeFocused();

  await page.keyboard.press('Escape');
  await expect(results()).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Tasks', level: 1 })).toBeVisible();
  await expect(page.locator(`#entity-${ids.task}`)).toBeVisible();
  await expect(box()).toHaveValue('');
  expect(new URL(page.url()).hash).toBe('#/tasks');
  const pending = await agent.api<{ title: string }[]>('/suggestions?status=pending&limit=100');
  expect(pending.map((s) => s.title).sort()).toEqual(['Invoice for the Lisbon workshop', 'Water the plants']);
});

test('Enter opens the result: an entity in its list, a card on its page', async () => {
  await page.keyboard.press('/');
  await page.keyboard.type('lisb kind:event');
  await expect(results().locator('h2')).toHaveText(['Events (1)']);
  await expect(group('Events').getByRole('link')).toContainText('Matched in title · kind:event');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`#/events/${ids.event}$`));
  await expect(results()).toBeHidden();
  await expect(page.locator(`#entity-${ids.event}`)).toHaveClass(/highlight/);

  // Enter in the box opens the first result.
  await page.keyboard.press('/');
  await page.keyboard.type('invoice');
  await expect(results().locator('h2')).toHaveText(['Cards · Inbox (1)']);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#\/suggestion\/sg_/);
  await expect(page.getByRole('heading', { name: 'Invoice for the Lisbon workshop' }).first()).toBeVisible();
});

test('a filter the agent cannot read is said inline', async () => {
  await page.keyboard.press('/');
  await page.keyboard.type('lane:archive');
  await expect(results().getByRole('alert')).toContainText('lane:archive is not a lane');
  await shot('search-bad-filter');
  await page.keyboard.press('Escape');
  await expect(results()).toBeHidden();
});

test('an event’s .ics link downloads a calendar with the event', async () => {
  await page.keyboard.press('g');
  await page.keyboard.press('e');
  const row = page.locator(`#entity-${ids.event}`);
  await expect(row).toContainText('Workshop in Lisbon');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    row.getByRole('link', { name: 'Download “Workshop in Lisbon” as .ics' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/\.ics$/);
  const file = await download.path();
  const cal = parseICalendar(readFileSync(file, 'utf8'));
  expect(cal.name).toBe('VCALENDAR');
  expect(cal.props.VERSION).toBe('2.0');
  const ev = cal.children.find((c) => c.name === 'VEVENT');
  expect(ev, 'a VEVENT in the file').toBeDefined();
  expect(ev!.props.SUMMARY).toBe('Workshop in Lisbon');
  expect(ev!.props.UID).toBe(`${ids.event}@scouts`);
  expect(ev!.props.LOCATION).toBe('Alfama');
  expect(ev!.props.DTSTART).toBe('20260610T090000Z');
});

interface Component {
  name: string;
  props: Record<string, string>;
  children: Component[];
}

/** RFC 5545's structure: every line ends with CRLF, folded lines
 * unfolded, BEGIN/END balanced and named alike, every line
 * NAME[;params]:value. */
function parseICalendar(text: string): Component {
  expect(text.endsWith('\r\n'), 'the last line ends with CRLF').toBe(true);
  expect(text.replace(/\r\n/g, ''), 'no line ends with a bare LF or CR').not.toMatch(/[\r\n]/);
  const lines = text.replace(/\r\n[ \t]/g, '').split('\r\n').slice(0, -1);
  const stack: Component[] = [];
  let root: Component | undefined;
  for (const line of lines) {
    const m = /^([A-Za-z0-9-]+)((?:;[^:]*)?):(.*)$/.exec(line);
    if (!m) throw new Error(`not a content line: ${JSON.stringify(line)}`);
    const [, name, , value] = m as unknown as [string, string, string, string];
    if (name === 'BEGIN') {
      const c: Component = { name: value, props: {}, children: [] };
      if (stack.length) stack[stack.length - 1]!.children.push(c);
      else if (root) throw new Error('a second top-level component');
      else root = c;
      stack.push(c);
    } else if (name === 'END') {
      const c = stack.pop();
      if (c?.name !== value) throw new Error(`END:${value} closes ${c?.name}`);
    } else {
      const c = stack[stack.length - 1];
      if (!c) throw new Error(`${name} outside any component`);
      c.props[name] = value.replace(/\\([,;\\])/g, '$1').replace(/\\n/gi, '\n');
    }
  }
  if (!root || stack.length) throw new Error('unbalanced BEGIN/END');
  return root;
}
