// undo.e2e.mjs TABULA — confirm and undo in the browser, on a desktop
// (1440×960, mouse) and on a phone (390×844, touch): the "Confirm each move"
// setting (off by default with a mouse, on with touch; kept in the
// browser), a chosen move staged with its words and its highlight and sent
// only on Confirm, Cancel going back to choosing, the Undo button inside a
// turn (following the server's rule, with its reason when refused; in
// Khronos an ordinary build undone, an exchange's draw refused), and
// "Take back my last turn" against the computer.  On the phone every one of
// these buttons is in the bottom dock, inside the screen and at least 44 px
// high.  Screenshots: tests/e2e/artifacts/undo-*.png.
import { api, assert, assertEq } from '../server/lib.mjs';
import { browserSuite } from './browser.mjs';

const { server, browser, t, errors, shot, finish } = await browserSuite({ title: 'browser tests: confirm, undo, take back', prefix: 'undo-', aiDelay: 150 });

const DEVICES = {
  desktop: { viewport: { width: 1440, height: 960 } },
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 1 },
};

async function open(device, game) {
  const ctx = await browser.newContext(DEVICES[device]);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${page.url()}: console: ${m.text()}`); });
  const r = await api(server, 'POST', '/api/games', {
    game, players: 2, seats: [{ kind: 'human', name: 'Anna' }, { kind: 'ai', level: 'random' }],
  });
  assertEq(r.status, 201, 'game created');
  return { page, id: r.json.id, url: `${server.base}/game.html?game=${r.json.id}&token=${r.json.seats[0].token}` };
}

// Clicks (desktop) or taps (phone) a control; on the phone it must be
// inside the screen and at least 44 px high.
async function press(page, device, selector, what) {
  const loc = page.locator(selector).first();
  await loc.waitFor({ state: 'visible' });
  if (device === 'phone') {
    const box = await loc.boundingBox();
    assert(box && box.y >= 0 && box.y + box.height <= 844 && box.x >= 0 && box.x + box.width <= 390,
      `${what} is inside the phone's screen`);
    assert(box.height >= 44, `${what} is at least 44 px high (${box && box.height})`);
    await loc.tap();
  } else {
    await loc.click();
  }
}

const logCount = (page) => page.$$eval('.log .entry', (x) => x.length);
// My turn, with the turn card speaking of the latest position (every
// decision of the log counted), so nothing changes under the next click.
const myTurn = (page) => page.waitForFunction(() => {
  const turn = document.querySelector('#turn.mine');
  return turn && Number(turn.dataset.n) === document.querySelectorAll('.log .entry').length;
}, null, { timeout: 30000 });

// Picks a Clans move on the board: a source, then a target.
async function pickClansMove(page, device, k) {
  await page.waitForSelector('.legal-source');
  const sources = await page.$$eval('.legal-source', (g) => g.map((x) => Number(x.dataset.id)));
  const act = (sel) => (device === 'phone' ? page.locator(sel).first().tap({ force: true }) : page.locator(sel).first().click({ force: true }));
  await act(`.territory[data-id="${sources[k % sources.length]}"]`);
  await page.waitForSelector('.legal-target');
  // The turn card follows the selection (it names the territory picked up).
  await page.waitForFunction((id) => document.querySelector('#turn .headline').textContent.includes(String(id)), sources[k % sources.length]);
  const targets = await page.$$eval('.legal-target', (g) => g.map((x) => Number(x.dataset.id)));
  await act(`.territory[data-id="${targets[0]}"]`);
}

for (const device of ['desktop', 'phone']) {
  t.test(`${device}: a Clans move is staged, cancelled, staged again and confirmed; then taken back against the computer`, async () => {
    const { page, id, url } = await open(device, 'clans');
    await page.goto(url);
    await page.waitForSelector('.clans-board .territory');
    // The setting: off with a mouse, on with touch; the desktop turns it on.
    await press(page, device, '#settings-button', 'the settings button');
    const on = await page.isChecked('#setting-confirm');
    assertEq(on, device === 'phone', `"Confirm each move" by default on the ${device}`);
    if (!on) await page.check('#setting-confirm');
    await shot(page, `${device}-1-settings`);
    await page.keyboard.press('Escape');
    assert(await page.isHidden('#settings-menu'), 'the menu closes');
    assertEq(await page.evaluate(() => localStorage.getItem('tabula.confirmEachMove')), device === 'phone' ? null : 'on', 'kept in the browser');

    await myTurn(page);
    const before = await logCount(page);
    await pickClansMove(page, device, 0);
    await page.waitForSelector('#turn-staged');
    const words = await page.textContent('#turn-staged');
    assert(/^Your choice: Move the huts of territory \d+ onto territory \d+\.$/.test(words), `the staged move in words: ${words}`);
    assert(/^\d+ → \d+$/.test(await page.getAttribute('#turn-staged', 'title')), 'the notation in its tooltip');
    assert((await page.$$('.clans-board .hl.staged')).length === 2, 'both territories highlighted on the board');
    if (device === 'phone') assert(await page.$('#dock #turn-confirm'), 'Confirm is in the bottom dock');
    await shot(page, `${device}-2-staged`);
    await page.waitForTimeout(400);
    assertEq(await logCount(page), before, 'nothing is sent before Confirm');

    await press(page, device, '#turn-cancel', 'Cancel');
    await page.waitForSelector('#turn-staged', { state: 'detached' });
    await page.waitForSelector('.legal-source');
    assertEq((await page.$$('.clans-board .hl.staged')).length, 0, 'the highlight goes with Cancel');
    assertEq(await logCount(page), before, 'Cancel sends nothing');

    await pickClansMove(page, device, 1);
    await press(page, device, '#turn-confirm', 'Confirm');
    await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k + 1, before, { timeout: 30000 });
    await myTurn(page);
    await page.waitForSelector('#turn-take-back');
    const after = await logCount(page);
    await shot(page, `${device}-3-take-back-offered`);
    await press(page, device, '#turn-take-back', 'Take back my last turn');
    await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length === k, before, { timeout: 30000 });
    await page.waitForSelector('.legal-source');
    assert(after > before + 1, 'the computer had replied');
    await page.waitForSelector('.toast', { timeout: 5000 });
    const note = await page.textContent('.toast-box');
    assert(/took back their last turn and the computer's repl(y|ies) after it/.test(note), `a note says what was taken back: ${note}`);
    await shot(page, `${device}-4-taken-back`);
    const rec = await api(server, 'GET', `/api/games/${id}/record`);
    assertEq(rec.json.takebacks.length, 1, 'the record lists the take-back');
    assertEq(rec.json.takebacks[0].after, before, 'from where it went back');
    await page.context().close();
  });

  t.test(`${device}: Undo inside a turn (Arkadia), and its reason when the server refuses`, async () => {
    const { page, url } = await open(device, 'arkadia');
    await page.goto(`${url}&renderer=generic`);
    let undone = false, refused = '';
    for (let step = 0; step < 60 && !(undone && refused); step++) {
      await myTurn(page);
      await page.waitForSelector('.legal-move');
      const n = await logCount(page);
      const undo = await page.$('#turn-undo');
      const available = undo && !(await undo.evaluate((b) => b.classList.contains('unavailable')));
      if (available && !undone) {
        await shot(page, `${device}-5-undo-offered`);
        await press(page, device, '#turn-undo', 'Undo');
        await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length === k - 1, n, { timeout: 30000 });
        undone = true;
        continue;
      }
      if (undo && !available && !refused) {
        await press(page, device, '#turn-undo', 'Undo (not possible now)');
        await page.waitForSelector('.toast.error', { timeout: 5000 });
        refused = await page.textContent('.toast-box');
        continue;
      }
      const moves = await page.$$eval('.legal-move', (b) => b.map((x) => x.dataset.move));
      const move = moves.find((m) => m === 'draw stack') || moves[step % moves.length];
      await press(page, device, `.legal-move[data-move="${move}"]`, `the decision ${move}`);
      if (await page.$('#turn-confirm')) await press(page, device, '#turn-confirm', 'Confirm');
      await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, n, { timeout: 30000 });
    }
    assert(undone, 'a decision was undone inside the turn');
    assert(/Undo is not possible: .*(drew a card or turned one face up|has played since)/.test(refused), `the refusal says why: ${refused}`);
    await shot(page, `${device}-6-undo-refused`);
    // Taken back in the middle of a turn, nothing of the computer's goes
    // with it, and the note does not say it does.
    let note = '';
    for (let step = 0; step < 30 && !note; step++) {
      await myTurn(page);
      await page.waitForSelector('.legal-move');
      const n = await logCount(page);
      const mid = await page.$eval('.log .turn:last-of-type', (g) => g.dataset.seat === '0');
      if (mid && await page.$('#turn-take-back')) {
        await press(page, device, '#turn-take-back', 'Take back my last turn');
        await page.waitForFunction(() => /took back their last turn/.test(document.querySelector('.toast-box')?.textContent || ''), null, { timeout: 30000 });
        note = (await page.$$eval('.toast', (x) => x.map((n) => n.textContent))).find((w) => /last turn/.test(w));
        break;
      }
      const moves = await page.$$eval('.legal-move', (b) => b.map((x) => x.dataset.move));
      await press(page, device, `.legal-move[data-move="${moves[step % moves.length]}"]`, 'a decision');
      if (await page.$('#turn-confirm')) await press(page, device, '#turn-confirm', 'Confirm');
      await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, n, { timeout: 30000 });
    }
    assert(/took back their last turn \(\d+ decisions?\)/.test(note) && !/computer/.test(note), `no computer's replies spoken of: ${note}`);
    await page.context().close();
  });
}

// Khronos on the desktop: an exchange draws new cards, so Undo says that
// decision stands for that reason; an ordinary build pays cards from the
// hand and draws nothing, so Undo takes it back.
t.test('desktop: Khronos — Undo refused after an exchange (a draw), with that reason; an ordinary build undone', async () => {
  const device = 'desktop';
  const { page, url } = await open(device, 'khronos');
  await page.goto(`${url}&renderer=generic`);
  const moves = () => page.$$eval('.legal-move', (b) => b.map((x) => x.dataset.move));
  const decide = async (move) => {
    const n = await logCount(page);
    await press(page, device, `.legal-move[data-move="${move}"]`, `the decision ${move}`);
    if (await page.$('#turn-confirm')) await press(page, device, '#turn-confirm', 'Confirm');
    await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, n, { timeout: 30000 });
    await myTurn(page);
    await page.waitForSelector('.legal-move');
  };
  await myTurn(page);
  await page.waitForSelector('.legal-move');
  const exchange = (await moves()).find((m) => m.startsWith('exchange '));
  assert(exchange, 'an exchange at the start of the turn');
  await decide(exchange);
  await page.waitForSelector('#turn-undo.unavailable');
  await press(page, device, '#turn-undo', 'Undo (not possible now)');
  await page.waitForSelector('.toast.error', { timeout: 5000 });
  const refused = await page.textContent('.toast-box');
  assert(/Undo is not possible: your last decision drew a card or turned one face up, so it stands\./.test(refused), `the true reason: ${refused}`);
  await shot(page, `${device}-7-khronos-draw-refused`);
  const build = (await moves()).find((m) => m.startsWith('build '));
  assert(build, 'a building to construct');
  await decide(build);
  await decide((await moves())[0]); // its squares
  const pay = (await moves()).find((m) => m.startsWith('pay '));
  if (pay) await decide(pay);
  const n = await logCount(page);
  await page.waitForSelector('#turn-undo:not(.unavailable)');
  await shot(page, `${device}-8-khronos-build-undo`);
  await press(page, device, '#turn-undo', 'Undo');
  await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length === k - 1, n, { timeout: 30000 });
  await page.context().close();
});

await finish();
