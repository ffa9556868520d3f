// khronos.e2e.mjs TABULA — browser test of the Khronos renderer with
// playwright-core (pinned in package.json) driving Debian's /usr/bin/chromium:
// create a Khronos game (Hold'em on) against the computer in the lobby, make
// at least 30 decisions by clicking the boards, the hand and the tile palette
// (buttons only where no board gesture exists: exchange, end, how many cards a
// traveller takes), check the board follows each decision, check a spectator
// never sees a hand, and drive the rarer decisions (downsize, kept squares,
// surcharge cards) through the renderer with positions from `tabula engine`.
// Screenshots go to tests/e2e/artifacts/khronos-*.png.
import path from 'node:path';
import { assert, assertEq, engine } from '../server/lib.mjs';
import { spanishPass } from './spanish-games.mjs';
import { browserSuite, recordAnimations } from './browser.mjs';

const { tabula, artifacts, server, browser, errors, dir, t, newPage, shot, finish } = await browserSuite({ title: 'browser tests (Khronos)', prefix: 'khronos-', aiDelay: 60 });
const DEBUG = !!process.env.E2E_DEBUG;

let gameUrl = null, spectatorUrl = null;

t.test('the lobby creates a Khronos game against the computer', async () => {
  const page = await newPage();
  await page.goto(server.base + '/');
  await page.waitForSelector('.game-choice[data-game="khronos"]');
  await page.click('.game-choice[data-game="khronos"]');
  await page.selectOption('#players', '2');
  const kinds = await page.$$eval('[data-seat-kind]', (s) => s.map((x) => x.value));
  assertEq(kinds, ['human', 'ai'], 'default seats: you against the computer');
  await page.fill('input[aria-label="Seat 1 name"]', 'Tester');
  await page.selectOption('[data-seat-level="1"]', 'easy');
  await page.selectOption('[data-option="holdem"]', 'on');
  assert(await page.isVisible('#game-notice'), 'the lobby shows the placeholder notice');
  await page.click('#create');
  await page.waitForSelector('#created:not([hidden]) [data-play-seat="0"]');
  spectatorUrl = server.base + (await page.getAttribute('#created a[href*="game.html"]:not([data-play-seat])', 'href'));
  gameUrl = server.base + (await page.getAttribute('[data-play-seat="0"]', 'href'));
  assert(/token=[A-Za-z0-9_-]{22,}/.test(gameUrl), 'the seat link carries a token');
  await shot(page, '01-lobby');
  await page.context().close();
});

// ---- reading the page ----

const logLength = (page) => page.$$eval('.log .entry', (x) => x.length);
const lastLog = (page) => page.$$eval('.log .entry', (x) => (x.length ? x[x.length - 1].dataset.move : '')).catch(() => '');
const state = (page) => page.$eval('.kh-root', (r) => ({ phase: r.dataset.phase, n: Number(r.dataset.n), mine: r.dataset.mine === '1', mode: r.dataset.mode }));
const buildingAt = (page, board, at) => page.$(`.kh-bld[data-board="${board}"][data-at="${at}"]`);
const pawnsOn = (page, board, seat) => page.$$eval(`.kh-pawn[data-board="${board}"][data-seat="${seat}"]`, (x) => x.length);
const ecus = (page, seat) => page.$eval(`.player[data-seat="${seat}"] [data-stat="ecus"]`, (x) => Number(x.textContent));

// Waits for the log to grow past `n` entries after a click that decides.
async function decided(page, n, what) {
  await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, n, { timeout: 15000 }).catch(async (e) => {
    await shot(page, 'failed');
    throw new Error(`${what}: no decision showed up in the log: ${e.message}`);
  });
  // the state that follows the decision has been drawn
  await page.waitForFunction((k) => Number(document.querySelector('.kh-root').dataset.n) > k, n, { timeout: 15000 });
}

t.test('30+ decisions by clicking the boards; the board follows each; a spectator sees no hand', async () => {
  const page = await newPage();
  await page.goto(gameUrl);
  await page.waitForSelector('.kh-board[data-board="reason"] .kh-sq');
  // the boards are drawn before the game's state arrives: wait for its buildings and hand
  await page.waitForSelector('.kh-bld[data-board="reason"]');
  await page.waitForSelector('#kh-hand .kh-card');
  assertEq(await page.$$eval('.kh-board', (b) => b.map((x) => x.dataset.board)), ['might', 'faith', 'reason'], 'three boards');
  assertEq(await page.$$eval('.kh-board[data-board="might"] .kh-sq', (x) => x.length), 234, '18 × 13 squares per board');
  // every printed Hamlet square holds a civil building (the Hamlet, or a Town or City grown from it) on every board
  const printed = await page.evaluate(async () => {
    const board = await (await fetch('/api/catalog/khronos/board')).json();
    return ['might', 'faith', 'reason'].map((b) => board.printed_hamlets.filter((sq) => [...document.querySelectorAll(`.kh-bld[data-board="${b}"]`)]
      .some((x) => x.dataset.cells.split(' ').includes(sq) && ['hamlet', 'town', 'city'].includes(x.dataset.type))).length);
  });
  assertEq(printed, [10, 10, 10], 'ten printed Hamlets on each board');
  assert(await page.isVisible('#notice'), 'the placeholder notice is shown');
  const notice = await page.textContent('#notice');
  assert(/drawn for Tabula/.test(notice) && !/placeholder|docs\/|\.md/i.test(notice),
    `the board notice is in players' words: ${notice}`);
  assert(/not known yet/.test(await page.textContent('#notice')), 'the notice says it is not the published board');
  assertEq(await page.$$eval('.kh-turn', (x) => x.length), 7, 'a turn track of 7 spaces');
  assertEq(await page.$$eval('.kh-turn.earn', (x) => x.map((e) => Number(e.dataset.turn))), [4, 7], 'earnings on turns 4 and 7');
  assertEq(await page.$$eval('#kh-display .kh-card', (x) => x.length), 3, 'the Hold\'em display shows three cards');
  assert(/^(Red|Green)$/.test(await page.textContent('#kh-you-colour')), 'the seat sees its colour');

  const spec = await newPage();
  await spec.goto(spectatorUrl);
  await spec.waitForSelector('.kh-board[data-board="reason"] .kh-sq');

  const seat = 0;
  const stats = { decisions: 0, kinds: {}, checked: 0 };
  const count = (kind, k = 1) => { stats.decisions += k; stats.kinds[kind] = (stats.kinds[kind] || 0) + k; };
  let turnActions = 0, turnsPlayed = 0, didExchange = false, swapped = false, travels = 0, noBuild = false, lastTurnN = -1;
  // squares on a forest or mountain whose surcharge cards are a choice: the
  // tile is laid once they are paid
  let unpaidTile = null;
  const started = Date.now();

  // The computer's answers differ from game to game (the server deals a fresh
  // seed), so play on until every kind of decision checked below has been
  // made, not a fixed number of clicks; bounded by decisions and time.
  const built = () => (stats.kinds.build || 0) + (stats.kinds.upgrade || 0);
  const goalsMet = () => stats.decisions >= 33 && built() >= 3 && (stats.kinds.squares || 0) >= 3 && (stats.kinds.travel || 0) >= 1;
  while (!goalsMet() && stats.decisions < 120 && Date.now() - started < 300000) {
    await page.waitForFunction(() => document.querySelector('#result:not([hidden])') ||
      document.querySelector('.kh-root[data-mine="1"]'), null, { timeout: 30000 });
    if (await page.$('#result:not([hidden])')) break;
    const st = await state(page);
    const n = await logLength(page);
    if (DEBUG) console.log('#', Date.now() - started, n, st, stats.decisions);

    if (st.phase === 'squares' || st.phase === 'keep') {
      // click highlighted squares until the tile is laid
      const board = await page.$eval('.kh-sq.cand', (x) => x.dataset.board);
      let clicks = 0;
      while ((await logLength(page)) === n && clicks < 4) {
        const cand = await page.$('.kh-sq.cand');
        if (!cand) break;
        if (!stats.kinds.squares && clicks === 0) { await cand.hover(); await shot(page, '03-choosing-squares'); }
        await cand.click();
        clicks++;
        await page.waitForTimeout(30);
      }
      await decided(page, n, 'choosing squares');
      const mv = await lastLog(page);
      const at = mv.replace(/^on /, '');
      if (st.phase === 'squares' && (await state(page)).phase === 'pay') {
        unpaidTile = { board, at };
      } else if (st.phase === 'squares') {
        assert(await buildingAt(page, board, at), `the new tile is drawn on ${board} ${at}`);
        stats.checked++;
      }
      count('squares');
      continue;
    }
    if (st.phase === 'pay') {
      let clicks = 0;
      while ((await logLength(page)) === n && clicks < 4) {
        await page.click('#kh-hand .kh-card.legal:not(.selected)');
        clicks++;
        await page.waitForTimeout(30);
      }
      await decided(page, n, 'paying the surcharge');
      assert(/^pay /.test(await lastLog(page)), 'the surcharge was paid');
      if (unpaidTile) {
        const { board, at } = unpaidTile;
        assert(await buildingAt(page, board, at), `the new tile is drawn on ${board} ${at} once its surcharge is paid`);
        unpaidTile = null;
        stats.checked++;
      }
      count('pay');
      continue;
    }
    if (st.phase === 'pick') {
      await page.click('.kh-sq.act-pick');
      await decided(page, n, 'downsize');
      count('pick');
      continue;
    }
    if (st.phase !== 'action') throw new Error(`unexpected phase ${st.phase}`);

    const turnNow = await page.$eval('#kh-turn-text', (x) => x.textContent);
    if (turnNow !== lastTurnN) { lastTurnN = turnNow; turnActions = 0; turnsPlayed++; swapped = false; travels = 0; noBuild = false; }

    // Hold'em: swap one card with the display (a hand card, then a display card)
    if (!swapped && turnActions === 0 && await page.$('#kh-hand .kh-card:not([disabled])')) {
      const hand = await page.$$eval('#kh-hand .kh-card', (c) => c.map((x) => x.dataset.card));
      const display = await page.$$eval('#kh-display .kh-card', (c) => c.map((x) => x.dataset.card));
      const i = hand.findIndex((c) => display.some((d) => d !== c));
      if (i >= 0) {
        await page.click(`#kh-hand .kh-card[data-index="${i}"]`);
        const target = await page.$('#kh-display .kh-card.legal');
        if (target) {
          const take = await target.getAttribute('data-card');
          await target.click();
          await decided(page, n, 'swap');
          assertEq(await lastLog(page), `swap ${hand[i]} for ${take}`, 'the swap is logged');
          const now = await page.$$eval('#kh-hand .kh-card', (c) => c.map((x) => x.dataset.card).sort().join(''));
          const expect = [...hand.slice(0, i), ...hand.slice(i + 1), take].sort().join('');
          assertEq(now, expect, 'the hand shows the card taken from the display');
          swapped = true;
          count('swap');
          stats.checked++;
          continue;
        }
        await page.click(`#kh-hand .kh-card[data-index="${i}"]`); // unselect
      }
      swapped = true;
    }
    // exchange once, on the second turn (before any action)
    if (!didExchange && turnsPlayed >= 2 && turnActions === 0 && await page.$('#kh-exchange')) {
      const before = await ecus(page, seat);
      await page.click('#kh-hand .kh-card[data-index="0"]');
      if (await page.$('#kh-exchange:not([disabled])')) {
        await page.click('#kh-exchange');
        await decided(page, n, 'exchange');
        assertEq(await ecus(page, seat), before - 2, 'an exchange costs 2 Ecus');
        didExchange = true;
        count('exchange');
        stats.checked++;
        continue;
      }
      await page.click('#kh-hand .kh-card[data-index="0"]');
    }
    // on Reason: populate or renovate
    // (a few of those are enough; after that the other actions come first)
    const reasonDone = (stats.kinds.populate || 0) + (stats.kinds.renovate || 0);
    const reasonAct = reasonDone < 3 || built() >= 3
      ? await page.$('.kh-sq.act-populate, .kh-sq.act-renovate') : null;
    if (reasonAct) {
      const sq = await reasonAct.getAttribute('data-sq');
      const kind = (await reasonAct.getAttribute('class')).includes('act-populate') ? 'populate' : 'renovate';
      const bld = await page.$$eval('.kh-bld[data-board="reason"]', (bs, s) => {
        const b = bs.find((x) => x.dataset.cells.split(' ').includes(s));
        return b ? { at: b.dataset.at, cubes: b.dataset.cubes, ruin: b.dataset.ruin } : null;
      }, sq);
      await reasonAct.click();
      await decided(page, n, kind);
      if (kind === 'renovate') {
        const after = await page.$eval(`.kh-bld[data-board="reason"][data-at="${bld.at}"]`, (b) => ({ ruin: b.dataset.ruin, by: b.dataset.renovation }));
        assert(after.ruin === '' || after.by === String(seat), `Reason ${bld.at} renovated, or half with our cube (${JSON.stringify(after)})`);
        stats.checked++;
      }
      if (kind === 'populate') {
        const cubes = await page.$eval(`.kh-bld[data-board="reason"][data-at="${bld.at}"]`, (b) => b.dataset.cubes);
        assertEq(cubes.split(',').filter(Boolean).length, bld.cubes.split(',').filter(Boolean).length + 1, `a cube more on Reason ${bld.at}`);
        stats.checked++;
      }
      if (stats.kinds.populate === undefined && kind === 'populate') await shot(page, '05-populated');
      count(kind);
      turnActions++;
      continue;
    }
    // build: a tile of the palette, then a square of a glowing board
    const tiles = await page.$$eval('#kh-palette .kh-tile.legal', (x) => x.map((b) => b.dataset.type));
    if (tiles.length && !noBuild) {
      // mostly tiles of two or three squares, to choose their squares on the board
      const big = tiles.filter((x) => !['watchtower', 'chapel', 'hamlet'].includes(x));
      const pool = big.length && stats.decisions % 4 ? big : tiles;
      const type = pool[(stats.decisions * 5 + turnsPlayed) % pool.length];
      await page.click(`#kh-palette .kh-tile[data-type="${type}"]`);
      await page.waitForSelector('.kh-root[data-mode="type"]');
      if (stats.kinds.build === undefined) await shot(page, '02-tile-chosen');
      const up = await page.$('.kh-sq.act-upgrade');
      const buildSq = await page.$('.kh-board.legal-build .kh-sq.act-build');
      if (buildSq && (!up || stats.decisions % 3)) {
        // a square in the middle of the empty ones, to leave room for the tile
        const all = await page.$$('.kh-board.legal-build .kh-sq.act-build');
        await all[(stats.decisions * 7) % all.length].click();
        await decided(page, n, `build ${type}`);
        assert(/^build /.test(await page.$eval(`.log .entry[data-n="${n + 1}"]`, (x) => x.dataset.move)), 'the build is logged');
        const s2 = await state(page);
        assert(['squares', 'action', 'pay', 'pick'].includes(s2.phase), `after build: ${s2.phase}`);
        count('build');
        const more = (await logLength(page)) - n - 1; // a one-square tile on the clicked square is laid at once
        if (more > 0) count('squares', more);
      } else if (up) {
        const sq = await up.getAttribute('data-sq');
        const board = await up.getAttribute('data-board');
        await up.click();
        await decided(page, n, `upgrade to ${type}`);
        assert(/^upgrade /.test(await page.$eval(`.log .entry[data-n="${n + 1}"]`, (x) => x.dataset.move)), 'the upgrade is logged');
        assertEq((await state(page)).phase, 'squares', 'an upgrade asks for the squares');
        assert(await page.$(`.kh-sq.sel[data-board="${board}"][data-sq="${sq}"], .kh-sq.cand[data-board="${board}"][data-sq="${sq}"]`),
          'the old footprint is part of every placement offered');
        count('upgrade');
      } else {
        await page.keyboard.press('Escape');
        await page.waitForSelector('.kh-root[data-mode=""]');
        noBuild = true;
        continue;
      }
      turnActions++;
      continue;
    }
    // travel: an adventurer, then a board; when the cards' split is a choice, a button
    const pawn = await page.$('.kh-pawn.legal');
    if (pawn && travels < 2 && (await ecus(page, seat)) >= 1) {
      const from = await pawn.getAttribute('data-board');
      const before = { from: await pawnsOn(page, from, seat) };
      await pawn.click();
      await page.waitForSelector('.kh-board.legal-dest');
      const dests = await page.$$eval('.kh-board.legal-dest', (x) => x.map((b) => b.dataset.board));
      // Reason once early (populate, renovate); then where tiles are built,
      // until three have been
      const building = dests.filter((d) => d !== 'reason');
      const to = dests.includes('reason') && !stats.kinds.travel ? 'reason'
        : built() < 3 && building.length ? building[stats.decisions % building.length] : dests[stats.decisions % dests.length];
      before.to = await pawnsOn(page, to, seat);
      await page.click(`.kh-board[data-board="${to}"] .kh-sq[data-sq="f5"]`);
      if (await page.$('.kh-travel-n')) {
        await shot(page, '06-travel-split');
        await page.click('.kh-travel-n >> nth=0');
        count('travel-split-button', 0);
      }
      await decided(page, n, 'travel');
      assertEq(await pawnsOn(page, from, seat), before.from - 1, `an adventurer left ${from}`);
      assertEq(await pawnsOn(page, to, seat), before.to + 1, `an adventurer arrived on ${to}`);
      stats.checked++;
      count('travel');
      travels++;
      turnActions++;
      continue;
    }
    // end the turn (discarding one card now and then)
    if (turnsPlayed % 2 === 1 && await page.$('#kh-hand .kh-card:not([disabled])')) await page.click('#kh-hand .kh-card[data-index="0"]');
    if (await page.$('#kh-end[disabled]')) await page.click('#kh-hand .kh-card.selected'); // that discard is not offered
    await page.click('#kh-end');
    await decided(page, n, 'end');
    assert(/^end/.test(await page.$eval(`.log .entry[data-n="${n + 1}"]`, (x) => x.dataset.move)), 'the end of the turn is logged');
    if (!(await page.$('#result:not([hidden])'))) {
      assertEq(await page.$$eval('#kh-hand .kh-card', (x) => x.length), 4, 'the hand is refilled to four cards');
      stats.checked++;
    }
    count('end');
    if (stats.kinds.end === 1) {
      // the spectator: same boards, no hand anywhere
      await spec.waitForFunction((k) => document.querySelectorAll('.log .entry').length >= k, n + 1);
      assertEq(await spec.$$eval('#kh-hand .kh-card', (x) => x.length), 0, 'a spectator sees no hand');
      assert(await spec.$('.kh-hidden-hands'), 'a spectator is told the hands are secret');
      assert(await spec.isVisible('#notice'), 'the spectator sees the placeholder notice');
      // compared in one position: the player's, once the computer's turn is
      // over (a later decision of the computer may change a building)
      await page.waitForFunction(() => document.querySelector('.kh-root').dataset.mine === '1' ||
        document.querySelector('#result:not([hidden])'), null, { timeout: 60000 });
      const buildings = () => [...document.querySelectorAll('.kh-bld:not(.printed)')].map((b) => `${b.dataset.board} ${b.dataset.at}`).sort();
      const at = await page.$eval('.kh-root', (r) => Number(r.dataset.n));
      const mine = await page.evaluate(buildings);
      await spec.waitForFunction((k) => Number(document.querySelector('.kh-root').dataset.n) === k, at);
      assertEq(await spec.evaluate(buildings), mine, 'the spectator sees the same buildings');
      await shot(spec, '07-spectator');
    }
    if (stats.kinds.end === 2) await shot(page, '04-after-two-turns');
  }
  if (DEBUG) console.log('#', stats, (await page.$$eval('.log .entry', (x) => x.map((e) => e.textContent))).join('\n'));
  assert(stats.decisions >= 30, `at least 30 decisions by clicking (${stats.decisions}: ${JSON.stringify(stats.kinds)})`);
  assert(stats.checked >= 8, `the board was checked after ${stats.checked} decisions`);
  assert(built() >= 3, `tiles were built (${JSON.stringify(stats.kinds)})`);
  assert(stats.kinds.squares >= 3, `squares were chosen on the board (${JSON.stringify(stats.kinds)})`);
  assert(stats.kinds.travel >= 1, 'an adventurer travelled');
  await shot(page, '08-mid-game');
  // a seat never sees another's hand: only its own cards are drawn
  assertEq(await spec.$$eval('.kh-card[data-index]', (x) => x.length), 0, 'still no hand for the spectator');
  await spec.context().close();
  await page.context().close();
});

// ---- the rarer decisions, with real positions from the engine ----

async function scenario() {
  const [, st] = await engine(tabula, ['new khronos players=3 seed=3', 'state']);
  const s = JSON.parse(st);
  const cur = s.current;
  const a = (cur + 1) % 3, b = (cur + 2) % 3;
  s.boards.might = [{ type: 'keep', at: 'a3-b4', owner: a }, { type: 'keep', at: 'd3-e4', owner: b }];
  s.boards.faith = [{ type: 'keep', at: 'a3-b4', owner: a }, { type: 'keep', at: 'd3-e4', owner: b }];
  s.boards.reason = [{ type: 'keep', at: 'a3-b4', ruin: true }, { type: 'keep', at: 'd3-e4', ruin: true }];
  const load = `load ${JSON.stringify(s)}`;
  const r = await engine(tabula, [load, 'play build might hamlet', 'play c4', `view ${cur}`, 'legal',
    'play downsize might d3', `view ${b}`, 'legal']);
  const [, , , pickView, pickLegal, , keepView, keepLegal] = r;
  const p = await engine(tabula, ['new khronos players=2 seed=3', 'play build might hamlet', 'play c1', 'view 1', 'legal']);
  // a Watchtower of the player to move: upgrade it from the building, or demolish it
  const [, st2] = await engine(tabula, ['new khronos players=2 seed=3', 'state']);
  const s2 = JSON.parse(st2);
  s2.boards.might = [{ type: 'watchtower', at: 'a3', owner: s2.current }];
  const w = await engine(tabula, [`load ${JSON.stringify(s2)}`, `view ${s2.current}`, 'legal']);
  // a Keep being built on an empty Might board: its 2x2 blocks, each named by its corners
  const s3 = JSON.parse(st2);
  s3.hands[s3.current] = 'mmcc';
  s3.hands[1 - s3.current] = 'rrrr';
  s3.deck = 'm'.repeat(16) + 'r'.repeat(14) + 'c'.repeat(17);
  const q = await engine(tabula, [`load ${JSON.stringify(s3)}`, 'play build might keep', `view ${s3.current}`, 'legal']);
  return {
    // protocol v2: `legal` answers one decision per line
    squares: { view: JSON.parse(q[2]), legal: q[3].split('\n'), seat: s3.current },
    tower: { view: JSON.parse(w[1]), legal: w[2].split('\n'), seat: s2.current },
    pick: { view: JSON.parse(pickView), legal: pickLegal.split('\n'), seat: cur },
    keep: { view: JSON.parse(keepView), legal: keepLegal.split('\n'), seat: b },
    pay: { view: JSON.parse(p[3]), legal: p[4].split('\n'), seat: 1 },
  };
}

t.test('downsizing, the kept squares, surcharge cards, upgrade from a building, demolish: all by clicking', async () => {
  const sc = await scenario();
  assertEq(sc.pick.view.phase, 'pick', 'the engine gives a pick position');
  assertEq(sc.keep.view.phase, 'keep', 'and a keep position');
  assertEq(sc.pay.view.phase, 'pay', 'and a pay position');
  const page = await newPage();
  await page.goto(server.base + '/');
  await page.evaluate(async (S) => {
    const { create } = await import('/js/renderers/khronos.js');
    const board = await (await fetch('/api/catalog/khronos/board')).json();
    const boardEl = document.createElement('div'), panelsEl = document.createElement('div');
    boardEl.className = 'board-wrap';
    boardEl.id = 'kh-test-board';
    boardEl.style.width = '1000px';
    document.body.append(boardEl, panelsEl);
    const decided = [];
    const r = create({ boardEl, panelsEl, board, decide: (m) => { decided.push(m); return true; }, seatName: (k) => `P${k}` });
    const click = (sel) => { const e = boardEl.querySelector(sel); if (!e) return false; e.dispatchEvent(new MouseEvent('click', { bubbles: true })); return true; };
    const res = {};
    // pick: the two tied Keeps are the choices
    r.update({ view: S.pick.view, legal: S.pick.legal, yourTurn: true, seat: S.pick.seat, n: 10, replay: false });
    res.pickTargets = [...boardEl.querySelectorAll('.kh-sq.act-pick')].map((x) => `${x.dataset.board} ${x.dataset.sq}`);
    res.pickHelp = r.instruction({ view: S.pick.view }).headline;
    window.KH = { r, boardEl, decided, click, res };
    return res;
  }, sc);
  await page.locator('#kh-test-board').screenshot({ path: path.join(artifacts, 'khronos-09-downsize-choice.png') });
  const out = await page.evaluate(async (S) => {
    const { r, boardEl, decided, click, res } = window.KH;
    click('.kh-sq[data-board="might"][data-sq="e4"]');
    res.afterPick = decided.slice();
    // keep: the owner picks the square the Watchtower keeps
    r.update({ view: S.keep.view, legal: S.keep.legal, yourTurn: true, seat: S.keep.seat, n: 11, replay: false });
    res.keepCands = [...boardEl.querySelectorAll('.kh-sq.cand')].map((x) => x.dataset.sq);
    res.keepHelp = r.instruction({ view: S.keep.view }).detail;
    click('.kh-sq[data-board="might"][data-sq="a1"]'); // not a choice: ignored
    click('.kh-sq[data-board="might"][data-sq="e4"]');
    res.afterKeep = decided.slice();
    // pay: the surcharge cards are clicked in the hand
    r.update({ view: S.pay.view, legal: S.pay.legal, yourTurn: true, seat: S.pay.seat, n: 12, replay: false });
    res.payable = [...boardEl.querySelectorAll('#kh-hand .kh-card.legal')].map((x) => x.dataset.card);
    res.ghost = !!boardEl.querySelector('.kh-ghost-tile[data-at="c1"]');
    click('#kh-hand .kh-card.legal[data-card="r"]');
    res.afterPay = decided.slice();
    // a building first, then the tile to upgrade it to; or the Demolish tool, then the building
    r.update({ view: S.tower.view, legal: S.tower.legal, yourTurn: true, seat: S.tower.seat, n: 13, replay: false });
    res.towerMarked = [...boardEl.querySelectorAll('.kh-sq.act-building[data-board="might"]')].map((x) => x.dataset.sq).includes('a3');
    click('.kh-sq[data-board="might"][data-sq="a3"]');
    res.upgradeTiles = [...boardEl.querySelectorAll('#kh-palette .kh-tile.legal')].map((x) => x.dataset.type);
    res.demolishThis = !!boardEl.querySelector('#kh-demolish-this');
    boardEl.querySelector('#kh-palette .kh-tile[data-type="keep"]').click();
    res.afterUpgrade = decided.slice(-1);
    r.update({ view: S.tower.view, legal: S.tower.legal, yourTurn: true, seat: S.tower.seat, n: 14, replay: false });
    boardEl.querySelector('#kh-demolish').click();
    res.demolishTargets = [...boardEl.querySelectorAll('.kh-sq.act-demolish')].map((x) => `${x.dataset.board} ${x.dataset.sq}`);
    click('.kh-sq[data-board="might"][data-sq="a3"]');
    res.afterDemolish = decided.slice(-1);
    // squares: the top-left squares of the blocks are marked; one click there lays the tile
    r.update({ view: S.squares.view, legal: S.squares.legal, yourTurn: true, seat: S.squares.seat, n: 15, replay: false });
    res.anchors = boardEl.querySelectorAll('.kh-sq.anchor[data-board="might"]').length;
    click('.kh-sq[data-board="might"][data-sq="e4"]');
    res.afterAnchor = decided.slice(-1);
    return res;
  }, sc);
  assertEq(out.pickTargets.sort(), ['might a3', 'might a4', 'might b3', 'might b4', 'might d3', 'might d4', 'might e3', 'might e4'], 'the tied Keeps are highlighted');
  assert(/downsize/.test(out.pickHelp), 'the pick is explained');
  assertEq(out.afterPick, ['downsize might d3'], 'clicking a square of a Keep downsizes it');
  assertEq(out.keepCands.sort(), ['d3', 'd4', 'e3', 'e4'], 'the squares the Watchtower may keep');
  assert(/Watchtower/.test(out.keepHelp), 'the keep step names the smaller tile');
  assertEq(out.afterKeep, ['downsize might d3', 'e4'], 'one click keeps the square');
  assert(out.payable.includes('m') && out.payable.includes('r'), `payable cards highlighted (${out.payable})`);
  assert(out.ghost, 'the tile waiting for its surcharge is drawn as a ghost');
  assertEq(out.afterPay, ['downsize might d3', 'e4', 'pay r'], 'clicking a card pays it');
  assert(out.towerMarked, 'the Watchtower is marked as having actions');
  assert(out.upgradeTiles.includes('keep') && out.upgradeTiles.every((x) => ['keep', 'castle'].includes(x)), `only military upgrades offered (${out.upgradeTiles})`);
  assert(out.demolishThis, 'demolishing the selected building is offered');
  assertEq(out.afterUpgrade, ['upgrade might a3 keep'], 'building, then tile: the upgrade');
  assertEq(out.demolishTargets, ['might a3'], 'the Demolish tool highlights the small building');
  assertEq(out.afterDemolish, ['demolish might a3'], 'Demolish, then the building');
  assertEq(out.anchors, sc.squares.legal.length, 'every 2x2 block offered has its top-left square marked');
  assertEq(out.afterAnchor, ['e4-f5'], 'one click on a top-left square lays the Keep on its block');
  await page.context().close();
});

// The last move and the staged move.  The computer's turn is marked (its
// tiles with a gold edge) when the page opens on it or it is played;
// with "Confirm each move" a chosen build marks its board and the chosen
// squares show the tile before Confirm, Cancel takes the preview away; the
// tile laid arrives with a drop and a ripple under 600 ms, and with reduced
// motion nothing on the boards moves while the mark stays.
t.test('the last move is marked and ripples once; a staged build is previewed before Confirm and gone after Cancel', async () => {
  const page = await newPage();
  await recordAnimations(page);
  await page.addInitScript(() => localStorage.setItem('tabula.confirmEachMove', 'on'));
  const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'khronos', players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'human', name: 'Mover' }] }) });
  const g = await res.json();
  await page.goto(`${server.base}${g.seats[1].link}`);
  const mine = () => page.waitForFunction(() => {
    const r = document.querySelector('.kh-root[data-mine="1"]');
    return r && Number(r.dataset.n) === document.querySelectorAll('.log .entry').length;
  }, null, { timeout: 30000 });
  const confirm = async (what) => {
    const n = await logLength(page);
    await page.click('#turn-confirm');
    await decided(page, n, what);
  };
  let checkedReply = false, laid = false;
  for (let turn = 0; turn < 30 && !(checkedReply && laid); turn++) {
    await mine();
    if (!checkedReply) {
      // the computer's last run of decisions: the tiles it laid are marked
      const log = (await (await fetch(`${server.base}/api/games/${g.id}`)).json()).log;
      const run = [];
      for (let k = log.length - 1; k >= 0 && log[k].seat === 0; k--) run.unshift(log[k].move);
      const expect = [];
      run.forEach((m, i) => {
        const b = /^(?:build|upgrade) (might|faith|reason)/.exec(m);
        const next = run[i + 1];
        if (b && next && /^[a-z]\d+(-[a-z]\d+|(\+[a-z]\d+)*)$/.test(next)) expect.push(`.kh-bld.last-move[data-board="${b[1]}"][data-cells~="${next.split(/[-+]/)[0]}"]`);
      });
      // a tile of the run may be changed again later in the same run (an upgrade, a
      // downsizing), so at least one of them keeps its mark; a loaded machine may take a while
      if (expect.length) {
        await page.waitForSelector(expect.join(', '), { timeout: 20000 });
        checkedReply = true;
        await shot(page, '10-computer-turn-marked');
      }
    }
    const st = await state(page);
    if (!laid && st.phase === 'action' && (await page.$('#kh-palette .kh-tile.legal'))) {
      const type = await page.$eval('#kh-palette .kh-tile.legal', (x) => x.dataset.type);
      const chooseBuild = async () => {
        await page.click(`#kh-palette .kh-tile[data-type="${type}"]`);
        await page.waitForSelector('.kh-board.legal-build .kh-sq.act-build');
        const sq = await page.$('.kh-board.legal-build .kh-sq.act-build');
        const board = await sq.getAttribute('data-board');
        await sq.click();
        return board;
      };
      if (!(await page.$('.kh-board.legal-build'))) {
        await page.click(`#kh-palette .kh-tile[data-type="${type}"]`);
        if (!(await page.$('.kh-board.legal-build .kh-sq.act-build'))) { await page.keyboard.press('Escape'); await endTurn(page); continue; }
        await page.keyboard.press('Escape');
      }
      // The kind of building only opens the choice of its squares: it is
      // sent without a Confirm; the squares are staged, in words, and
      // confirmed once; any surcharge cards after them are sent as chosen.
      const n0 = await logLength(page);
      const board = await chooseBuild();
      await decided(page, n0, 'the build, sent without a Confirm');
      let at = null, confirms = 0, cancelled = false;
      for (let step = 0; step < 8 && !laid; step++) {
        // my turn still (a staged decision leaves the board not clickable)
        await page.waitForFunction(() => {
          const turn = document.querySelector('#turn.mine');
          return turn && Number(turn.dataset.n) === document.querySelectorAll('.log .entry').length;
        }, null, { timeout: 30000 });
        const ph = (await state(page)).phase;
        if (ph === 'squares') {
          if (!(await page.$('#turn-staged'))) await page.click('.kh-sq.anchor >> nth=0');
          await page.waitForSelector('#turn-staged');
          const words = await page.textContent('#turn-staged');
          assert(/^Your choice: Put the [A-Z][a-z]+ on the highlighted squares of the Age of (Might|Faith)\.$/.test(words), `the staged squares in words: ${words}`);
          assertEq(await page.$$eval('.kh-svg .staged-preview', (x) => [...new Set(x.map((e) => e.closest('.kh-board').dataset.board))]), [board], 'the staged tile marks its board');
          if (!cancelled) {
            await page.click('#turn-cancel');
            await page.waitForSelector('#turn-staged', { state: 'detached' });
            assertEq((await page.$$('.kh-svg .staged-preview')).length, 0, 'Cancel takes the preview off the board');
            cancelled = true;
            continue;
          }
          const ghost = await page.$('.kh-ghost-tile.staged-preview');
          assert(ghost, 'the staged squares show the tile on the board');
          at = await ghost.getAttribute('data-at');
          await shot(page, '11-staged-tile');
          await confirm('the squares');
          confirms++;
        } else if (ph === 'pay') {
          const n = await logLength(page);
          while ((await logLength(page)) === n) {
            assert(!(await page.$('#turn-staged')), 'the surcharge cards wait for no Confirm');
            await page.click('#kh-hand .kh-card.legal:not(.selected)');
            await page.waitForTimeout(50);
          }
        } else break;
        if (at && (await page.$(`.kh-bld[data-at="${at}"]:not(.kh-ghost-tile)`))) laid = true;
      }
      assertEq(confirms, 1, 'the build took one Confirm');
      assert(laid, `the tile was laid (${at})`);
      // the tile just laid: marked, a ripple once, under 600 ms
      const ripple = await page.waitForFunction((a) => {
        const x = (window.animStarts || []).filter((e) => e.at === a && ['kh-ripple', 'kh-drop'].includes(e.name));
        return x.some((e) => e.name === 'kh-ripple') && x.some((e) => e.name === 'kh-drop') ? x : null;
      }, at, { timeout: 10000 }).then((h) => h.jsonValue());
      assert(ripple.every((e) => e.duration <= 600), `the tile drops in and ripples once, under 600 ms (${JSON.stringify(ripple)})`);
      await page.emulateMedia({ reducedMotion: 'reduce' });
      await page.waitForSelector(`.kh-bld.last-move[data-at="${at}"]`);
      assertEq(await page.$eval('.kh-root', (r) => r.getAnimations({ subtree: true }).map((a) => a.animationName)), [], 'with reduced motion nothing on the boards moves');
      await shot(page, '12-tile-marked');
      await page.emulateMedia({ reducedMotion: 'no-preference' });
      continue;
    }
    await endTurn(page);
  }
  assert(checkedReply, 'the computer\'s turn was checked');
  assert(laid, 'a tile was staged and laid');
  await page.context().close();
});

// Ends the turn (the simplest way, confirmed when asked).
async function endTurn(page) {
  const n = await logLength(page);
  const ph = (await state(page)).phase;
  if (ph === 'squares') await page.click('.kh-sq.anchor >> nth=0');
  else if (ph === 'pay') { while (!(await page.$('#turn-staged'))) await page.click('#kh-hand .kh-card.legal:not(.selected)'); }
  else if (ph === 'pick') await page.click('.kh-sq.act-pick');
  else {
    if (await page.$('#kh-end[disabled]')) await page.click('#kh-hand .kh-card.selected');
    await page.click('#kh-end');
  }
  await page.waitForSelector('#turn-confirm');
  await page.click('#turn-confirm');
  await decided(page, n, 'the end of the turn');
}

// In Spanish (issue 31): a Khronos game in play and a finished one, on a phone
// and a desktop: no English word, nothing scrolls sideways, no button cut;
// then the renderer's words in every phase, driven directly.
t.test('in Spanish: a game in play and its result, on a phone and a desktop; every phase\'s words', async () => {
  await spanishPass({ game: 'khronos', server, browser, tabula, dir, errors, ready: (page) => page.waitForSelector('.kh-root[data-n]'), cards: '.kh-card, .kh-tile',
    shot: (page, name) => shot(page, name),
    phases: {
      cases: (v) => [
        { name: 'an action', view: { phase: 'action', current: 0, turn: 4, hand: 'mrc', left: [2, 2], pool: 0, ripple: { type: 'keep', board: 'faith' } },
          legal: ['travel might faith', 'exchange mr', 'end', 'end discard m', 'build might keep'], click: ['.kh-tile[data-type="keep"]'] },
        { name: 'squares to cover', view: { phase: 'squares', current: 0, hand: 'mrc', pending: { board: 'might', type: 'castle', target: 'c4' } }, legal: [] },
        { name: 'a surcharge', view: { phase: 'pay', current: 0, hand: 'mrc', pending: { board: 'faith', type: 'city', extra: 2, at: 'c4-e6' } }, legal: ['pay mr', 'pay rc'] },
        { name: 'a building to downsize', view: { phase: 'pick', current: 0, hand: 'mrc', pending: { board: 'reason' } }, legal: [] },
        { name: 'the squares kept', view: { phase: 'keep', current: 0, hand: 'mrc', pending: { board: 'might', target: 'c4' } }, legal: [] },
        { name: 'the end', view: {}, legal: [] },
      ],
      moves: ['build might keep', 'upgrade faith c4 abbey', 'travel might reason', 'travel might reason 1', 'demolish faith c4', 'downsize might c4',
        'populate c4', 'renovate d5', 'swap m for r', 'exchange mrr', 'pay c', 'pay mc', 'end discard r', 'end', 'c4+d5'],
    },
  });
});

await finish();
