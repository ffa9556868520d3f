// accounts.e2e.mjs TABULA — accounts in real Chromium (issue 28): a guest
// plays by link on a phone (390×844), signs up there and keeps that game;
// another browser context (a desktop, 1280×800) logs in and finds it under
// "My games", your turn first, and opens it to play the seat without its
// link; the top bar of every page shows the account; the account page
// changes the language (kept with the account) and logs out; a name full of
// HTML shows as text; the pages in Spanish show no English; the account
// page's Turn e-mails card (no relay: says so; a relay: address, pending,
// refusal, off; phone and desktop, Spanish).
// Screenshots: tests/e2e/artifacts/accounts-*.png.
import path from 'node:path';
import { api, assert, assertEq, startServer, tempDir } from '../server/lib.mjs';
import { browserSuite } from './browser.mjs';
import { assertNoEnglish, spanishPage } from './i18n-check.mjs';

const { server, browser, t, errors, shot, finish } = await browserSuite({ title: 'browser tests (accounts)', prefix: 'accounts-' });

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const DESKTOP = { viewport: { width: 1280, height: 800 } };
const NAME = `Zoë <b>${Date.now() % 100000}</b>`;
const PASSWORD = 'a long password';

async function context(opts) {
  const ctx = await browser.newContext(opts);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  page.on('console', (m) => {
    // a short password is a 400 by design (a guest's pages ask /api/session: no 401)
    if (m.type() === 'error' && !/ 400 /.test(m.text())) errors.push(`${page.url()}: console: ${m.text()}`);
  });
  return { ctx, page };
}

const noSideways = (page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

let gameId = null;

t.test('phone: a guest\'s game, then sign up: the game is kept, "My games" lists it', async () => {
  const { ctx, page } = await context(PHONE);
  // a guest creates a game in the lobby (the browser keeps its seat link)
  await page.goto(`${server.base}/`);
  await page.waitForSelector('#account-link');
  assertEq((await page.textContent('#account-link')).trim(), 'Log in', 'the top bar offers to log in');
  await page.waitForSelector('#create:not([disabled])');
  await page.click('#create');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('tabula.mygames') || '[]').length > 0);
  gameId = await page.evaluate(() => JSON.parse(localStorage.getItem('tabula.mygames'))[0].id);
  // sign up from the top bar's link
  await page.click('#account-link');
  await page.waitForSelector('#signup-form');
  assert(await noSideways(page), 'no sideways scroll on the account page (phone)');
  await shot(page, 'signup-phone');
  await page.fill('#signup-name', NAME);
  await page.fill('#signup-password', 'short');
  await page.click('#signup');
  await page.waitForSelector('#signup-error:not([hidden])');
  assert(/8/.test(await page.textContent('#signup-error')), 'a short password is refused in words');
  await page.fill('#signup-password', PASSWORD);
  await page.click('#signup');
  await page.waitForURL(/\/me\.html$/);
  await page.waitForSelector(`#me-games [data-game="${gameId}"]`);
  assertEq((await page.textContent('#account-link')).trim(), NAME, 'the name in the top bar, as text');
  assertEq(await page.$$eval('#account-link b', (x) => x.length), 0, 'no HTML made of the name');
  assert(await noSideways(page), 'no sideways scroll on My games (phone)');
  await shot(page, 'me-phone');
  await ctx.close();
});

t.test('desktop, another browser: log in, "My games" lists the game, your turn first; it opens as your seat', async () => {
  assert(gameId, 'the phone test made a game');
  // a second game of the account where it is nobody's turn yet (a free seat)
  const { ctx, page } = await context(DESKTOP);
  await page.goto(`${server.base}/account.html`);
  await page.waitForSelector('#login-form');
  await page.fill('#login-name', NAME.replace('Zo', 'ZO')); // letters' case does not matter
  await page.fill('#login-password', PASSWORD);
  await page.click('#login');
  await page.waitForURL(/\/me\.html$/);
  await page.waitForSelector(`#me-games [data-game="${gameId}"]`);
  const order = await page.$$eval('#me-games .me-game', (xs) => xs.map((x) => x.classList.contains('your-turn')));
  assertEq(order, [...order].sort((a, b) => Number(b) - Number(a)), 'your turn first');
  assert(await noSideways(page), 'no sideways scroll (desktop)');
  await shot(page, 'me-desktop');
  await page.click(`#me-games [data-game="${gameId}"]`);
  await page.waitForURL(/game\.html\?game=/);
  // the session plays the seat: the page gets a player's welcome, not a spectator's
  const sum = await (await api(server, 'GET', `/api/games/${gameId}`)).json;
  assertEq(sum.seats[0].account, true, 'the claimed seat is the account\'s');
  await page.waitForFunction(() => /your seat/.test(document.querySelector('#crumb').textContent));
  await page.waitForFunction(() => document.querySelector('#conn-text').textContent === 'connected');
  await shot(page, 'game-desktop');
  await ctx.close();
});

t.test('account page: language kept with the account, log out; in Spanish no English', async () => {
  const { ctx, page } = await context(DESKTOP);
  await page.goto(`${server.base}/account.html`);
  await page.fill('#login-name', NAME);
  await page.fill('#login-password', PASSWORD);
  await page.click('#login');
  await page.waitForURL(/\/me\.html$/);
  await page.goto(`${server.base}/account.html`);
  await page.waitForSelector('#account-name');
  assertEq(await page.textContent('#account-name'), NAME, 'the name as text');
  await shot(page, 'account-desktop');
  await page.selectOption('#account-lang', 'es');
  await page.waitForFunction(() => document.documentElement.lang === 'es');
  await page.waitForSelector('#account-name');
  await assertNoEnglish(page, 'account page (signed in)', { allow: ['zo', 'b'] });
  const me = await page.evaluate(() => fetch('/api/me').then((r) => r.json()));
  assertEq(me.lang, 'es', 'the account keeps the language');
  await page.goto(`${server.base}/me.html`);
  await page.waitForSelector('#me-games');
  await assertNoEnglish(page, 'my games', { allow: ['zo', 'b'] });
  await shot(page, 'me-desktop-es');
  await page.goto(`${server.base}/account.html`);
  await page.click('#logout');
  await page.waitForSelector('#login-form');
  assertEq(await page.evaluate(() => fetch('/api/session').then((r) => r.json())), { signed_in: false }, 'logged out');
  await ctx.close();
  // a Spanish browser, a guest: the account page has no English either
  const es = await spanishPage(browser, { width: 390, height: 844 });
  await es.goto(`${server.base}/account.html`);
  await es.waitForSelector('#signup-form');
  await assertNoEnglish(es, 'account page (guest, phone)');
  await shot(es, 'signup-phone-es');
  await es.context().close();
});

// ---- turn e-mails (helper "mail"): the Turn e-mails card of the account page ----
t.test('account page: Turn e-mails — without a relay it says so; with one, an address given (pending), a bad one refused, turned off; phone, then desktop in Spanish', async () => {
  // this suite's server has no --smtp
  const { ctx, page } = await context(DESKTOP);
  await page.goto(`${server.base}/account.html`);
  await page.waitForSelector('#signup-form');
  await page.fill('#signup-name', 'Noor');
  await page.fill('#signup-password', PASSWORD);
  await page.click('#signup');
  await page.waitForURL(/\/me\.html$/);
  await page.goto(`${server.base}/account.html`);
  await page.waitForSelector('#email-off');
  assertEq((await page.textContent('#email-off')).trim(), 'This server sends no e-mail.', 'said in words');
  assertEq((await page.$$('#email-address')).length, 0, 'no address to give');
  await ctx.close();
  // a server with a relay (one that is down: nothing has to arrive for the page)
  const relayed = await startServer(path.resolve(process.argv[2] || 'build/tabula'), {
    db: path.join(tempDir('tabula-e2e-mail-'), 'mail.db'), args: ['--smtp', 'smtp://127.0.0.1:9'],
  });
  try {
    const phone = await context(PHONE);
    const p = phone.page;
    await p.goto(`${relayed.base}/account.html`);
    await p.waitForSelector('#signup-form');
    await p.fill('#signup-name', 'Maud');
    await p.fill('#signup-password', PASSWORD);
    await p.click('#signup');
    await p.waitForURL(/\/me\.html$/);
    await p.goto(`${relayed.base}/account.html`);
    await p.waitForSelector('#email-address');
    assertEq((await p.textContent('#email-state')).trim(), 'No address yet.', 'no address yet');
    await p.fill('#email-address', 'maud@b'); // an address the browser takes and the server refuses
    await p.click('#save-email');
    await p.waitForSelector('#email-error:not([hidden])');
    assertEq((await p.textContent('#email-error')).trim(), 'That is not an e-mail address.', 'refused in words');
    await p.fill('#email-address', 'maud@example.org');
    await p.click('#save-email');
    await p.waitForFunction(() => /maud@example\.org/.test(document.getElementById('email-state').textContent));
    assertEq((await p.textContent('#email-state')).trim(), 'We sent a link to maud@example.org: open it to confirm the address.', 'pending');
    assert(await p.isHidden('#email-error'), 'the error is gone');
    await p.click('#turn-emails');
    await p.waitForFunction(() => fetch('/api/me/email').then((r) => r.json()).then((j) => j.turn_emails === false));
    assert(!(await p.isChecked('#turn-emails')), 'off');
    assert(await noSideways(p), 'no sideways scroll (phone)');
    const box = await p.locator('#save-email').boundingBox();
    assert(box && box.height >= 44 && box.x >= 0 && box.x + box.width <= 390, `the button fits and is tappable: ${JSON.stringify(box)}`);
    await p.locator('#email-form').scrollIntoViewIfNeeded();
    await p.screenshot({ path: path.join(path.dirname(new URL(import.meta.url).pathname), 'artifacts', 'accounts-email-phone.png') });
    // the same page at 1280×800, in Spanish (the account's language): no English on the card
    await p.setViewportSize(DESKTOP.viewport);
    await p.selectOption('#account-lang', 'es');
    await p.waitForFunction(() => document.documentElement.lang === 'es');
    await p.waitForFunction(() => /maud@example\.org/.test((document.getElementById('email-state') || {}).textContent || ''));
    assert(await noSideways(p), 'no sideways scroll (desktop)');
    await assertNoEnglish(p, 'account page with its e-mail card', { allow: ['maud', 'example', 'org'] });
    await shot(p, 'email-desktop-es');
    await phone.ctx.close();
  } finally {
    await relayed.stop();
  }
});

t.test('a seat link a friend sent, opened here, is kept at sign-up too', async () => {
  const g = (await api(server, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human', name: 'Host' }, { kind: 'human', name: 'Friend' }] })).json;
  const { ctx, page } = await context(DESKTOP);
  await page.goto(`${server.base}${g.seats[1].link}`);
  await page.waitForSelector('#crumb b');
  await page.goto(`${server.base}/account.html`);
  await page.fill('#signup-name', `Friend ${Date.now() % 100000}`);
  await page.fill('#signup-password', PASSWORD);
  await page.click('#signup');
  await page.waitForURL(/\/me\.html$/);
  await page.waitForSelector(`#me-games [data-game="${g.id}"]`);
  const sum = (await api(server, 'GET', `/api/games/${g.id}`)).json;
  assertEq(sum.seats.map((x) => x.account), [false, true], 'the friend\'s seat is the new account\'s, the host\'s is not');
  await ctx.close();
});

await finish();
