// A Gmail card's plan in the window, against a real agent and the fake
// Gmail and Google OAuth (bin/scouts-fakegmail --oauth) as a separate
// process: the account is connected and the scout added from the Scouts
// view, the label "Scouts" set in Settings → Policies; a card approved as
// a task with "Archive the email" ticked is archived once in the fake's
// mailbox and labelled, another with it unticked stays in the inbox,
// labelled only.

import { expect, test, type Page } from '@playwright/test';
import { join } from 'node:path';
import type { Plan } from '../src/api/plans';
import type { Scout, Suggestion } from '../src/api/types';
import { ARTIFACTS, startAgent, type Agent } from './agent';
import { plainMail, startFakeGmail, type FakeGmail } from './fakegmail';

test.describe.configure({ mode: 'serial' });

let gmail: FakeGmail;
let agent: Agent;
let page: Page;
const pageErrors: string[] = [];

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
const card = (title: string) => page.getByRole('article', { name: title });
const openApprove = async (c: ReturnType<typeof card>) => {
  await c.click({ position: { x: 300, y: 12 } });
  await expect(c).toHaveAttribute('aria-current', 'true');
  await c.getByRole('button', { name: 'Edit, then approve' }).click();
};
const mail = (n: number) =>
  plainMail({
    from: 'Bob Example <bob@partner.example>',
    subject: `Contract draft ${n}`,
    messageId: `c${n}-plan@partner.example`,
    body: `Hi Ann, please review draft ${n} by Friday.`,
  });
const suggestion = async (title: string) =>
  (await agent.api<Suggestion[]>('/suggestions?status=all')).find((s) => s.title === title)!;
const states = async (id: string) =>
  (await agent.api<Plan>(`/suggestions/${id}/plan`)).actions.map((a) => `${a.action} ${a.state}`).sort();

test.beforeAll(async ({ browser }) => {
  gmail = await startFakeGmail();
  agent = await startAgent({ args: (root) => gmail.args(root), env: gmail.env });
  page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

test.afterAll(async () => {
  await page?.close();
  await agent?.stop();
  await gmail?.stop();
});

test('a Gmail account is connected and its scout added from the Scouts view', async () => {
  await page.goto(agent.link);
  await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  await page.goto(agent.origin + '/#/scouts');
  await page.getByRole('button', { name: 'Add a Gmail scout' }).click();
  const form = page.getByRole('form', { name: 'Add a Gmail scout' });
  await expect(form.getByText('No Gmail account is connected yet.')).toBeVisible();
  await form.getByRole('button', { name: 'Connect a Gmail account…' }).click();
  // The person opens Google's sign-in: the fake consents at once and
  // sends the browser back to the agent.
  const popup = page.waitForEvent('popup');
  await form.getByRole('link', { name: 'open it here' }).click();
  await (await popup).close();
  await form.getByRole('button', { name: 'Refresh' }).click();
  await expect(form.getByRole('combobox', { name: 'Gmail account' })).toHaveValue(gmail.email);

  // Mail from before the scout never becomes a card: wait for the scout
  // to note where the mailbox is (its profile read) before delivering.
  const before = (await gmail.calls()).profile ?? 0;
  await form.getByRole('textbox', { name: 'Name (optional)' }).fill('Work mail');
  // Awaiting reply: the scout watches the mail the person sends.
  await form.getByRole('checkbox', { name: /Remind me when nobody answers mail I sent/ }).check();
  await form.getByRole('button', { name: 'Add Gmail scout' }).click();
  await expect(form).toHaveCount(0);
  const scouts = await agent.api<Scout[]>('/scouts');
  expect(scouts.map((s) => `${s.kind} ${s.name}`)).toEqual(['gmail Work mail']);
  expect((scouts[0]!.config as { watch_sent?: boolean }).watch_sent).toBe(true);
  await expect.poll(async () => (await gmail.calls()).profile ?? 0).toBeGreaterThan(before);
});

test('the label Scouts is set for Gmail cards in Settings → Policies', async () => {
  await page.goto(agent.origin + '/#/settings/policies');
  const policies = page.getByRole('region', { name: 'Policies' });
  await expect(policies.getByRole('checkbox', { name: /Archive the email/ })).toBeChecked();
  await policies.getByRole('textbox', { name: 'Add the label' }).fill('Scouts');
  await policies.getByRole('button', { name: 'Save label' }).click();
  await expect(policies.getByRole('button', { name: 'Save label' })).toBeDisabled();
  await expect.poll(async () => (await agent.api<{ defaults: { gmail_label: string } }>('/policies')).defaults.gmail_label).toBe('Scouts');
});

test('approved as a task with "Archive the email" ticked: archived once and labelled Scouts', async () => {
  const id = await gmail.deliver(mail(1));
  await page.getByRole('link', { name: 'Inbox' }).click();
  const c = card('Contract draft 1');
  await expect(c).toBeVisible();
  await c.click({ position: { x: 300, y: 12 } });
  await expect(c.locator('.card-plan')).toContainText('Approving also: archive the email · add the label Scouts');
  await openApprove(c);

  const dialog = page.getByRole('dialog', { name: 'Approve “Contract draft 1”' });
  await dialog.getByRole('radio', { name: /Task/ }).check();
  const plan = dialog.getByRole('list', { name: 'What approving runs' });
  await expect(plan.getByRole('listitem')).toHaveCount(3);
  await expect(plan.getByRole('checkbox', { name: 'Create a task' })).toBeChecked();
  await expect(plan.getByRole('checkbox', { name: 'Archive the email' })).toBeChecked();
  await expect(plan.getByRole('checkbox', { name: 'Add the label Scouts' })).toBeChecked();
  await expect(plan.getByRole('listitem').filter({ hasText: 'Archive the email' })).toContainText(
    'Needs approval from the default for a write action',
  );
  await shot('approve-gmail-plan');
  await dialog.getByRole('button', { name: 'Approve once as task' }).click();
  await expect(dialog).toHaveCount(0);

  const sg = await suggestion('Contract draft 1');
  expect(sg.source_ref).toBe(id);
  // Besides the plan, the engine's own step brings in the mail's text
  // once the approval has answered (entity.fill_body).
  await expect
    .poll(() => states(sg.id))
    .toEqual(['entity.fill_body done', 'gmail.archive done', 'gmail.label done', 'task.create done']);
  const mods = await gmail.modifications(id);
  expect(mods.removed).toEqual({ INBOX: 1 });
  expect(mods.added).toEqual({ Scouts: 1 });
  expect(await gmail.labels(id)).not.toContain('INBOX');
  expect(await gmail.labels(id)).toContain('Scouts');
  const tasks = await agent.api<{ source_suggestion_id?: string }[]>('/tasks');
  expect(tasks.filter((t) => t.source_suggestion_id === sg.id).length).toBe(1);

  // The card's page says what ran.
  await page.goto(agent.origin + '/#/suggestion/' + sg.id);
  const recorded = page.getByRole('list', { name: 'Actions recorded' });
  await expect(recorded.getByRole('listitem')).toHaveCount(4);
  await expect(recorded.getByRole('listitem').filter({ hasText: 'Bring in the full text' })).toContainText('Done');
  await expect(recorded.getByRole('listitem').filter({ hasText: 'Archive the email' })).toContainText('Done');
  await expect(recorded.getByRole('listitem').filter({ hasText: 'Add the label Scouts' })).toContainText('Done');
});

test('approved as a task with "Archive the email" unticked: still in the inbox, labelled Scouts', async () => {
  const id = await gmail.deliver(mail(2));
  await page.getByRole('link', { name: 'Inbox' }).click();
  const c = card('Contract draft 2');
  await expect(c).toBeVisible();
  await openApprove(c);
  const dialog = page.getByRole('dialog', { name: 'Approve “Contract draft 2”' });
  await dialog.getByRole('radio', { name: /Task/ }).check();
  const plan = dialog.getByRole('list', { name: 'What approving runs' });
  await plan.getByRole('checkbox', { name: 'Archive the email' }).uncheck();
  await expect(plan.getByRole('checkbox', { name: 'Add the label Scouts' })).toBeChecked();
  await dialog.getByRole('button', { name: 'Approve once as task' }).click();
  await expect(dialog).toHaveCount(0);

  const sg = await suggestion('Contract draft 2');
  await expect.poll(() => states(sg.id)).toEqual(['entity.fill_body done', 'gmail.label done', 'task.create done']);
  const mods = await gmail.modifications(id);
  expect(mods.removed).toEqual({});
  expect(mods.added).toEqual({ Scouts: 1 });
  expect(await gmail.labels(id)).toEqual(expect.arrayContaining(['INBOX', 'Scouts']));
  const trail = await agent.api<{ type: string; summary: string }[]>(`/audit?trace_id=${sg.trace_id}`);
  expect(trail.map((e) => e.summary)).toContain('Left out of the plan by user (browser): gmail.archive');
});
