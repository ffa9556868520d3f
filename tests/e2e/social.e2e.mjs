// social.e2e.mjs TABULA — the table chat and "Play again" in the browser
// (js/social.js): two people at one table, one on a desktop (1280×800), one
// on a phone (390×844 upright, then 844×390 sideways).  A line goes from one
// to the other; the phone's Chat tab counts it unread; the field never covers
// the dock's buttons; a line and a name full of HTML arrive as text and run
// nothing; muting hides a seat's lines (kept in this browser) until unmuted;
// the chat reads in Spanish.  Then the game ends (a resignation), both press
// "Play again" on the result and land in the same new game, each on their
// own seat; the replay of the first game lists its chat.  Screenshots:
// tests/e2e/artifacts/social-*.png.
import { api, assert, assertEq, WsClient } from '../server/lib.mjs';
import { browserSuite } from './browser.mjs';

const { server, browser, t, errors, shot, finish } = await browserSuite({ title: 'browser tests (chat and play again)', prefix: 'social-' });

const HTML_NAME = '<img src=x onerror=window.pwnedName=1>';
const HTML_LINE = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script> & <b>bold</b>';

async function person(viewport, phone, lang) {
  const ctx = await browser.newContext({ viewport, ...(phone ? { hasTouch: true, isMobile: true, deviceScaleFactor: 1 } : {}) });
  if (lang) await ctx.addInitScript((l) => localStorage.setItem('tabula.lang', l), lang);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${page.url()}: console: ${m.text()}`); });
  return page;
}

// Whether two elements' boxes overlap on the screen.
const overlaps = (page, a, b) => page.evaluate(([x, y]) => {
  const p = document.querySelector(x), q = document.querySelector(y);
  if (!p || !q || getComputedStyle(q).display === 'none') return false;
  const r = p.getBoundingClientRect(), s = q.getBoundingClientRect();
  return r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom;
}, [a, b]);

const game = (await api(server, 'POST', '/api/games', {
  game: 'clans', seats: [{ kind: 'human', name: 'Ana' }, { kind: 'human', name: HTML_NAME }],
})).json;
const [anaKey, boKey] = [game.seats[0].token, game.seats[1].token];
const ana = await person({ width: 1280, height: 800 }, false);
const bo = await person({ width: 390, height: 844 }, true);

t.test('two people chat: desktop to phone, unread on the phone\'s Chat tab, the field clear of the dock', async () => {
  await ana.goto(`${server.base}/game.html?game=${game.id}&token=${anaKey}`);
  await bo.goto(`${server.base}/game.html?game=${game.id}&token=${boKey}`);
  // both connected, each with the chat so far, before anyone writes
  await ana.waitForSelector('#chat-lines[data-live=yes]', { state: 'attached' });
  await bo.waitForSelector('#chat-lines[data-live=yes]', { state: 'attached' });
  await bo.waitForFunction(() => document.querySelector('#chat-card') && window.getComputedStyle(document.querySelector('#chat-card')).display === 'none');
  await ana.fill('#chat-input', 'Hello from the desktop');
  await ana.press('#chat-input', 'Enter');
  await ana.waitForFunction(() => [...document.querySelectorAll('#chat-lines .chat-text')].some((e) => e.textContent === 'Hello from the desktop'));
  assertEq(await ana.inputValue('#chat-input'), '', 'the field empties once sent');
  await bo.waitForFunction(() => document.querySelector('#chat-tab-unread').textContent === '1');
  await bo.tap('#chat-tab');
  await bo.waitForFunction(() => [...document.querySelectorAll('#chat-lines .chat-text')].some((e) => e.textContent === 'Hello from the desktop'));
  await bo.waitForFunction(() => document.querySelector('#chat-tab-unread').hidden);
  assert(!(await overlaps(bo, '#chat-input', '#dock')), 'the field is not under the dock');
  assert(!(await overlaps(bo, '#chat-send', '#dock')), 'Send is not under the dock');
  const sw = await bo.evaluate(() => document.documentElement.scrollWidth);
  assert(sw <= 390, `no sideways scroll (${sw} px)`);
  const box = await bo.locator('#chat-send').boundingBox();
  assert(box.height >= 40, `Send is big enough to tap (${box.height} px)`);
  await shot(bo, 'phone-chat');
  await shot(ana, 'desktop-chat');
});

t.test('HTML in a line and in a name arrives as text and runs nothing', async () => {
  await bo.fill('#chat-input', HTML_LINE);
  await bo.tap('#chat-send');
  await ana.waitForFunction((l) => [...document.querySelectorAll('#chat-lines .chat-text')].some((e) => e.textContent === l), HTML_LINE);
  for (const page of [ana, bo]) {
    const found = await page.evaluate(() => ({
      imgs: document.querySelectorAll('#chat-card img, #chat-card script, #chat-card .chat-text b').length,
      pwned: window.pwned ?? null, pwnedName: window.pwnedName ?? null,
      names: [...document.querySelectorAll('#chat-lines .chat-name')].map((e) => e.textContent),
    }));
    assertEq([found.imgs, found.pwned, found.pwnedName], [0, null, null], 'no element made, no script run');
    assert(found.names.includes('<img src=x onerror=window.pwnedName=1>'), `the name as its characters: ${found.names}`);
  }
});

t.test('mute: Ana hides Bo\'s lines (kept in this browser), new ones stay hidden, unmute shows them', async () => {
  await ana.click('.chat-line[data-seat="1"] .chat-mute');
  await ana.waitForFunction(() => !document.querySelector('#chat-lines .chat-line[data-seat="1"]'));
  assert(await ana.isVisible('#chat-muted .chat-unmute'), 'a way to unmute');
  const stored = await ana.evaluate((id) => localStorage.getItem(`tabula.chat.muted.${id}`), game.id);
  assertEq(stored, '[1]', 'kept in this browser, by game and seat');
  await bo.fill('#chat-input', 'Can you hear me?');
  await bo.tap('#chat-send');
  await bo.waitForFunction(() => [...document.querySelectorAll('#chat-lines .chat-text')].some((e) => e.textContent === 'Can you hear me?'));
  await ana.waitForTimeout(300);
  assertEq(await ana.locator('#chat-lines .chat-line[data-seat="1"]').count(), 0, 'a muted seat\'s new line stays hidden');
  assert(/2 lines hidden/.test(await ana.textContent('#chat-muted')), 'it says how many are hidden');
  await ana.click('#chat-muted .chat-unmute');
  await ana.waitForFunction(() => document.querySelectorAll('#chat-lines .chat-line[data-seat="1"]').length === 2);
  await shot(ana, 'desktop-unmuted');
});

t.test('a phone held sideways: the chat tab still works and its field stays clear of the dock', async () => {
  await bo.setViewportSize({ width: 844, height: 390 });
  await bo.waitForTimeout(200);
  await bo.tap('#chat-tab');
  assert(await bo.isVisible('#chat-input'), 'the field is there');
  assert(!(await overlaps(bo, '#chat-input', '#dock')), 'the field is not under the dock');
  assert(!(await overlaps(bo, '#chat-send', '#dock')), 'Send is not under the dock');
  await shot(bo, 'sideways-chat');
  await bo.setViewportSize({ width: 390, height: 844 });
});

t.test('too fast: the server\'s refusal shows under the field in words, the text kept', async () => {
  let refused = false;
  for (let i = 1; i <= 7 && !refused; i++) {
    await ana.fill('#chat-input', `quick line ${i}`);
    await ana.press('#chat-input', 'Enter');
    await ana.waitForFunction((text) => [...document.querySelectorAll('#chat-lines .chat-text')].some((e) => e.textContent === text)
      || !document.querySelector('#chat-error').hidden, `quick line ${i}`);
    refused = await ana.isVisible('#chat-error');
  }
  assert(refused, 'the server slowed the sixth line in ten seconds');
  assertEq(await ana.textContent('#chat-error'), 'Not so fast: wait a few seconds, then send it again.', 'in words');
  assert(/^quick line \d$/.test(await ana.inputValue('#chat-input')), 'the refused text is back in the field');
  await ana.fill('#chat-input', '');
});

t.test('the chat in Spanish', async () => {
  const es = await person({ width: 1280, height: 800 }, false, 'es');
  await es.goto(`${server.base}/game.html?game=${game.id}`);
  await es.waitForSelector('#chat-note');
  await es.waitForFunction(() => document.querySelector('#chat-note').textContent.length > 0);
  assertEq(await es.textContent('#chat-note'), 'Solo los jugadores escriben aquí.', 'a spectator\'s note in Spanish');
  await es.close();
});

t.test('play again: the game ends, both press Play again on the result and land in one new game', async () => {
  // Ana resigns (over the protocol: the resign button has tests of its own).
  const ws = await WsClient.connect(server.port, `?game=${game.id}&token=${anaKey}`);
  await ws.next((m) => m.type === 'state');
  for (let i = 0; i < 20; i++) {
    const from = ws.messages.length;
    ws.send({ type: 'resign', id: 'r' });
    const m = await ws.next((x) => x.type === 'notice' || (x.type === 'error' && x.id === 'r'), { from });
    if (m.code !== 'busy') break;
    await ana.waitForTimeout(100);
  }
  await ws.close();
  await bo.tap('[data-phone-tab="board"]');
  await bo.waitForSelector('#result #play-again');
  await ana.waitForSelector('#result #play-again');
  await shot(bo, 'phone-result');
  await Promise.all([bo.waitForURL((u) => !u.toString().includes(`game=${game.id}`)), bo.tap('#play-again')]);
  const fresh = new URL(bo.url()).searchParams.get('game');
  assert(fresh && fresh !== game.id, `Bo is in a new game (${bo.url()})`);
  assertEq(new URL(bo.url()).searchParams.get('token'), boKey, 'with his own key');
  // Ana's page was offered the new game over the WebSocket: her button is its link.
  await ana.waitForFunction((id) => { const a = document.querySelector('#play-again'); return a && a.getAttribute('href') && a.getAttribute('href').includes(id); }, fresh);
  const href = await ana.getAttribute('#play-again', 'href');
  assert(href.includes(`token=${anaKey}`) && !href.includes(boKey), 'her own link, nobody else\'s key');
  await Promise.all([ana.waitForURL((u) => u.toString().includes(`game=${fresh}`)), ana.click('#play-again')]);
  for (const [page, seat] of [[ana, 1], [bo, 0]]) {
    await page.waitForSelector('#crumb');
    await page.waitForFunction(() => /your seat/.test(document.querySelector('#crumb').textContent));
    const sum = (await api(server, 'GET', `/api/games/${fresh}`)).json;
    assertEq(sum.rematch_of, game.id, 'the new game plays the old one again');
    assertEq(sum.seats.map((s) => s.name), [HTML_NAME, 'Ana'], 'seats rotated');
    assert(sum.seats[seat].name, 'seated');
  }
  await ana.waitForFunction(() => document.querySelectorAll('.players .player, #players > *').length >= 2);
  await shot(ana, 'desktop-new-game');
});

t.test('the replay lists what was said up to the position shown', async () => {
  // A short game over the protocol: a line, a decision, a line, a resignation.
  const g = (await api(server, 'POST', '/api/games', {
    game: 'clans', seats: [{ kind: 'human', name: 'Cy' }, { kind: 'human', name: 'Di' }],
  })).json;
  const [cy, di] = await Promise.all(g.seats.map((s) => WsClient.connect(server.port, `?game=${g.id}&token=${s.token}`)));
  const st = await cy.next((m) => m.type === 'state');
  const say = async (ws, text) => { ws.send({ type: 'chat', text }); await ws.next((m) => m.type === 'chat' && m.text === text); };
  await say(cy, 'before any move');
  const mover = st.your_turn ? cy : di;
  const ms = mover.latestState() || await mover.next((m) => m.type === 'state');
  assertEq((await mover.request({ type: 'decide', move: ms.legal[0], id: 1 })).type, 'ack', 'a decision');
  await di.next((m) => m.type === 'state' && m.n === 1);
  await say(di, 'after the first move');
  di.send({ type: 'resign', id: 'r' });
  await di.next((m) => m.type === 'notice');
  await Promise.all([cy.close(), di.close()]);
  const page = await person({ width: 1280, height: 800 }, false);
  await page.goto(`${server.base}/game.html?game=${g.id}&replay=1`);
  await page.waitForFunction(() => document.querySelectorAll('#chat-lines .chat-line').length === 1);
  assert(/after decision 0/.test(await page.textContent('#chat-lines .chat-line .chat-meta')), 'each line says when');
  assert(await page.isHidden('#chat-form'), 'nobody writes in a replay');
  await page.click('#replay-next');
  await page.waitForFunction(() => document.querySelectorAll('#chat-lines .chat-line').length === 2);
  assertEq(await page.locator('#chat-lines .chat-text').allTextContents(), ['before any move', 'after the first move'],
    'the second line appears at the position it was said at');
  await page.close();
});

await finish();
