// Headless Chromium for the browser tests, driven by playwright-core. The browser is the
// machine's own (Debian's `chromium`, which .ci/run installs when it is missing), or one named by
// CHROMIUM_PATH, or one Playwright installed; with none of them the tests fail and say how to get
// one: a browser test is never skipped.
import { existsSync, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The Chromium to drive: CHROMIUM_PATH, else the first on PATH, else Playwright's own. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CHROMIUM_PATH) {
    if (!existsSync(env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH names ${env.CHROMIUM_PATH}, which does not exist`);
    return env.CHROMIUM_PATH;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    for (const name of NAMES) {
      const candidate = join(dir, name);
      if (dir && existsSync(candidate)) return candidate;
    }
  }
  try {
    const own = chromium.executablePath();
    if (own && existsSync(own)) return own;
  } catch {
    // Playwright has installed none
  }
  throw new Error(
    'the browser tests need Chromium: install Debian\'s package (apt-get install chromium), or run "npx playwright-core install chromium", or set CHROMIUM_PATH',
  );
}

/** Headless, without a sandbox (containers run as root) and without reaching out to any network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}

/** Where the tests' screenshots go (kept as test output, not committed). */
export function screenshotDir(root: string): string {
  const dir = join(root, 'test-output', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}
