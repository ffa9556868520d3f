// arkadia.e2e.mjs TABULA — browser test of the Arkadia page with
// playwright-core (pinned in package.json) driving Debian's /usr/bin/chromium:
// create an Arkadia game against the computer in the lobby, then make at
// least 30 decisions with board gestures (the castle lot and placements by
// pointing, rotation with R and the ⟳ button, buildings, worker squares,
// castle squares, hand cards, the face-up display and the stack), plus the
// decisions that only have buttons (stop, banner, sale).  After each one the
// board must show it.  A spectator never sees a hand, and the switch hides
// the opponents' totals.  The computer's turn is marked, also on a page
// opened in the middle of it.  Screenshots go to tests/e2e/artifacts/arkadia-*.png.
// A missing browser or package is a failure.
import path from 'node:path';
import { assert, assertEq, sleep, startServer } from '../server/lib.mjs';
import { spanishPass } from './spanish-games.mjs';
import { browserSuite, recordAnimations, startedAnimations } from './browser.mjs';

const { server, browser, errors, t, newPage, shot, finish, tabula, dir } = await browserSuite({ title: 'browser tests (Arkadia)', prefix: 'arkadia-', aiDelay: 40, reducedMotion: true });
const GESTURES = Number(process.env.ARKADIA_GESTURES || 30);

// A point inside square `sq` of the board, (fx, fy) in 0…1 across it.
async function squarePoint(page, sq, fx = 0.5, fy = 0.5) {
  const box = await page.locator(`.arkadia-board rect.sq[data-sq="${sq}"]`).boundingBox();
  return [box.x + box.width * fx, box.y + box.height * fy];
}
async function pointAt(page, sq, fx, fy) {
  const [x, y] = await squarePoint(page, sq, fx, fy);
  await page.mouse.move(x, y, { steps: 2 });
  return [x, y];
}
async function clickSquare(page, sq, fx = 0.5, fy = 0.5, modifiers = []) {
  const [x, y] = await pointAt(page, sq, fx, fy);
  for (const m of modifiers) await page.keyboard.down(m);
  await page.mouse.click(x, y);
  for (const m of modifiers) await page.keyboard.up(m);
}
// What the preview showed when the board was clicked: recorded by a listener
// that runs before the board's own, so a check compares the placed piece with
// what the player saw under the pointer at that moment.
async function recordPressedPreview(page) {
  await page.evaluate(() => document.addEventListener('click', () => {
    const layer = document.querySelector('.arkadia-board .preview-layer');
    window.pressedPreview = layer ? layer.getAttribute('data-squares') : null;
  }, true));
}
const pressedPreview = (page) => page.evaluate(() => window.pressedPreview);
const sqXY = (s) => [s.charCodeAt(0) - 97, Number(s.slice(1)) - 1];
const sqName = (x, y) => `${String.fromCharCode(97 + x)}${y + 1}`;
const logLength = (page) => page.$$eval('.log .entry', (x) => x.length);
async function waitLog(page, n, what) {
  await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, n, { timeout: 15000 })
    .catch(async (e) => { await shot(page, 'failed'); throw new Error(`${what} did not reach the log: ${e.message}`); });
}
// The decision of ours that the log shows after entry n (the computer may
// have moved after it).
const ourEntry = (page, n) => page.$eval('.log', (log, k) => {
  const e = log.querySelectorAll('.entry')[k];
  return e ? e.textContent : null;
}, n);

// The marks the computer's last turn must leave on the board: the selectors
// of what its decisions (the log's last run of seat 0) put there.
function computerTurnMarks(log) {
  const run = [];
  for (let k = log.length - 1; k >= 0 && log[k].seat === 0; k--) run.unshift(log[k].move);
  return run.flatMap((m) => {
    if (/^lot /.test(m)) return ['.lot-base.last-move'];
    if (/^[a-p]\d{1,2}(-[a-p]\d{1,2})+$/.test(m)) return [`.building.last-move[data-squares="${m}"]`];
    const w = /^(?:own|neutral) (\S+)$/.exec(m);
    return w ? [`.worker.last-move[data-sq="${w[1]}"]`] : [];
  });
}

let gameUrl = null, spectatorUrl = null;

t.test('the lobby creates an Arkadia game against the computer', async () => {
  const page = await newPage();
  await page.goto(server.base + '/');
  await page.waitForSelector('.game-choice[data-game="arkadia"]');
  await page.click('.game-choice[data-game="arkadia"]');
  await page.waitForSelector('#game-notice:not([hidden])');
  const lobbyNotice = await page.textContent('#game-notice');
  assert(/reconstruction/.test(lobbyNotice), 'the lobby notes the provisional layout');
  assert(!/placeholder|docs\/|\.md/i.test(lobbyNotice), `the notice is in players' words: ${lobbyNotice}`);
  await page.selectOption('#players', '2');
  assertEq(await page.$$eval('[data-seat-kind]', (s) => s.map((x) => x.value)), ['human', 'ai'], 'you against the computer');
  await page.fill('input[aria-label="Seat 1 name"]', 'Tester');
  await page.selectOption('[data-seat-level="1"]', 'easy');
  await page.selectOption('[data-option="lot"]', 'choose');
  await page.click('#create');
  await page.waitForSelector('#created:not([hidden]) [data-play-seat="0"]');
  await shot(page, '01-created');
  spectatorUrl = server.base + (await page.getAttribute('#created a[href*="game.html"]:not([data-play-seat])', 'href'));
  gameUrl = server.base + (await page.getAttribute('[data-play-seat="0"]', 'href'));
  assert(/token=[A-Za-z0-9_-]{22,}/.test(gameUrl), 'the seat link carries a token');
  await page.close();
});

t.test('30+ decisions by clicking the board; the board follows each; a spectator sees no hand', async () => {
  const page = await newPage();
  await page.goto(gameUrl);
  await page.waitForSelector('.arkadia-board rect.sq');
  await recordPressedPreview(page);
  assertEq(await page.$$eval('.arkadia-board rect.sq', (x) => x.length), 192, '16 × 12 squares');
  assertEq(await page.$$eval('.arkadia-board .coords text', (x) => x.map((e) => e.textContent).filter((s) => s === 'a' || s === 'p' || s === '12').length), 6, 'coordinates labelled on both sides');
  assertEq(await page.$$eval('.arkadia-board .tent', (x) => x.length), 24, '24 tent camps');
  assert(/reconstruction/.test(await page.textContent('#notice:not([hidden])')), 'the provisional-layout notice is shown');
  await page.waitForSelector('.ark-hand .ark-hand-card');
  assertEq(await page.$$eval('.ark-hand .ark-hand-card', (x) => x.length), 4, 'a hand of 4 for its owner');
  const myColour = (await page.textContent('#ark-your-colour')).toLowerCase();
  const spec = await newPage();
  await spec.goto(spectatorUrl);
  await spec.waitForSelector('.arkadia-board rect.sq');

  const count = { lot: 0, place: 0, worker: 0, stop: 0, castle: 0, draw: 0, banner: 0, sell: 0, action: 0 };
  const did = (k) => { count[k]++; };
  let gestures = 0, buttons = 0, rotations = 0, workersThisTurn = 0, shotPlace = false, checkedSpectator = false;
  // The computer's answers differ from game to game, so play on until every
  // kind of decision checked after the loop has been made (bounded by loops).
  const goalsMet = () => gestures >= GESTURES + 4 && count.place >= 3 && count.action >= 3 && count.draw >= 3 &&
    count.worker >= 1 && rotations >= 1 && checkedSpectator;
  for (let loop = 0; loop < 400 && !goalsMet(); loop++) {
    await page.waitForFunction(() => document.querySelector('#result:not([hidden])') ||
      document.querySelector('#ark-bar:not([hidden])'), null, { timeout: 30000 });
    if (await page.$('#result:not([hidden])')) break;
    const t0 = Date.now();
    const n = await logLength(page);
    if (gestures === 0 && buttons === 0) await shot(page, '02-first-turn');
    let what = null, check = null;

    if (await page.$('[data-lot-anchor]')) {
      // --- the castle lot: point between its 2nd and 3rd column, click
      const anchors = await page.$$eval('[data-lot-anchor]', (a) => a.map((x) => x.dataset.lotAnchor));
      const a = anchors[loop % anchors.length];
      const [x, y] = sqXY(a);
      await pointAt(page, sqName(x + 1, y + 1), 0.97, 0.5);
      assertEq(await page.getAttribute('.preview-layer', 'data-squares'), a, 'the lot preview follows the pointer');
      await shot(page, '03-lot-preview');
      await page.mouse.down(); await page.mouse.up();
      const pressed = await pressedPreview(page);
      assert(pressed, 'a lot place was shown when the board was clicked');
      what = `lot ${pressed}`; did('lot'); gestures++;
      check = async () => assert(await page.$(`.arkadia-board .lot[data-lot="${pressed}"]`), `the lot is drawn at ${pressed}, as shown when clicked`);
    } else if (await page.$('.arkadia-board .reach')) {
      // --- placement: rotate (R or the button), point at a reachable square, click
      const orients = await page.$$eval('.ark-orients .orient', (b) => b.map((x) => x.dataset.orient));
      if (orients.length > 1) {
        const before = await page.getAttribute('.ark-orients .orient.on', 'data-orient');
        if (count.place % 2) await page.keyboard.press('r'); else await page.click('#ark-rotate');
        const after = await page.getAttribute('.ark-orients .orient.on', 'data-orient');
        assert(after !== before, 'rotating selects another legal orientation');
        rotations++;
      }
      const reach = await page.$$eval('.arkadia-board .reach', (r) => r.map((x) => x.dataset.reach));
      const target = reach[(loop * 7) % reach.length];
      await pointAt(page, target, 0.5, 0.5);
      const squares = await page.getAttribute('.preview-layer', 'data-squares');
      assertEq(await page.getAttribute('.preview-layer', 'data-legal'), '1', 'a reachable square shows a legal placement');
      assert(squares.split('-').includes(target), `the preview ${squares} covers the pointed square ${target}`);
      if (!shotPlace) { await shot(page, '04-placement-preview'); shotPlace = true; }
      await page.mouse.down(); await page.mouse.up();
      // Normally the same as `squares`; if the board moved under the still
      // pointer in between, the preview caught up on the press.
      const pressed = await pressedPreview(page);
      assert(pressed, 'a legal placement was shown when the board was clicked');
      what = pressed; did('place'); gestures++;
      check = async () => assert(await page.$(`.arkadia-board .building[data-squares="${pressed}"]`), `the building on ${pressed} is drawn, as shown when clicked`);
    } else if (await page.$('.arkadia-board [data-worker-spot]')) {
      // --- workers: own or neutral (the switch in the bar), or stop
      const spots = await page.$$eval('.arkadia-board [data-worker-spot]', (s) => s.map((x) => x.dataset.workerSpot));
      const canStop = !!(await page.$('#ark-stop:not([disabled])'));
      if (canStop && (workersThisTurn >= 2 || spots.length === 0)) {
        await page.click('#ark-stop');
        what = 'stop'; did('stop'); buttons++;
        check = async () => {};
      } else {
        const s = spots[loop % spots.length];
        const neutralOk = !!(await page.$('#ark-kind-neutral:not([disabled])'));
        if (neutralOk && count.worker % 3 === 2) await page.click('#ark-kind-neutral');
        else if (await page.$('#ark-kind-own:not([disabled])')) await page.click('#ark-kind-own');
        const kind = await page.$eval(`[data-worker-spot="${s}"]`, (e) => (e.classList.contains('own') ? 'own' : 'neutral'));
        await clickSquare(page, s);
        what = `${kind} ${s}`; did('worker'); gestures++; workersThisTurn++;
        const colour = kind === 'own' ? myColour : 'neutral';
        check = async () => assert(await page.$(`.arkadia-board .worker[data-sq="${s}"][data-colour="${colour}"]`), `a ${colour} worker on ${s}`);
      }
    } else if (await page.$('[data-castle-family]')) {
      // --- a castle piece: colour, then a castle square
      const fams = await page.$$eval('[data-castle-family]', (b) => b.map((x) => x.dataset.castleFamily));
      const fam = fams[loop % fams.length];
      if (!(await page.$(`[data-castle-family="${fam}"].on`))) await page.click(`[data-castle-family="${fam}"]`);
      await page.waitForSelector('[data-castle-target]:not(.faint)');
      const targets = await page.$$eval('[data-castle-target]', (b) => b.map((x) => Number(x.dataset.castleTarget)));
      const q = targets[loop % targets.length];
      const height = Number(await page.getAttribute(`.castle-sq[data-castle="${q}"]`, 'data-height'));
      const lot = await page.getAttribute('.arkadia-board .lot', 'data-lot');
      const offsets = { 1: [0, 0], 2: [1, 0], 3: [2, 0], 4: [3, 0], 5: [3, 1], 6: [3, 2], 7: [2, 2], 8: [1, 2], 9: [0, 2], 10: [0, 1] };
      const [lx, ly] = sqXY(lot);
      await pointAt(page, sqName(lx + offsets[q][0], ly + offsets[q][1]));
      if (count.castle === 0) await shot(page, '05-castle');
      await clickSquare(page, sqName(lx + offsets[q][0], ly + offsets[q][1]));
      what = `castle ${fam} ${q}`; did('castle'); gestures++;
      check = async () => {
        const h = Number(await page.getAttribute(`.castle-sq[data-castle="${q}"]`, 'data-height'));
        assert(h === height + 1, `castle square ${q} is ${height + 1} high (${h})`);
        assertEq(await page.getAttribute(`.castle-sq[data-castle="${q}"]`, 'data-visible'), fam, `${fam} shows on square ${q}`);
      };
    } else if (await page.$('.ark-card.target[data-card]:not(.ark-hand-card), #ark-stack.target')) {
      // --- the draw: a face-up card or the stack
      const display = await page.$$eval('.ark-display .ark-card.target', (c) => c.map((x) => x.dataset.card));
      const fromStack = count.draw % 2 === 1 || !display.length;
      if (!(await page.$('#ark-stack.target')) && !display.length) throw new Error('nothing to draw');
      let card = null;
      if (fromStack && (await page.$('#ark-stack.target'))) await page.click('#ark-stack');
      else { card = display[0]; await page.click(`.ark-display .ark-card[data-card="${card}"]`); }
      what = card ? `draw ${card}` : 'draw stack'; did('draw'); gestures++;
      check = async () => {
        const hand = await page.$$eval('.ark-hand .ark-hand-card', (c) => c.map((x) => x.dataset.card));
        assertEq(hand.length, 4, 'the hand is refilled to 4');
        if (card) assert(hand.includes(card), `the face-up ${card} is in the hand`);
      };
    } else if (await page.$('#ark-banner-yes, #ark-banner-no')) {
      // --- the banner (buttons)
      const left = Number((await page.textContent('#ark-my-banners')).match(/\d+/)[0]);
      const yes = count.banner % 3 === 1 && (await page.$('#ark-banner-yes:not([disabled])'));
      await page.click(yes ? '#ark-banner-yes' : '#ark-banner-no');
      what = yes ? 'banner yes' : 'banner no'; did('banner'); buttons++;
      check = async () => {
        const now = Number((await page.textContent('#ark-my-banners')).match(/\d+/)[0]);
        assertEq(now, yes ? left - 1 : left, 'banners left');
      };
    } else if (await page.$('#ark-sell')) {
      // --- a sale: all of one family, at its value
      const gold = Number(await page.textContent('#ark-my-gold'));
      await page.click('#ark-sale-all');
      const [k] = (await page.textContent('.ark-sale-n')).match(/\d+/);
      const worth = Number((await page.textContent('.ark-sale-gold')).match(/\d+/)[0]);
      await page.click('#ark-sell');
      what = 'sell'; did('sell'); buttons++;
      check = async () => assertEq(Number(await page.textContent('#ark-my-gold')), gold + worth, `selling ${k} seals brings ${worth} gold`);
    } else if (await page.$('.ark-hand-card.target') || await page.$('[data-workers-target]')) {
      // --- the action: a card of the hand, or a building for workers
      const cards = await page.$$eval('.ark-hand-card.target', (c) => c.map((x) => x.dataset.card));
      const builds = await page.$$eval('[data-workers-target]', (b) => b.map((x) => x.dataset.workersTarget).filter((s) => s !== 'lot'));
      workersThisTurn = 0;
      if (cards.length && (!builds.length || count.action % 2 === 0)) {
        const card = cards[loop % cards.length];
        await page.click(`.ark-hand-card.target[data-card="${card}"]`);
        what = `build ${card}`;
        check = async () => {
          assertEq(await page.$$eval('.ark-hand .ark-hand-card:not(.laying)', (c) => c.length), 3, 'the card left the hand');
          assert(await page.$(`.ark-hand-card.laying[data-card="${card}"]`), 'the card being laid out is shown');
        };
      } else {
        const first = builds[loop % builds.length];
        const squares = (await page.getAttribute(`.building[data-first="${first}"]`, 'data-squares')).split('-');
        await clickSquare(page, squares[squares.length - 1]);
        what = `workers ${first}`;
        check = async () => assert(await page.$('.arkadia-board .hl-selected'), 'the chosen building is marked');
      }
      did('action'); gestures++;
    } else {
      const other = await page.$$eval('.ark-other .legal-move', (b) => b.map((x) => x.dataset.move));
      throw new Error(`a decision without a gesture: ${other.join(', ') || '(nothing offered)'}`);
    }
    if (process.env.E2E_DEBUG) console.log(`# ${what} ${Date.now() - t0} ms`);
    await waitLog(page, n, what);
    const logged = await ourEntry(page, n);
    assert(logged && logged.includes('Tester'), `the log shows ${what} by Tester (${logged})`);
    await check().catch(async (e) => {
      await shot(page, 'failed');
      const log = await page.$$eval('.log .entry', (x) => x.slice(-6).map((e) => e.textContent));
      const blds = await page.$$eval('.arkadia-board .building', (b) => b.map((x) => x.dataset.squares));
      throw new Error(`${e.message}\n  last log: ${log.join(' | ')}\n  buildings: ${blds.join(' ')}`);
    });
    if (gestures === 12 && !checkedSpectator) {
      checkedSpectator = true;
      await spec.waitForFunction((k) => document.querySelectorAll('.log .entry').length >= k, n + 1);
      assertEq(await spec.$$eval('.ark-hand, .ark-hand-card', (x) => x.length), 0, 'a spectator sees no hand');
      assert(/spectator/.test(await spec.textContent('#you')), 'the spectator is told so');
      const mine = await page.$$eval('.arkadia-board .building', (b) => b.map((x) => x.dataset.squares).sort());
      await spec.waitForFunction((k) => document.querySelectorAll('.arkadia-board .building').length >= k, mine.length);
      const theirs = await spec.$$eval('.arkadia-board .building', (b) => b.map((x) => x.dataset.squares).sort());
      assert(mine.every((s) => theirs.includes(s)), 'the spectator sees the same buildings');
      await shot(spec, '06-spectator');
    }
    if (gestures === 20) await shot(page, '07-mid-game');
  }
  console.log(`# ${gestures} board gestures, ${buttons} button decisions, ${rotations} rotations: ${JSON.stringify(count)}`);
  assert(gestures >= GESTURES, `at least ${GESTURES} decisions by board gestures (${gestures})`);
  assert(count.place >= 3 && count.action >= 3 && count.draw >= 3, `cards played, placed and drawn (${JSON.stringify(count)})`);
  assert(count.worker >= 1, 'workers placed by clicking');
  assert(rotations >= 1, 'a placement was rotated');
  assert(checkedSpectator, 'the spectator was checked');
  // the switch hides the opponents' totals, and brings them back
  await page.check('#ark-hide-others');
  assertEq(await page.isVisible('.ark-screens tr.ark-opp .gold .v'), false, 'opponents\' gold hidden');
  assertEq(await page.isVisible('.ark-screens tr.ark-me .gold'), true, 'own gold still shown');
  await shot(page, '08-hidden-totals');
  await page.uncheck('#ark-hide-others');
  assertEq(await page.isVisible('.ark-screens tr.ark-opp .gold .v'), true, 'opponents\' gold shown again');
  assertEq(await spec.$$eval('.ark-hand, .ark-hand-card', (x) => x.length), 0, 'still no hand for the spectator');
  await spec.context().close();
  await page.context().close();
});

t.test('the renderer offers every decision kind by gesture (driven directly)', async () => {
  // Rare decisions (a sale, a castle piece with a choice of colours) are
  // checked here with the renderer fed a position, without the server.
  const page = await newPage();
  await page.goto(server.base + '/');
  const r = await page.evaluate(async () => {
    const { create } = await import('/js/renderers/arkadia.js');
    const board = await (await fetch('/api/catalog/arkadia/board')).json();
    const games = (await (await fetch('/api/games?status=all')).json()).games.filter((g) => g.game === 'arkadia');
    const view = (await (await fetch(`/api/games/${games[0].id}`)).json()).view;
    const boardEl = document.createElement('div'), panelsEl = document.createElement('div');
    boardEl.className = 'board-wrap';
    boardEl.style.width = '1000px';
    document.body.append(boardEl, panelsEl);
    const sent = [];
    const R = create({ boardEl, panelsEl, board, decide: (m) => { sent.push(m); return true; } });
    const seats = [{ name: 'A' }, { name: 'B' }];
    const out = {};
    const at = (sq, fx = 0.5, fy = 0.5) => {
      const b = boardEl.querySelector(`rect.sq[data-sq="${sq}"]`).getBoundingClientRect();
      return { clientX: b.left + b.width * fx, clientY: b.top + b.height * fy };
    };
    const svgEl = boardEl.querySelector('svg.arkadia-board');
    const click = (sq, opts = {}) => svgEl.dispatchEvent(new MouseEvent('click', { ...at(sq), bubbles: true, ...opts }));
    // a sale
    const lotView = { ...view, phase: 'sale', family: 'red', to_move: 0 };
    R.update({ view: lotView, legal: ['sell red 0', 'sell red 1', 'sell red 2', 'sell red 3'], yourTurn: true, seat: 0, toMove: 0, n: 900, seats });
    const range = boardEl.querySelector('#ark-sale-range');
    out.saleMax = range.max;
    range.value = '2'; range.dispatchEvent(new Event('input'));
    boardEl.querySelector('#ark-sell').click();
    // a castle piece with two colours: nothing is sent before a colour is chosen
    const cv = { ...view, phase: 'castle', castle_left: 2, to_move: 0 };
    R.update({ view: cv, legal: ['castle red 1', 'castle red 2', 'castle black 1', 'castle black 2'], yourTurn: true, seat: 0, toMove: 0, n: 901, seats });
    const [lx, ly] = [cv.lot.charCodeAt(0) - 97, Number(cv.lot.slice(1)) - 1];
    const sq2 = `${String.fromCharCode(97 + lx + 1)}${ly + 1}`;
    click(sq2);
    out.beforeColour = sent.length;
    boardEl.querySelector('[data-castle-family="black"]').click();
    click(sq2);
    // the board moves under a still pointer (a panel grows above it): the
    // press brings the preview up to date, and the click places what it shows
    const pv = { ...view, phase: 'place', card: 'house red', to_move: 0 };
    R.update({ view: pv, legal: ['e4-e5', 'e5-e6', 'e6-e7'], yourTurn: true, seat: 0, toMove: 0, n: 903, seats });
    const layer = () => boardEl.querySelector('.preview-layer').getAttribute('data-squares');
    const e6 = at('e6', 0.5, 0.6);
    const pointer = (type) => svgEl.dispatchEvent(new PointerEvent(type, { ...e6, bubbles: true }));
    pointer('pointermove');
    out.beforeShift = layer();
    boardEl.style.marginTop = `${boardEl.querySelector('rect.sq[data-sq="e6"]').getBoundingClientRect().height}px`;
    pointer('pointerdown');
    out.atPress = layer();
    svgEl.dispatchEvent(new MouseEvent('click', { ...e6, bubbles: true }));
    boardEl.style.marginTop = '';
    // unknown decisions still get a button
    R.update({ view: { ...view, phase: 'action' }, legal: ['mystery 1'], yourTurn: true, seat: 0, toMove: 0, n: 902, seats });
    out.fallback = [...boardEl.querySelectorAll('.ark-other .legal-move')].map((b) => b.dataset.move);
    out.help = R.instruction({ view: { ...view, phase: 'sale', family: 'red' } }).headline;
    out.log = ['castle black 2', 'build trade-centre red', 'e7-f7-f8-g8', 'own c3', 'draw stack', 'sell red 7'].map((m) => R.formatMove(m));
    out.sent = sent;
    return out;
  });
  assertEq(r.saleMax, '3', 'the slider goes up to the seals held');
  assertEq(r.beforeColour, 1, 'a castle square without a chosen colour sends nothing');
  assertEq(r.beforeShift, 'e6-e7', 'the preview under the pointer');
  assertEq(r.atPress, 'e5-e6', 'after the board moved down a square, the press shows the placement now under the pointer');
  assertEq(r.sent, ['sell red 2', 'castle black 2', 'e5-e6'], 'the sale, the castle piece and the placement shown at the press sent');
  assertEq(r.fallback, ['mystery 1'], 'an unknown decision gets a button');
  assertEq(r.help, 'Sell red seals?', 'the sale explained in words');
  assertEq(r.log, ['castle 2 ← black', 'lays red trade centre', 'on e7 f7 f8 g8', 'own worker c3', 'draws from the stack', 'sells 7 red'], 'the log in words');
  await page.context().close();
});

// The last move and the staged move.  The computer's whole turn is marked
// when the page opens (it asks for the position before that turn); with
// "Confirm each move" a chosen lot or placement is drawn on the board before
// Confirm and gone after Cancel; a placement arrives with its drop (motion
// allowed) and keeps its mark with reduced motion, nothing moving.
t.test('the last move is marked, the staged move previewed before Confirm and gone after Cancel', async () => {
  const page = await newPage();
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  await recordAnimations(page);
  await page.addInitScript(() => localStorage.setItem('tabula.confirmEachMove', 'on'));
  const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'arkadia', players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'human', name: 'Mover' }] }) });
  const g = await res.json();
  await page.goto(`${server.base}${g.seats[1].link}`);
  const myTurn = () => page.waitForFunction(() => {
    const turn = document.querySelector('#turn.mine');
    return turn && Number(turn.dataset.n) === document.querySelectorAll('.log .entry').length && document.querySelector('#ark-bar:not([hidden])');
  }, null, { timeout: 30000 });
  // Stages what the pointer shows on `sq`, checks the preview, cancels,
  // stages it again and confirms; returns the decision.
  const stageAndConfirm = async (sq, what) => {
    await pointAt(page, sq, 0.5, 0.5);
    await page.mouse.down(); await page.mouse.up();
    await page.waitForSelector('#turn-staged');
    const move = await page.getAttribute('.arkadia-board .staged-layer', 'data-move');
    assert(move && (await page.$$('.arkadia-board .staged-layer .staged-preview')).length >= 1, `the staged ${what} (${move}) is drawn on the board`);
    const words = await page.textContent('#turn-staged');
    assert(/^Your choice: [A-Z][^.]+\.$/.test(words) && !/\b[a-p]\d{1,2}\b|←/.test(words), `and said in a sentence, no notation: ${words}`);
    await shot(page, `12-staged-${what}`);
    const n = await logLength(page);
    await page.click('#turn-cancel');
    await page.waitForSelector('#turn-staged', { state: 'detached' });
    assertEq((await page.$$('.arkadia-board .staged-layer .staged-preview')).length, 0, `Cancel takes the staged ${what} off the board`);
    await pointAt(page, sq, 0.5, 0.5);
    await page.mouse.down(); await page.mouse.up();
    await page.waitForSelector('#turn-confirm');
    assertEq(await page.getAttribute('.arkadia-board .staged-layer', 'data-move'), move, 'the same choice staged again');
    await page.click('#turn-confirm');
    await waitLog(page, n, `the confirmed ${what}`);
    return move;
  };
  // The rest of a turn, by the simplest decision each time (each confirmed).
  const simplest = async () => {
    const n = await logLength(page);
    if (await page.$('#ark-stop:not([disabled])')) await page.click('#ark-stop');
    else if (await page.$('#ark-stack.target')) await page.click('#ark-stack');
    else if (await page.$('#ark-banner-no:not([disabled])')) await page.click('#ark-banner-no');
    else if (await page.$('#ark-sell')) { await page.click('#ark-sale-none'); await page.click('#ark-sell'); }
    else if (await page.$('.ark-hand-card.target')) await page.click('.ark-hand-card.target >> nth=0');
    else if (await page.$('.arkadia-board .reach[data-reach]')) await clickSquare(page, await page.$eval('.arkadia-board .reach[data-reach]', (x) => x.dataset.reach));
    else if (await page.$('.arkadia-board [data-worker-spot]')) await clickSquare(page, await page.$eval('.arkadia-board [data-worker-spot]', (x) => x.dataset.workerSpot));
    else if (await page.$('[data-castle-family]')) {
      if (!(await page.$('[data-castle-family].on'))) await page.click('[data-castle-family]');
      const q = await page.$eval('[data-castle-target]:not(.faint)', (x) => Number(x.dataset.castleTarget));
      const offsets = { 1: [0, 0], 2: [1, 0], 3: [2, 0], 4: [3, 0], 5: [3, 1], 6: [3, 2], 7: [2, 2], 8: [1, 2], 9: [0, 2], 10: [0, 1] };
      const [lx, ly] = sqXY(await page.getAttribute('.arkadia-board .lot', 'data-lot'));
      await clickSquare(page, sqName(lx + offsets[q][0], ly + offsets[q][1]));
    } else throw new Error(`no simple decision: ${await page.textContent('#turn')}`);
    await page.click('#turn-confirm');
    await waitLog(page, n, 'a simple decision');
  };
  let checkedReply = false, placed = false;
  for (let turn = 0; turn < 12 && !(checkedReply && placed); turn++) {
    await myTurn();
    const log = (await (await fetch(`${server.base}/api/games/${g.id}`)).json()).log;
    // the computer's last turn: what its decisions put on the board is marked
    const expect = computerTurnMarks(log);
    for (const sel of expect) await page.waitForSelector(`.arkadia-board ${sel}`, { timeout: 5000 });
    if (expect.length) { checkedReply = true; await shot(page, '11-computer-turn-marked'); }
    if (await page.$('[data-lot-anchor]')) {
      const a = await page.$eval('[data-lot-anchor]', (x) => x.dataset.lotAnchor);
      const [x, y] = sqXY(a);
      const move = await stageAndConfirm(sqName(x + 1, y + 1), 'lot');
      assertEq(move, `lot ${a}`, 'the lot staged where pointed');
      continue;
    }
    if (placed || !(await page.$('.ark-hand-card.target'))) { await simplest(); continue; }
    // a card of the hand (staged and confirmed: it has no place on the board yet)
    await page.click('.ark-hand-card.target >> nth=0');
    await page.click('#turn-confirm');
    await page.waitForSelector('.arkadia-board .reach', { timeout: 15000 });
    const sq = await page.$eval('.arkadia-board .reach[data-reach]', (r) => r.dataset.reach);
    const move = await stageAndConfirm(sq, 'placement');
    // my placement arrives: marked, and dropping in (motion allowed here)
    await page.waitForSelector(`.arkadia-board .building.last-move[data-squares="${move}"]`, { timeout: 10000 });
    const anim = await page.waitForFunction((m) => {
      const a = (window.animStarts || []).filter((x) => x.squares === m && x.name === 'ark-drop');
      return a.length ? a : null;
    }, move, { timeout: 10000 }).then((h) => h.jsonValue());
    assert(anim.every((x) => x.duration <= 600), `the new building drops in, under 600 ms (${JSON.stringify(anim)})`);
    // once: after its time nothing starts it again
    await page.waitForTimeout(700);
    const drops = (await startedAnimations(page)).filter((x) => x.squares === move && x.name === 'ark-drop').length;
    await pointAt(page, sq, 0.3, 0.3);
    await page.waitForTimeout(300);
    assertEq((await startedAnimations(page)).filter((x) => x.squares === move && x.name === 'ark-drop').length, drops, 'played once');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.waitForSelector(`.arkadia-board .building.last-move[data-squares="${move}"]`);
    assertEq(await page.$eval('.arkadia-board', (b) => b.getAnimations({ subtree: true }).map((a) => `${a.animationName} on ${a.effect.target.getAttribute('class')}`)), [], 'with reduced motion nothing on the board moves');
    assert((await page.$$('.arkadia-board .last-outline')).length >= 1, 'while the last move keeps its outline');
    await shot(page, '13-placement-marked');
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    placed = true;
  }
  assert(checkedReply, 'the computer\'s turn was checked');
  assert(placed, 'a placement was staged and confirmed');
  await page.context().close();
});

// A page opened in the middle of the computer's turn asks for the position
// before that turn; when the answer comes after more of the turn arrived, the
// whole turn is still marked, not only the decisions the page saw arrive (the
// computer plays slowly here, and the answer is held until a decision came).
t.test('a page opened in the middle of the computer\'s turn marks the whole turn', async () => {
  const slow = await startServer(tabula, { db: path.join(dir, 'slow.db'), aiDelay: 900, args: ['--ai-step-ms', '900'] });
  try {
    const get = async (id) => (await fetch(`${slow.base}/api/games/${id}`)).json();
    // a game where the computer (the first seat) begins, its first turn (the
    // lot and more) going on when the page has opened: tried again when the
    // person begins or the turn ended first
    let g = null, page = null, release = null, asked = 0, opened = 0;
    for (let tries = 0; tries < 12 && !page; tries++) {
      const made = await (await fetch(`${slow.base}/api/games`, { method: 'POST', body: JSON.stringify({
        game: 'arkadia', players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'human', name: 'Late' }] }) })).json();
      let started = false;
      for (let i = 0; i < 40 && !started; i++) {
        const s = await get(made.id);
        if (s.log.some((e) => e.seat !== 0) || (s.log.length === 0 && i > 20)) break; // the person begins
        started = s.log.length >= 2;
        if (!started) await sleep(100);
      }
      if (!started) continue;
      const p = await newPage();
      const held = new Promise((r) => { release = r; });
      asked = 0;
      await p.route('**/replay/**', async (route) => { asked++; await held; await route.continue(); });
      await p.goto(`${slow.base}${made.seats[1].link}`);
      await p.waitForFunction(() => document.querySelectorAll('.log .entry').length > 0);
      opened = await logLength(p);
      if (await p.$('#turn.mine')) { release(); await p.context().close(); continue; } // the turn was over
      g = made;
      page = p;
    }
    assert(page, 'a page opened in the middle of the computer\'s first turn (12 tries)');
    // one more decision of the same turn arrives while the page waits for its answer
    await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, opened, { timeout: 15000 });
    const log = (await get(g.id)).log;
    assert(asked >= 1 && log.slice(0, opened + 1).every((e) => e.seat === 0), `the page opened after ${opened} decisions of the computer's turn and asked for the position before it`);
    release();
    await page.waitForFunction(() => document.querySelector('#turn.mine'), null, { timeout: 30000 });
    const expect = computerTurnMarks((await get(g.id)).log);
    assert(expect.includes('.lot-base.last-move'), 'the turn laid the lot');
    for (const sel of expect) await page.waitForSelector(`.arkadia-board ${sel}`, { timeout: 5000 });
    await shot(page, '14-opened-mid-turn');
    await page.context().close();
  } finally {
    await slow.stop();
  }
});

// The log scrolls in its card.  A player reading earlier decisions keeps the
// place while the computers play on (before, every decision that arrived threw
// the log back to its end, and a click aimed at an old decision could land on
// another); at the end, the log follows the game.
t.test('the log stays where the player scrolled it while the game goes on, and follows it from the end', async () => {
  const slow = await startServer(tabula, { db: path.join(dir, 'scroll.db'), aiDelay: 120, args: ['--ai-step-ms', '120'] });
  try {
    const made = await (await fetch(`${slow.base}/api/games`, { method: 'POST', body: JSON.stringify({
      game: 'arkadia', players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }] }) })).json();
    const page = await newPage();
    await page.goto(`${slow.base}/game.html?game=${encodeURIComponent(made.id)}`);
    const box = () => page.$eval('#log', (b) => ({ top: b.scrollTop, end: b.scrollHeight - b.clientHeight }));
    // enough decisions that the log scrolls well
    await page.waitForFunction(() => { const b = document.getElementById('log'); return b.scrollHeight > b.clientHeight + 120; },
      null, { timeout: 60000 });
    // at the end: it follows each new decision
    let n = await logLength(page);
    await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, n, { timeout: 15000 });
    let b = await box();
    assert(b.end - b.top < 8, `the log at its end follows the game (scrolled to ${b.top} of ${b.end})`);
    // scrolled up: two more decisions arrive, it stays
    await page.$eval('#log', (x) => { x.scrollTop = 40; });
    n = await logLength(page);
    await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k + 1, n, { timeout: 15000 });
    b = await box();
    assertEq(b.top, 40, 'the log stays where the player scrolled it');
    // a turn opened and a decision in it clicked while the game goes on: the
    // board just after that decision
    if (await page.$('.turn[data-first="1"] .turn-head')) await page.click('.turn[data-first="1"] .turn-head');
    await page.click('.log .entry[data-n="1"]');
    await page.waitForSelector('#look-return');
    assert((await page.textContent('#turn')).includes('after decision 1 of'), 'the board after decision 1, clicked');
    await page.context().close();
  } finally {
    await slow.stop();
  }
});

// The computers' pace (web/js/pacing.js): a player chooses it in the
// settings and this browser keeps it; with the default a computer's whole
// turn plays out in about 2 s however many decisions it has (the server here
// sends them 40 ms apart: shown as they came, a turn of 8 would take 0.3 s).
t.test('a computer\'s turn of many decisions plays out in about 2 s; the pace is kept in this browser', async () => {
  const made = await (await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'arkadia', players: 2, seats: [{ kind: 'human', name: 'Pat' }, { kind: 'ai', level: 'random' }] }) })).json();
  const page = await newPage();
  await page.goto(`${server.base}${made.seats[0].link}`);
  await page.click('#settings-button');
  assertEq(await page.$$eval('#setting-pace option', (o) => o.map((x) => x.textContent)),
    ['About 2 seconds a turn', 'Fast', 'Step by step'], 'the paces in words');
  await page.selectOption('#setting-pace', 'turn');
  await shot(page, '15-settings-pace');
  await page.reload();
  assertEq(await page.$eval('#setting-pace', (s) => s.value), 'turn', 'the chosen pace is kept after a reload');
  assertEq(await page.evaluate(() => localStorage.getItem('tabula.computerPace')), 'turn', 'in this browser\'s storage');
  await page.context().close();
  // two computers, watched with the default pace: when each decision showed
  const watch = await (await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'arkadia', players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }] }) })).json();
  const spec = await newPage();
  await spec.addInitScript(() => localStorage.setItem('tabula.computerPace', 'turn'));
  await spec.goto(`${server.base}/game.html?game=${encodeURIComponent(watch.id)}`);
  await spec.waitForSelector('.log .entry', { state: 'attached' });
  await spec.evaluate(() => {
    window.seenAt = {};
    const look = () => { for (const e of document.querySelectorAll('.log .entry[data-n]')) if (!(e.dataset.n in window.seenAt)) window.seenAt[e.dataset.n] = performance.now(); };
    look();
    setInterval(look, 15);
  });
  const opened = Math.max(...Object.keys(await spec.evaluate(() => window.seenAt)).map(Number));
  // a whole turn of the computer begun after the page opened
  let turn = null;
  for (let i = 0; i < 80 && !turn; i++) {
    await sleep(250);
    const log = (await (await fetch(`${server.base}/api/games/${watch.id}`)).json()).log;
    const seen = await spec.evaluate(() => window.seenAt);
    for (let a = opened + 1; a <= log.length && !turn; a++) {
      if (log[a - 2] && log[a - 2].seat === log[a - 1].seat) continue; // a turn begins at decision a
      let b = a;
      while (b < log.length && log[b].seat === log[a - 1].seat) b++; // its last: decision b
      if (b === log.length || b - a + 1 < 4) continue; // not over yet, or too short to tell
      if (seen[a] !== undefined && seen[b] !== undefined) turn = { a, b, span: seen[b] - seen[a] };
    }
  }
  assert(turn, 'a computer turn of four decisions or more was watched');
  const n = turn.b - turn.a + 1;
  assert(turn.span >= 1000 && turn.span <= 2600, `a turn of ${n} decisions played out in about 2 s (${Math.round(turn.span)} ms)`);
  await spec.context().close();
});

// In Spanish (issue 31): an Arkadia game in play and a finished one, on a phone
// and a desktop: no English word, nothing scrolls sideways, no button cut;
// then the renderer's words in every phase, driven directly.
t.test('in Spanish: a game in play and its result, on a phone and a desktop; every phase\'s words', async () => {
  await spanishPass({ game: 'arkadia', server, browser, tabula, dir, errors, ready: (page) => page.waitForSelector('.arkadia-board'), cards: '.ark-card',
    shot: (page, name) => shot(page, name),
    phases: {
      cases: (v) => [
        // every form of building on a card, in the display and in the hand
        { name: 'an action', view: { phase: 'action', to_move: 0, display: ['monastery red', 'trade-centre olive', 'smithy black'],
          seats: v.seats.map((s, k) => (k ? s : { ...s, hand: ['house red', 'farm olive', 'tavern black', 'mill silver'] })) },
          legal: ['build house red', 'build mill silver', 'workers lot'] },
        { name: 'a building to place', view: { phase: 'place', to_move: 0, card: 'mill olive' }, legal: [] },
        { name: 'workers', view: { phase: 'workers', to_move: 0, placed: 1 }, legal: ['own a1', 'neutral a2', 'stop'] },
        { name: 'castle pieces', view: { phase: 'castle', to_move: 0, castle_left: 2 }, legal: ['castle red 1', 'castle black 2'] },
        { name: 'a card to draw', view: { phase: 'draw', to_move: 0 }, legal: ['draw stack', ...v.display.map((c) => `draw ${c}`)] },
        { name: 'a banner', view: { phase: 'banner', to_move: 0, action: 'skip' }, legal: ['banner yes', 'banner no'] },
        { name: 'a sale', view: { phase: 'sale', to_move: 0, family: 'olive' }, legal: ['sell olive 0', 'sell olive 1', 'sell olive 2'] },
        { name: 'the lot', view: { phase: 'lot', to_move: 0 }, legal: [] },
        { name: 'the end', view: {}, legal: [] },
      ],
      moves: ['lot g5', 'build house red', 'build trade-centre olive', 'build mill black', 'a1-a2', 'workers lot', 'workers c4', 'own a1', 'neutral a2',
        'stop', 'castle red 1', 'castle silver 3', 'draw stack', 'draw smithy black', 'banner yes', 'banner no', 'sell red 1', 'sell silver 3'],
    },
  });
});

await finish();
