// browser.mjs — what every browser test shares: playwright-core from the
// repository's package-lock.json driving Debian's chromium (never a browser
// of playwright's own), launched with the flags this machine's closed network
// needs.  A missing package or browser is a failure, never a skip.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertEq, runner, startServer, tempDir } from '../server/lib.mjs';

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

// Every page of the tests shows the computers' decisions as they come (the
// 'fast' pace, web/js/pacing.js) unless the test chose another in the page:
// the default plays a computer's turn out over 2 s, and tests that are not
// about pacing should not wait for it.
export async function fastPages(browser) {
  const fast = () => { try { if (!localStorage.getItem('tabula.computerPace')) localStorage.setItem('tabula.computerPace', 'fast'); } catch { /* no storage */ } };
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...a) => { const ctx = await newContext(...a); await ctx.addInitScript(fast); return ctx; };
  browser.newPage = async (...a) => (await browser.newContext(...a)).newPage();
  return browser;
}

// The frame of one browser test file: a server on a fresh database, the
// browser, the runner, pages that record every script error, screenshots
// under tests/e2e/artifacts/<prefix>NAME.png, and finish(), which adds the
// two closing checks (no script error in any page; the server stops with
// status 0), runs every test and exits with the result.
// E2E_ONLY=word runs only the tests whose name has it (for development).
export async function browserSuite({ title, prefix = '', aiDelay = 0, reducedMotion = false, argv = process.argv }) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(here, '..', '..');
  const tabula = path.resolve(argv[2] || 'build/tabula');
  const artifacts = path.join(here, 'artifacts');
  fs.mkdirSync(artifacts, { recursive: true });
  const dir = tempDir(`tabula-e2e-${prefix || 'clans-'}`);
  // the computers pause `aiDelay` before each decision, as before a turn
  const server = await startServer(tabula, { db: path.join(dir, 'e2e.db'), aiDelay, args: ['--ai-step-ms', String(aiDelay)] });
  const browser = await fastPages(await launchBrowser(root));
  const t = runner(title);
  const always = t.test; // the closing checks run whatever E2E_ONLY says
  if (process.env.E2E_ONLY) t.test = (name, fn) => { if (name.includes(process.env.E2E_ONLY)) always(name, fn); };
  const errors = [];
  // A page whose script errors and console errors fail the suite, but for
  // console messages matching `allow` (a request a test makes fail on purpose).
  const newPage = async ({ allow = null } = {}) => {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 960 }, ...(reducedMotion ? { reducedMotion: 'reduce' } : {}) });
    const page = await ctx.newPage();
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !(allow && allow.test(m.text()))) errors.push(`${page.url()}: console: ${m.text()}`);
    });
    return page;
  };
  const shot = async (page, name) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(artifacts, `${prefix}${name}.png`), fullPage: true });
  };
  const finish = async () => {
    always('no script errors in any page', async () => assertEq(errors, [], 'page errors'));
    always('the server stops cleanly', async () => {
      await browser.close();
      const { code } = await server.stop();
      assertEq(code, 0, `exit status (stderr: ${server.stderr().slice(0, 2000)})`);
    });
    console.log(`# screenshots go to ${artifacts}`);
    const failed = await t.run();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(failed ? 1 : 0);
  };
  return { root, tabula, artifacts, dir, server, browser, t, errors, newPage, shot, finish };
}

// Records every CSS animation that starts in the page (before it loads), so
// a test can check an animation played even when it ended before the test
// looked: startedAnimations(page) gives {name, cls, id, squares, at,
// duration (ms)} for each, `id`, `squares` and `at` read from the nearest
// element carrying data-id, data-squares or data-at.
export async function recordAnimations(page) {
  await page.addInitScript(() => {
    window.animStarts = [];
    document.addEventListener('animationstart', (e) => {
      const t = e.target;
      const near = (attr) => { const x = t.closest && t.closest(`[data-${attr}]`); return x ? x.getAttribute(`data-${attr}`) : null; };
      window.animStarts.push({
        name: e.animationName, cls: (t.getAttribute && t.getAttribute('class')) || '', id: near('id'), squares: near('squares'), at: near('at'),
        duration: parseFloat(getComputedStyle(t).animationDuration) * 1000,
      });
    }, true);
  });
}
export const startedAnimations = (page) => page.evaluate(() => window.animStarts || []);
