// spanish-games.mjs — the Spanish pass each game's browser suite runs
// (clans, arkadia, khronos .e2e.mjs; issue 31): a game of that title in play
// (the player's turn: the board, the panels, the turn card) and a finished
// one (the result), opened by a browser that speaks Spanish, each checked on
// a phone (390×844) and a desktop (1280×800): no English word
// (assertNoEnglish, i18n-check.mjs), nothing scrolls sideways, no button's
// text is cut.  Not a suite of its own: it reuses the calling suite's server
// and browser, loads each page once (the viewport changes under it), and
// starts one small server without computer pauses for the finished game
// (random computers play it out in a fraction of a second).  About 5 s a game.
//
// Invariants: the games are made through the HTTP API only; the finished
// game is seen by a spectator (every seat's words, colours revealed).
import path from 'node:path';
import { assert, assertEq, sleep, startServer } from '../server/lib.mjs';
import { assertNoEnglish, spanishPage } from './i18n-check.mjs';

const SIZES = [[390, 844], [1280, 800]];

async function post(base, body) {
  const r = await fetch(`${base}/api/games`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assertEq(r.status, 201, `a game is made (${JSON.stringify(body)})`);
  return r.json();
}

// Sideways scroll and buttons whose words do not fit, as a player sees them.
async function assertFits(page, where, width) {
  const got = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    cut: [...document.querySelectorAll('button, a.button')].filter((b) => b.getClientRects().length && b.scrollWidth > b.clientWidth + 1)
      .map((b) => `${b.id || b.className}: ${b.textContent.trim().slice(0, 40)} (${b.scrollWidth} px in ${b.clientWidth})`),
  }));
  assert(got.width <= width, `${where}: no sideways scroll (${got.width} > ${width})`);
  assertEq(got.cut, [], `${where}: no button's text is cut`);
}

// Checks the page at each size in turn (one load: the layout follows the
// viewport), saving a screenshot at the phone's size.
async function checkSizes(page, where, shot, name) {
  const order = page.viewportSize().width === SIZES[0][0] ? SIZES : [...SIZES].reverse();
  for (const [w, h] of order) {
    if (page.viewportSize().width !== w) {
      await page.setViewportSize({ width: w, height: h });
      await sleep(150); // the layout and the board's size settle
    }
    await assertNoEnglish(page, `${where} at ${w}×${h}`);
    await assertFits(page, `${where} at ${w}×${h}`, w);
    if (w < 500) await shot(page, name);
  }
}

// The pass: `ready(page)` waits for the game's own board in play; `shot`
// saves a screenshot (page, name) as the suite does.
export async function spanishPass({ game, server, browser, tabula, dir, errors, shot, ready }) {
  const page = await spanishPage(browser, { width: SIZES[0][0], height: SIZES[0][1] });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  // a game in play: the player's seat first, on the player's turn
  const live = await post(server.base, { game, players: 2, seats: [{ kind: 'human', name: 'Ana' }, { kind: 'ai', level: 'random' }] });
  await page.goto(`${server.base}/game.html?game=${encodeURIComponent(live.id)}&token=${live.seats[0].token}`);
  await ready(page);
  await page.waitForSelector('#turn .headline');
  await checkSizes(page, `${game} in play`, shot, 'es-play-phone');
  // a finished game, seen by a spectator
  const quick = await startServer(tabula, { db: path.join(dir, `es-${game}.db`), aiDelay: 0, args: ['--ai-step-ms', '0'] });
  try {
    const done = await post(quick.base, { game, players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }] });
    let status = null;
    for (let k = 0; k < 200 && status !== 'over'; k++) {
      status = (await (await fetch(`${quick.base}/api/games/${encodeURIComponent(done.id)}`)).json()).status;
      if (status !== 'over') await sleep(50);
    }
    assertEq(status, 'over', `the ${game} game between computers ended`);
    await page.goto(`${quick.base}/game.html?game=${encodeURIComponent(done.id)}`);
    await page.waitForSelector('#result:not([hidden])', { timeout: 30000 });
    await checkSizes(page, `${game}'s result`, shot, 'es-result-phone');
  } finally {
    await page.context().close();
    await quick.stop();
  }
}
