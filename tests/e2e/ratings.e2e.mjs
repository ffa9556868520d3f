// ratings.e2e.mjs TABULA — the leaderboard and the player's profile in the
// browser, after rated games (issue 28; docs/ratings.md): the lobby's header
// leads to the leaderboard; it lists the people and the computer levels on
// one scale, best first, marks the signed-in player's row and says where
// they stand against the computer; a player's name opens their profile,
// whose rating history is an SVG line against the levels' dashed lines,
// with wins by game and recent games.  Both pages at 390×844 and 1280×800
// (no wider than the screen), and in Spanish with no English word left.
// A name holding HTML shows as those characters.  Screenshots go to
// tests/e2e/artifacts/ratings-*.png.
import { api, assert, assertEq, playSeat, WsClient } from '../server/lib.mjs';
import { browserSuite } from './browser.mjs';
import { assertNoEnglish, spanishPage } from './i18n-check.mjs';

const { server, browser, t, newPage, shot, finish } = await browserSuite({ title: 'browser tests (ratings)', prefix: 'ratings-', aiDelay: 0 });

const SIZES = [[390, 844], [1280, 800]];
const NAME = 'Ana <i>Ruiz</i>';
let cookie = null;

async function ratedGames() {
  const res = await api(server, 'POST', '/api/accounts', { name: NAME, password: 'correct horse' });
  assertEq(res.status, 201, `sign up (${res.text.slice(0, 200)})`);
  const value = (res.headers.get('set-cookie') || '').match(/tabula_session=([^;]*)/)[1];
  cookie = value;
  for (let i = 0; i < 2; i++) {
    const g = await api(server, 'POST', '/api/games', { game: 'clans', rated: true,
      seats: [{ kind: 'human', account: NAME }, { kind: 'ai', level: 'easy' }] });
    assertEq(g.status, 201, `rated game (${g.text.slice(0, 200)})`);
    const ws = await WsClient.connect(server.port, `?game=${g.json.id}`, { headers: { Cookie: `tabula_session=${value}` } });
    await playSeat(ws);
    ws.close();
  }
}

async function signedIn(page) {
  await page.context().addCookies([{ name: 'tabula_session', value: cookie, url: server.base }]);
}

// A guest's GET /api/me answers 401 and an unknown player's profile 404: the
// browser logs both, the pages handle them.
const ALLOW = /status of (401 \(Unauthorized\)|404 \(Not Found\))/;
const fits = (page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

t.test('after rated games the leaderboard, reached from the lobby, lists people and computers and says where you stand', async () => {
  await ratedGames();
  const page = await newPage({ allow: ALLOW });
  await signedIn(page);
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await page.goto(`${server.base}/`);
    await page.click(width < 600 ? '#lobby-leaderboard-phone' : '#lobby-leaderboard'); // a phone: under the opening words
    await page.waitForURL(/leaderboard\.html\?game=clans/);
    await page.waitForSelector('table.leaderboard tbody tr');
    const rows = await page.$$eval('table.leaderboard tbody tr', (trs) => trs.map((tr) => ({
      computer: tr.classList.contains('computer'), you: tr.classList.contains('you'),
      who: tr.querySelector('.who-cell a, .who-cell .computer-name').textContent,
      rating: Number(tr.querySelector('td.num b').textContent),
    })));
    assertEq(rows.filter((r) => r.computer).length, 3, 'the three computer levels');
    const mine = rows.find((r) => !r.computer);
    assertEq([mine.who, mine.you], [NAME, true], 'the player, named as text, marked as you');
    for (let i = 1; i < rows.length; i++) assert(rows[i - 1].rating >= rows[i].rating, 'best first');
    assert(/^You (play|do not yet play) .* computer\.$/.test(await page.textContent('#your-standing')),
      `where you stand: ${await page.textContent('#your-standing')}`);
    assert(await fits(page), `no wider than the screen at ${width}`);
    await shot(page, `leaderboard-${width}`);
  }
});

t.test('the profile: rating history against the computer levels, wins by game, recent games', async () => {
  const page = await newPage({ allow: ALLOW });
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await page.goto(`${server.base}/leaderboard.html?game=clans`);
    await page.click('table.leaderboard a.player-link');
    await page.waitForSelector('.rating-graph');
    assertEq(await page.textContent('#player-name'), NAME, 'the name as text');
    assertEq(await page.$$eval('.rating-graph circle', (c) => c.length), 2, 'a point per rated game');
    assertEq(await page.$$eval('.rating-graph line.level', (l) => l.length), 3, 'the levels\' lines');
    assert(/Plays|does not yet/i.test(await page.textContent('.rating-card .standing')), 'where the player stands');
    assertEq(await page.$$eval('.card h2', (h) => h.map((x) => x.textContent).filter((x) => /Wins|Recent/.test(x))),
      ['Wins by game', 'Recent games'], 'wins and games');
    assertEq(await page.$$eval('table.games tbody tr a.button', (a) => a.length), 2, 'each game opens its replay');
    assert(await fits(page), `no wider than the screen at ${width}`);
    await shot(page, `player-${width}`);
  }
  await page.goto(`${server.base}/player.html?name=nobody`);
  await page.waitForSelector('#profile .card');
  assertEq(await page.textContent('#player-name'), 'No such player', 'an unknown player said plainly');
});

t.test('in Spanish, both pages have no English word left', async () => {
  for (const [width, height] of SIZES) {
    const page = await spanishPage(browser, { width, height });
    await page.goto(`${server.base}/leaderboard.html?game=clans`);
    await page.waitForSelector('table.leaderboard tbody tr');
    await assertNoEnglish(page, `leaderboard ${width}`, { allow: ['Ana', 'Ruiz'] });
    await page.goto(`${server.base}/player.html?name=${encodeURIComponent(NAME)}`);
    await page.waitForSelector('.rating-graph');
    await assertNoEnglish(page, `profile ${width}`, { allow: ['Ana', 'Ruiz'] });
    if (width === 390) await shot(page, 'player-es-390');
    await page.context().close();
  }
});

await finish();
