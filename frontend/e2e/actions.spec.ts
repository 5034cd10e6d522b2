// Actions, plans, policies and rules in the window, against a real agent
// and a real webhook receiver on this machine: a rule written in the rules
// editor (its preview shown before saving), a card's plan with its
// toggles (an unticked move leaves the file where it is), "approve and
// always allow" (the override shows in Settings → Policies and is removed
// there), and a failing webhook shown with its error and retried.

import { expect, test, type Page } from '@playwright/test';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Plan, Policies, RuleList } from '../src/api/plans';
import type { Scout, Suggestion } from '../src/api/types';
import { ARTIFACTS, startAgent, type Agent } from './agent';

test.describe.configure({ mode: 'serial' });

let agent: Agent;
let page: Page;
let scout: Scout;
const pageErrors: string[] = [];

/** The far end of webhook.post: answers with `status`, keeps each
 * delivery's Idempotency-Key and the card id it was about. */
const receiver = { status: 202, posts: [] as { key: string; id: string }[], url: '' };
let server: Server;

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
const card = (title: string) => page.getByRole('article', { name: title });
const toast = (text: string | RegExp) => page.locator('.toast').filter({ hasText: text });
/** Makes the card current (its buttons show), then opens its approve dialog. */
const openApprove = async (c: ReturnType<typeof card>) => {
  await c.click({ position: { x: 300, y: 12 } });
  await expect(c).toHaveAttribute('aria-current', 'true');
  await c.getByRole('button', { name: 'Edit, then approve' }).click();
};
const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});
const pending = async (title: string) => {
  const list = await agent.api<Suggestion[]>('/suggestions?status=all');
  return list.find((s) => s.title === title);
};

test.beforeAll(async ({ browser }) => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (b: Buffer) => (body += b.toString()));
    req.on('end', () => {
      let id = '';
      try {
        id = (JSON.parse(body) as { suggestion?: { id?: string } }).suggestion?.id ?? '';
      } catch {
        // Not JSON: recorded without an id.
      }
      receiver.posts.push({ key: String(req.headers['idempotency-key'] ?? ''), id });
      res.writeHead(receiver.status, { 'Content-Type': 'text/plain' });
      res.end(receiver.status < 300 ? 'ok' : 'no, thank you');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/scouts`;

  agent = await startAgent();
  for (const d of ['Drop', 'Archive']) mkdirSync(join(agent.home, d));
  // Two items before any rule, for the preview to try rules on.
  agent.drop('Drop/invoice-0001.txt', 'Invoice 0001\nFrom ACME, due in two weeks.\n');
  agent.drop('Drop/memo.txt', 'Garden memo\nWhat to plant in spring.\n');
  // Its rule moves files to ~/Archive, outside a folder scout's default
  // write scope (~/Sorted): the scout declares it.
  scout = await agent.api<Scout>(
    '/scouts',
    json('POST', {
      kind: 'folder',
      name: 'Drop',
      path: join(agent.home, 'Drop'),
      include_existing: true,
      write_scope: { folders: ['~/Archive'] },
    }),
  );
  page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(agent.link);
  await expect(card('Invoice 0001')).toBeVisible();
  await expect(card('Garden memo')).toBeVisible();
});

test.afterEach(() => {
  expect(pageErrors, 'uncaught errors in the page').toEqual([]);
});

test.afterAll(async () => {
  await page?.close();
  await agent?.stop();
  await new Promise((r) => server?.close(r));
});

test('the rules editor adds a rule after showing what it would have done', async () => {
  await page.getByRole('link', { name: 'Scouts' }).click();
  await page.getByRole('link', { name: 'Rules of Drop' }).click();
  await expect(page.getByRole('heading', { name: 'Rules of Drop', level: 1 })).toBeVisible();
  await expect(page.getByText('No rules yet.')).toBeVisible();
  await page.getByRole('button', { name: 'Add a rule' }).click();

  const editor = page.getByRole('form', { name: 'New rule' });
  await editor.getByLabel('Id', { exact: true }).fill('invoices');
  await editor.getByLabel('Name', { exact: true }).fill('Invoices become tasks');
  const cond = editor.getByRole('group', { name: 'Condition 1' });
  await cond.getByLabel('Field').selectOption('name');
  await cond.getByLabel('Operator').selectOption('starts_with');
  await cond.getByLabel('Value').fill('invoice');
  await editor.getByLabel('Propose as').selectOption('task');

  // Before anything is saved: one of the two items would match.
  const preview = editor.getByRole('region', { name: 'What it would have done to the last 50 items' });
  await expect(preview.getByRole('status')).toContainText('Would have matched 1 of the last 2 items');
  const matches = preview.getByRole('list', { name: /would match/ });
  await expect(matches.getByRole('listitem')).toHaveCount(1);
  await expect(matches).toContainText('Invoice 0001');
  await expect(matches).toContainText('Would go to Inbox, as a task');
  expect((await agent.api<RuleList>(`/scouts/${scout.id}/rules`)).rules).toEqual([]);
  await shot('rules-editor-preview');

  // The same rule as JSON, broken: the agent's error names where.
  await editor.getByRole('button', { name: 'JSON' }).click();
  const text = editor.getByLabel(/The rule as JSON/);
  await expect(text).toHaveValue(/"starts_with": "invoice"/);
  const doc = JSON.parse(await text.inputValue());
  doc.when = { name: { regex: 'invoice(' } };
  await text.fill(JSON.stringify(doc, null, 2));
  await expect(editor.getByRole('alert')).toContainText('At /when/name/regex');
  await shot('rules-editor-error');
  doc.when = { name: { regex: '^invoice-\\d+' } };
  await text.fill(JSON.stringify(doc, null, 2));
  await expect(editor.getByRole('alert')).toHaveCount(0);
  await expect(preview.getByRole('status')).toContainText('Would have matched 1 of the last 2 items');
  await editor.getByRole('button', { name: 'Form' }).click();
  await expect(cond.getByLabel('Operator')).toHaveValue('regex');
  await editor.getByRole('button', { name: 'Add rule' }).click();

  await expect(toast('Added rule invoices')).toBeVisible();
  const rules = page.getByRole('list', { name: /Rules of Drop/ });
  await expect(rules.getByRole('listitem', { name: 'Rule invoices' })).toContainText('Inbox, as a task');
  const stored = await agent.api<RuleList>(`/scouts/${scout.id}/rules`);
  expect(stored.rules.map((r) => r.rule)).toEqual([
    {
      id: 'invoices',
      name: 'Invoices become tasks',
      enabled: true,
      when: { name: { regex: '^invoice-\\d+' } },
      then: { verdict: 'show', kind: 'task' },
    },
  ]);
});

test('rules are reordered, switched off and deleted in the editor', async () => {
  await page.getByRole('button', { name: 'Add a rule' }).click();
  const editor = page.getByRole('form', { name: 'New rule' });
  await editor.getByLabel('Id', { exact: true }).fill('memos');
  const cond = editor.getByRole('group', { name: 'Condition 1' });
  await cond.getByLabel('Field').selectOption('ext');
  await cond.getByLabel('Operator').selectOption('equals');
  await cond.getByLabel('Value').fill('txt');
  await editor.getByLabel('Put the card in').selectOption('screen');
  // Both items are .txt: the earlier rule decides the invoice.
  const preview = editor.getByRole('region', { name: /last 50 items/ });
  await expect(preview.getByRole('status')).toContainText('Would have matched 2 of the last 2 items');
  await expect(preview).toContainText('Rule “invoices” comes first and matches too');
  await editor.getByRole('button', { name: 'Add rule' }).click();

  const order = async () => (await agent.api<RuleList>(`/scouts/${scout.id}/rules`)).rules.map((r) => r.rule.id);
  const rules = page.getByRole('list', { name: /Rules of Drop/ });
  await expect(rules.getByRole('listitem')).toHaveCount(2);
  await page.getByRole('button', { name: 'Move memos up' }).click();
  await expect(rules.getByRole('listitem').first()).toHaveAccessibleName('Rule memos');
  expect(await order()).toEqual(['memos', 'invoices']);
  await page.getByRole('button', { name: 'Move memos down' }).click();
  await expect(rules.getByRole('listitem').first()).toHaveAccessibleName('Rule invoices');
  expect(await order()).toEqual(['invoices', 'memos']);

  await page.getByRole('switch', { name: 'memos: on' }).click();
  await expect(page.getByRole('switch', { name: 'memos: on' })).not.toBeChecked();
  await expect
    .poll(async () => (await agent.api<RuleList>(`/scouts/${scout.id}/rules`)).rules[1]!.rule.enabled)
    .toBe(false);
  await shot('rules-list');

  await page.getByRole('button', { name: 'Delete memos' }).click();
  await rules.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(rules.getByRole('listitem')).toHaveCount(1);
  expect(await order()).toEqual(['invoices']);
});

test('a card shows its plan; an unticked move leaves the file where it is', async () => {
  // The rule is edited to also move the file and post the card (actions
  // are written as JSON): write actions, so they wait for the person's
  // approval.
  await page.getByRole('button', { name: 'Edit invoices' }).click();
  const editor = page.getByRole('form', { name: 'Edit rule invoices' });
  await editor.getByRole('button', { name: 'JSON' }).click();
  const text = editor.getByLabel(/The rule as JSON/);
  const doc = JSON.parse(await text.inputValue());
  doc.then.actions = [
    { action: 'file.move', params: { to: join(agent.home, 'Archive') } },
    { action: 'webhook.post', params: { url: receiver.url } },
  ];
  await text.fill(JSON.stringify(doc, null, 2));
  await expect(editor.getByRole('alert')).toHaveCount(0);
  await editor.getByRole('button', { name: 'Save rule' }).click();
  await expect(toast('Saved rule invoices')).toBeVisible();
  const saved = await agent.api<RuleList>(`/scouts/${scout.id}/rules`);
  expect(saved.rules.map((r) => r.rule.then.actions?.map((x) => x.action))).toEqual([['file.move', 'webhook.post']]);
  await page.getByRole('link', { name: 'Inbox' }).click();
  agent.drop('Drop/invoice-0002.txt', 'Invoice 0002\nFrom ACME, due in two weeks.\n');
  const c = card('Invoice 0002');
  await expect(c).toBeVisible();
  // The current card says what its keys would run besides the task.
  await c.click({ position: { x: 300, y: 12 } });
  await expect(c.locator('.card-plan')).toContainText(
    'Approving also: move the file to ~/Archive · post the card to 127.0.0.1',
  );
  await openApprove(c);

  const dialog = page.getByRole('dialog', { name: 'Approve “Invoice 0002”' });
  const plan = dialog.getByRole('list', { name: 'What approving runs' });
  await expect(plan.getByRole('listitem')).toHaveCount(3);
  const task = plan.getByRole('checkbox', { name: 'Create a task' });
  const move = plan.getByRole('checkbox', { name: 'Move the file to ~/Archive' });
  const post = plan.getByRole('checkbox', { name: /Post the card to 127\.0\.0\.1/ });
  await expect(task).toBeChecked();
  await expect(task).toBeDisabled();
  await expect(move).toBeChecked();
  await expect(post).toBeChecked();
  await expect(plan.getByRole('listitem').nth(1)).toContainText(
    'Needs approval from the default for a write action · proposed by rule “invoices”',
  );
  await move.uncheck();
  await shot('approve-plan');
  await dialog.getByRole('button', { name: 'Approve once as task' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(toast('Approved as task “Invoice 0002”')).toBeVisible();

  const sg = (await pending('Invoice 0002'))!;
  const states = async () =>
    (await agent.api<Plan>(`/suggestions/${sg.id}/plan`)).actions.map((a) => `${a.action} ${a.state}`);
  // The task is created with the card's excerpt; the engine's own step
  // (entity.fill_body, last in the plan's order) reads the file's whole
  // text once the approval has answered.
  await expect.poll(states).toEqual(['task.create done', 'webhook.post done', 'entity.fill_body done']);
  expect(receiver.posts.filter((p) => p.id === sg.id).length).toBe(1);
  expect(existsSync(join(agent.home, 'Drop', 'invoice-0002.txt'))).toBe(true);
  expect(readdirSync(join(agent.home, 'Archive'))).toEqual([]);
  // The trail says who left the move out.
  const trail = await agent.api<{ summary: string }[]>(`/audit?trace_id=${sg.trace_id}`);
  expect(trail.map((e) => e.summary)).toContain('Left out of the plan by user (browser): file.move');

  // The card's page says what ran.
  await page.goto(agent.origin + '/#/suggestion/' + sg.id);
  const recorded = page.getByRole('list', { name: 'Actions recorded' });
  await expect(recorded.getByRole('listitem')).toHaveCount(3);
  await expect(recorded.getByRole('listitem').filter({ hasText: 'Bring in the full text' })).toContainText('Done');
  await expect(recorded.getByRole('listitem').filter({ hasText: /Post the card/ })).toContainText('Done');
});

test('"approve and always allow" writes the scout’s override, shown and removed in Settings → Policies', async () => {
  await page.getByRole('link', { name: 'Inbox' }).click();
  agent.drop('Drop/invoice-0003.txt', 'Invoice 0003\nFrom ACME, due in two weeks.\n');
  const c = card('Invoice 0003');
  await expect(c).toBeVisible();
  await openApprove(c);
  const dialog = page.getByRole('dialog', { name: 'Approve “Invoice 0003”' });
  await dialog.getByRole('checkbox', { name: /Post the card to/ }).uncheck();
  await expect(dialog.locator('#always-help')).toContainText(
    '“Always allow” lets Drop run task.create, file.move without asking from now on (undo in Settings → Policies).',
  );
  await dialog.getByRole('button', { name: 'Approve and always allow' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(toast('Always allow task.create, file.move for Drop — change in Settings → Policies')).toBeVisible();
  await expect.poll(() => existsSync(join(agent.home, 'Archive', 'invoice-0003.txt'))).toBe(true);
  expect((await agent.api<Policies>('/policies')).scouts[scout.id]).toEqual({
    'task.create': 'allow',
    'file.move': 'allow',
  });

  await toast(/Always allow/).getByRole('button', { name: 'Policies' }).click();
  const policies = page.getByRole('region', { name: 'Policies' });
  await expect(policies).toBeVisible();
  const overrides = policies.getByRole('list', { name: 'Per-scout settings' });
  await expect(overrides.getByRole('listitem')).toHaveCount(2);
  await expect(policies.getByRole('combobox', { name: 'Drop: file.move: mode' })).toHaveValue('allow');
  // What is in effect for the scout, as the agent resolves it, and why.
  const effective = policies.getByRole('table', { name: 'What applies to Drop' });
  await expect(effective.getByRole('row', { name: /file\.move/ })).toContainText('Allowed from your setting for Drop');
  await expect(effective.getByRole('row', { name: /webhook\.post/ })).toContainText(
    'Needs approval from the default for a write action',
  );
  await expect(effective.getByRole('row', { name: /gmail\./ })).toHaveCount(0);
  // A mode for every scout, set and taken back in the window.
  const postMode = policies.getByRole('combobox', { name: 'webhook.post: mode for every scout' });
  await postMode.selectOption('deny');
  await expect(effective.getByRole('row', { name: /webhook\.post/ })).toContainText('Denied from your setting for every scout');
  expect((await agent.api<Policies>('/policies')).global).toEqual({ 'webhook.post': 'deny' });
  await postMode.selectOption('');
  await expect(effective.getByRole('row', { name: /webhook\.post/ })).toContainText(
    'Needs approval from the default for a write action',
  );
  expect((await agent.api<Policies>('/policies')).global).toEqual({});
  // Risk hints beside each action.
  await expect(policies.getByRole('row', { name: /gmail\.trash/ })).toContainText('hard to take back');
  await shot('settings-policies');

  await policies.getByRole('button', { name: 'Remove Drop: file.move' }).click();
  await expect(overrides.getByRole('listitem')).toHaveCount(1);
  await expect(effective.getByRole('row', { name: /file\.move/ })).toContainText(
    'Needs approval from the default for a write action',
  );
  await policies.getByRole('button', { name: 'Remove Drop: task.create' }).click();
  await expect(policies.getByText('No scout has its own setting.')).toBeVisible();
  expect((await agent.api<Policies>('/policies')).scouts[scout.id]).toBeUndefined();
});

test('a failing action is shown with its error, and retried', async () => {
  receiver.status = 400;
  await page.getByRole('link', { name: 'Inbox' }).click();
  agent.drop('Drop/invoice-0004.txt', 'Invoice 0004\nFrom ACME, due in two weeks.\n');
  const c = card('Invoice 0004');
  await expect(c).toBeVisible();
  await openApprove(c);
  const dialog = page.getByRole('dialog', { name: 'Approve “Invoice 0004”' });
  await dialog.getByRole('checkbox', { name: /Move the file/ }).uncheck();
  await dialog.getByRole('button', { name: 'Approve once as task' }).click();
  await expect(dialog).toHaveCount(0);
  const sg = (await pending('Invoice 0004'))!;

  // Never silent: a banner in every view, the details in Status.
  await expect(page.locator('.banner').filter({ hasText: 'An action is failing: post the card to 127.0.0.1' })).toBeVisible();
  await page.getByRole('link', { name: 'See them in Status' }).click();
  const failing = page.getByRole('group', { name: /Failing: Post the card to/ });
  await expect(failing).toContainText('400');
  await expect(failing).toContainText('Stopped after 1 attempt');
  await shot('status-failing-action');

  receiver.status = 202;
  await failing.getByRole('button', { name: 'Retry' }).click();
  await expect(failing).toHaveCount(0);
  await expect(page.locator('.banner').filter({ hasText: 'failing' })).toHaveCount(0);
  const post = async () => (await agent.api<Plan>(`/suggestions/${sg.id}/plan`)).actions.find((a) => a.action === 'webhook.post');
  await expect.poll(async () => (await post())?.state).toBe('done');
  expect((await post())?.failing).toBeFalsy();
  const posts = receiver.posts.filter((p) => p.id === sg.id);
  expect(posts.length).toBe(2);
  // The same key both times: the receiver applies it once.
  expect(new Set(posts.map((p) => p.key)).size).toBe(1);
});

test('a failing action can be dropped from its card’s page', async () => {
  receiver.status = 400;
  await page.getByRole('link', { name: 'Inbox' }).click();
  agent.drop('Drop/invoice-0005.txt', 'Invoice 0005\nFrom ACME, due in two weeks.\n');
  const c = card('Invoice 0005');
  await expect(c).toBeVisible();
  await openApprove(c);
  const dialog = page.getByRole('dialog', { name: 'Approve “Invoice 0005”' });
  await dialog.getByRole('checkbox', { name: /Move the file/ }).uncheck();
  await dialog.getByRole('button', { name: 'Approve once as task' }).click();
  const sg = (await pending('Invoice 0005'))!;
  await page.goto(agent.origin + '/#/suggestion/' + sg.id);
  await expect(page.getByRole('main')).toContainText('An action is failing: retry or drop it below.');
  const failing = page.getByRole('main').getByRole('group', { name: /Failing: Post the card to/ });
  await expect(failing).toContainText('400');
  await failing.getByRole('button', { name: 'Drop' }).click();
  await expect(toast(/Dropped: post the card to .* will not run/)).toBeVisible();
  await expect(page.getByRole('list', { name: 'Actions recorded' })).toContainText('Dropped');
  const p = await agent.api<Plan>(`/suggestions/${sg.id}/plan`);
  expect(p.actions.find((a) => a.action === 'webhook.post')!.state).toBe('dropped');
});
