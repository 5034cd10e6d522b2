// The Senders view of a Gmail scout, against a real agent and the fake
// Gmail and Google OAuth (bin/scouts-fakegmail --oauth): two mailing lists
// the person kept rejecting are selected from the keyboard, unsubscribed
// from and screened after one confirmation; each list's mailto: address
// gets one mail through Gmail (messages.send), and the lists say so.

import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import type { SenderList } from '../src/api/senders';
import type { Scout, Suggestion } from '../src/api/types';
import { ARTIFACTS, startAgent } from './agent';
import { plainMail, startFakeGmail } from './fakegmail';

const listMail = (list: string, n: number) =>
  plainMail({
    from: `${list} <news@${list}>`,
    headers: [`List-Id: <${list}>`, `List-Unsubscribe: <mailto:leave@${list}?subject=unsubscribe>`],
    subject: `Issue ${n} of ${list}`,
    messageId: `i${n}@${list}`,
    body: `This week in ${list}.`,
  });

test('the Senders view unsubscribes from several lists with one confirmation', async ({ page }) => {
  const gmail = await startFakeGmail();
  const agent = await startAgent({ args: (root) => gmail.args(root), env: gmail.env });
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Connect the account (the fake consents to whoever opens its page)
    // and add the scout through the API: the Gmail specs drive those
    // forms already.
    const { auth_url } = await agent.api<{ auth_url: string }>('/gmail/connect', { method: 'POST', body: '{}' });
    await fetch(auth_url);
    await expect.poll(async () => (await agent.api<unknown[]>('/gmail/accounts')).length).toBe(1);
    const before = (await gmail.calls()).profile ?? 0;
    const sc = await agent.api<Scout>('/scouts', {
      method: 'POST',
      body: JSON.stringify({ kind: 'gmail', name: 'Work mail', config: { email: gmail.email, mode: 'local' } }),
    });
    await expect.poll(async () => (await gmail.calls()).profile ?? 0).toBeGreaterThan(before);

    for (const list of ['weekly.example', 'digest.example', 'offers.example']) {
      for (const n of [1, 2]) await gmail.deliver(listMail(list, n));
    }
    await expect.poll(async () => (await agent.api<Suggestion[]>(`/suggestions?scout_id=${sc.id}`)).length).toBe(6);
    for (const s of await agent.api<Suggestion[]>(`/suggestions?scout_id=${sc.id}`)) {
      if (!s.title.includes('offers')) await agent.api(`/suggestions/${s.id}/reject`, { method: 'POST', body: '{}' });
    }

    await page.goto(agent.link);
    await expect(page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
    await page.goto(agent.origin + '/#/scouts');
    await page.getByRole('link', { name: 'Senders of Work mail' }).click();
    await expect(page.getByRole('heading', { name: 'Senders of Work mail', level: 1 })).toBeVisible();
    const table = page.getByRole('table', { name: 'Senders of Work mail' });
    await expect(table.getByRole('row')).toHaveCount(4);
    await page.getByRole('combobox', { name: 'Order' }).selectOption('approve');
    const weekly = table.getByRole('row').filter({ hasText: 'weekly.example' });
    await expect(weekly).toContainText('0% (0 of 2)');
    await expect(weekly).toContainText('Never');
    await expect(weekly).toContainText('By mail');
    await expect(table.getByRole('row').filter({ hasText: 'offers.example' })).toContainText('(2 waiting)');

    // The two rejected lists come first (lowest approve rate): select
    // them from the keyboard, then - asks once for both.
    await table.getByRole('row').nth(1).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('j');
    await page.keyboard.press('Space');
    await expect(page.getByText('2 senders selected')).toBeVisible();
    await page.keyboard.press('-');
    const dialog = page.getByRole('dialog', { name: 'Unsubscribe from 2 senders?' });
    await expect(dialog.getByRole('listitem')).toHaveCount(2);
    await expect(dialog).toContainText('a mail to the list’s unsubscribe address, from your account');
    await page.screenshot({ path: join(ARTIFACTS, 'screenshots', 'senders-bulk-unsubscribe.png'), fullPage: true });
    await dialog.getByRole('button', { name: 'Unsubscribe and screen' }).click();
    await expect(dialog).toHaveCount(0);

    for (const list of ['weekly.example', 'digest.example']) {
      const row = table.getByRole('row').filter({ hasText: list });
      await expect(row).toContainText('Unsubscribed (by mail)');
      await expect(row).toContainText('Screened');
    }
    await expect(table.getByRole('row').filter({ hasText: 'offers.example' })).not.toContainText('Screened');
    await expect.poll(async () => (await gmail.calls())['messages.send'] ?? 0).toBe(2);
    const senders = await agent.api<SenderList>(`/scouts/${sc.id}/senders`);
    expect(senders.senders.filter((s) => s.unsubscribed?.state === 'done').map((s) => s.key).sort()).toEqual([
      'list:digest.example',
      'list:weekly.example',
    ]);
    await page.screenshot({ path: join(ARTIFACTS, 'screenshots', 'senders-unsubscribed.png'), fullPage: true });
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
    await gmail.stop();
  }
});
