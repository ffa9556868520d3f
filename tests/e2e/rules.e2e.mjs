// rules.e2e.mjs TABULA — the "How to play" pages in real Chromium: each game's
// page has its rules in words and its board drawn by the game's renderer, at
// a desktop size and on a phone (390×844, no sideways scroll); the game page
// links to its game's rules.  Screenshots: tests/e2e/artifacts/rules-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { WsClient, assert, assertEq } from '../server/lib.mjs';
import { browserSuite } from './browser.mjs';
import { assertNoEnglish } from './i18n-check.mjs';

const { server, browser, t, newPage, shot, errors, finish, artifacts } = await browserSuite({ title: 'browser tests (how to play)', prefix: 'rules-' });

const GAMES = { clans: '.clans-board .territory', arkadia: '#board svg, #board canvas, #board .ark-board, #board *', khronos: '#board *' };

for (const [game, drawn] of Object.entries(GAMES)) {
  t.test(`${game}: the rules in words beside the board as it starts`, async () => {
    const page = await newPage();
    await page.goto(`${server.base}/rules.html?game=${game}`);
    await page.waitForSelector('#picture-caption:not(:empty)');
    const caption = await page.textContent('#picture-caption');
    assert(/^An? /.test(caption), `the board is drawn (${caption})`);
    assert(!/\bA [AEIOU]|\bAn [^AEIOU]/.test(caption), `the caption's article fits the name: ${caption}`);
    assert(await page.$$eval(drawn, (x) => x.length) > 0, 'the renderer drew the board');
    const words = await page.textContent('#rules-text');
    assert(words.length > 600 && /Your turn/.test(words) && /The end/.test(words), 'the rules are there in sections');
    assert(!/placeholder|rules?\/|\.md\b|seat 0/i.test(words), 'no developer wording');
    await shot(page, `${game}-desktop`);
    // "Start a game" opens the lobby on this game, and the lobby's "How to
    // play" then leads back here
    await page.click('#start-game');
    await page.waitForSelector('.game-choice.selected');
    assertEq(await page.getAttribute('.game-choice.selected', 'data-game'), game, 'the lobby opens on the game');
    assertEq(await page.getAttribute('#lobby-rules', 'href'), `/rules.html?game=${game}`, 'its How to play link names the game');
    const other = game === 'khronos' ? 'arkadia' : 'khronos';
    await page.click(`.game-choice[data-game="${other}"]`);
    assertEq(await page.getAttribute('#lobby-rules', 'href'), `/rules.html?game=${other}`, 'and follows the game chosen');
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const p = await phone.newPage();
    p.on('pageerror', (e) => errors.push(`${p.url()}: ${e.message}`));
    await p.goto(`${server.base}/rules.html?game=${game}`);
    await p.waitForSelector('#picture-caption:not(:empty)');
    assertEq(await p.evaluate(() => document.documentElement.scrollWidth), 390, 'no sideways scroll on a phone');
    await shot(p, `${game}-phone`);
    await phone.close();
    await page.close();
  });
}

// In Spanish (a browser that speaks it): each page's rules, headings, button
// and picture (the renderer's legends and panels) without an English word, on
// a phone (a touch screen) and a desktop, with nothing scrolling sideways.
t.test('the rules pages in Spanish, on a phone and a desktop', async () => {
  for (const [w, h] of [[390, 844], [1280, 800]]) {
    const page = await (await browser.newContext({ locale: 'es-ES', viewport: { width: w, height: h }, isMobile: w < 500, hasTouch: w < 500 })).newPage();
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
    for (const game of Object.keys(GAMES)) {
      await page.goto(`${server.base}/rules.html?game=${game}`);
      await page.waitForSelector('#picture-caption:not(:empty)');
      const words = await page.textContent('#rules-text');
      assert(/Cómo se juega a /.test(words) && /Tu turno/.test(words) && /Empezar una partida de /.test(words), `${game}: the rules are in Spanish`);
      assert(/^Una partida de /.test(await page.textContent('#picture-caption')), `${game}: the picture's caption too`);
      await assertNoEnglish(page, `rules of ${game} at ${w}×${h}`);
      assertEq(await page.evaluate(() => document.documentElement.scrollWidth), w, `${game} at ${w}×${h}: no sideways scroll`);
      if (w === 390) await shot(page, `${game}-es-phone`);
    }
    await page.goto(`${server.base}/rules.html?game=chess`);
    await page.waitForSelector('#rules-text h1');
    assertEq(await page.textContent('#rules-text h1'), 'Ese juego no existe', 'an unknown game is said in Spanish');
    await assertNoEnglish(page, `unknown game at ${w}×${h}`);
    await page.context().close();
  }
});

t.test('an unknown game is said plainly, with the games to choose', async () => {
  const page = await newPage();
  await page.goto(`${server.base}/rules.html?game=chess`);
  await page.waitForSelector('#rules-text h1');
  assertEq(await page.textContent('#rules-text h1'), 'No such game', 'the page says so');
  assertEq(await page.$$eval('#rules-nav a', (a) => a.length), 3, 'and offers the three games');
  await page.close();
});

t.test('a game page links to its rules', async () => {
  const page = await newPage();
  const r = await fetch(`${server.base}/api/games`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ game: 'khronos', players: 2 }) });
  const g = await r.json();
  await page.goto(`${server.base}/game.html?game=${g.id}&token=${g.seats[0].token}`);
  await page.waitForSelector('#rules-link');
  assertEq(await page.getAttribute('#rules-link', 'href'), '/rules.html?game=khronos', 'the link names the game');
  await page.close();
});

// Every game page fits phones held sideways and tablets both ways: no
// sideways scroll, the board drawn.
t.test('game pages fit 844×390, 768×1024 and 1024×768', async () => {
  for (const game of ['clans', 'arkadia', 'khronos']) {
    const r = await fetch(`${server.base}/api/games`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ game, players: 2 }) });
    const g = await r.json();
    for (const [w, h] of [[844, 390], [768, 1024], [1024, 768]]) {
      const ctx = await browser.newContext({ viewport: { width: w, height: h }, isMobile: w < 900, hasTouch: w < 900 });
      const p = await ctx.newPage();
      p.on('pageerror', (e) => errors.push(`${p.url()}: ${e.message}`));
      await p.goto(`${server.base}/game.html?game=${g.id}&token=${g.seats[0].token}`);
      await p.waitForSelector('#turn .headline');
      await p.waitForFunction(() => document.querySelector('#board').childElementCount > 0);
      await p.waitForTimeout(300);
      const width = await p.evaluate(() => document.documentElement.scrollWidth);
      if (width > w) await shot(p, `${game}-${w}x${h}-overflow`);
      assertEq(width, w, `${game} at ${w}×${h}: no sideways scroll`);
      const words = await p.textContent('body');
      assert(!/\bnull\b|\bundefined\b|NaN/.test(words), `${game}: no stray programmer words on the page`);
      await shot(p, `${game}-${w}x${h}`);
      await ctx.close();
    }
  }
});

// How long a computer seat at 'normal' takes for a whole turn (all its
// decisions in a row), measured on this machine in two-player games between
// computers: reported (tests/e2e/artifacts/computer-turns.txt), not asserted,
// since the time depends on the machine and its load.
t.test('the computer\'s turns at normal are measured and reported', async () => {
  const lines = [`computer turns at 'normal', 2 players, this machine (load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`];
  for (const game of ['clans', 'arkadia', 'khronos']) {
    const r = await fetch(`${server.base}/api/games`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ game, players: 2, seats: [{ kind: 'ai', level: 'normal' }, { kind: 'ai', level: 'normal' }] }) });
    const g = await r.json();
    assertEq(r.status, 201, `a ${game} game between computers`);
    const arrivals = []; // each decision as a spectator receives it: seat, time
    let ended, finished = false;
    const over = new Promise((resolve) => { ended = resolve; });
    const ws = await WsClient.connect(server.port, `?game=${g.id}`, { onmessage: (m) => {
      if (m.type !== 'state') return;
      if (m.last && !arrivals.some((a) => a.n === m.last.n)) arrivals.push({ n: m.last.n, seat: m.last.seat, t: Date.now() });
      if (m.result) { finished = true; ended(); }
    } });
    const timer = setTimeout(() => ended(), 240000);
    await over;
    clearTimeout(timer);
    await ws.close();
    assert(finished, `the ${game} game between computers ended`);
    // a turn: a seat's run of decisions; it lasts from the previous turn's last decision to its own last
    const turns = [];
    for (const a of arrivals) {
      const last = turns[turns.length - 1];
      if (last && last.seat === a.seat) last.end = a.t;
      else turns.push({ seat: a.seat, begin: last ? last.end : null, end: a.t });
    }
    const ms = turns.filter((x) => x.begin !== null).map((x) => x.end - x.begin).sort((a, b) => a - b);
    assert(ms.length >= 4, `${game}: turns measured (${ms.length})`);
    const q = (f) => ms[Math.min(ms.length - 1, Math.floor(f * ms.length))];
    lines.push(`${game}: ${ms.length} turns, median ${q(0.5)} ms, 90th percentile ${q(0.9)} ms, longest ${ms[ms.length - 1]} ms; ${ms.filter((x) => x > 1500).length} over 1.5 s`);
  }
  fs.writeFileSync(path.join(artifacts, 'computer-turns.txt'), `${lines.join('\n')}\n`);
  console.log(lines.map((x) => `# ${x}`).join('\n'));
});

await finish();
