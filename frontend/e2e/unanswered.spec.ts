// A sender nobody answers, as a person meets it in a browser against a real
// agent and the fake Gmail (bin/scouts-fakegmail --oauth): once the learner
// is past its cold start, the fourth mail of a sender that writes again and
// again, not through a list, while none of its mail was answered, waits in
// Screened, says why, and offers the screener's keys; "always show" brings
// it back to the inbox, and the sender's next mail is shown with a why line
// naming the screener. Answering the sender instead (approving one of its
// mails) brings its held cards back to the inbox at once.

import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import type { Scout, Suggestion } from '../src/api/types';
import { type Agent, ARTIFACTS, startAgent } from './agent';
import { type FakeGmail, plainMail, startFakeGmail } from './fakegmail';

const mail = (from: string, subject: string, id: string) =>
  plainMail({ from, subject, messageId: `${id}@example.com`, body: `${subject}: a few lines about it.` });

test('a sender nobody answers waits in Screened, and always show brings it back', async ({ page }) => {
  const gmail = await startFakeGmail();
  const agent = await startAgent({ args: (root) => gmail.args(root), env: gmail.env });
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const { byTitle } = await trainedScout(agent, gmail);

    // The feed writes four times; nobody answers.
    for (const n of [1, 2, 3, 4]) await gmail.deliver(mail('Daily Feed <feed@news.example>', `Digest ${n}`, `f${n}`));
    await expect.poll(async () => (await byTitle('Digest 4'))?.lane ?? '').toBe('screened');
    for (const n of [1, 2, 3]) expect((await byTitle(`Digest ${n}`))?.lane).toBe('inbox');
    const held = (await byTitle('Digest 4'))!;
    expect(held.assessment?.unanswered).toBe(true);

    await page.goto(agent.link);
    await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
    await page.getByRole('navigation', { name: 'Lanes' }).getByRole('link', { name: /^Screened/ }).click();
    const card = page.getByRole('article', { name: 'Digest 4' });
    await expect(card).toContainText('sender wrote 3 times before and you have answered none of it yet');
    const keys = card.getByRole('group', { name: 'Unanswered sender: feed@news.example' });
    await expect(keys).toBeVisible();
    await page.screenshot({ path: join(ARTIFACTS, 'screenshots', 'unanswered-sender.png'), fullPage: true });
    await keys.getByRole('button', { name: 'Always show this sender' }).click();

    // Back in the inbox, waiting for its decision; the next mail is shown
    // by the rule the key wrote.
    await expect.poll(async () => (await byTitle('Digest 4'))?.lane ?? '').toBe('inbox');
    await gmail.deliver(mail('Daily Feed <feed@news.example>', 'Digest 5', 'f5'));
    await expect.poll(async () => (await byTitle('Digest 5'))?.lane ?? '').toBe('inbox');
    expect((await byTitle('Digest 5'))?.screener?.why).toMatch(/^you always show this sender/);
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
    await gmail.stop();
  }
});

test('approving a mail of a sender nobody answered brings its held cards back to the inbox', async ({ page }) => {
  const gmail = await startFakeGmail();
  const agent = await startAgent({ args: (root) => gmail.args(root), env: gmail.env });
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const { post, byTitle } = await trainedScout(agent, gmail);

    // Five mails of the feed: the fourth and fifth wait in Screened.
    for (const n of [1, 2, 3, 4, 5]) await gmail.deliver(mail('Daily Feed <feed@news.example>', `Digest ${n}`, `f${n}`));
    await expect.poll(async () => (await byTitle('Digest 5'))?.lane ?? '').toBe('screened');
    expect((await byTitle('Digest 4'))?.lane).toBe('screened');

    await page.goto(agent.link);
    const inbox = page.getByRole('main');
    await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
    await expect(inbox.getByRole('article', { name: 'Digest 1' })).toBeVisible();
    await expect(inbox.getByRole('article', { name: 'Digest 4' })).toHaveCount(0);

    // The person answers the sender: approves its first mail.
    await post(`/suggestions/${(await byTitle('Digest 1'))!.id}/approve`, { as: 'note' });

    // The window, left open on the Inbox, shows the held mail without a
    // reload; nothing of the sender is left in Screened.
    await expect(inbox.getByRole('article', { name: 'Digest 4' })).toBeVisible();
    await expect(inbox.getByRole('article', { name: 'Digest 5' })).toBeVisible();
    for (const t of ['Digest 4', 'Digest 5']) expect((await byTitle(t))?.lane).toBe('inbox');
    await page.getByRole('navigation', { name: 'Lanes' }).getByRole('link', { name: /^Screened/ }).click();
    await expect(page.getByRole('heading', { name: 'Screened', level: 1 })).toBeVisible();
    await expect(page.getByRole('article', { name: /^Digest/ })).toHaveCount(0);
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
    await gmail.stop();
  }
});

/** A Gmail scout in local mode on the fake mailbox, its learner past a
 * cold start of three decisions: three people's mail approved. */
async function trainedScout(agent: Agent, gmail: FakeGmail) {
  const post = <T>(path: string, body: unknown = {}) =>
    agent.api<T>(path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
  const { auth_url } = await post<{ auth_url: string }>('/gmail/connect');
  await fetch(auth_url);
  await expect.poll(async () => (await agent.api<unknown[]>('/gmail/accounts')).length).toBe(1);
  const before = (await gmail.calls()).profile ?? 0;
  const sc = await post<Scout>('/scouts', { kind: 'gmail', name: 'Work mail', config: { email: gmail.email, mode: 'local' } });
  await expect.poll(async () => (await gmail.calls()).profile ?? 0).toBeGreaterThan(before);
  const cards = () => agent.api<Suggestion[]>(`/suggestions?scout_id=${sc.id}&status=all&limit=1000`);
  const byTitle = async (title: string) => (await cards()).find((s) => s.title === title);
  await agent.api(`/scouts/${sc.id}/learning`, {
    method: 'PUT',
    body: JSON.stringify({ cold_start: 3, screen_below: 0.3, spam_above: 0.9, min_spam: 10 }),
    headers: { 'Content-Type': 'application/json' },
  });
  for (const n of [1, 2, 3]) await gmail.deliver(mail(`Friend ${n} <friend${n}@home.example>`, `Dinner ${n}`, `d${n}`));
  await expect.poll(async () => (await cards()).length).toBe(3);
  for (const s of await cards()) await post(`/suggestions/${s.id}/approve`, { as: 'note' });
  return { post, byTitle };
}
