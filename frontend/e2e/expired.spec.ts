// Expired suggestions in a browser against a real agent whose suggestions
// wait 8 seconds (--expire-after): the card that nobody decided leaves the
// inbox for the Expired tab, says why it expired, and b brings it back to
// the inbox, audited.

import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent } from './agent';

interface Suggestion {
  id: string;
  title: string;
  status: string;
  trace_id: string;
  expired_reason?: string;
}

async function until<T>(what: string, get: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const v = await get();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('an expired suggestion has its own tab, says why, and b brings it back', async ({ page }) => {
  const agent = await startAgent({ args: () => ['--expire-after', '8s'] });
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    mkdirSync(join(agent.home, 'Drop'));
    await agent.api('/scouts', {
      method: 'POST',
      body: JSON.stringify({ kind: 'folder', path: join(agent.home, 'Drop') }),
      headers: { 'Content-Type': 'application/json' },
    });
    agent.drop('Drop/passport.md', '# Renew the passport\n\nThe passport expires in March.\n');
    const expired = () => agent.api<Suggestion[]>('/suggestions?status=expired');
    const [sg] = await until('the card to expire', expired, (l) => l.length === 1);
    expect(sg!.expired_reason).toContain('nobody decided before');

    await page.goto(agent.link);
    const lanes = page.getByRole('navigation', { name: 'Lanes' });
    await expect(lanes.getByRole('link', { name: /^Inbox/ })).toHaveText('Inbox (0)');
    await lanes.getByRole('link', { name: /^Expired/ }).click();
    await expect(page.getByRole('heading', { name: 'Expired', level: 1 })).toBeVisible();
    const card = page.getByRole('article', { name: 'Renew the passport' });
    await expect(card).toContainText('Why: Expired: nobody decided before');
    await expect(lanes.getByRole('link', { name: /^Expired/ })).toHaveText('Expired (1)');
    await shot('expired-lane');

    await card.focus();
    await page.keyboard.press('b');
    await expect(page.locator('.toast').filter({ hasText: 'Brought back to Inbox: “Renew the passport”' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Nothing expired' })).toBeVisible();
    const back = await agent.api<Suggestion>(`/suggestions/${sg!.id}`);
    const audit = await agent.api<{ type: string; refs: Record<string, string> }[]>(`/audit?trace_id=${sg!.trace_id}`);
    expect(audit.map((e) => e.type)).toContain('suggestion.revived');
    expect(audit.find((e) => e.type === 'suggestion.revived')!.refs.actor).toBe('user (browser)');
    // Pending again (until its new deadline, 8 s from now here).
    expect(['pending', 'expired']).toContain(back.status);
    await lanes.getByRole('link', { name: /^Inbox/ }).click();
    await shot('expired-brought-back');
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
