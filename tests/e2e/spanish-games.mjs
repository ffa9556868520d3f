// spanish-games.mjs — the Spanish pass each game's browser suite runs
// (clans, arkadia, khronos .e2e.mjs; issue 31): a game of that title in play
// (the player's turn: the board, the panels, the turn card) and a finished
// one (the result), opened by a browser that speaks Spanish, each checked on
// a phone (390×844) and a desktop (1280×800): no English word
// (assertNoEnglish, i18n-check.mjs), nothing scrolls sideways, no button's
// text is cut; the phone is a touch screen.  Not a suite of its own: it
// reuses the calling suite's server and browser, and starts one small server
// without computer pauses for the finished game (random computers play it
// out in a fraction of a second).  About 6 s a game.
//
// Invariants: the games are made through the HTTP API only; the finished
// game is seen by a spectator (every seat's words, colours revealed).
import path from 'node:path';
import { assert, assertEq, sleep, startServer } from '../server/lib.mjs';
import { assertNoEnglish, englishWords } from './i18n-check.mjs';

const SIZES = [[390, 844], [1280, 800]];
// Names a page may show in Spanish: none beyond the checker's own (the
// server's default seat names, "Computer N", are shown in the page's language).
const NAMES = [];

async function post(base, body) {
  const r = await fetch(`${base}/api/games`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assertEq(r.status, 201, `a game is made (${JSON.stringify(body)})`);
  return r.json();
}

// Sideways scroll and buttons (and the game's cards, `cards`: a selector)
// whose words do not fit, as a player sees them.
async function assertFits(page, where, width, cards) {
  const got = await page.evaluate((sel) => ({
    width: document.documentElement.scrollWidth,
    cut: [...document.querySelectorAll(sel)].filter((b) => b.getClientRects().length && b.scrollWidth > b.clientWidth + 1)
      .map((b) => `${b.id || b.className}: ${b.textContent.trim().slice(0, 40)} (${b.scrollWidth} px in ${b.clientWidth})`),
  }), ['button', 'a.button', '[role=button]', ...(cards ? [cards] : [])].join(', '));
  assert(got.width <= width, `${where}: no sideways scroll (${got.width} > ${width})`);
  assertEq(got.cut, [], `${where}: no button's text is cut`);
}

// A page that speaks Spanish: at a phone's size a touch screen, as a phone is.
async function spanishAt(browser, errors, [w, h]) {
  const ctx = await browser.newContext({ locale: 'es-ES', viewport: { width: w, height: h }, isMobile: w < 500, hasTouch: w < 500 });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  return page;
}

// Opens `url` at each size and checks it (`wait` for what must be drawn),
// saving a screenshot at the phone's size.
// `then(page)` runs last on the desktop's page.
async function checkSizes({ browser, errors, url, wait, where, shot, name, cards, then = null }) {
  for (const [w, h] of SIZES) {
    const page = await spanishAt(browser, errors, [w, h]);
    try {
      await page.goto(url);
      await wait(page);
      await sleep(150); // the board settles to its size
      await assertNoEnglish(page, `${where} at ${w}×${h}`, { allow: NAMES });
      await assertFits(page, `${where} at ${w}×${h}`, w, cards);
      if (w < 500) await shot(page, name);
      else if (then) await then(page);
    } finally {
      await page.context().close();
    }
  }
}

// The pass: `ready(page)` waits for the game's own board in play; `shot`
// saves a screenshot (page, name) as the suite does; `cards` selects the
// game's cards, whose words must fit too; `phases` as spanishPhases takes.
export async function spanishPass({ game, server, browser, tabula, dir, errors, shot, ready, cards = null, phases = null }) {
  // a game in play: the player's seat first, on the player's turn
  const live = await post(server.base, { game, players: 2, seats: [{ kind: 'human', name: 'Ana' }, { kind: 'ai', level: 'random' }] });
  await checkSizes({ browser, errors, url: `${server.base}/game.html?game=${encodeURIComponent(live.id)}&token=${live.seats[0].token}`,
    wait: async (page) => { await ready(page); await page.waitForSelector('#turn .headline'); },
    where: `${game} in play`, shot, name: 'es-play-phone', cards });
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
    await checkSizes({ browser, errors, url: `${quick.base}/game.html?game=${encodeURIComponent(done.id)}`,
      wait: (page) => page.waitForSelector('#result:not([hidden])', { timeout: 30000 }),
      where: `${game}'s result`, shot, name: 'es-result-phone', cards,
      // every phase's words, from the finished game's last position
      then: phases ? (page) => spanishPhases({ game, page, id: done.id, ...phases }) : null });
  } finally {
    await quick.stop();
  }
}

// ---- every phase's words, the renderer driven directly ----
//
// The renderer of `game`, in a page that speaks Spanish, is fed the position
// `base` (a real view of that game) changed into each of its phases, with a
// legal list of every kind of decision: everything it shows (texts, titles,
// labels), its turn card (instruction), its "you" card, its seat extras and
// its words for each decision (sayMove, formatMove) must hold no English word,
// and no button or card may cut its words.
// Positions a live game rarely reaches (a sale, a downsize) are checked too.

// The words of a text, as i18n-check.mjs reads them.
function wordsOf(text) {
  return (String(text).match(/[\p{L}][\p{L}'’]*[\p{L}]|\p{L}/gu) || [])
    .map((w) => w.toLowerCase().replace(/['’]s$/, '')).flatMap((w) => w.split(/['’]/)).filter((w) => w.length >= 2);
}

// In the page: for each case {view patch, legal, moves}, the renderer's words.
async function rendererWords({ game, base, cases, moves, CUT }) {
  await (await import('/js/i18n.js')).ready();
  const { create } = await import(`/js/renderers/${game}.js`);
  const board = await (await fetch(`/api/catalog/${game}/board`)).json();
  const boardEl = document.createElement('div'), panelsEl = document.createElement('div');
  boardEl.className = 'board-wrap';
  document.body.append(boardEl, panelsEl);
  const seats = [{ name: 'Ana' }, { name: 'Bruno' }];
  const R = create({ boardEl, panelsEl, board, decide: () => false, seatName: (k) => seats[k].name });
  const out = [], cut = [];
  const read = (where, node) => {
    if (!node) return;
    if (typeof node === 'string') { out.push({ where, text: node }); return; }
    const nodes = Array.isArray(node) ? node : [node];
    for (const n of nodes) {
      if (!n) continue;
      if (typeof n === 'string') { out.push({ where, text: n }); continue; }
      out.push({ where, text: n.textContent });
      for (const e of n.querySelectorAll ? n.querySelectorAll('[title],[aria-label]') : []) {
        for (const a of ['title', 'aria-label']) if (e.getAttribute(a)) out.push({ where: `${where}[${a}]`, text: e.getAttribute(a) });
      }
    }
  };
  let n = 1000;
  for (const c of cases) {
    const ctx = { view: { ...base, ...c.view }, legal: c.legal, yourTurn: true, seat: 0, toMove: 0, last: null, result: null,
      thinking: null, seats, replay: false, n: n++, prompt: null };
    R.update(ctx);
    if (c.click) for (const sel of c.click) { const e = boardEl.querySelector(sel) || panelsEl.querySelector(sel); if (e) e.dispatchEvent(new MouseEvent('click', { bubbles: true })); }
    const where = c.name;
    for (const e of [...boardEl.querySelectorAll(CUT), ...panelsEl.querySelectorAll(CUT)]) {
      if (e.getClientRects().length && e.scrollWidth > e.clientWidth + 1) cut.push(`${where}: ${e.className} "${e.textContent.trim()}" (${e.scrollWidth} px in ${e.clientWidth})`);
    }
    read(`${where}: board`, boardEl);
    read(`${where}: panels`, panelsEl);
    if (R.actions) read(`${where}: actions`, R.actions());
    if (R.instruction) { const i = R.instruction(ctx) || {}; read(`${where}: turn card`, [i.headline || '', i.detail || '']); }
    if (R.youPanel) read(`${where}: you`, R.youPanel(ctx));
    if (R.seatExtras) for (const k of [0, 1]) read(`${where}: seat ${k + 1}`, R.seatExtras(ctx, k));
    if (R.resultExtras) for (const k of [0, 1]) read(`${where}: result ${k + 1}`, R.resultExtras(ctx, k, ctx.view));
  }
  for (const m of moves) {
    if (R.sayMove) read(`say "${m}"`, R.sayMove(m) || '');
    if (R.formatMove) read(`format "${m}"`, R.formatMove(m) || '');
  }
  boardEl.remove(); panelsEl.remove();
  return { said: out, cut };
}

// In `page` (one of the game's pages in Spanish): `cases(view)` gives the
// phases to show from a real view of the game (its last position as a
// spectator sees it, game `id`); `moves` the decisions to word.
export async function spanishPhases({ game, page, id, cases, moves, allow = [] }) {
  const base = await page.evaluate(async (id) => {
    const ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/ws?game=${encodeURIComponent(id)}`);
    return new Promise((resolve, reject) => {
      ws.onmessage = (ev) => { const m = JSON.parse(ev.data); if (m.type === 'state' && m.view) { ws.close(); resolve(m.view); } };
      ws.onerror = () => reject(new Error('no state'));
    });
  }, id);
  const { said, cut } = await page.evaluate(rendererWords, { game, base, cases: cases(base), moves,
    CUT: 'button, a.button, [role=button], .ark-card, .kh-card, .kh-tile, .kh-tile-name' });
  assertEq(cut, [], `${game}: no word is cut in any phase`);
  const english = englishWords();
  const ok = new Set(['ana', 'bruno', ...allow]);
  const found = said.map((x) => ({ ...x, bad: wordsOf(x.text).filter((w) => english.has(w) && !ok.has(w)) })).filter((x) => x.bad.length);
  assertEq(found.map((x) => `${x.where}: "${x.text.trim().slice(0, 90)}" (${[...new Set(x.bad)].join(', ')})`), [],
    `${game}: every phase's words in Spanish`);
  assert(said.length > 20, `${game}: the renderer said things (${said.length})`);
}
