// phone.e2e.mjs TABULA — the browser UI on a phone: 390×844 with touch input.
// For each game: the lobby creates a game against the computer by taps, the
// game page is played by taps, and on every page visited nothing is wider
// than the screen (no horizontal scroll) and every control tapped is inside
// the viewport when tapped.  Clans is played to the end and its replay
// opened.  Screenshots go to tests/e2e/artifacts/phone-*.png.
import { assert, assertEq } from '../server/lib.mjs';
import { browserSuite } from './browser.mjs';

const { server, browser, t, errors, shot, finish } = await browserSuite({ title: 'browser tests (phone, 390×844, touch)', prefix: 'phone-', aiDelay: 0 });
const W = 390, H = 844;

async function phonePage({ expect404 = false } = {}) {
  const ctx = await browser.newContext({ viewport: { width: W, height: H }, hasTouch: true, isMobile: true, deviceScaleFactor: 1 });
  // These games are played tap by tap without the "Confirm each move" step
  // (on by default on touch screens); undo.e2e.mjs covers confirming.
  await ctx.addInitScript(() => localStorage.setItem('tabula.confirmEachMove', 'off'));
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' && !(expect404 && /status of 404/.test(m.text()))) errors.push(`${page.url()}: console: ${m.text()}`); });
  return page;
}

// No horizontal scroll: the document is no wider than the phone's screen.
async function noOverflow(page, where) {
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  assert(sw <= W, `${where}: the page is ${sw} px wide on a ${W} px screen`);
}

// Taps a control after checking it is inside the viewport (scrolled to first,
// as a player would).
async function tap(page, selector, what = selector, { force = false } = {}) {
  const loc = page.locator(selector).first();
  await loc.scrollIntoViewIfNeeded();
  const box = await loc.boundingBox();
  assert(box, `${what} is shown`);
  const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
  assert(cx >= 0 && cx <= W && cy >= 0 && cy <= H, `${what} is inside the viewport when tapped (centre ${Math.round(cx)},${Math.round(cy)})`);
  await loc.tap({ force });
}

// The dock (turn, decision buttons, tabs) sits at the bottom, inside the screen.
async function dockInReach(page, where) {
  const box = await page.locator('#dock').boundingBox();
  assert(box, `${where}: the dock is shown`);
  assert(Math.abs(box.y + box.height - H) <= 1 && box.y >= H / 2, `${where}: the dock is at the bottom (${Math.round(box.y)}–${Math.round(box.y + box.height)})`);
  assert(await page.$('#dock #turn'), `${where}: the turn is in the dock`);
}

async function createFromLobby(page, game, name) {
  await page.goto(server.base + '/');
  await page.waitForSelector(`.game-choice[data-game="${game}"]`);
  await noOverflow(page, 'lobby');
  await tap(page, `.game-choice[data-game="${game}"]`, `the ${game} choice`);
  for (const sel of await page.$$('[data-seat-level]')) await sel.selectOption('easy'); // quick computer seats
  await tap(page, '#create', 'Create game');
  await page.waitForSelector('#created:not([hidden]) [data-play-seat="0"]');
  await noOverflow(page, 'lobby with the new game');
  await shot(page, `${name}-lobby`);
  await tap(page, '[data-play-seat="0"]', 'the seat link');
  await page.waitForURL(/game\.html/);
  await page.waitForSelector('#turn .headline');
}

t.test('Clans on a phone: a whole game by taps, then the replay', async () => {
  const page = await phonePage();
  await createFromLobby(page, 'clans', 'clans-1');
  await page.waitForSelector('.clans-board .territory');
  await noOverflow(page, 'Clans game');
  const svgBox = await page.locator('.clans-board').first().boundingBox();
  assert(svgBox.width >= W - 40 && svgBox.x >= 0 && svgBox.x + svgBox.width <= W, `the board fills the width (${Math.round(svgBox.width)} px)`);
  let decisions = 0;
  for (let turn = 0; turn < 200; turn++) {
    await page.waitForFunction(() => document.querySelector('#result:not([hidden])') ||
      document.querySelector('.legal-source, .legal-village'), null, { timeout: 60000 });
    if (await page.$('#result:not([hidden])')) break;
    await dockInReach(page, 'Clans, my turn');
    if (decisions === 0) await shot(page, 'clans-2-first-turn');
    const n = await page.$$eval('.log .entry', (x) => x.length);
    if (await page.$('.legal-village')) {
      await tap(page, '.legal-village', 'a village', { force: true });
    } else {
      const sources = await page.$$eval('.legal-source', (g) => g.map((x) => Number(x.dataset.id)));
      await tap(page, `.territory[data-id="${sources[(turn * 7) % sources.length]}"]`, 'a territory to move from', { force: true });
      await page.waitForSelector('.legal-target');
      const targets = await page.$$eval('.legal-target', (g) => g.map((x) => Number(x.dataset.id)));
      await tap(page, `.territory[data-id="${targets[turn % targets.length]}"]`, 'a territory to move to', { force: true });
    }
    await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, n, { timeout: 30000 });
    decisions++;
    if (decisions === 5) { await noOverflow(page, 'Clans mid-game'); await shot(page, 'clans-3-mid-game'); }
  }
  await page.waitForSelector('#result:not([hidden])', { timeout: 60000 });
  assert(decisions >= 5, `played by taps (${decisions} decisions)`);
  await noOverflow(page, 'Clans result');
  await shot(page, 'clans-4-result');
  // the tabs: players & scores, then the moves
  await tap(page, '[data-phone-tab="scores"]', 'the Players & scores tab');
  assert(await page.locator('#players-card').isVisible(), 'the players are shown');
  assert(!(await page.locator('.board-card').isVisible()), 'the board is behind its tab');
  await tap(page, '[data-phone-tab="moves"]', 'the Moves tab');
  assert(await page.locator('#moves-card').isVisible(), 'the moves are shown');
  await shot(page, 'clans-5-moves');
  await tap(page, '[data-phone-tab="board"]', 'the Board tab');
  await tap(page, '#open-replay', 'Watch the replay');
  await page.waitForSelector('#replay-bar:not([hidden])');
  await page.waitForFunction(() => /^Decision 0 of \d+/.test(document.querySelector('#replay-step').textContent));
  await noOverflow(page, 'replay');
  await tap(page, '#replay-next', 'Forward one decision');
  await page.waitForFunction(() => document.querySelector('#replay-step').textContent.startsWith('Decision 1 of'));
  await tap(page, '#replay-last', 'Last position');
  await page.waitForSelector('#result:not([hidden])');
  await noOverflow(page, 'replay end');
  await shot(page, 'clans-6-replay');
  await page.context().close();
});

t.test('Arkadia on a phone: the board fits, the decision bar and the tabs are docked at the bottom', async () => {
  const page = await phonePage();
  await createFromLobby(page, 'arkadia', 'arkadia-1');
  await page.waitForSelector('.arkadia-board');
  await page.waitForFunction(() => document.querySelector('#turn.mine'), null, { timeout: 60000 });
  await noOverflow(page, 'Arkadia game');
  await dockInReach(page, 'Arkadia, my turn');
  assert(await page.$('#dock #ark-bar'), 'the decision bar is in the dock');
  await shot(page, 'arkadia-2-my-turn');
  await tap(page, '[data-phone-tab="scores"]', 'the Players & scores tab');
  await noOverflow(page, 'Arkadia scores');
  assert(await page.locator('.ark-screens-card').isVisible(), 'the screens table is on the scores tab');
  await shot(page, 'arkadia-3-scores');
  await tap(page, '[data-phone-tab="board"]', 'the Board tab');
  assert(await page.locator('.arkadia-board').first().isVisible(), 'the board is back');
  await page.context().close();
});

t.test('Khronos on a phone: End turn is docked at the bottom and tapped', async () => {
  const page = await phonePage();
  await createFromLobby(page, 'khronos', 'khronos-1');
  await page.waitForSelector('.kh-svg');
  let ended = 0;
  for (let i = 0; i < 3; i++) {
    await page.waitForFunction(() => document.querySelector('#kh-end:not([disabled])') || document.querySelector('#result:not([hidden])'), null, { timeout: 60000 });
    if (await page.$('#result:not([hidden])')) break;
    await noOverflow(page, 'Khronos game');
    await dockInReach(page, 'Khronos, my turn');
    assert(await page.$('#dock #kh-end'), 'End turn is in the dock');
    if (i === 0) await shot(page, 'khronos-2-my-turn');
    const n = await page.$$eval('.log .entry', (x) => x.length);
    await tap(page, '#kh-end', 'End turn');
    await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, n, { timeout: 30000 });
    ended++;
  }
  assert(ended >= 2, `turns ended by taps (${ended})`);
  await shot(page, 'khronos-3-later');
  await page.context().close();
});

t.test('Khronos at 1280×800: the three boards, the hand and End turn fit without scrolling', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'khronos', players: 2, seats: [{ kind: 'human', name: 'Desk' }, { kind: 'ai', level: 'easy' }] }) });
  const g = await res.json();
  await page.goto(server.base + g.seats[0].link);
  await page.waitForSelector('#kh-end:not([disabled])', { timeout: 60000 });
  for (const sel of ['.kh-board[data-board="might"]', '.kh-board[data-board="faith"]', '.kh-board[data-board="reason"]', '#kh-hand', '#kh-end']) {
    const b = await page.locator(sel).boundingBox();
    assert(b && b.y >= 0 && b.y + b.height <= 800 && b.x + b.width <= 1280, `${sel} is on the screen without scrolling (${b ? Math.round(b.y + b.height) : 'none'})`);
  }
  await shot(page, 'desktop-khronos-1280x800');
  await ctx.close();
});

t.test('the error page fits the phone', async () => {
  const page = await phonePage({ expect404: true }); // the unknown game's 404 is the point
  await page.goto(`${server.base}/game.html?game=nosuchgame`);
  await page.waitForSelector('#banner:not([hidden])');
  await noOverflow(page, 'error page');
  await shot(page, 'error');
  await page.context().close();
});

await finish();
