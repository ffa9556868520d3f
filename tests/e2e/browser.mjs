// browser.mjs — what every browser test shares: playwright-core from the
// repository's package-lock.json driving Debian's chromium (never a browser
// of playwright's own), launched with the flags this machine's closed network
// needs.  A missing package or browser is a failure, never a skip.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const CHROMIUM = process.env.TABULA_CHROMIUM || '/usr/bin/chromium';

function fail(message) {
  console.log(`FAIL ${message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

// Starts chromium headless; `root` is the repository (where package.json is).
export async function launchBrowser(root) {
  let chromium;
  try {
    ({ chromium } = createRequire(path.join(root, 'package.json'))('playwright-core'));
  } catch (e) {
    fail(`playwright-core is not installed (run 'npm ci' in ${root}): ${e.message}`);
  }
  if (!fs.existsSync(CHROMIUM)) fail(`no browser at ${CHROMIUM} (install the Debian package chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
  });
}
