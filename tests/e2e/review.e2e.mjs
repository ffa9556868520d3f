// review.e2e.mjs TABULA — the game review in the browser: a finished game's
// page offers "Review"; the replay page's Review button starts the server's
// review, a progress bar shows while it computes, then a graph with a line
// per player (named, in the player's colour where the game gives players
// colours) that moves the board to the clicked position, and the chosen
// player's mistakes, each of which shows its position.  On a phone
// (390×844) the page is no wider than the screen.  Screenshots go to
// tests/e2e/artifacts/review-*.png.
import { api, assert, assertEq, sleep } from '../server/lib.mjs';
import { browserSuite } from './browser.mjs';

const { server, browser, t, errors, newPage, shot, finish } = await browserSuite({ title: 'browser tests (game review)', prefix: 'review-', aiDelay: 0 });

// A game between two computer players, played to its end by the server.
async function finishedGame(game, players = 2) {
  const seats = Array.from({ length: players }, () => ({ kind: 'ai', level: 'random' }));
  const r = await api(server, 'POST', '/api/games', { game, players, seats });
  assertEq(r.status, 201, 'game created');
  for (let i = 0; i < 600; i++) {
    const g = await api(server, 'GET', `/api/games/${r.json.id}`);
    if (g.json.status === 'over') return { id: r.json.id, decisions: g.json.decisions };
    await sleep(50);
  }
  throw new Error('the computer players did not finish');
}

// What the board shows, to tell two positions apart.
const boardText = (page) => page.$eval('#board', (b) => b.innerHTML);

let clans = null;

t.test('a finished game offers Review; the replay page computes it with a progress bar and draws the graph', async () => {
  clans = await finishedGame('clans', 3);
  const page = await newPage();
  await page.goto(`${server.base}/game.html?game=${clans.id}`);
  await page.waitForSelector('#result:not([hidden]) #open-review');
  await shot(page, '01-result');
  // The page asks for a stored review as it opens and starts one at once:
  // the first answer, held here until the start was answered, must not
  // start a second round of polling (each poll waits for the one before).
  const polls = [];
  await page.route(/\/api\/games\/[^/?]+\/review$/, async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    polls.push(Date.now());
    if (polls.length === 1) {
      await page.waitForResponse((r) => r.request().method() === 'POST' && /\/review$/.test(r.url()), { timeout: 10000 }).catch(() => null);
    }
    return route.continue();
  });
  await page.click('#open-review');
  await page.waitForURL(/replay=1&review=1/);
  // The review starts by itself from that link; the progress bar shows
  // unless the server was faster than the first look.
  await page.waitForSelector('#review-progress, .review-graph', { timeout: 30000 });
  if (await page.$('#review-progress')) await shot(page, '02-progress');
  await page.waitForSelector('.review-graph', { timeout: 120000 });
  await shot(page, '03-graph');
  assert(/^[\d,]+ simulations per decision$/.test(await page.textContent('#review .card-head .muted')),
    'the simulations a decision are counted in words a player reads');
  const lines = await page.$$eval('.review-graph polyline.line', (ls) => ls.map((l) => l.getAttribute('stroke')));
  assertEq(lines.length, 3, 'a line per player');
  assertEq(new Set(lines).size, 3, 'each line in its own colour');
  const legend = await page.$$eval('.review-legend .item', (xs) => xs.map((x) => x.textContent));
  assertEq(legend.length, 3, 'a legend entry per player');
  legend.forEach((text, k) => assert(text.startsWith(`Computer ${k + 1}`), `the legend names the player: ${text}`));
  assert(!/seat \d/i.test(await page.textContent('#review')), 'players are named, not numbered seats');
  // Each player's line is that player's own estimates, at that player's own
  // decisions (never a point judged from another player's knowledge: in
  // Clans those guesses differ, and mixing them made the lines zig-zag), then
  // the result.  The graph's points, read back in chances, against the review.
  const rv = (await api(server, 'GET', `/api/games/${clans.id}/review`)).json.review;
  // (the plot's left and right from its click area, 0% and 100% from the first and last grid lines)
  const { drawn, box } = await page.$eval('.review-graph', (g) => {
    const hit = g.querySelector('.hit'), grid = [...g.querySelectorAll('line.grid')];
    return { box: { left: Number(hit.getAttribute('x')), width: Number(hit.getAttribute('width')),
      y0: Number(grid[0].getAttribute('y1')), y1: Number(grid[grid.length - 1].getAttribute('y1')) },
    drawn: [...g.querySelectorAll('polyline.line')].map((l) => l.getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number))) };
  });
  const n = rv.entries.length;
  assertEq(n, clans.decisions, 'the review has every decision');
  drawn.forEach((pts, k) => {
    const own = rv.entries.filter((e) => e.seat === k);
    const xs = pts.map(([x]) => x), chance = (yv) => (yv - box.y0) / (box.y1 - box.y0);
    const at = (i) => box.left + (i / n) * box.width;
    const inner = pts.filter(([x]) => x > at(0) + 0.05 && x < at(n) - 0.05);
    assertEq(inner.length, own.filter((e) => e.index > 0).length, `player ${k + 1}'s line turns only at that player's decisions`);
    for (const e of own) {
      const i = xs.findIndex((x) => Math.abs(x - at(e.index)) < 0.06);
      assert(i >= 0, `player ${k + 1}'s line has a point at decision ${e.index + 1}`);
      assert(Math.abs(chance(pts[i][1]) - e.win_rates[k]) < 0.01, `at decision ${e.index + 1}, player ${k + 1}'s own estimate`);
    }
    assert(Math.abs(chance(pts[pts.length - 1][1]) - rv.final[k]) < 0.01, 'the line ends at the result');
  });
  assert(/own decisions, from what that player knew/.test(await page.textContent('#review-caption')), 'the caption says how the lines are drawn');
  const gaps = polls.slice(1).map((at, i) => at - polls[i]);
  assert(gaps.every((ms) => ms >= 500), `one poll at a time, ${polls.length} polls (gaps ${gaps.join(', ')} ms)`);
  // Clans players have no colours: a player's line is the same colour in the review as in the result's score graph
  await page.waitForSelector('#story .score-graph .seat-line');
  const scoreLines = await page.$$eval('#story .seat-line', (ls) => ls.map((l) => l.getAttribute('stroke')));
  assertEq(lines, scoreLines, 'the review\'s colours are the score graph\'s');
  await page.close();
});

t.test('clicking the graph shows the board at that position; the mistakes list leads to its positions', async () => {
  const page = await newPage();
  await page.goto(`${server.base}/game.html?game=${clans.id}&replay=1`);
  // The stored review shows at once, without asking again.
  await page.waitForSelector('.review-graph', { timeout: 20000 });
  assertEq(await page.textContent('#replay-step').then((s) => s.startsWith('Decision 0 of')), true, 'starts at the start');
  const before = await boardText(page);
  const hit = page.locator('.review-graph .hit');
  await hit.scrollIntoViewIfNeeded();
  const box = await hit.boundingBox();
  // (a locator click: the page may still move as the result's score graph arrives)
  await hit.click({ position: { x: box.width * 0.6, y: box.height / 2 } });
  await page.waitForFunction(() => !document.querySelector('#replay-step').textContent.startsWith('Decision 0 of'));
  const step = Number((await page.textContent('#replay-step')).match(/Decision (\d+) of/)[1]);
  const want = Math.round(0.6 * clans.decisions);
  assert(Math.abs(step - want) <= 1, `the click at 60% shows position ${want} (showed ${step})`);
  await page.waitForFunction((k) => document.querySelector('.review-graph').dataset.position === String(k), step);
  assert((await boardText(page)) !== before, 'the board changed');
  // the step line says the decision in the log's words, not in notation
  const said = (await api(server, 'GET', `/api/games/${clans.id}`)).json.log.find((e) => e.n === step).said;
  assert(said && said.length > 10, `the server says decision ${step} in words (${said})`);
  assertEq(await page.textContent('#replay-step'), `Decision ${step} of ${clans.decisions} · ${said}`, 'the step line');
  await shot(page, '04-clicked');
  // The arrow keys step the replay, except in the list of players (they choose there)
  const stepNow = await page.textContent('#replay-step');
  await page.focus('#review-seat');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await sleep(300);
  assertEq(await page.textContent('#replay-step'), stepNow, 'the replay stays where it was');
  await page.focus('#replay-next');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((s) => document.querySelector('#replay-step').textContent !== s, stepNow);
  // Every player's mistakes: each entry names a decision and goes to it.
  let listed = 0;
  for (let k = 0; k < 3; k++) {
    await page.selectOption('#review-seat', String(k));
    const items = await page.$$('#review-mistakes button[data-position]');
    if (!items.length) {
      assert(/No mistakes found for Computer/.test(await page.textContent('#review-mistakes')), 'says there were none');
      continue;
    }
    const pos = Number(await items[0].getAttribute('data-position'));
    await items[0].click();
    await page.waitForFunction((p) => document.querySelector('#replay-step').textContent.startsWith(`Decision ${p} of`), pos);
    const text = await page.textContent('#review-mistakes li');
    assert(/Decision \d+ · (Mistake|Blunder)/.test(text) && /preferred/.test(text), `a mistake in words: ${text}`);
    // the decisions as sentences (the notation only in their tooltips)
    assert(/Played: Computer \d .*The computer preferred: Computer \d /.test(text) && !/\d+ → \d+/.test(text),
      `the decisions in words, not notation: ${text}`);
    assert(/^\d+-\d+$/.test(await page.getAttribute('#review-mistakes li .said', 'data-move')), 'the notation is kept beside');
    listed++;
  }
  assert(listed > 0, 'random players make mistakes the review finds');
  await shot(page, '05-mistake');
  await page.close();
});

t.test('stepping through the replay keeps the page where the player scrolled it (the log follows within its card)', async () => {
  const page = await newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${server.base}/game.html?game=${clans.id}&replay=1`);
  await page.waitForSelector('#replay-step');
  await page.waitForSelector('.review-graph', { timeout: 20000 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const logBottom = await page.$eval('#log', (l) => l.getBoundingClientRect().top);
  assert(logBottom > 800, `the moves are below the screen at 1280×800 (${logBottom})`);
  for (let k = 1; k <= 12; k++) {
    await page.click('#replay-next');
    await page.waitForFunction((n) => document.querySelector('#replay-step').textContent.startsWith(`Decision ${n} of`), k);
  }
  assertEq(await page.evaluate(() => window.scrollY), 0, 'the page did not scroll');
  // the settings (confirming moves, the deduction) are for playing a seat: a replay offers none
  assert(!(await page.isVisible('#settings-button')), 'no settings button in a replay');
  const inLog = await page.$eval('#log', (l) => {
    const c = l.querySelector('.current').getBoundingClientRect(), b = l.getBoundingClientRect();
    return c.top >= b.top - 1 && c.bottom <= b.bottom + 1;
  });
  assert(inLog, 'the current decision is scrolled into view within the log');
  await page.close();
});

t.test('players with colours get their lines in those colours (Arkadia)', async () => {
  const game = await finishedGame('arkadia', 2);
  const page = await newPage();
  const firstPoll = page.waitForResponse((r) => /\/api\/games\/[^/]+\/review$/.test(r.url()) && r.request().method() === 'GET');
  await page.goto(`${server.base}/game.html?game=${game.id}&replay=1`);
  const button = await page.waitForSelector('#review-start');
  await firstPoll;
  await page.waitForTimeout(200); // (its answer handled)
  // the first poll's answer ("no review yet") leaves the button drawn before it
  // in place: one replaced under the pointer would swallow a click
  assert(await button.evaluate((b) => b.isConnected), 'the review button is not replaced when the first poll answers');
  const intro = await page.evaluate(() => document.querySelector('#review-start').parentElement.textContent);
  assert(!/\b(null|undefined)\b/.test(intro), `the review card has no stray words: ${intro}`);
  await page.click('#review-start');
  await page.waitForSelector('.review-graph', { timeout: 120000 });
  const strokes = await page.$$eval('.review-graph polyline.line', (ls) => ls.map((l) => l.getAttribute('stroke')));
  const arkadia = ['#f1c22c', '#e8772c', '#3c9b52', '#8a58bd'];
  strokes.forEach((s) => assert(arkadia.includes(s), `an Arkadia seat colour: ${s}`));
  await shot(page, '06-arkadia');
  await page.close();
});

t.test('on a phone the review fits the screen and the graph still moves the board', async () => {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  await page.goto(`${server.base}/game.html?game=${clans.id}&replay=1`);
  await page.waitForSelector('.review-graph', { timeout: 20000 });
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  assert(sw <= 390, `the page is ${sw} px wide on a 390 px screen`);
  const g = page.locator('.review-graph .hit');
  await g.scrollIntoViewIfNeeded();
  const box = await g.boundingBox();
  assert(box.width <= 390, 'the graph fits');
  // drawn at its shown size: its labels as large on the phone as on a wide screen
  await page.waitForFunction(() => { const s = document.querySelector('.review-graph'); return Math.abs(s.viewBox.baseVal.width - s.getBoundingClientRect().width) < 2; }, null, { timeout: 3000 }).catch(() => {});
  const smallest = await page.$eval('.review-graph', (s) => Math.min(...[...s.querySelectorAll('text')].map((t) =>
    parseFloat(getComputedStyle(t).fontSize) * s.getBoundingClientRect().width / s.viewBox.baseVal.width)));
  assert(smallest >= 11, `the review graph's labels are at least 11 px on a phone (${smallest.toFixed(1)} px)`);
  const before = await boardText(page);
  await page.touchscreen.tap(box.x + box.width * 0.9, box.y + box.height / 2);
  await page.waitForFunction(() => !document.querySelector('#replay-step').textContent.startsWith('Decision 0 of'));
  assert((await boardText(page)) !== before, 'the board changed');
  await shot(page, '07-phone');
  await ctx.close();
});

t.test('a request the server never answers is given up after a while, in words, and can be made again', async () => {
  const game = await finishedGame('clans', 2);
  const page = await newPage();
  await page.clock.install();
  await page.route(/\/api\/games\/[^/?]+\/review$/, () => {}); // never answered
  await page.goto(`${server.base}/game.html?game=${game.id}&replay=1`);
  await page.waitForSelector('#review-start');
  await page.clock.fastForward(21000);
  await page.waitForSelector('.review-error', { timeout: 5000 });
  assert(/did not answer in time/.test(await page.textContent('.review-error')), 'the player is told');
  assert(await page.isEnabled('#review-start'), 'the review can be asked for again');
  await page.close();
});

t.test('the score graph comes back when its data failed to load once', async () => {
  const page = await newPage({ allow: /Failed to load resource/ });
  let asked = 0;
  await page.route(/\/api\/games\/[^/?]+\/scores$/, (route) => (asked++ === 0 ? route.abort() : route.continue()));
  await page.goto(`${server.base}/game.html?game=${clans.id}&replay=1`);
  await page.waitForSelector('#replay-step');
  await page.waitForFunction(() => document.querySelector('#result:not([hidden])'));
  assert(!(await page.$('#story .score-graph')), 'no graph while its data could not be had');
  await page.click('#replay-next'); // the result is drawn again: the data is asked for again
  await page.waitForSelector('#story .score-graph', { timeout: 20000 });
  assert(asked >= 2, `the scores were asked for again (${asked})`);
  await page.close();
});

t.test('a running game offers no review (it would reveal secrets)', async () => {
  const r = await api(server, 'POST', '/api/games', { game: 'clans', players: 2, seats: [{ kind: 'human' }, { kind: 'human' }] });
  const res = await api(server, 'POST', `/api/games/${r.json.id}/review`);
  assertEq(res.status, 409, 'refused');
  const page = await newPage();
  await page.goto(`${server.base}/game.html?game=${r.json.id}`);
  await page.waitForSelector('.clans-board .territory');
  assertEq(await page.$('#open-review'), null, 'no Review link while it runs');
  assert(await page.$eval('#review', (x) => x.hidden), 'no review panel while it runs');
  await page.close();
});

await finish();
