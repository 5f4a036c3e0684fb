import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
