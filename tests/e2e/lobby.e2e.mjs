// lobby.e2e.mjs TABULA — the lobby's tables in a browser, two people in two
// browser contexts: Ada (desktop, 1440×960) creates a Clans game with an open
// seat; Bob (a phone, 390×844, touch) finds it under Open tables and sits
// down with a long name; both see the game start; Bob resigns (with the
// confirmation) and Ada wins; the finished game offers Replay, never Play.
// Then Ada deletes a game nobody has played from "Created here", a watcher of
// it is told plainly, and a bad seat link says what happened and links back
// to the lobby.  No page is wider than its screen.  Screenshots go to
// tests/e2e/artifacts/lobby-*.png.
import { WsClient, api, assert, assertEq } from '../server/lib.mjs';
import { browserSuite } from './browser.mjs';
import { assertNoEnglish } from './i18n-check.mjs';

const { server, browser, t, errors, shot, finish, artifacts } = await browserSuite({ title: 'browser tests (lobby: open tables, resign, delete)', prefix: 'lobby-', aiDelay: 0 });
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 960 };
const LONG = 'Bartholomew Fitzgerald-Montgomery III'; // the longest the form takes is 40

async function person(viewport, phone) {
  const ctx = await browser.newContext({ viewport, ...(phone ? { hasTouch: true, isMobile: true, deviceScaleFactor: 1 } : {}) });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  // A page for a deleted game or a bad link fetches a 404 on purpose.
  page.on('console', (m) => { if (m.type() === 'error' && !/status of (404|403)/.test(m.text())) errors.push(`${page.url()}: console: ${m.text()}`); });
  return page;
}

async function noOverflow(page, width, where) {
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  assert(sw <= width, `${where}: the page is ${sw} px wide on a ${width} px screen`);
}

let ada, bob, gameId, adaLink;

t.test('Ada creates a game with an open seat; the button cannot make two', async () => {
  ada = await person(DESKTOP, false);
  await ada.goto(server.base + '/');
  await ada.waitForSelector('.game-choice[data-game="clans"]');
  await ada.click('.game-choice[data-game="clans"]');
  await ada.selectOption('#players', '2');
  await ada.fill('input[aria-label="Seat 1 name"]', 'Ada');
  await ada.selectOption('[data-seat-kind="1"]', 'open');
  const before = (await api(server, 'GET', '/api/games?status=all')).json.games.length;
  await ada.dblclick('#create'); // a double click makes one game
  await ada.waitForSelector('#created:not([hidden]) [data-play-seat="0"]');
  await ada.waitForTimeout(500);
  const after = (await api(server, 'GET', '/api/games?status=all')).json.games.length;
  assertEq(after - before, 1, 'one game for a double click');
  assert(/1 open seat listed/.test(await ada.textContent('#created')), 'says the seat is open, in the singular');
  adaLink = server.base + (await ada.getAttribute('[data-play-seat="0"]', 'href'));
  gameId = new URL(adaLink).searchParams.get('game');
  await ada.waitForSelector(`#open-tables tr[data-game-id="${gameId}"]`);
  await noOverflow(ada, DESKTOP.width, 'desktop lobby');
  await shot(ada, 'desktop-created');
  await ada.goto(adaLink);
  await ada.waitForSelector('#turn .headline');
  await ada.waitForFunction(() => /Waiting for players/.test(document.querySelector('#turn').textContent));
  assert(/1 seat still free/.test(await ada.textContent('#turn')), 'the game waits for one seat');
  await shot(ada, 'desktop-waiting');
});

t.test('Bob, on a phone, takes the free seat from the lobby; the game starts for both', async () => {
  bob = await person(PHONE, true);
  await bob.goto(server.base + '/');
  const row = `#open-tables tr[data-game-id="${gameId}"]`;
  await bob.waitForSelector(row);
  assert(/Ada/.test(await bob.textContent(row)), 'who is seated');
  assert(/1 free seat/.test(await bob.textContent(row)), 'how many seats are free');
  await noOverflow(bob, PHONE.width, 'phone lobby with an open table');
  await shot(bob, 'phone-open-tables');
  // the lobby asks again every five seconds; a table that has not changed
  // keeps its buttons (one replaced under a finger or a pointer loses the tap)
  const sitButton = await bob.$(`${row} [data-take-seat="1"]`);
  await bob.waitForResponse((r) => r.url().includes('/api/games?status=open'), { timeout: 10000 });
  await bob.waitForTimeout(300); // (its answer handled)
  assert(await sitButton.evaluate((b) => b.isConnected), 'the refresh leaves an unchanged table\'s buttons in place');
  await bob.tap(`${row} [data-take-seat="1"]`); // no name yet: told to say it
  await bob.waitForSelector('.toast');
  assert(/name/.test(await bob.textContent('.toast')), 'asked for a name');
  await bob.fill(`${row} input`, LONG);
  await bob.tap(`${row} [data-take-seat="1"]`);
  await bob.waitForURL(/game\.html\?game=.*token=/);
  await bob.waitForSelector('.clans-board .territory');
  await noOverflow(bob, PHONE.width, 'phone game page');
  // Ada's page learns Bob's name (cut only with a tooltip) and the game starts.
  await ada.waitForFunction((name) => [...document.querySelectorAll('#players .name')].some((n) => n.title === name), LONG);
  await ada.waitForFunction(() => !/Waiting for players/.test(document.querySelector('#turn').textContent));
  const cut = await ada.$$eval('#players .name', (ns) => ns.map((n) => ({ title: n.title, text: n.textContent, cut: n.scrollWidth > n.clientWidth })));
  for (const n of cut) if (n.cut) assertEq(n.title, n.text, 'a cut name has its whole self as a tooltip');
  const listed = (await api(server, 'GET', `/api/games/${gameId}`)).json;
  assertEq([listed.free_seats, listed.seats[1].name], [0, LONG], 'the server agrees');
  await shot(ada, 'desktop-started');
  await shot(bob, 'phone-started');
});

t.test('Bob resigns after confirming; Ada wins; the finished game offers Replay, never Play', async () => {
  await bob.tap('#resign');
  await bob.waitForSelector('#resign-yes');
  assert(/other player wins/.test(await bob.textContent('.resign')), 'says what resigning does');
  await noOverflow(bob, PHONE.width, 'phone resign confirmation');
  await shot(bob, 'phone-resign-confirm');
  await bob.tap('#resign-no'); // changed his mind
  await bob.waitForSelector('#resign');
  assertEq((await api(server, 'GET', `/api/games/${gameId}`)).json.status, 'running', 'nothing happened');
  await bob.tap('#resign');
  await bob.tap('#resign-yes');
  await ada.waitForSelector('#result:not([hidden])');
  assert(/resigned/.test(await ada.textContent('#resigned-note')), 'the result says who resigned');
  assert(/Ada wins/.test(await ada.textContent('#turn')), 'Ada wins');
  assert(/resigned/.test(await ada.textContent('#log')), 'the moves list says it');
  for (const p of [ada, bob]) assert(!/\bnull\b/.test(await p.textContent('body')), 'no stray "null" on the page');
  await bob.waitForSelector('#result:not([hidden])');
  assert(!(await bob.$('#resign')), 'no resigning after the end');
  await noOverflow(bob, PHONE.width, 'phone game over');
  // the score graph of a 0–0 game: its value axis still counts up, each tick once
  await ada.waitForSelector('#story .score-graph .axis');
  const ticks = await ada.$$eval('#story .score-graph .axis', (x) => x.map((e) => e.textContent));
  assertEq(ticks, ['0', '1'], 'the value axis after a 0–0 resignation');
  await shot(ada, 'desktop-resigned');
  await shot(bob, 'phone-resigned');
  // The lobby: Replay for the finished game, in the list and in "Created here".
  await ada.goto(server.base + '/');
  await ada.click('[data-tab="over"]');
  const row = `#games tr[data-game-id="${gameId}"]`;
  await ada.waitForSelector(row);
  assert(/Replay/.test(await ada.textContent(row)) && !/Play as/.test(await ada.textContent(row)), 'finished: Replay');
  await ada.click('[data-tab="mine"]');
  await ada.waitForSelector(`${row} a[href*="replay=1"]`);
  assert(!/Play as/.test(await ada.textContent(row)), 'never Play for a finished game');
  await shot(ada, 'desktop-created-here');
  await ada.click('[data-tab="over"]'); // back: the finished games again, with their status
  await ada.waitForSelector(`${row} .pill`, { timeout: 5000 });
  // A resigned game is finished: its replay opens and it can be reviewed.
  await ada.goto(`${server.base}/game.html?game=${gameId}&replay=1&review=1`);
  await ada.waitForSelector('#review .review-graph, #review-empty', { timeout: 60000 });
  assert(!/\bnull\b|undefined|NaN/.test(await ada.textContent('#review')), 'the review has no stray words');
  await shot(ada, 'desktop-resigned-review');
});

// Issue 31 at 1280×800: a browser that speaks Spanish reads no English word of
// the catalogue in the lobby's lists (open tables, games waiting and playing,
// finished), a game waiting for a player, the finished game, its replay and
// its review (phone.e2e.mjs walks every game's phases on a phone).
t.test('in Spanish at 1280×800: the lobby\'s lists, a game waiting for players, the finished game, its replay and review', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'es-ES' });
  const es = await ctx.newPage();
  es.on('pageerror', (e) => errors.push(`${es.url()}: ${e.message}`));
  const open = (await api(server, 'POST', '/api/games', { game: 'clans', players: 2, seats: [{ kind: 'human', name: 'Eva' }, { kind: 'human', open: true }] })).json;
  await es.goto(server.base + '/');
  await es.waitForSelector(`#open-tables tr[data-game-id="${open.id}"]`);
  await es.waitForSelector('#games tr[data-game-id]');
  await assertNoEnglish(es, 'the lobby, open tables and games in play');
  await es.click('[data-tab="over"]');
  await es.waitForSelector(`#games tr[data-game-id="${gameId}"] .pill`);
  await assertNoEnglish(es, 'the lobby, finished games');
  await shot(es, 'es-desktop-lobby');
  await es.goto(server.base + open.seats[0].link);
  await es.waitForSelector('#turn .headline');
  await es.waitForFunction(() => document.documentElement.lang === 'es' && document.querySelector('#players .player'));
  await assertNoEnglish(es, 'a game waiting for players');
  await es.goto(`${server.base}/game.html?game=${gameId}`);
  await es.waitForSelector('#result:not([hidden]) #story h3');
  await assertNoEnglish(es, 'the finished game');
  await es.goto(`${server.base}/game.html?game=${gameId}&replay=1&review=1`);
  await es.waitForSelector('#review .review-graph, #review-empty', { timeout: 60000 });
  await assertNoEnglish(es, 'the replay and its review');
  // each game in play at 1280×800 (docs/screenshots.md)
  for (const game of ['clans', 'arkadia', 'khronos']) {
    const g = (await api(server, 'POST', '/api/games', { game, players: 2, seats: [{ kind: 'ai', level: 'easy' }, { kind: 'human', name: 'Lucía' }] })).json;
    await es.goto(server.base + g.seats.find((x) => x.link).link);
    await es.waitForSelector('.turn-card.mine');
    await assertNoEnglish(es, `${game} in play`);
    await es.evaluate(() => window.scrollTo(0, 0));
    await es.screenshot({ path: `${artifacts}/lobby-es-desktop-${game}.png` }); // (the window, not the whole page: small)
  }
  await ctx.close();
});

// Words a player should never read about an option: rule ids, the specs'
// jargon, keys and values as the server reads them.
const DEV_WORDS = /ASSUMPTION|PLACEHOLDER|ruling|\b[A-Z]\d+\b|on\/off|_|first-game|holdem|\b(on|off)\b\s*$/;
// Checks the option words inside `root` (an element handle's text) for one
// game's chosen options: each option by its name and its value's name, and
// no developer words anywhere.
function checkOptionWords(text, specs, chosen, where) {
  assert(!DEV_WORDS.test(text), `${where}: no developer words (${text.match(DEV_WORDS)}): ${text}`);
  for (const o of specs) {
    if (!(o.key in chosen)) continue;
    const label = o.value_labels[o.values.indexOf(chosen[o.key])];
    assert(text.includes(`${o.label}: ${label}`), `${where}: "${o.label}: ${label}" is said: ${text}`);
  }
}

t.test('every option of every game in players\' words: the lobby form, Open tables, the game page and the replay', async () => {
  const cat = (await api(server, 'GET', '/api/catalog')).json;
  const page = await person(DESKTOP, false);
  await page.goto(server.base + '/');
  const made = [];
  for (const g of cat.games.filter((x) => x.options.length)) {
    await page.click(`.game-choice[data-game="${g.name}"]`);
    for (const o of g.options) {
      assert(o.label && o.label !== o.key && o.label.toLowerCase() !== o.key.replace(/[_-]/g, ' '), `${g.name} ${o.key}: a player's name (${o.label})`);
      assertEq(o.value_labels.length, o.values.length, `${g.name} ${o.key}: a name for every value`);
      const field = page.locator('label.field', { has: page.locator(`select[data-option="${o.key}"]`) });
      const shown = await field.evaluate((l) => [...l.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim());
      assertEq(shown, o.label, `${g.name} ${o.key}: the form names it for players`);
      const values = await page.$$eval(`select[data-option="${o.key}"] option`, (x) => x.map((n) => [n.value, n.textContent]));
      for (const [v, words] of values) assert(words !== v && !DEV_WORDS.test(words), `${g.name} ${o.key}=${v}: shown as "${words}"`);
      const help = await field.textContent();
      assert(!DEV_WORDS.test(help.replace(shown, '')) && /\w+ \w+ \w+/.test(o.help), `${g.name} ${o.key}: one sentence for players: ${o.help}`);
    }
    // Every value other than the default, in as few games as the server takes
    // together (a value that needs others at their default gets a game alone).
    const pairs = g.options.flatMap((o) => o.values.filter((v) => v !== o.default).map((v) => [o.key, v]));
    const tryCreate = (options) => api(server, 'POST', '/api/games', { game: g.name, players: 2, options,
      seats: [{ kind: 'human', name: 'Ada' }, { kind: 'human', open: true }] });
    let r = await tryCreate(Object.fromEntries(pairs));
    if (r.status === 201) made.push({ g, options: Object.fromEntries(pairs), res: r.json });
    else {
      for (const [k, v] of pairs) {
        r = await tryCreate({ [k]: v });
        assertEq(r.status, 201, `a ${g.name} game with ${k}=${v}`);
        made.push({ g, options: { [k]: v }, res: r.json });
      }
    }
  }
  // Open tables: each game's options in one line
  await page.reload();
  for (const m of made) {
    const row = `#open-tables tr[data-game-id="${m.res.id}"]`;
    await page.waitForSelector(row);
    checkOptionWords(await page.textContent(`${row} .options-line`), m.g.options, m.options, `Open tables, ${m.g.name}`);
  }
  for (const m of made) {
    // the game page (watching), then the replay once Bob has sat down and resigned
    await page.goto(`${server.base}/game.html?game=${m.res.id}`);
    await page.waitForSelector('#game-options');
    checkOptionWords(await page.textContent('#game-options'), m.g.options, m.options, `game page, ${m.g.name}`);
    const sat = await api(server, 'POST', `/api/games/${m.res.id}/seats`, { seat: 1, name: 'Bob' });
    assertEq(sat.status, 201, 'Bob sits down');
    const bobWs = await WsClient.connect(server.port, `?game=${m.res.id}&token=${new URL(sat.json.link, server.base).searchParams.get('token')}`);
    bobWs.send({ type: 'resign', id: 1 });
    for (let i = 0; i < 50 && (await api(server, 'GET', `/api/games/${m.res.id}`)).json.status !== 'over'; i++) await page.waitForTimeout(100);
    bobWs.close();
    await page.goto(`${server.base}/game.html?game=${m.res.id}&replay=1`);
    await page.waitForSelector('#game-options');
    checkOptionWords(await page.textContent('#game-options'), m.g.options, m.options, `replay, ${m.g.name}`);
  }
  await shot(page, 'desktop-options-replay');
  await page.context().close();
});

t.test('Ada deletes a game nobody played; its watcher is told; bad links say what happened', async () => {
  await ada.goto(server.base + '/');
  await ada.waitForSelector('.game-choice[data-game="clans"]');
  await ada.click('.game-choice[data-game="clans"]');
  await ada.selectOption('#players', '3');
  await ada.selectOption('[data-seat-kind="1"]', 'open');
  await ada.selectOption('[data-seat-kind="2"]', 'open');
  await ada.click('#create');
  await ada.waitForSelector('#created:not([hidden]) [data-play-seat="0"]');
  assert(/2 open seats listed/.test(await ada.textContent('#created')), 'plural');
  const link = server.base + (await ada.getAttribute('[data-play-seat="0"]', 'href'));
  const id = new URL(link).searchParams.get('game');
  await bob.goto(`${server.base}/game.html?game=${id}`);
  await bob.waitForFunction(() => /Waiting for players/.test(document.querySelector('#turn').textContent));
  await ada.click('[data-tab="mine"]');
  // a slip of the finger deletes nothing: the first click asks, the second deletes
  await ada.click(`[data-delete="${id}"]`);
  assertEq(await ada.textContent(`[data-delete="${id}"]`), 'Really delete?', 'the first click asks');
  assertEq((await api(server, 'GET', `/api/games/${id}`)).status, 200, 'still there after one click');
  await ada.click(`[data-delete="${id}"]`);
  await ada.waitForFunction((gid) => !document.querySelector(`[data-delete="${gid}"]`), id);
  assertEq((await api(server, 'GET', `/api/games/${id}`)).status, 404, 'gone');
  await bob.waitForSelector('#back-to-lobby');
  assert(/deleted by the person who created it/.test(await bob.textContent('#fatal')), 'the watcher is told plainly');
  await noOverflow(bob, PHONE.width, 'phone deleted game');
  await shot(bob, 'phone-deleted');
  // A seat link with a wrong key, and a game that is not there.
  await bob.goto(`${server.base}/game.html?game=${gameId}&token=not-a-real-key`);
  await bob.waitForSelector('#back-to-lobby');
  assert(/does not open a seat of this game/.test(await bob.textContent('#fatal')), 'bad token in words');
  assertEq(await bob.getAttribute('#back-to-lobby', 'href'), '/', 'a way back to the lobby');
  await noOverflow(bob, PHONE.width, 'phone bad link');
  await shot(bob, 'phone-bad-token');
  await bob.goto(`${server.base}/game.html?game=${id}`);
  await bob.waitForSelector('#back-to-lobby');
  assert(/no such game/.test(await bob.textContent('#fatal')), 'unknown game in words');
  await bob.tap('#back-to-lobby');
  await bob.waitForSelector('#open-tables');
  await ada.close();
  await bob.close();
});

await finish();
