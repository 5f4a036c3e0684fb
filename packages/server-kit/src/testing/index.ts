import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Headless Chromium on a machine without network beyond loopback (no background traffic, no sandbox as root). */
export const BROWSER_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The Chromium that jest.global-setup.js found; null when the user skipped the browser suites (XFER_TEST_SKIP=browser). */
export function testChromium(): string | null {
  return process.env.XFER_TEST_CHROMIUM || null;
}

/**
 * Where a browser suite writes its screenshots: `docs` with XFER_UPDATE_SCREENSHOTS (`npm run
 * screenshots` refreshes the README's pictures), else a temp folder, made on first use (a suite
 * whose tests are all filtered out leaves nothing behind) and removed by `cleanup`.
 */
export function screenshotFolder(docs: string): { readonly dir: string; cleanup: () => void } {
  if (process.env.XFER_UPDATE_SCREENSHOTS) return { dir: docs, cleanup: () => undefined };
  let made: string | null = null;
  return {
    get dir() {
      made ??= mkdtempSync(join(tmpdir(), 'xfer-screenshots-'));
      return made;
    },
    cleanup: () => {
      if (made) rmSync(made, { recursive: true, force: true });
    },
  };
}

/** Headless Chromium as the test run found it (call only when testChromium() is set). */
export function launchTestBrowser(): Promise<Browser> {
  const executablePath = testChromium();
  if (!executablePath) throw new Error('No Chromium for this run (XFER_TEST_SKIP=browser?)');
  return chromium.launch({ executablePath, args: BROWSER_FLAGS });
}

/** Closes a browser suite's browser and servers. */
export async function closeBrowserSuite(browser: Browser | undefined, servers: readonly Server[]): Promise<void> {
  await browser?.close();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
}
export { makeTestCertificates, type TestCertificates } from './certificates';
