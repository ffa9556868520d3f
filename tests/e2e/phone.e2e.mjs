// phone.e2e.mjs TABULA — the browser UI on a phone: 390×844 with touch input.
// For each game: the lobby creates a game against the computer by taps, and
// the game is played by taps to its end (Clans; Arkadia and Khronos at 2
// players), choosing real decisions through the board, the docked bar and
// Khronos's drawer; then the result, the tabs and the replay.  On every page
// and phase nothing is wider than the screen (no horizontal scroll); every
// control tapped is inside the viewport, not under the dock or the top bar,
// and at least 44×44 px; a tap on a board point (smaller than a finger) must
// reach the board.  Tablets (768×1024, 1024×768): no horizontal scroll, the
// turn and End turn or the decision bar on the screen.  Screenshots of each
// phase go to tests/e2e/artifacts/phone-*.png.  The board's zoom (pinch, +,
// Fit) in Arkadia and Khronos, and the dock of a phone held sideways (844×390),
// have tests of their own near the end.
import { assert, assertEq } from '../server/lib.mjs';
import { browserSuite } from './browser.mjs';
import { assertFits, assertNoEnglish } from './i18n-check.mjs';

const { server, browser, t, errors, shot, finish, artifacts } = await browserSuite({ title: 'browser tests (phone, 390×844, touch)', prefix: 'phone-', aiDelay: 0 });
const W = 390, H = 844;

// A page of a touch screen (a phone upright by default).  These games are
// played tap by tap without the "Confirm each move" step (on by default on
// touch screens); undo.e2e.mjs covers confirming.  Words for a mouse or keys
// on the screen are errors (every page, every phase: the text is read ten
// times a second): a finger taps, and a phone has no Esc, Shift, hover or
// pointer.
async function phonePage({ expect404 = false, width = W, height = H, locale = null } = {}) {
  const ctx = await browser.newContext({ viewport: { width, height }, hasTouch: true, isMobile: true, deviceScaleFactor: 1, ...(locale ? { locale } : {}) });
  await ctx.addInitScript(() => localStorage.setItem('tabula.confirmEachMove', 'off'));
  await ctx.addInitScript(() => {
    const MOUSE = /\b(click\w*|Esc|Shift|hover\w*|point at|the pointer|right click)\b/i;
    const seen = new Set();
    setInterval(() => {
      const text = document.body ? document.body.innerText : '';
      const m = MOUSE.exec(text);
      if (!m) return;
      const around = text.slice(Math.max(0, m.index - 50), m.index + 50).replace(/\s+/g, ' ');
      if (!seen.has(around)) { seen.add(around); console.error(`words for a mouse on a touch screen: "${around}"`); }
    }, 100);
  });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' && !(expect404 && /status of 404/.test(m.text()))) errors.push(`${page.url()}: console: ${m.text()}`); });
  return page;
}

// No horizontal scroll: the document is no wider than the phone's screen.
async function noOverflow(page, where, w = W) {
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  assert(sw <= w, `${where}: the page is ${sw} px wide on a ${w} px screen`);
}

// Where a point is hidden: under the fixed dock (unless it is in the dock),
// below it or beside it (a phone held sideways).
async function underDock(page, loc) {
  return loc.evaluate((e) => {
    const dock = document.getElementById('dock');
    if (!dock || dock.contains(e) || getComputedStyle(dock).display === 'none') return false;
    const r = e.getBoundingClientRect(), d = dock.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    return y > d.top && x > d.left && x < d.right;
  });
}

// Taps a control after checking it is inside the viewport (scrolled to first,
// as a player would), not hidden under the dock, and at least 44×44 px (a
// finger's size).
async function tap(page, selector, what = selector, w = W, h = H) {
  const loc = typeof selector === 'string' ? page.locator(selector).first() : selector;
  await loc.scrollIntoViewIfNeeded();
  if (await underDock(page, loc)) await loc.evaluate((e) => e.scrollIntoView({ block: 'center' }));
  const box = await loc.boundingBox();
  assert(box, `${what} is shown`);
  const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
  assert(cx >= 0 && cx <= w && cy >= 0 && cy <= h, `${what} is inside the viewport when tapped (centre ${Math.round(cx)},${Math.round(cy)})`);
  assert(box.width >= 43.5 && box.height >= 43.5, `${what} is at least 44×44 px (${Math.round(box.width)}×${Math.round(box.height)})`);
  assert(!(await underDock(page, loc)), `${what} is not under the dock`);
  await loc.tap();
}

// Taps a point of a board (a square, a piece): the board is drawn to the
// screen's width, so its squares are smaller than a finger and the game shows
// what a tap chose before or as it is played.  The point must be inside the
// viewport and reach the board there (not the dock, the top bar or another
// page element over it): `within` names the element the tap must land in
// (default: the tapped element itself).  (fx, fy) is where in the element,
// 0…1.  With `free`, a point covered by something else is not tapped and
// false is returned, so the caller can choose another square.
async function tapBoard(page, selector, what = selector, { fx = 0.5, fy = 0.5, within = null, free = false } = {}) {
  const loc = typeof selector === 'string' ? page.locator(selector).first() : selector;
  const point = async () => {
    const box = await loc.boundingBox();
    assert(box, `${what} is shown`);
    const x = box.x + box.width * fx, y = box.y + box.height * fy;
    const lands = await loc.evaluate((e, [px, py, sel]) => {
      const hit = document.elementFromPoint(px, py);
      const target = sel ? e.closest(sel) : e;
      return !!hit && (hit === target || target.contains(hit));
    }, [x, y, within]);
    return { x, y, lands };
  };
  await loc.scrollIntoViewIfNeeded();
  let p = await point();
  if (!p.lands) { await loc.evaluate((e) => e.scrollIntoView({ block: 'center' })); p = await point(); }
  assert(p.x >= 0 && p.x <= W && p.y >= 0 && p.y <= H, `${what} is inside the viewport when tapped (${Math.round(p.x)},${Math.round(p.y)})`);
  assert(!(await underDock(page, loc)), `${what} is not under the dock`);
  if (!p.lands && free) return false;
  assert(p.lands, `a tap on ${what} reaches it (nothing is over it)`);
  await page.touchscreen.tap(p.x, p.y);
  return true;
}

// Taps one of the board's points that `selector` matches, the first free one
// from the `start`-th on (an adventurer may stand on some): found in the
// page in one go, then tapped with every check of tapBoard.
async function tapAny(page, selector, what, start = 0) {
  const k = await page.evaluate(([sel, from]) => {
    const all = [...document.querySelectorAll(sel)];
    const dock = document.getElementById('dock');
    const dockTop = dock && getComputedStyle(dock).display !== 'none' ? dock.getBoundingClientRect().top : innerHeight;
    for (let i = 0; i < all.length; i++) {
      const e = all[(from + i) % all.length];
      let r = e.getBoundingClientRect();
      if (r.top < 70 || r.bottom > dockTop) { e.scrollIntoView({ block: 'center' }); r = e.getBoundingClientRect(); }
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (hit && (hit === e || e.contains(hit))) return (from + i) % all.length;
    }
    return all.length ? -1 : -2;
  }, [selector, start]);
  assert(k !== -2, `${what} is offered`);
  assert(k >= 0, `${what} can be tapped (something is over each)`);
  await tapBoard(page, page.locator(selector).nth(k), what);
}

// The dock (turn, decision buttons, tabs) sits at the bottom, inside the screen.
async function dockInReach(page, where) {
  const box = await page.locator('#dock').boundingBox();
  assert(box, `${where}: the dock is shown`);
  assert(Math.abs(box.y + box.height - H) <= 1 && box.y >= H / 2, `${where}: the dock is at the bottom (${Math.round(box.y)}–${Math.round(box.y + box.height)})`);
  assert(await page.$('#dock #turn'), `${where}: the turn is in the dock`);
}

async function createFromLobby(page, game, name, players = null) {
  await page.goto(server.base + '/');
  await page.waitForSelector(`.game-choice[data-game="${game}"]`);
  await noOverflow(page, 'lobby');
  await tap(page, `.game-choice[data-game="${game}"]`, `the ${game} choice`);
  if (players) await page.locator('#players').selectOption(String(players)); // a select: the phone's own picker
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
      await tapBoard(page, '.legal-village', 'a village', { within: 'svg' });
    } else {
      const sources = await page.$$eval('.legal-source', (g) => g.map((x) => Number(x.dataset.id)));
      await tapBoard(page, `.territory[data-id="${sources[(turn * 7) % sources.length]}"]`, 'a territory to move from', { within: 'svg' });
      await page.waitForSelector('.legal-target');
      const said = await page.textContent('#turn');
      assert(/^Tap a highlighted neighbour/.test(said.replace(/^.*onto…/, '')) && !/Esc|Click/.test(said), `the words are for a finger: ${said}`);
      const targets = await page.$$eval('.legal-target', (g) => g.map((x) => Number(x.dataset.id)));
      await tapBoard(page, `.territory[data-id="${targets[turn % targets.length]}"]`, 'a territory to move to', { within: 'svg' });
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

// The log grew past n entries: the decision just tapped was played.
async function played(page, n, what) {
  await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, n, { timeout: 30000 })
    .catch(async () => {
      await shot(page, 'failed');
      const state = await page.$eval('.kh-root, .arkadia-board', (r) => JSON.stringify(r.dataset)).catch(() => '');
      throw new Error(`${what}: the decision did not reach the log ${state}`);
    });
}
const logLength = (page) => page.$$eval('.log .entry', (x) => x.length);

// The end of a game played on the phone: the result page fits, the tabs show
// the scores and the moves, and the replay opens, steps and fits.
async function resultAndReplay(page, name, scoresCard) {
  await page.waitForSelector('#result:not([hidden])', { timeout: 60000 });
  await noOverflow(page, `${name} result`);
  await shot(page, `${name}-5-result`);
  await tap(page, '[data-phone-tab="scores"]', 'the Players & scores tab');
  await noOverflow(page, `${name} scores at the end`);
  assert(await page.locator(scoresCard).first().isVisible(), `the ${name} scores are on the scores tab`);
  assert(!(await page.locator('.board-card').isVisible()), 'the board is behind its tab');
  await shot(page, `${name}-6-scores-at-end`);
  await tap(page, '[data-phone-tab="moves"]', 'the Moves tab');
  await noOverflow(page, `${name} moves`);
  await tap(page, '[data-phone-tab="board"]', 'the Board tab');
  await tap(page, '#open-replay', 'Watch the replay');
  await page.waitForSelector('#replay-bar:not([hidden])');
  await page.waitForFunction(() => /^Decision 0 of \d+/.test(document.querySelector('#replay-step').textContent));
  await noOverflow(page, `${name} replay`);
  await dockInReach(page, `${name} replay`);
  assert(!/arrow keys/.test(await page.textContent('#turn')), 'a phone is not told about arrow keys');
  await tap(page, '#replay-next', 'Forward one decision');
  await page.waitForFunction(() => document.querySelector('#replay-step').textContent.startsWith('Decision 1 of'));
  await noOverflow(page, `${name} replay, decision 1`);
  await tap(page, '#replay-last', 'Last position');
  await page.waitForSelector('#result:not([hidden])');
  await noOverflow(page, `${name} replay end`);
  await shot(page, `${name}-7-replay`);
}

const sqXY = (q) => [q.charCodeAt(0) - 97, Number(q.slice(1)) - 1];
const sqName = (x, y) => `${String.fromCharCode(97 + x)}${y + 1}`;
const arkSq = (q) => `.arkadia-board rect.sq[data-sq="${q}"]`;

t.test('Arkadia on a phone: a whole game by taps (lot, buildings, workers, castle, cards, banners), then the replay', async () => {
  const page = await phonePage();
  await createFromLobby(page, 'arkadia', 'arkadia-1', 2);
  await page.waitForSelector('.arkadia-board');
  const count = { lot: 0, build: 0, place: 0, rotate: 0, workersAt: 0, worker: 0, stop: 0, castle: 0, draw: 0, banner: 0, sell: 0 };
  let decisions = 0;
  const started = Date.now();
  for (let loop = 0; loop < 400; loop++) {
    await page.waitForFunction(() => document.querySelector('#result:not([hidden])') ||
      document.querySelector('#dock #ark-bar:not([hidden])'), null, { timeout: 60000 });
    if (await page.$('#result:not([hidden])')) break;
    if (decisions === 0) {
      await noOverflow(page, 'Arkadia, first turn');
      await dockInReach(page, 'Arkadia, my turn');
      await shot(page, 'arkadia-2-first-turn');
    }
    const n = await logLength(page);
    // the words are for a finger: nothing to hover, no Shift, no right click, no keys
    const said = `${await page.textContent('#turn')} ${await page.textContent('#ark-bar')}`;
    assert(!/shift|pointer|right.click|point at|arrow keys|with R\b|beside the board/i.test(said), `Arkadia's words on a phone: ${said}`);
    let what;
    if (await page.$('[data-lot-anchor]')) {
      // the castle lot follows the finger: its middle is where the finger is
      const anchors = await page.$$eval('[data-lot-anchor]', (a) => a.map((x) => x.dataset.lotAnchor));
      const [x, y] = sqXY(anchors[Math.floor(anchors.length / 2)]);
      await tapBoard(page, arkSq(sqName(x + 1, y + 1)), 'the castle lot', { fx: 0.97, within: 'svg' });
      what = 'lot'; count.lot++;
    } else if (await page.$('.arkadia-board .reach')) {
      if (count.place % 3 === 1 && await page.$('#ark-rotate')) {
        const before = await page.getAttribute('.ark-orients .orient.on', 'data-orient');
        await tap(page, '#ark-rotate', 'Rotate');
        if (await page.getAttribute('.ark-orients .orient.on', 'data-orient') !== before) count.rotate++;
      }
      const reach = await page.$$eval('.arkadia-board .reach', (r) => r.map((x) => x.dataset.reach));
      await tapBoard(page, arkSq(reach[(loop * 7) % reach.length]), 'a square to lay the building on', { within: 'svg' });
      what = 'placement'; count.place++;
    } else if (await page.$('.arkadia-board [data-worker-spot]') || await page.$('#ark-stop:not([disabled])')) {
      const spots = await page.$$eval('.arkadia-board [data-worker-spot]', (x) => x.map((e) => e.dataset.workerSpot));
      if (await page.$('#ark-stop:not([disabled])') && (count.worker % 3 === 2 || !spots.length)) {
        await tap(page, '#ark-stop', 'Stop placing workers');
        what = 'stop'; count.stop++;
      } else {
        if (count.worker % 4 === 3 && await page.$('#ark-kind-neutral:not([disabled])')) await tap(page, '#ark-kind-neutral', 'Neutral workers');
        else if (await page.$('#ark-kind-own:not([disabled]):not(.on)')) await tap(page, '#ark-kind-own', 'Own workers');
        await tapBoard(page, `.arkadia-board [data-worker-spot="${spots[loop % spots.length]}"]`, 'a square for a worker', { within: 'svg' });
        what = 'worker'; count.worker++;
      }
    } else if (await page.$('[data-castle-family]')) {
      const fams = await page.$$eval('[data-castle-family]', (b) => b.map((x) => x.dataset.castleFamily));
      const fam = fams[loop % fams.length];
      if (!(await page.$(`[data-castle-family="${fam}"].on`))) await tap(page, `[data-castle-family="${fam}"]`, `the ${fam} castle piece`);
      await page.waitForSelector('[data-castle-target]:not(.faint)');
      if (count.castle === 0) await shot(page, 'arkadia-3-castle');
      await tapBoard(page, '[data-castle-target]:not(.faint)', 'a castle square', { within: 'svg' });
      what = 'castle'; count.castle++;
    } else if (await page.$('.ark-display .ark-card.target, #ark-stack.target')) {
      // the cards to take are in the docked bar too, in reach
      const face = await page.$('#dock .ark-bar-card');
      if (face && (count.draw % 2 === 0 || !(await page.$('#dock .ark-bar-stack')))) await tap(page, '#dock .ark-bar-card', 'a face-up card');
      else if (count.draw % 4 === 1) await tap(page, '#ark-stack.target', 'the draw stack beside the board');
      else await tap(page, '#dock .ark-bar-stack', 'the draw stack');
      what = 'draw'; count.draw++;
    } else if (await page.$('#ark-banner-yes, #ark-banner-no')) {
      const yes = count.banner % 2 === 0 && await page.$('#ark-banner-yes:not([disabled])');
      await tap(page, yes ? '#ark-banner-yes' : '#ark-banner-no', yes ? 'Play a banner' : 'Keep my banners');
      what = 'banner'; count.banner++;
    } else if (await page.$('#ark-sell')) {
      if (await page.$('#ark-sale-all')) await tap(page, '#ark-sale-all', 'All the seals');
      await tap(page, '#ark-sell', 'Sell');
      what = 'sell'; count.sell++;
    } else if (await page.$('.ark-hand-card.target') || await page.$('[data-workers-target]')) {
      const builds = await page.$$eval('[data-workers-target]', (b) => b.map((x) => x.dataset.workersTarget).filter((q) => q !== 'lot'));
      if (await page.$('.ark-hand-card.target') && (!builds.length || count.build <= count.workersAt)) {
        // the playable cards of the hand are in the docked bar, in reach
        const hand = await page.$$eval('.ark-hand .ark-hand-card.target', (c) => c.map((x) => x.dataset.card).sort());
        const docked = await page.$$eval('#dock .ark-bar-card', (c) => c.map((x) => x.dataset.card).sort());
        assertEq([...new Set(docked)], [...new Set(hand)], 'the docked bar offers the playable cards of the hand');
        await tap(page, '#dock .ark-bar-card', 'a card of the hand');
        what = 'build'; count.build++;
      } else {
        const first = builds[loop % builds.length];
        const squares = (await page.getAttribute(`.building[data-first="${first}"]`, 'data-squares')).split('-');
        await tapBoard(page, arkSq(squares[squares.length - 1]), 'a building to put workers next to', { within: 'svg' });
        what = 'workers'; count.workersAt++;
      }
    } else {
      const other = await page.$$eval('.ark-other .legal-move', (b) => b.map((x) => x.dataset.move));
      throw new Error(`a decision without a control: ${other.join(', ') || '(nothing offered)'}`);
    }
    await played(page, n, what);
    decisions++;
    if (decisions === 40) {
      await noOverflow(page, 'Arkadia mid-game');
      await dockInReach(page, 'Arkadia mid-game');
      await shot(page, 'arkadia-4-mid-game');
      await tap(page, '[data-phone-tab="scores"]', 'the Players & scores tab');
      await noOverflow(page, 'Arkadia scores');
      assert(await page.locator('.ark-screens-card').isVisible(), 'the screens table is on the scores tab');
      await shot(page, 'arkadia-4-scores');
      await tap(page, '[data-phone-tab="board"]', 'the Board tab');
    }
  }
  console.log(`# Arkadia: ${decisions} decisions by taps in ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(count)}`);
  assert(await page.$('#result:not([hidden])'), 'the game reached its end');
  assert(count.lot <= 1 && count.place >= 5 && count.draw >= 5 && count.worker >= 3 && count.banner >= 1,
    `real decisions were played by taps (${JSON.stringify(count)})`);
  await resultAndReplay(page, 'arkadia', '.ark-screens-card');
  await page.context().close();
});

// Opens (or closes) Khronos's drawer of cards and buildings in the dock.
async function khDrawer(page, open) {
  const now = (await page.getAttribute('#kh-drawer-toggle', 'aria-expanded')) === 'true';
  if (now !== open) await tap(page, '#kh-drawer-toggle', open ? 'Open the cards and buildings' : 'Close the cards and buildings');
  await page.waitForFunction((o) => document.querySelector('#kh-drawer-toggle').getAttribute('aria-expanded') === String(o), open);
}

t.test('Khronos on a phone: a whole game by taps (builds, squares, travels, Reason, cards), then the replay', async () => {
  const page = await phonePage();
  await createFromLobby(page, 'khronos', 'khronos-1', 2);
  await page.waitForSelector('.kh-svg');
  const count = { build: 0, upgrade: 0, squares: 0, pay: 0, pick: 0, populate: 0, renovate: 0, travel: 0, end: 0, discard: 0 };
  let decisions = 0, turn = null, acts = 0, noBuild = false;
  const started = Date.now();
  for (let loop = 0; loop < 600; loop++) {
    await page.waitForFunction(() => document.querySelector('#result:not([hidden])') ||
      document.querySelector('.kh-root[data-mine="1"]'), null, { timeout: 60000 });
    if (await page.$('#result:not([hidden])')) break;
    await page.waitForSelector('#dock #kh-drawer-toggle');
    if (decisions === 0) {
      await noOverflow(page, 'Khronos, first turn');
      await dockInReach(page, 'Khronos, my turn');
      assert(await page.$('#dock #kh-end'), 'End turn is in the dock');
      assert(!(await page.locator('#kh-hand').isVisible()), 'the hand waits in its closed drawer');
      await shot(page, 'khronos-2-first-turn');
      await khDrawer(page, true);
      assert(await page.locator('#dock #kh-hand').isVisible() && await page.locator('#dock #kh-palette').isVisible(), 'the drawer shows the hand and the buildings');
      await noOverflow(page, 'Khronos, drawer open');
      await shot(page, 'khronos-3-hand-drawer');
      await khDrawer(page, false);
    }
    const phase = await page.$eval('.kh-root', (r) => r.dataset.phase);
    const n = await logLength(page);
    let what = phase;
    if (phase === 'squares' || phase === 'keep') {
      // tap highlighted squares until the tile is laid
      for (let taps = 0; taps < 9 && (await logLength(page)) === n; taps++) {
        if (!(await page.$('.kh-sq.cand'))) break;
        await tapAny(page, '.kh-sq.cand', 'a square for the tile');
        await page.waitForTimeout(50);
      }
      count.squares++;
    } else if (phase === 'pay') {
      await khDrawer(page, true);
      for (let taps = 0; taps < 4 && (await logLength(page)) === n; taps++) {
        await tap(page, '#dock #kh-hand .kh-card.legal:not(.selected)', 'a card to pay the surcharge');
        await page.waitForTimeout(50);
      }
      count.pay++;
    } else if (phase === 'pick') {
      await tapAny(page, '.kh-sq.act-pick', 'the building to downsize');
      count.pick++;
    } else if (phase === 'action') {
      const turnNow = await page.$eval('#kh-turn-text', (x) => x.textContent);
      if (turnNow !== turn) { turn = turnNow; acts = 0; noBuild = false; }
      // (the game's deal is random: buildings come first until three are built, so that
      // every deal plays them, then the other decisions take turns with them)
      const needBuilds = count.build + count.upgrade < 3;
      const reason = acts < 3 && !needBuilds && (count.populate + count.renovate) * 2 <= count.build + count.upgrade
        ? await page.$('.kh-sq.act-populate, .kh-sq.act-renovate') : null;
      // every other turn an adventurer travels as the second action
      const pawn = acts < 3 && await page.$('.kh-pawn.legal') &&
        Number(await page.$eval('.player[data-seat="0"] [data-stat="ecus"]', (x) => x.textContent)) >= 1 ? await page.$('.kh-pawn.legal') : null;
      const legalTiles = acts < 3 && !noBuild ? await page.$$eval('#kh-palette .kh-tile.legal', (x) => x.map((b) => b.dataset.type)) : [];
      const travel = pawn && (!legalTiles.length || (acts === 1 && !needBuilds)) && count.travel * 2 <= count.end;
      const tiles = travel ? [] : legalTiles;
      if (reason) {
        const kind = (await reason.getAttribute('class')).includes('act-populate') ? 'populate' : 'renovate';
        await tapAny(page, `.kh-sq.act-${kind}`, `a Reason building to ${kind}`);
        what = kind; count[kind]++; acts++;
      } else if (tiles.length) {
        await khDrawer(page, true);
        const type = tiles[(decisions * 5 + loop) % tiles.length];
        await tap(page, `#dock #kh-palette .kh-tile[data-type="${type}"]`, `the ${type} tile`);
        await page.waitForSelector('.kh-root[data-mode="type"]');
        assert(!(await page.locator('#kh-hand').isVisible()), 'choosing a tile closes the drawer: the boards are where to tap');
        if (count.build === 0) await shot(page, 'khronos-4-tile-chosen');
        const up = await page.$('.kh-sq.act-upgrade');
        const spots = await page.$$('.kh-board.legal-build .kh-sq.act-build'); // (their number)
        if (spots.length && (!up || loop % 3)) {
          await tapAny(page, '.kh-board.legal-build .kh-sq.act-build', `a square to build the ${type} on`, loop * 7);
          what = 'build'; count.build++;
        } else if (up) {
          await tapAny(page, '.kh-sq.act-upgrade', `a building to upgrade to ${type}`);
          what = 'upgrade'; count.upgrade++;
        } else {
          await tap(page, '#kh-cancel', 'Cancel');
          noBuild = true;
          continue;
        }
        acts++;
      } else if (travel) {
        await tapBoard(page, pawn, 'an adventurer');
        await page.waitForSelector('.kh-board.legal-dest');
        const dests = await page.$$eval('.kh-board.legal-dest', (x) => x.map((b) => b.dataset.board));
        await tapAny(page, `.kh-board[data-board="${dests[loop % dests.length]}"] .kh-sq`, 'the board to travel to', 60);
        if (await page.$('.kh-travel-n')) await tap(page, '.kh-travel-n', 'how many cards the adventurer takes');
        what = 'travel'; count.travel++; acts++;
      } else {
        // end the turn, now and then discarding a card
        if (count.end % 2 === 1) {
          await khDrawer(page, true);
          if (await page.$('#dock #kh-hand .kh-card:not([disabled])')) {
            await tap(page, '#dock #kh-hand .kh-card[data-index="0"]', 'a card to discard');
            if (await page.$('#kh-end[disabled]')) await tap(page, '#dock #kh-hand .kh-card.selected', 'the card again (that discard is not offered)');
            else count.discard++;
          }
        }
        await tap(page, '#kh-end', 'End turn');
        what = 'end'; count.end++;
      }
    } else {
      throw new Error(`unexpected phase ${phase}`);
    }
    await played(page, n, what);
    if (process.env.E2E_DEBUG) console.log(`# ${what} ${Date.now() - started} ms`);
    if (await page.$('.kh-root[data-mine="1"][data-phase="action"][data-mode=""]')) {
      assertEq(await page.getAttribute('#kh-drawer-toggle', 'aria-expanded'), 'false', `after ${what}, the drawer is closed again: the boards show`);
    }
    decisions++;
    if (count.end === 4 && what === 'end') {
      await noOverflow(page, 'Khronos mid-game');
      await shot(page, 'khronos-4-mid-game');
      await tap(page, '[data-phone-tab="scores"]', 'the Players & scores tab');
      await noOverflow(page, 'Khronos scores');
      assert(await page.locator('.kh-score-card').isVisible(), 'the earnings are on the scores tab');
      await shot(page, 'khronos-4-scores');
      await tap(page, '[data-phone-tab="board"]', 'the Board tab');
    }
  }
  console.log(`# Khronos: ${decisions} decisions by taps in ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(count)}`);
  assert(await page.$('#result:not([hidden])'), 'the game reached its end');
  // (choosing among several squares is only asked for when a tile fits more than one way,
  // which a game against the computer may never offer: not required)
  assert(count.build + count.upgrade >= 3 && count.travel >= 1 && count.end >= 5,
    `real decisions were played by taps (${JSON.stringify(count)})`);
  assert(!(await page.$('#dock .kh-drawer')), 'the game over, the cards and buildings leave the dock');
  await resultAndReplay(page, 'khronos', '.kh-score-card');
  await page.context().close();
});

// Tablets, portrait and landscape: the lobby and a game of each title have no
// horizontal scroll, and the turn with its decision controls (End turn, the
// decision bar) is on the screen without scrolling.
for (const [w, h] of [[768, 1024], [1024, 768]]) {
  t.test(`tablet ${w}×${h}: the lobby and every game fit the width, the turn and its controls are on the screen`, async () => {
    const page = await phonePage({ width: w, height: h });
    const ctx = page.context();
    await page.goto(server.base + '/');
    await page.waitForSelector('.game-choice[data-game="clans"]');
    await noOverflow(page, `lobby at ${w}×${h}`, w);
    await shot(page, `tablet-${w}x${h}-lobby`);
    const controls = { clans: '#turn', arkadia: '#ark-bar', khronos: '#kh-end' };
    for (const game of ['clans', 'arkadia', 'khronos']) {
      const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
        game, players: 2, seats: [{ kind: 'human', name: 'Tab' }, { kind: 'ai', level: 'easy' }] }) });
      const g = await res.json();
      await page.goto(server.base + g.seats[0].link);
      await page.waitForSelector('#turn.mine', { timeout: 60000 });
      await page.waitForSelector(controls[game]);
      await noOverflow(page, `${game} at ${w}×${h}`, w);
      await page.evaluate(() => window.scrollTo(0, 0));
      for (const sel of ['#turn .headline', controls[game]]) {
        const b = await page.locator(sel).first().boundingBox();
        assert(b && b.y >= 0 && b.y + b.height <= h && b.x >= 0 && b.x + b.width <= w,
          `${game} at ${w}×${h}: ${sel} is on the screen without scrolling (${b ? `${Math.round(b.x)},${Math.round(b.y)} ${Math.round(b.width)}×${Math.round(b.height)}` : 'not shown'})`);
      }
      if (game === 'khronos') {
        const b = await page.locator('#kh-end').boundingBox();
        assert(b.width >= 43.5 && b.height >= 43.5, `End turn is a finger's size on a tablet (${Math.round(b.width)}×${Math.round(b.height)})`);
      }
      await shot(page, `tablet-${w}x${h}-${game}`);
    }
    await ctx.close();
  });
}

t.test('Khronos at 1280×800: the three boards, the hand and End turn fit without scrolling, the buildings named in full', async () => {
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
  // the buildings' names are whole (Watchtower, Monastery), not cut with an ellipsis
  const cut = await page.$$eval('.kh-tile-name', (xs) => xs.filter((x) => x.scrollWidth > x.clientWidth).map((x) => x.textContent));
  assertEq(cut, [], 'building names cut at 1280×800');
  await shot(page, 'desktop-khronos-1280x800');
  // the desktop zooms too: "+" draws the board larger in its own box, the page stays as wide
  const before = (await page.locator('.kh-svg').first().boundingBox()).width;
  await page.click('#zoom-in');
  assert(await zoomOf(page) > 1 && (await page.locator('.kh-svg').first().boundingBox()).width > before * 1.4, 'the desktop board zooms in');
  assert(await page.evaluate(() => document.documentElement.scrollWidth) <= 1280, 'the zoomed board does not widen the page');
  await page.click('#zoom-fit');
  for (const game of ['clans', 'arkadia']) {
    const r = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
      game, players: 2, seats: [{ kind: 'human', name: 'Desk' }, { kind: 'ai', level: 'easy' }] }) });
    await page.goto(server.base + (await r.json()).seats[0].link);
    await page.waitForSelector('#turn.mine', { timeout: 60000 });
    await page.waitForTimeout(200);
    assert(await page.evaluate(() => document.documentElement.scrollWidth) <= 1280, `${game} at 1280×800 fits the width`);
    await shot(page, `desktop-${game}-1280x800`);
  }
  await ctx.close();
});

// The board's zoom (js/zoom.js) on a phone, in the two games whose squares
// are smaller than a finger.  "+" grows the drawn board, the page still has no
// horizontal scroll (the board scrolls in its own box), a legal square of the
// zoomed board is at least ~40 px and a tap on it plays the decision; the
// computer's reply repaints the board and the zoom stays; "Fit" restores the
// size.  A two-finger pinch is simulated with CDP touch events
// (Input.dispatchTouchEvent), the way a phone's browser delivers it.
async function apiGame(game) {
  const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game, players: 2, seats: [{ kind: 'human', name: 'Zoe' }, { kind: 'ai', level: 'easy' }] }) });
  return res.json();
}
const boardSize = async (page, sel) => {
  const b = await page.locator(sel).first().boundingBox();
  return b.width;
};
async function pinch(page, from, to) {
  const cdp = await page.context().newCDPSession(page);
  const r = await page.locator('.zoom-box').boundingBox();
  const cx = r.x + r.width / 2, cy = r.y + Math.min(r.height, 300) / 2;
  const pts = (d) => [{ x: cx - d / 2, y: cy, id: 1 }, { x: cx + d / 2, y: cy, id: 2 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: pts(from) });
  for (let k = 1; k <= 6; k++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: pts(from + (to - from) * k / 6) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}
const zoomOf = (page) => page.$eval('.zoom-box', (b) => Number(b.dataset.zoom));
// The board point (as fractions of the drawn board) in the middle of the part
// of the board's box the player sees: on the screen, below the top bar and
// above the docked turn (not beside it).
const seenPoint = (page) => page.evaluate(() => {
  const box = document.querySelector('.zoom-box'), sizer = box.querySelector('.zoom-sizer');
  const r = box.getBoundingClientRect();
  const top = Math.max(r.top, document.querySelector('.topbar').getBoundingClientRect().bottom, 0);
  const d = document.getElementById('dock').getBoundingClientRect(); // (beside the board on a phone held sideways)
  const bottom = Math.min(r.bottom, d.left <= r.left ? d.top : innerHeight, innerHeight);
  return { x: (box.scrollLeft + r.width / 2) / sizer.offsetWidth, y: (box.scrollTop + (top + bottom) / 2 - r.top) / sizer.offsetHeight,
    across: box.scrollWidth > box.clientWidth, down: box.scrollHeight > box.clientHeight };
});
// Two such points agree, in each direction the board can be panned in now (b's).
const near = (a, b, d) => (!b.across || Math.abs(a.x - b.x) <= d) && (!b.down || Math.abs(a.y - b.y) <= d);
const showPoint = (p) => `${Math.round(p.x * 100)}%, ${Math.round(p.y * 100)}%`;

for (const game of ['arkadia', 'khronos']) {
  t.test(`${game} on a phone: the board zooms (+, Fit, pinch), a tap on a zoomed square plays it, a repaint keeps the zoom`, async () => {
    const page = await phonePage();
    const g = await apiGame(game);
    await page.goto(server.base + g.seats[0].link);
    await page.waitForSelector('#turn.mine', { timeout: 60000 });
    const svgSel = game === 'arkadia' ? '.arkadia-board' : '.kh-svg';
    await page.waitForSelector(svgSel);
    const fitWidth = await boardSize(page, svgSel);
    assertEq(await zoomOf(page), 1, 'the board opens fitted to the screen');
    // the pinch: two fingers moving apart zoom in; together again, out
    await pinch(page, 60, 180);
    const pinched = await zoomOf(page);
    assert(pinched > 1.5, `a pinch outwards zooms the board in (×${pinched})`);
    assert(await boardSize(page, svgSel) > fitWidth * 1.4, 'the pinched board is drawn larger');
    await noOverflow(page, `${game}, pinched`);
    await pinch(page, 180, 120);
    assert(await zoomOf(page) < pinched, `a pinch inwards zooms out (×${await zoomOf(page)})`);
    await tap(page, '#zoom-fit', 'Fit');
    assertEq(await zoomOf(page), 1, 'Fit returns to the whole board');
    // "+" zooms on the middle of what the player sees (part of the board is
    // under the docked turn)
    await page.evaluate(() => window.scrollTo(0, 0));
    const sqSel = game === 'arkadia' ? '.arkadia-board rect.sq' : '.kh-svg .kh-sq';
    const sq0 = (await page.locator(sqSel).first().boundingBox()).width;
    assert(sq0 < 40, `unzoomed, a square is smaller than a finger (${Math.round(sq0)} px)`);
    const seen0 = await seenPoint(page);
    await tap(page, '#zoom-in', 'Zoom in');
    const seen1 = await seenPoint(page);
    assert(near(seen0, seen1, 0.03), `"+" keeps the board point in the middle of the view (${showPoint(seen0)} → ${showPoint(seen1)} of the board)`);
    // the buttons: "+" until a square is a finger wide
    for (let k = 0; k < 4 && (await page.locator(sqSel).first().boundingBox()).width < 40; k++) await tap(page, '#zoom-in', 'Zoom in');
    const zoomed = await zoomOf(page);
    const sq = (await page.locator(sqSel).first().boundingBox()).width;
    assert(zoomed > 1 && sq >= 40, `after +, a square is a finger wide (${Math.round(sq)} px at ×${zoomed})`);
    const bigWidth = await boardSize(page, svgSel);
    assert(bigWidth > fitWidth * 1.4, `the zoomed board is drawn larger (${Math.round(fitWidth)} → ${Math.round(bigWidth)} px)`);
    await noOverflow(page, `${game}, zoomed`);
    await shot(page, `zoom-${game}-1-zoomed`);
    // a legal square of the zoomed board, tapped: the decision is played
    const n = await logLength(page);
    if (game === 'arkadia') {
      await page.waitForSelector('#dock #ark-bar:not([hidden])');
      if (await page.$('[data-lot-anchor]')) {
        const anchors = await page.$$eval('[data-lot-anchor]', (a) => a.map((x) => x.dataset.lotAnchor));
        const [x, y] = sqXY(anchors[Math.floor(anchors.length / 2)]);
        await tapBoard(page, arkSq(sqName(x + 1, y + 1)), 'the castle lot on the zoomed board', { fx: 0.9, within: 'svg' });
      } else {
        // a card of the hand first (from the docked bar), then its squares light up
        if (!(await page.$('.arkadia-board .reach'))) await tap(page, '#dock .ark-bar-card', 'a card of the hand');
        await page.waitForSelector('.arkadia-board .reach');
        assertEq(await zoomOf(page), zoomed, 'choosing a card keeps the zoom');
        const reach = await page.$$eval('.arkadia-board .reach', (r) => r.map((x) => x.dataset.reach));
        assert(reach.length, 'a square to lay on is offered');
        await tapBoard(page, arkSq(reach[0]), 'a square on the zoomed board', { within: 'svg' });
      }
    } else {
      await khDrawer(page, true);
      await tap(page, '#dock #kh-palette .kh-tile.legal', 'a building tile');
      await page.waitForSelector('.kh-root[data-mode="type"]');
      assertEq(await zoomOf(page), zoomed, 'choosing a tile keeps the zoom');
      const spot = page.locator('.kh-board.legal-build .kh-sq.act-build').first();
      await spot.scrollIntoViewIfNeeded();
      const b = await spot.boundingBox();
      assert(b.width >= 40, `the square to build on is a finger wide (${Math.round(b.width)} px)`);
      await tapAny(page, '.kh-board.legal-build .kh-sq.act-build', 'a square on the zoomed board');
    }
    await played(page, n, 'a tap on the zoomed board');
    if (game === 'khronos') await mainButtonsSeen(page, 'Khronos after a build', ['[data-phone-tab="board"]', '[data-phone-tab="moves"]'], ['#kh-end', '#turn-undo']);
    // the computer answers (the board is repainted): the zoom stays
    await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k + 1 || document.querySelector('#turn.mine'), n, { timeout: 60000 });
    await page.waitForTimeout(300);
    assertEq(await zoomOf(page), zoomed, 'a repaint after a decision keeps the zoom');
    assert(Math.abs(await boardSize(page, svgSel) - bigWidth) < 2, 'the board is still drawn at the zoomed size');
    await noOverflow(page, `${game}, zoomed after a decision`);
    await shot(page, `zoom-${game}-2-after-decision`);
    await tap(page, '#zoom-fit', 'Fit');
    assertEq(await zoomOf(page), 1, 'Fit restores the size');
    assert(Math.abs(await boardSize(page, svgSel) - fitWidth) < 2, `the board is fitted again (${Math.round(await boardSize(page, svgSel))} px)`);
    await page.context().close();
  });
}

// On a phone, the labels the moves list names places by (Clans's territory
// numbers, the squares' letters and numbers) are readable at the default zoom, and one
// step of the zoom makes every point of the board a player taps a finger
// wide (44 px): Clans's territories, Arkadia's and Khronos's squares; the
// page still has no horizontal scroll.
const TAP_POINTS = { clans: '.clans-board .territory', arkadia: '.arkadia-board rect.sq', khronos: '.kh-svg .kh-sq' };
const LABELS = { clans: '.clans-board .label text', arkadia: '.arkadia-board .coords text', khronos: '.kh-svg .kh-coords text' };
const leastPoint = (page, sel) => page.$$eval(sel, (xs) => Math.min(...xs.map((x) => {
  const r = x.getBoundingClientRect();
  return Math.min(r.width, r.height);
})));
t.test('one zoom step on a phone makes every board point a finger wide, and the labels are readable, in every game', async () => {
  const page = await phonePage();
  for (const game of ['clans', 'arkadia', 'khronos']) {
    const g = await apiGame(game);
    await page.goto(server.base + g.seats[0].link);
    await page.waitForSelector(TAP_POINTS[game]);
    await page.waitForSelector('#turn.mine', { timeout: 60000 });
    // unzoomed, the labels the moves list names places by are readable: 11 px
    // type (a line box of 13 px)
    const small = await page.$$eval(LABELS[game], (xs) => xs.map((x) => x.getBoundingClientRect().height).filter((h) => h < 12.5).length);
    assertEq(small, 0, `${game}: board labels smaller than 11 px at the default zoom`);
    await tap(page, '#zoom-in', 'Zoom in');
    const least = await leastPoint(page, TAP_POINTS[game]);
    assert(least >= 43.5, `${game}: after one "+" the smallest board point is a finger wide (${least.toFixed(1)} px at ×${await zoomOf(page)})`);
    await noOverflow(page, `${game}, one zoom step`);
  }
  await page.context().close();
});

// Turning a phone with a zoomed board: the board is drawn again to the new
// width at the same zoom, and the part of the board the player looked at
// stays in the middle of the view.  (A mobile page's own scale follows a
// change of Playwright's viewport in ways a phone's does not, so this page is
// a touch screen without the mobile viewport.)
t.test('turning a phone keeps the zoom and the part of the board looked at', async () => {
  const ctx = await browser.newContext({ viewport: { width: W, height: H }, hasTouch: true, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  const g = await apiGame('khronos');
  await page.goto(server.base + g.seats[0].link);
  await page.waitForSelector('#turn.mine', { timeout: 60000 });
  await page.locator('#zoom-in').tap();
  await page.locator('#zoom-in').tap();
  const zoomed = await zoomOf(page);
  assert(zoomed > 2, `the board is zoomed (×${zoomed})`);
  await page.evaluate(() => {
    const box = document.querySelector('.zoom-box'), sizer = box.querySelector('.zoom-sizer');
    box.scrollLeft = (sizer.offsetWidth - box.clientWidth) * 0.6;
    box.scrollTop = (sizer.offsetHeight - box.clientHeight) * 0.4;
  });
  await page.waitForTimeout(100);
  const looked = await seenPoint(page);
  for (const [w, h, how] of [[H, W, 'sideways'], [W, H, 'upright again']]) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(300);
    assertEq(await zoomOf(page), zoomed, `${how}: the zoom stays`);
    const now = await seenPoint(page);
    assert(near(looked, now, 0.04), `${how}: the part of the board looked at stays in the middle (${showPoint(looked)} → ${showPoint(now)})`);
    await noOverflow(page, `turned ${how}`, w);
  }
  await ctx.close();
});

// A phone held sideways (844×390): the dock stands beside the board (not
// below it) and the top bar is slim, so on opening at least half of the
// screen's height shows board in every game; the headline, the game's buttons
// and the tabs show in the dock without scrolling it; after "+" then "Fit"
// every part of the board can be scrolled into sight beside the dock; the top
// bar names the game whole.
t.test('a phone held sideways: the dock stands beside the board, which takes at least half the height on opening', async () => {
  const page = await phonePage({ width: H, height: W });
  const ctx = page.context();
  for (const game of ['clans', 'arkadia', 'khronos']) {
    const g = await apiGame(game);
    await page.goto(server.base + g.seats[0].link);
    await page.waitForSelector('#turn.mine', { timeout: 60000 });
    await page.waitForTimeout(200);
    await page.screenshot({ path: `${artifacts}/phone-sideways-${game}.png` }); // the screen as seen (the dock is fixed)
    const where = `${game} at ${H}×${W}`;
    // the board seen on opening: on the screen, below the top bar, and not under the dock
    const seen = await page.evaluate(() => {
      const b = document.querySelector('.board-card .board-wrap').getBoundingClientRect();
      const d = document.getElementById('dock').getBoundingClientRect();
      const bar = document.querySelector('.topbar').getBoundingClientRect();
      const bottom = d.left <= b.left ? Math.min(b.bottom, d.top, innerHeight) : Math.min(b.bottom, innerHeight);
      // (the drawings themselves too: none may reach under the dock)
      const right = Math.max(b.right, ...[...document.querySelectorAll('.board-card .board-wrap svg')].map((x) => x.getBoundingClientRect().right));
      return { tall: bottom - Math.max(b.top, bar.bottom, 0), right, dockLeft: d.left, dockTop: d.top };
    });
    assert(seen.tall >= W / 2, `${where}: on opening the board takes at least half the height (${Math.round(seen.tall)} px of ${W})`);
    assert(seen.right <= seen.dockLeft + 0.5, `${where}: the dock is beside the board (board to ${Math.round(seen.right)}, dock from ${Math.round(seen.dockLeft)})`);
    // the headline, the game's buttons and the tabs are in the dock as it is, without scrolling it
    const inDock = await page.evaluate(() => {
      const d = document.getElementById('dock').getBoundingClientRect();
      return [...document.querySelectorAll('#dock #turn .headline, #dock-actions button:not([hidden]), #dock .phone-tabs')]
        .filter((e) => e.offsetParent && !e.closest('.kh-drawer-body')).map((e) => { const r = e.getBoundingClientRect(); return r.top >= d.top - 1 && r.bottom <= d.bottom + 1; });
    });
    assert(inDock.length && inDock.every(Boolean), `${game} sideways: the headline, the buttons and the tabs show in the dock (${inDock})`);
    await noOverflow(page, `${game} sideways`, H);
    const crumb = await page.$eval('#crumb', (c) => ({ need: c.scrollWidth, has: c.clientWidth, text: c.innerText }));
    assert(crumb.need <= crumb.has + 0.5, `${game} sideways: the top bar names the game whole (${JSON.stringify(crumb)})`);
    // "+" then "Fit": the whole board can be brought into sight, none of it under the dock
    await tap(page, '#zoom-in', 'Zoom in', H, W);
    await tap(page, '#zoom-fit', 'Fit', H, W);
    assertEq(await zoomOf(page), 1, `${game} sideways: Fit returns to the whole board`);
    const reach = await page.evaluate(() => {
      window.scrollTo(0, document.documentElement.scrollHeight);
      const b = document.querySelector('.board-card .board-wrap').getBoundingClientRect();
      const d = document.getElementById('dock').getBoundingClientRect();
      const r = { bottom: b.bottom, right: b.right, dockLeft: d.left, h: innerHeight };
      window.scrollTo(0, 0);
      return r;
    });
    assert(reach.bottom <= reach.h + 0.5 && reach.right <= reach.dockLeft + 0.5, `${game} sideways: after Fit, all of the board can be scrolled into sight (${JSON.stringify(reach)})`);
  }
  await ctx.close();
});

// A phone held upright (390×844): the dock keeps to at most 45% of the
// height however much the turn offers (Arkadia's refill turn: the turn, Undo,
// Take back, the hint and the cards to take), so the board shows above it;
// what does not fit scrolls inside the dock, and every control there can be
// reached by that scrolling, a finger's size, and plays.  Khronos's drawer,
// opened on a tap, may take more (the hand is then what the player looks at;
// choosing a tile closes it): all of it is still reached inside the dock.
const UPRIGHT_CAP = 0.45 * H;

// Checks the dock's height, that the board shows above it, and that each
// shown control of `controls` (a selector inside the dock) is reached by
// scrolling the dock alone (the page stays put): then it is wholly inside
// the dock, at least 44×44 px and the element found at its centre.  Returns
// how many controls it checked.
async function uprightDock(page, where, controls, { cap = UPRIGHT_CAP, board = true } = {}) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(100);
  const dock = await page.locator('#dock').boundingBox();
  assert(dock.height <= cap + 0.5, `${where}: the dock takes ${Math.round(dock.height)} px of ${H} (at most ${Math.round(cap)})`);
  assert(Math.abs(dock.y + dock.height - H) <= 1, `${where}: the dock is at the bottom`);
  if (board) {
    // the board's box between the top bar and the dock: all of it, or at least a third of the screen
    const [shown, tall] = await page.evaluate(() => {
      const b = document.querySelector('.board-card .zoom-box').getBoundingClientRect();
      const top = Math.max(b.top, document.querySelector('.topbar').getBoundingClientRect().bottom);
      return [Math.min(b.bottom, document.getElementById('dock').getBoundingClientRect().top) - top, b.height];
    });
    assert(shown >= Math.min(tall, H / 3) - 1, `${where}: the board shows above the dock (${Math.round(shown)} px of its ${Math.round(tall)})`);
  }
  const all = page.locator(controls).locator('visible=true');
  const n = await all.count();
  for (let i = 0; i < n; i++) {
    const loc = all.nth(i);
    const seen = await loc.evaluate((e) => {
      const d = document.getElementById('dock');
      const y = window.scrollY;
      // the dock's own scroll (or a row's inside it) brings the control into view
      e.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      const r = e.getBoundingClientRect(), dr = d.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return { inside: r.top >= dr.top - 1 && r.bottom <= dr.bottom + 1 && r.left >= -1 && r.right <= innerWidth + 1,
        w: r.width, h: r.height, hits: !!hit && (hit === e || e.contains(hit)), pageMoved: window.scrollY !== y };
    });
    const what = `${where}: control ${i + 1} of ${n} (${controls})`;
    assert(seen.inside, `${what} can be scrolled into the dock`);
    assert(seen.hits, `${what} is not covered once scrolled to`);
    assert(seen.w >= 43.5 && seen.h >= 43.5, `${what} is at least 44×44 px (${Math.round(seen.w)}×${Math.round(seen.h)})`);
    assert(!seen.pageMoved, `${what} is reached by scrolling the dock, not the page`);
  }
  return n;
}

// The turn's main buttons and the tabs: each wholly on the screen and
// inside the dock as it is (nothing scrolled), and what a tap there reaches;
// `optional` ones only when the page shows them (the turn may have moved on).
async function mainButtonsSeen(page, where, sels, optional = []) {
  await page.waitForTimeout(100);
  for (const sel of optional) if (await page.$(sel)) sels = [...sels, sel];
  for (const sel of sels) {
    const seen = await page.$eval(sel, (e) => {
      const r = e.getBoundingClientRect(), d = document.getElementById('dock').getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return { top: r.top, bottom: r.bottom, inDock: r.top >= d.top - 1 && r.bottom <= d.bottom + 1 && r.bottom <= innerHeight + 0.5,
        hits: !!hit && (hit === e || e.contains(hit)) };
    });
    assert(seen.inDock && seen.hits, `${where}: ${sel} is on the screen, not scrolled away or covered (${JSON.stringify(seen)})`);
  }
}

t.test('a phone held upright: the dock takes at most 45% of the height (Arkadia refill and lot, Clans, Khronos) and its controls scroll within it', async () => {
  const page = await phonePage();
  // Clans: the first turn
  let g = await apiGame('clans');
  await page.goto(server.base + g.seats[0].link);
  await page.waitForSelector('.legal-source, .legal-village', { timeout: 60000 });
  await uprightDock(page, 'Clans, my turn', '#dock button');
  await page.screenshot({ path: `${artifacts}/phone-upright-clans.png` });
  // Arkadia: the castle lot, then decisions up to the first refill of the hand.
  // Two people's seats: the start player (drawn at random) places the lot, so
  // the page opened is the seat whose turn it is.
  const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'arkadia', players: 2, seats: [{ kind: 'human', name: 'Ann' }, { kind: 'human', name: 'Bo' }] }) });
  g = await res.json();
  await page.goto(server.base + g.seats[0].link);
  await page.waitForSelector('#turn .headline');
  if (!(await page.$('#turn.mine'))) await page.goto(server.base + g.seats[1].link);
  let refill = false, lot = false;
  for (let k = 0; k < 40 && !refill; k++) {
    await page.waitForSelector('#dock #ark-bar:not([hidden])', { timeout: 60000 });
    await page.waitForTimeout(100);
    const n = await logLength(page);
    if (await page.$('[data-lot-anchor]')) {
      await uprightDock(page, 'Arkadia, the castle lot', '#dock button');
      await page.screenshot({ path: `${artifacts}/phone-upright-arkadia-lot.png` });
      lot = true;
      const anchors = await page.$$eval('[data-lot-anchor]', (a) => a.map((x) => x.dataset.lotAnchor));
      const [x, y] = sqXY(anchors[Math.floor(anchors.length / 2)]);
      await tapBoard(page, arkSq(sqName(x + 1, y + 1)), 'the castle lot', { fx: 0.97, within: 'svg' });
    } else if (await page.$('#dock .ark-bar-stack, .ark-display .ark-card.target')) {
      refill = true;
      break;
    } else if (await page.$('.arkadia-board .reach')) {
      const reach = await page.$$eval('.arkadia-board .reach', (r) => r.map((x) => x.dataset.reach));
      await tapBoard(page, arkSq(reach[0]), 'a square to lay the building on', { within: 'svg' });
    } else if (await page.$('#ark-stop:not([disabled])')) {
      await tap(page, '#ark-stop', 'Stop placing workers');
    } else if (await page.$('#dock .ark-bar-card')) {
      await tap(page, '#dock .ark-bar-card', 'a card of the hand');
      await page.waitForSelector('.arkadia-board .reach');
      continue;
    } else if (await page.$('#ark-banner-no')) {
      await tap(page, '#ark-banner-no', 'Keep my banners');
    } else if (await page.$('[data-castle-family]')) {
      await tap(page, '[data-castle-family]', 'a castle piece');
      await tapBoard(page, '[data-castle-target]:not(.faint)', 'a castle square', { within: 'svg' });
    } else {
      throw new Error('Arkadia upright: a decision this test does not make before the refill');
    }
    await played(page, n, 'Arkadia upright');
  }
  assert(lot && refill, `the castle lot (${lot}) and the refill turn (${refill}) were reached`);
  await page.screenshot({ path: `${artifacts}/phone-upright-arkadia-refill.png` });
  const cards = await uprightDock(page, 'Arkadia, refill your hand', '#dock .ark-bar-card, #dock .ark-bar-stack, #dock #turn button, #dock .phone-tabs button');
  const offered = await page.locator('#dock .ark-bar-card, #dock .ark-bar-stack').count();
  assert(offered >= 2 && cards > offered, `the refill turn offers its cards (${offered}) and buttons in the dock (${cards} controls in all)`);
  // the last card, scrolled to within the dock, is taken by a tap
  const n = await logLength(page);
  const last = page.locator('#dock .ark-bar-card').last();
  await last.evaluate((e) => e.scrollIntoView({ block: 'nearest', inline: 'nearest' }));
  const b = await last.boundingBox();
  await page.touchscreen.tap(b.x + b.width / 2, b.y + b.height / 2);
  await played(page, n, 'a card taken from the bottom of the dock');
  // Khronos: the drawer closed, then open (its whole hand reached inside the dock)
  g = await apiGame('khronos');
  await page.goto(server.base + g.seats[0].link);
  await page.waitForSelector('#dock #kh-end:not([disabled])', { timeout: 60000 });
  await uprightDock(page, 'Khronos, the drawer closed', '#dock button');
  await page.screenshot({ path: `${artifacts}/phone-upright-khronos.png` });
  await khDrawer(page, true);
  await uprightDock(page, 'Khronos, the drawer open', '#dock .kh-drawer-toggle, #dock #kh-hand .kh-card, #dock #kh-palette .kh-tile, #dock #kh-end, #dock .phone-tabs button',
    { cap: 0.85 * H, board: false });
  await page.screenshot({ path: `${artifacts}/phone-upright-khronos-drawer.png` });
  await khDrawer(page, false);
  await uprightDock(page, 'Khronos, the drawer closed again', '#dock button');
  // a hint's words make the turn card taller: End turn and the tabs stay on the screen
  await tap(page, '#hint-button', 'Hint');
  await page.waitForSelector('#hint', { timeout: 60000 });
  await mainButtonsSeen(page, 'Khronos after a hint', ['#kh-end', '[data-phone-tab="board"]', '[data-phone-tab="moves"]']);
  await page.context().close();
});

t.test('the top bar\'s links and buttons are a finger\'s size on every page, the game named whole', async () => {
  const page = await phonePage();
  const g = await apiGame('clans');
  for (const url of ['/', '/rules.html?game=clans', g.seats[0].link]) {
    await page.goto(`${server.base}${url}`);
    await page.waitForSelector('.topbar a.brand svg');
    if (url === g.seats[0].link) await page.waitForSelector('#crumb b');
    const small = await page.$$eval('.topbar a, .topbar button', (xs) => xs.filter((x) => x.getClientRects().length).map((x) => {
      const r = x.getBoundingClientRect();
      return { what: x.id || x.className || x.textContent, w: Math.round(r.width), h: Math.round(r.height) };
    }).filter((c) => c.w < 44 || c.h < 44));
    assertEq(small, [], `the controls of the top bar of ${url} smaller than 44×44 px`);
    // (the name is whole: its box is not squeezed so that the next item is drawn over it)
    const bar = await page.$eval('.topbar', (b) => b.getBoundingClientRect().height);
    assert(bar <= 64, `the top bar of ${url} is one row (${bar} px high)`);
    const brand = await page.$eval('.topbar .brand', (b) => ({ need: b.scrollWidth, has: b.clientWidth }));
    assert(brand.need <= brand.has, `the name Tabula is not squeezed in the top bar of ${url} (${JSON.stringify(brand)})`);
    // the game page names the game and the player's role whole, not cut with an ellipsis
    const crumb = await page.$eval('.topbar', (b) => { const c = b.querySelector('#crumb'); return c && c.offsetParent ? { need: c.scrollWidth, has: c.clientWidth, text: c.innerText } : null; });
    if (url === g.seats[0].link) assert(crumb && crumb.need <= crumb.has && /^Clans · your seat$/.test(crumb.text), `the top bar of the game names it whole (${JSON.stringify(crumb)})`);
  }
  await page.context().close();
});

t.test('the Khronos legend on a phone does not ask to hover (a finger cannot); the drawer names the buildings in full', async () => {
  const page = await phonePage();
  const g = await apiGame('khronos');
  await page.goto(`${server.base}${g.seats[0].link}`);
  await page.waitForSelector('.kh-svg');
  await tap(page, '[data-phone-tab="scores"]', 'the Players & scores tab');
  await page.waitForSelector('.kh-legend-card h3');
  const legend = await page.textContent('.kh-legend-card');
  assert(legend.startsWith('Legend') && !/hover/i.test(legend), `the legend's words: ${legend.slice(0, 80)}`);
  // and the drawer's buildings are named in full
  await tap(page, '[data-phone-tab="board"]', 'the Board tab');
  if (!(await page.$('.kh-drawer.open'))) await tap(page, '#kh-drawer-toggle', 'the drawer');
  await page.waitForSelector('#dock .kh-tile-name');
  const cut = await page.$$eval('#dock .kh-tile-name', (xs) => xs.filter((x) => x.scrollWidth > x.clientWidth).map((x) => x.textContent));
  assertEq(cut, [], 'building names cut in the phone\'s drawer');
  await page.context().close();
});

t.test('the moves list: every decision and every folded turn is a finger\'s size to tap, and a decision tapped shows the board', async () => {
  // (Arkadia: every turn has several decisions, so the list has folded turns)
  const r = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'arkadia', players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }] }) });
  const g = await r.json();
  for (let i = 0; i < 1800 && (await (await fetch(`${server.base}/api/games/${g.id}`)).json()).status !== 'over'; i++) await new Promise((ok) => setTimeout(ok, 100));
  const page = await phonePage();
  await page.goto(`${server.base}/game.html?game=${g.id}`);
  await page.waitForSelector('#result:not([hidden])');
  await tap(page, '[data-phone-tab=moves]', 'the Moves tab');
  await page.waitForSelector('#log .entry', { state: 'attached' });
  await page.waitForSelector('#log', { state: 'visible' });
  // the list opens at the newest decision, on the screen above the dock
  const newest = await page.evaluate(() => {
    const last = document.querySelector('#log').lastElementChild.getBoundingClientRect();
    return { top: last.top, bottom: last.bottom, dock: document.getElementById('dock').getBoundingClientRect().top };
  });
  assert(newest.top >= 0 && newest.bottom <= newest.dock + 1, `the Moves tab opens at the newest decision (${JSON.stringify(newest)})`);
  const small = await page.$$eval('.log .entry, .log .turn-head', (xs) => xs.filter((x) => x.getClientRects().length)
    .map((x) => [x.getBoundingClientRect(), x.className]).filter(([b]) => b.height < 44 || b.width < 44).map(([b, c]) => `${c} ${Math.round(b.width)}×${Math.round(b.height)}`));
  assertEq(small, [], 'decisions and turns of the log smaller than 44×44 px');
  // a folded turn's line is cut with an ellipsis: the list never scrolls sideways
  const log = await page.$eval('#log', (l) => ({ wide: l.scrollWidth, room: l.clientWidth, folded: l.querySelectorAll('.turn:not(.open) .turn-head').length }));
  assert(log.folded > 0 && log.wide <= log.room, `the moves list, with folded turns, fits its card (${JSON.stringify(log)})`);
  await noOverflow(page, 'the moves list');
  await shot(page, 'moves-list');
  // a decision tapped shows the board after it: the board's tab comes to the front
  await tap(page, '#log > .turn .turn-head', 'a folded turn');
  await tap(page, '#log .turn.open .entry', 'a decision of the turn');
  await page.waitForSelector('#look-return');
  assertEq(await page.getAttribute('[data-phone-tab=board]', 'aria-selected'), 'true', 'the Board tab is chosen');
  assert(await page.locator('.board-card').isVisible(), 'the board after that decision is shown');
  // the lobby's lists fit their card: Watch and Replay are seen without swiping sideways
  await apiGame('clans');
  await page.goto(`${server.base}/`);
  for (const [tab, link] of [['live', 'Watch'], ['over', 'Replay']]) {
    await tap(page, `#games-card [data-tab="${tab}"]`, `the lobby's ${tab} tab`);
    await page.waitForSelector(`#games table.games tr[data-game-id] a.button:text-is("${link}")`);
    const fit = await page.evaluate((word) => {
      const box = document.getElementById('games'), card = document.getElementById('games-card').getBoundingClientRect();
      const a = [...box.querySelectorAll('a.button')].filter((x) => x.textContent === word).map((x) => x.getBoundingClientRect());
      return { wide: box.scrollWidth, room: box.clientWidth, out: a.filter((r) => r.left < card.left || r.right > card.right).length, n: a.length };
    }, link);
    assert(fit.n > 0 && fit.wide <= fit.room && fit.out === 0, `the lobby's list (${tab}) fits its card, ${link} in sight (${JSON.stringify(fit)})`);
  }
  await noOverflow(page, 'the lobby with games');
  await shot(page, 'lobby-games');
  await page.context().close();
});

// The score graph's labels: at least 11 px on the screen, and every stage
// (`stages` of them) named under the graph.
async function graphLabels(page, where, stages) {
  await page.waitForFunction(() => {
    const g = document.querySelector('.score-graph');
    return g && Math.abs(g.viewBox.baseVal.width - g.getBoundingClientRect().width) < 2;
  }, null, { timeout: 3000 }).catch(() => {});
  const got = await page.$eval('.score-graph', (g) => {
    const scale = g.getBoundingClientRect().width / g.viewBox.baseVal.width;
    return { smallest: Math.min(...[...g.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)),
      named: g.querySelectorAll('.stage-name').length };
  });
  assert(got.smallest >= 11, `the graph's labels are at least 11 px at ${where} (${got.smallest.toFixed(1)} px)`);
  assertEq(got.named, stages, `every stage named under the graph at ${where}`);
}

t.test('five seats on a phone: the points by stage fit the width, each stage\'s name above its points', async () => {
  // a finished five-seat Khronos game of computers (random, so it ends in seconds)
  const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'khronos', players: 5, seats: [...Array(5)].map(() => ({ kind: 'ai', level: 'random' })) }) });
  const g = await res.json();
  let finished = false;
  for (let i = 0; i < 600 && !finished; i++) {
    finished = Boolean((await (await fetch(`${server.base}/api/games/${g.id}`)).json()).result);
    if (!finished) await new Promise((r) => setTimeout(r, 100));
  }
  assert(finished, 'the five computers finish their game within a minute');
  const table = async (page) => page.$eval('.stage-table-wrap', (wrap) => {
    const seats = [...wrap.querySelectorAll('thead th[data-col-seat]')].map((th) => th.getBoundingClientRect());
    const stage = wrap.querySelector('tbody th').getBoundingClientRect();
    const first = wrap.querySelector('tbody td').getBoundingClientRect();
    const cut = [...wrap.querySelectorAll('thead .name-cut')].filter((n) => n.scrollWidth > n.clientWidth + 0.5).map((n) => n.title);
    return { wide: wrap.scrollWidth, room: wrap.clientWidth, seats: seats.length, cut,
      seatRight: Math.max(...seats.map((r) => r.right)), wrapRight: wrap.getBoundingClientRect().right,
      stageAbove: stage.bottom <= first.top + 0.5, stageBeside: stage.right <= first.left + 0.5 };
  });
  const page = await phonePage();
  await page.goto(`${server.base}/game.html?game=${encodeURIComponent(g.id)}`);
  await page.waitForSelector('.stage-table');
  const phone = await table(page);
  assert(phone.wide <= phone.room, `the points by stage fit a 390 px phone (${phone.wide} px in ${phone.room})`);
  assertEq(phone.seats, 5, 'a column per seat');
  assert(phone.seatRight <= phone.wrapRight + 0.5, `every seat's column is in view (${JSON.stringify(phone)})`);
  assert(phone.stageAbove, `a stage's name is on a line above its points (${JSON.stringify(phone)})`);
  assertEq(phone.cut, [], 'seat names cut with an ellipsis on a phone');
  await noOverflow(page, 'five seats, the points by stage');
  await graphLabels(page, '390×844', 7);
  await page.$eval('.stage-table', (t) => t.scrollIntoView());
  await shot(page, 'five-seats-stages');
  await page.context().close();
  // a wide screen's side column is narrow too: the same shape, and it fits
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const desk = await ctx.newPage();
  desk.on('pageerror', (e) => errors.push(`${desk.url()}: ${e.message}`));
  await desk.goto(`${server.base}/game.html?game=${encodeURIComponent(g.id)}`);
  await desk.waitForSelector('.stage-table');
  const wide = await table(desk);
  assert(wide.wide <= wide.room && wide.seatRight <= wide.wrapRight + 0.5,
    `at 1280 px the points by stage fit their column (${JSON.stringify(wide)})`);
  assertEq(wide.cut, [], 'seat names cut with an ellipsis at 1280 px');
  await graphLabels(desk, '1280×800', 7);
  await desk.$eval('.stage-table', (t) => t.scrollIntoView());
  await shot(desk, 'five-seats-stages-1280');
  await ctx.close();
});

// Issue 31: every page and phase of each game in Spanish (a phone whose
// browser speaks Spanish) shows no English word of the catalogue
// (tests/e2e/i18n-check.mjs); the same pages in the pseudo-language (every
// string ~40% longer, accented) scroll no wider than the phone and cut no
// button's text.  Each game: in play, resigned (the result), the replay, the
// review; then the rules, the lobby and the error pages.
t.test('in Spanish and in the pseudo-language on a phone: every page and phase of each game', async () => {
  const es = await phonePage({ locale: 'es-ES', expect404: true });
  const xx = await phonePage({ expect404: true });
  await xx.goto(`${server.base}/?lang=pseudo`); // (kept for the tab)
  const T0 = Date.now();
  // opens `url` (null: stays) on the Spanish page, or on both, waits for `sel`
  // and checks each its way
  const check = async (pages, url, sel, where) => {
    for (const page of pages) {
      if (url) await page.goto(`${server.base}${url}`);
      await page.waitForSelector(sel);
      assertEq(await page.evaluate(() => document.documentElement.lang), page === es ? 'es' : 'en', `${where}: the page's language`);
      if (page === es) await assertNoEnglish(es, where);
      else await assertFits(xx, `${where} (pseudo)`);
    }
    if (process.env.I18N_TIMES) console.log(`  ${where}: ${Date.now() - T0} ms`);
  };
  for (const game of ['clans', 'arkadia', 'khronos']) {
    // the computer moves first, so the review has a decision to look at
    const g = await (await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
      game, players: 2, seats: [{ kind: 'ai', level: 'easy' }, { kind: 'human', name: 'Zoe' }] }) })).json();
    const link = g.seats.find((x) => x.link).link;
    await check([es, xx], link, '.turn-card.mine', `${game} in play`);
    await es.screenshot({ path: `${artifacts}/phone-es-${game}-in-play.png` }); // (docs/screenshots.md)
    // the top bar names the game and the role whole in Spanish too
    const crumb = await es.$eval('#crumb', (c) => ({ need: c.scrollWidth, has: c.clientWidth, text: c.innerText }));
    assert(crumb.need <= crumb.has, `the Spanish top bar names the game whole (${JSON.stringify(crumb)})`);
    await es.tap('#resign');
    await es.tap('#resign-yes');
    // (the pseudo-language's other pages: once, with Clans)
    const both = game === 'clans' ? [es, xx] : [es];
    await check([es], null, '#result:not([hidden]) #story h3', `${game} result`);
    if (game === 'clans') await check([xx], link, '#result:not([hidden]) #story h3', 'clans result');
    await check(both, `/game.html?game=${g.id}&replay=1`, '#replay-step:not(:empty)', `${game} replay`);
    await check(both, `/game.html?game=${g.id}&replay=1&review=1`, '#review-caption, #review-empty', `${game} review`);
    await check(both, `/rules.html?game=${game}`, '#rules-text h1, #rules-text h2', `${game} rules`);
  }
  await check([es, xx], '/', '#game-choices .game-choice', 'lobby');
  await check([es, xx], '/no-such-page', '#not-found h1', 'the page for a lost address');
  await check([es, xx], '/game.html?game=nosuchgame', '#fatal', 'the page of no game');
  await shot(es, 'es-error');
  await es.context().close();
  await xx.context().close();
});

t.test('the error page fits the phone', async () => {
  const page = await phonePage({ expect404: true }); // the unknown game's 404 is the point
  await page.goto(`${server.base}/game.html?game=nosuchgame`);
  await page.waitForSelector('#fatal');
  await noOverflow(page, 'error page');
  // the words once, with the way back in sight; no empty board with zoom buttons, no tabs
  const said = await page.textContent('#fatal');
  const times = (await page.evaluate(() => document.body.innerText)).split(said.trim()).length - 1;
  assertEq(times, 1, 'times the error page says what went wrong');
  for (const sel of ['.board-card', '#zoom-in', '#dock']) assert(!(await page.locator(sel).isVisible()), `the error page shows no ${sel}`);
  const back = await page.locator('#back-to-lobby').boundingBox();
  assert(back && back.y + back.height <= H, 'the way back to the lobby is on the screen');
  await shot(page, 'error');
  await page.context().close();
});

await finish();
