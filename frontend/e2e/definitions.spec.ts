// A scout's definition history in a browser against a real agent: who
// changed it and what, the diff between two versions, rollback with a
// confirmation; a scout its definitions file manages says so, its
// rollback is refused by the agent (409) with the reason shown, and a
// change on its card is refused with an offer to write it to the file; a
// broken definitions file is listed on the Scouts view with its line as
// soon as the agent reads it, and leaves the list once fixed.

import { expect, test, type Page } from '@playwright/test';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, startAgent } from './agent';

interface Version {
  version: number;
  actor: string;
  note?: string;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, 'screenshots', `${name}.png`), fullPage: true });

test('history, diff and rollback of a scout; a file-managed scout refuses rollback', async ({ page }) => {
  const agent = await startAgent();
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    mkdirSync(join(agent.home, 'Docs'));
    const sc = await agent.api<{ id: string }>('/scouts', {
      method: 'POST',
      body: JSON.stringify({ kind: 'folder', path: join(agent.home, 'Docs'), name: 'Docs' }),
      headers: { 'Content-Type': 'application/json' },
    });
    await page.goto(agent.link);
    await page.goto(agent.origin + '/#/scouts');
    const card = page.getByRole('article', { name: 'Docs' });
    await expect(card).toBeVisible();

    // A change in the window, then one by a script through the API.
    // The PATCH answers once its version is recorded. (Reading the
    // history meanwhile would record the change itself, as the agent's.)
    const patched = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith(`/scouts/${sc.id}`));
    await card.getByText('Auto-create').click();
    expect((await patched).status()).toBe(200);
    await agent.api(`/scouts/${sc.id}/rules`, {
      method: 'POST',
      body: JSON.stringify({ id: 'pdf', when: { ext: { equals: 'pdf' } }, then: { verdict: 'screen' } }),
      headers: { 'Content-Type': 'application/json' },
    });

    await card.getByRole('button', { name: 'History of Docs' }).click();
    const dialog = page.getByRole('dialog', { name: 'History of Docs' });
    const v = (n: number) => dialog.getByRole('listitem', { name: `Version ${n}`, exact: true });
    await expect(v(3)).toContainText('Rule “pdf” added');
    await expect(v(3)).toContainText('by the API');
    await expect(v(3)).toContainText('current');
    await expect(v(2)).toContainText('by the window (in a browser)');
    await expect(v(1)).toContainText('Created');

    // The scout's runs, each with the version it ran: the window's change
    // restarted it on version 2 (the rule added later restarts nothing).
    // A run's version shows that version of the history.
    const runs = dialog.getByRole('region', { name: 'Recent runs' });
    const ranV2 = runs.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'version 2', exact: true }) });
    await expect(ranV2.first()).toContainText('Run at');
    await ranV2.first().getByRole('button', { name: 'version 2', exact: true }).click();
    await expect(v(2)).toBeFocused();

    // What the window changed: review on → off.
    await v(2).getByRole('button', { name: 'Changes from version 1' }).click();
    const diff = v(2).getByLabel('Changes from version 1 to 2');
    await expect(diff).toContainText('review');
    await expect(diff).toContainText('true → false');
    await expect(v(3).getByRole('button', { name: 'Changes from version 2' })).toBeVisible();
    await shot(page, 'definitions-history');

    // Each version's rollback is named by its version. Rollback asks
    // first; Keep changes nothing and gives the focus back to the button.
    await expect(v(2).getByRole('button', { name: 'Roll back to version 2' })).toBeVisible();
    const toV1 = v(1).getByRole('button', { name: 'Roll back to version 1' });
    await toV1.click();
    await expect(v(1)).toContainText('Roll back to version 1?');
    await v(1).getByRole('button', { name: 'Keep' }).click();
    await expect(toV1).toBeFocused();
    expect((await agent.api<Version[]>(`/scouts/${sc.id}/versions`)).length).toBe(3);
    await toV1.click();
    await v(1).getByRole('button', { name: 'Roll back', exact: true }).click();
    await expect(v(4)).toContainText('Rolled back to version 1');
    // The focus goes to the version the rollback made.
    await expect(v(4)).toBeFocused();
    await expect(v(4)).toContainText('by the window (in a browser)');
    await expect(page.locator('.toast').filter({ hasText: 'Docs is back to version 1, as version 4' })).toBeVisible();
    const back = await agent.api<{ review: boolean }>(`/scouts/${sc.id}`);
    expect(back.review).toBe(true);
    expect((await agent.api<{ rules: unknown[] }>(`/scouts/${sc.id}/rules`)).rules).toEqual([]);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();
    await expect(card.getByRole('radio', { name: 'Review' })).toBeChecked();

    // A scout its definitions file manages.
    const defs = join(agent.config, 'scouts', 'scouts.d');
    mkdirSync(defs, { recursive: true });
    mkdirSync(join(agent.home, 'Scans'));
    const def = (name: string) =>
      JSON.stringify({ version: 1, kind: 'folder', name, source: { path: join(agent.home, 'Scans') } });
    writeFileSync(join(defs, 'scans.json'), def('Scans'));
    const scans = page.getByRole('article', { name: 'Scans' });
    await expect(scans).toContainText('Managed by the definitions file scans.json');
    const scansId = await expect
      .poll(async () => (await agent.api<{ id: string; name: string }[]>('/scouts')).find((s) => s.name === 'Scans')?.id)
      .toBeTruthy()
      .then(async () => (await agent.api<{ id: string; name: string }[]>('/scouts')).find((s) => s.name === 'Scans')!.id);
    writeFileSync(join(defs, 'scans.json'), def('Scans 2'));
    const scans2 = page.getByRole('article', { name: 'Scans 2' });
    await expect(scans2).toBeVisible();
    await expect.poll(async () => (await agent.api<Version[]>(`/scouts/${scansId}/versions`)).length).toBe(2);
    await scans2.getByRole('button', { name: 'History of Scans 2' }).click();
    const fd = page.getByRole('dialog', { name: 'History of Scans 2' });
    await expect(fd).toContainText('Managed by the file scans.json');
    await expect(fd.getByRole('listitem', { name: 'Version 2', exact: true })).toContainText('by the file scans.json');
    const fv1 = fd.getByRole('listitem', { name: 'Version 1', exact: true });
    await fv1.getByRole('button', { name: 'Roll back to version 1' }).click();
    await fv1.getByRole('button', { name: 'Roll back', exact: true }).click();
    await expect(fd.getByRole('alert')).toContainText('Not rolled back. Managed by scans.json');
    await expect(fv1.getByRole('button', { name: 'Roll back to version 1' })).toBeFocused();
    await shot(page, 'definitions-managed-rollback');
    expect((await agent.api<Version[]>(`/scouts/${scansId}/versions`)).length).toBe(2);
    expect((await agent.api<{ name: string }>(`/scouts/${scansId}`)).name).toBe('Scans 2');
    await fd.getByRole('button', { name: 'Close' }).click();

    // Changed on its card, a file-managed scout is refused with an offer
    // to write the change to its file, which then holds it.
    await scans2.getByText('Auto-create').click();
    const offer = page.locator('.toast').filter({ hasText: 'the definitions file scans.json decides scout “Scans 2”' });
    await expect(offer).toBeVisible();
    await expect(scans2.getByRole('radio', { name: 'Review' })).toBeChecked();
    await shot(page, 'definitions-managed-edit');
    await offer.getByRole('button', { name: 'Write to scans.json' }).click();
    await expect(scans2.getByRole('radio', { name: 'Auto-create' })).toBeChecked();
    // The card was seen showing the change before the file held it (one
    // run in five under load): wait for the file rather than read it once.
    await expect.poll(() => JSON.parse(readFileSync(join(defs, 'scans.json'), 'utf8')).review).toBe(false);
    expect((await agent.api<{ review: boolean }>(`/scouts/${scansId}`)).review).toBe(false);

    // A broken definitions file: listed with its line while the view is
    // open (the agent says on its stream that it read the folder again),
    // and nothing changes; fixed, it leaves the list and makes its scout.
    writeFileSync(join(defs, 'broken.yaml'), 'version: 1\nkind: folder\nname: [oops\n');
    const broken = page.locator('.definition-errors');
    await expect(broken).toContainText('broken.yaml:3');
    await shot(page, 'definitions-broken-file');
    expect((await agent.api<unknown[]>('/scouts')).length).toBe(2);
    mkdirSync(join(agent.home, 'Inbox'));
    writeFileSync(
      join(defs, 'broken.yaml'),
      `version: 1\nkind: folder\nname: Fixed\nsource:\n  path: ${JSON.stringify(join(agent.home, 'Inbox'))}\n`,
    );
    await expect(page.getByRole('article', { name: 'Fixed' })).toContainText('Managed by the definitions file broken.yaml');
    await expect(broken).toHaveCount(0);
    // Its file removed, a scout is off and no longer says a file manages it.
    rmSync(join(defs, 'scans.json'));
    await expect(scans2.getByRole('switch', { name: 'Scans 2: on' })).not.toBeChecked();
    await expect(scans2).not.toContainText('Managed by the definitions file');
    expect(errors).toEqual([]);
  } finally {
    await agent.stop();
  }
});
