import { defineConfig } from '@playwright/test';

// Browser end-to-end tests: Debian's Chromium (no browser download) driving
// a real `scouts agent --ui` on a real SQLite file. Each spec starts its own
// agent (e2e/agent.ts). Screenshots and failure traces go to
// ../test-artifacts/, which git ignores.
export default defineConfig({
  testDir: 'e2e',
  outputDir: '../test-artifacts/playwright',
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.SCOUTS_CHROMIUM || '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    viewport: { width: 1200, height: 820 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
});
