// clans.e2e.mjs TABULA — browser test of the whole product with
// playwright-core (pinned in package.json) driving Debian's /usr/bin/chromium:
// create a Clans game against the computer in the lobby, play it to the end
// by clicking territories on the SVG board, check the board follows every
// decision, check a spectator never sees a secret colour, then step the
// replay viewer through the finished game; the deduction aid (an option,
// off by default) for the seat only.  Screenshots go to
// tests/e2e/artifacts/.  A missing browser or package is a failure.
import { assert, assertEq, sleep } from '../server/lib.mjs';
import { spanishPass } from './spanish-games.mjs';
import { browserSuite, recordAnimations, startedAnimations } from './browser.mjs';

const { server, browser, t, errors, newPage, shot, finish, tabula, dir } = await browserSuite({ title: 'browser tests (Clans)', prefix: '', aiDelay: 250 });

// Huts on one territory of the board, as drawn: {colour: count}.
async function hutsOn(page, id) {
  return page.$$eval(`g[data-id="${id}"] .hut`, (hs) => Object.fromEntries(hs.map((h) =>
    [h.getAttribute('class').replace(/.*hut-/, ''), Number(h.querySelector('text').textContent)])));
}

let gameUrl = null, spectatorUrl = null;

t.test('the lobby creates a Clans game against the computer', async () => {
  const page = await newPage();
  await page.goto(server.base + '/');
  await page.waitForSelector('.game-choice[data-game="clans"]');
  await shot(page, '01-lobby');
  await page.click('.game-choice[data-game="clans"]');
  await page.selectOption('#players', '4');
  const kinds = await page.$$eval('[data-seat-kind]', (s) => s.map((x) => x.value));
  assertEq(kinds, ['human', 'ai', 'ai', 'ai'], 'default seats: you against the computer');
  // a name of one long word (the points by stage must still fit a phone)
  await page.fill('input[aria-label="Seat 1 name"]', 'Wolfeschlegelsteinhausen');
  await page.selectOption('[data-seat-level="3"]', 'easy');
  await page.click('#create');
  await page.waitForSelector('#created:not([hidden]) [data-play-seat="0"]');
  await shot(page, '02-created');
  spectatorUrl = server.base + (await page.getAttribute('#created a[href*="game.html"]:not([data-play-seat])', 'href'));
  gameUrl = server.base + (await page.getAttribute('[data-play-seat="0"]', 'href'));
  assert(/token=[A-Za-z0-9_-]{22,}/.test(gameUrl), 'the seat link carries a token');
  // the new game is listed
  await page.waitForSelector('table.games tr[data-game-id]', { timeout: 10000 });
  await page.close();
});

t.test('a whole game played by clicking; the board follows every decision; a spectator sees no secret', async () => {
  const page = await newPage();
  // every title the tab shows, in order (the turn signal)
  await page.addInitScript(() => {
    window.titles = [];
    const seen = () => { if (window.titles[window.titles.length - 1] !== document.title) window.titles.push(document.title); };
    document.addEventListener('DOMContentLoaded', () => {
      seen();
      new MutationObserver(seen).observe(document.querySelector('title'), { childList: true, characterData: true, subtree: true });
    });
  });
  await page.goto(gameUrl);
  await page.waitForSelector('.clans-board .territory');
  assertEq(await page.$$eval('.clans-board .territory', (x) => x.length), 60, '60 territories drawn');
  const myColour = await page.textContent('#your-colour');
  assert(/^(Red|Blue|Green|Yellow|Black)$/.test(myColour), `secret colour shown to its owner (${myColour})`);
  const spec = await newPage();
  await spec.goto(spectatorUrl);
  await spec.waitForSelector('.clans-board .territory');
  let decisions = 0, villagesChosen = 0, checkedMoves = 0;
  for (let turn = 0; turn < 200; turn++) {
    // wait until it is our turn or the game is over
    await page.waitForFunction(() => document.querySelector('#result:not([hidden])') ||
      document.querySelector('.legal-source, .legal-village'), null, { timeout: 30000 });
    if (await page.$('#result:not([hidden])')) break;
    if (decisions === 0) {
      await shot(page, '03-first-turn');
      // the tab tells the player it is their turn: title and icon
      await page.waitForFunction(() => document.title.startsWith('● Your turn'), null, { timeout: 5000 });
      assert((await page.getAttribute('link[rel="icon"]', 'href')).startsWith('data:image/svg+xml'), 'the tab icon carries a dot');
      assert(!(await spec.title()).includes('Your turn'), 'a spectator is never told it is their turn');
      assertEq(await spec.$('#turn-sound'), null, 'a spectator has no turn signals to set');
      // "What can I do now?" says it in words, open on a desktop
      assert((await page.textContent('.what-now li[data-kind="move"]')).startsWith('Move all huts of a territory'), 'the turn card says what we can do');
      assert(await page.$eval('.what-now', (d) => d.open), 'open on a desktop');
      // a hint: the computer's choice for this position, with a reason
      await page.click('#hint-button');
      await page.waitForSelector('#hint', { timeout: 20000 });
      const hint = await page.textContent('#hint');
      assert(/^Hint: Wolfeschlegelsteinhausen moves \d+ huts? from the \w+ at \d+/.test(hint) && /you win about \d+%/.test(hint), `the hint says what and why (${hint})`);
      assert(!/computer wins|\b\d+-\d+\b/.test(hint), `whose chance it is, and no notation (${hint})`);
      assert(!/\d+ ways/.test(await page.textContent('.what-now')), 'each kind explained, no ways counted');
      await shot(page, '03b-hint');
      await page.check('#turn-sound');
      assertEq(await page.evaluate(() => localStorage.getItem('tabula.turnSound')), 'on', 'the sound choice is kept');
      await page.uncheck('#turn-sound');
    }
    const n = await page.$$eval('.log .entry', (x) => x.length);
    if (await page.$('.legal-village')) {
      await page.click('.legal-village >> nth=0');
      villagesChosen++;
    } else {
      const sources = await page.$$eval('.legal-source', (g) => g.map((x) => Number(x.dataset.id)));
      const from = sources[(turn * 7) % sources.length];
      await page.click(`.territory[data-id="${from}"]`);
      await page.waitForSelector('.legal-target');
      const targets = await page.$$eval('.legal-target', (g) => g.map((x) => Number(x.dataset.id)));
      const to = targets[turn % targets.length];
      const before = { from: await hutsOn(page, from), to: await hutsOn(page, to) };
      if (decisions === 3) {
        await page.hover(`.territory[data-id="${to}"]`, { force: true });
        await shot(page, '04-choosing-a-move');
      }
      await page.click(`.territory[data-id="${to}"]`, { force: true });
      // The first render after the click: the log has grown.  If no computer
      // move slipped in before this snapshot, the huts must add up exactly.
      const snap = await (await page.waitForFunction(([k, a, b]) => {
        const len = document.querySelectorAll('.log .entry').length;
        if (len <= k) return null;
        const count = (id) => [...document.querySelectorAll(`g[data-id="${id}"] .hut text`)].reduce((x, e) => x + Number(e.textContent), 0);
        return { len, from: count(a), to: count(b), badge: !!document.querySelector(`g[data-id="${b}"] .badge`) };
      }, [n, from, to], { polling: 5, timeout: 15000 }).catch(async (e) => {
        await shot(page, 'failed-move');
        throw new Error(`move ${from}-${to} did not show up in the log: ${e.message}`);
      })).jsonValue();
      assertEq(snap.from, 0, `territory ${from} is empty after ${from}-${to}`);
      const moved = Object.values(before.from).reduce((a, b) => a + b, 0) + Object.values(before.to).reduce((a, b) => a + b, 0);
      if (process.env.E2E_DEBUG) console.log('#', n, snap);
      if (snap.len === n + 1) {
        assert(snap.to === moved || (snap.to < moved && snap.badge),
          `huts of ${from} arrive on ${to} (${snap.to} of ${moved}, fewer only by strife or ruin)`);
        checkedMoves++;
      }
      const [logText, logMove] = await page.$$eval('.log .entry', (x) => [x[x.length - 1].textContent, x[x.length - 1].dataset.move]);
      assert((logMove === `${from}-${to}` && new RegExp(`from the \\w+ at ${from} to the \\w+ at ${to}`).test(logText))
        || (await page.$$eval('.log .entry', (x) => x.length)) > n + 1, `the move log shows the decision in words (${logText})`);
      assert(!logText.includes(`${from} → ${to}`), `no notation after the words (${logText})`);
    }
    decisions++;
    if (decisions === 10) await shot(page, '05-mid-game');
    if (decisions === 6) {
      // The log tells the story in words, and a decision clicked shows the
      // board just after it; "Back to the game" returns to the live board.
      const said = await page.$$eval('.log .entry .words', (x) => x.map((e) => e.textContent));
      assert(said.some((w) => /^Wolfeschlegelsteinhausen moves \d+ huts? from the \w+ at \d+ to the \w+ at \d+/.test(w)),
        `the log tells our moves in words (${said.slice(0, 2).join(' | ')})`);
      const occupied = () => page.$$eval('g[data-id]', (g) => new Set(g.filter((x) => x.querySelector('.hut')).map((x) => x.dataset.id)).size);
      await page.click('.log .entry[data-n="1"]');
      await page.waitForSelector('#look-return');
      assert((await page.textContent('#turn')).includes('Looking back'), 'the turn card says we are looking back');
      assertEq(await occupied(), 59, 'the board after decision 1: one territory emptied');
      assertEq(await page.$$eval('.legal-source', (x) => x.length), 0, 'nothing can be played while looking back');
      await shot(page, '05b-looking-back');
      await page.click('#look-return');
      await page.waitForFunction(() => !document.querySelector('#look-return'));
      assert(await occupied() < 59, 'back at the live board');
    }
    if (decisions === 4) {
      // The spectator (early, long before any game can end): same board, no colour of any seat.
      await spec.waitForFunction((k) => document.querySelectorAll('.log .entry').length >= k, n + 1);
      assertEq(await spec.$('#result:not([hidden])'), null, 'the game is still running');
      assertEq(await spec.$('#your-colour'), null, 'a spectator has no secret colour');
      assertEq(await spec.$$eval('.player .clan-swatch', (x) => x.length), 0, 'a spectator sees no seat colour');
      assertEq(await page.$$eval('.player .clan-swatch', (x) => x.length), 1, 'a seat sees only its own colour');
      await shot(spec, '06-spectator');
    }
  }
  await page.waitForSelector('#result:not([hidden])', { timeout: 30000 });
  const titles = await page.evaluate(() => window.titles);
  const turns = titles.filter((x) => x.startsWith('● Your turn')).length;
  assert(turns >= 3 && turns >= titles.length / 2 - 1, `the tab says "your turn" at each of our turns and stops in between (${turns} of ${titles.length} titles)`);
  assert(!titles[titles.length - 1].startsWith('● Your turn'), 'and not once the game is over');
  assert(decisions >= 5, `played a real game (${decisions} decisions by clicking, ${villagesChosen} village choices)`);
  assert(checkedMoves >= 3, `hut arithmetic checked on ${checkedMoves} moves`);
  const rows = await page.$$eval('#result > table tr[data-seat]', (r) => r.length);
  assertEq(rows, 4, 'result lists every seat');
  await checkBreakdown(page);
  assertEq(await page.$$eval('.player .clan-swatch', (x) => x.length), 4, 'every colour revealed at the end');
  const villages = await page.$$eval('.clans-board .badge', (x) => x.length);
  assert(villages >= 1, 'villages on the board');
  await shot(page, '07-game-over');
  await spec.waitForSelector('#result:not([hidden])');
  await spec.context().close();
  await page.close();
});

// The score graph's labels as a player sees them: at least 11 px on the
// screen (the graph is drawn at its shown size), every stage of the table
// named under the graph (a five-epoch game: Epoch I to V, none left out),
// and the value axis counting up in distinct steps.
async function graphLabels(page, where) {
  await page.waitForFunction(() => {
    const g = document.querySelector('#story .score-graph');
    return g && Math.abs(g.viewBox.baseVal.width - g.getBoundingClientRect().width) < 2;
  }, null, { timeout: 3000 }).catch(() => {});
  const got = await page.$eval('#story', (box) => {
    const g = box.querySelector('.score-graph');
    const scale = g.getBoundingClientRect().width / g.viewBox.baseVal.width;
    const texts = [...g.querySelectorAll('text')];
    return { smallest: Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)),
      labelled: [...g.querySelectorAll('.stage-name')].map((t) => t.dataset.stage),
      stages: [...box.querySelectorAll('.stage-table tbody tr.stage th')].map((th) => th.textContent),
      ticks: [...g.querySelectorAll('.axis')].map((t) => Number(t.textContent)) };
  });
  assert(got.smallest >= 11, `the graph's labels are at least 11 px at ${where} (${got.smallest.toFixed(1)} px)`);
  assertEq(got.labelled, got.stages, `every stage is named under the graph at ${where}`);
  assertEq(got.stages, ['Epoch I', 'Epoch II', 'Epoch III', 'Epoch IV', 'Epoch V'], 'a five-epoch game');
  assert(got.ticks.every((v, i) => i === 0 || v > got.ticks[i - 1]), `the value axis counts up (${got.ticks})`);
}

// The result's breakdown: for every seat, sources whose points add up to the
// score the result table shows (issue 14), in Clans' words.
async function checkBreakdown(page) {
  const shown = await page.$$eval('#result > table tr[data-seat]', (rows) => Object.fromEntries(rows.map((r) =>
    [r.dataset.seat, Number(r.lastElementChild.textContent.replace(/\D/g, ''))])));
  const seats = await page.$$eval('#breakdown .breakdown-seat', (list) => list.map((s) => ({
    seat: s.dataset.seat,
    sum: [...s.querySelectorAll('tbody td.pts')].reduce((a, d) => a + Number(d.textContent), 0),
    total: Number(s.querySelector('tfoot td.pts').textContent),
    sources: [...s.querySelectorAll('tbody td:first-child')].map((d) => d.textContent),
  })));
  assertEq(seats.length, 4, 'the result breaks down every seat\'s points');
  for (const s of seats) {
    assertEq(s.sum, shown[s.seat], `seat ${Number(s.seat) + 1}: the sources add up to the score shown`);
    assertEq(s.total, shown[s.seat], `seat ${Number(s.seat) + 1}: the total is the score shown`);
    for (const src of s.sources) assert(/^(Epoch (I|II|III|IV|V) villages|Terrain bonuses|Chips|Nothing scored)$/.test(src), `a source in words: ${src}`);
  }
  assert(seats.some((s) => s.sources.some((x) => x.startsWith('Epoch'))), 'villages scored by epoch');
}

t.test('the replay viewer steps through the finished game', async () => {
  const page = await newPage();
  await page.goto(gameUrl);
  await page.waitForSelector('#open-replay');
  await page.click('#open-replay');
  await page.waitForSelector('#replay-bar:not([hidden])');
  await page.waitForFunction(() => /^Decision 0 of \d+/.test(document.querySelector('#replay-step').textContent));
  const total = Number((await page.textContent('#replay-step')).match(/of (\d+)/)[1]);
  assert(total > 20, `a whole game to replay (${total})`);
  const at0 = await page.$$eval('.clans-board .hut', (h) => h.length);
  assertEq(at0, 60, 'the start: one hut on each of 60 territories');
  await shot(page, '08-replay-start');
  for (let i = 1; i <= 3; i++) {
    await page.click('#replay-next');
    await page.waitForFunction((k) => document.querySelector('#replay-step').textContent.startsWith(`Decision ${k} of`), i);
  }
  assertEq(await page.$$eval('.log .entry.current', (x) => x.map((e) => e.dataset.n)), ['3'], 'log marks decision 3');
  await page.click('#replay-prev');
  await page.waitForFunction(() => document.querySelector('#replay-step').textContent.startsWith('Decision 2 of'));
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#replay-step').textContent.startsWith('Decision 3 of'));
  const empty = () => page.$$eval('.clans-board .territory', (ts) => ts.map((t) => Number(t.dataset.id))
    .filter((id) => !document.querySelector(`g[data-id="${id}"] .hut`)).sort((a, b) => a - b));
  const sources = await page.$$eval('.log .entry', (m) => m.slice(0, 3).map((x) => Number(x.dataset.move.split('-')[0])));
  assertEq(await empty(), [...sources].sort((a, b) => a - b), 'after three moves exactly their sources are empty');
  const third = (await page.$$eval('.log .entry', (m) => m[2].dataset.move)).match(/(\d+)-(\d+)/).slice(1).map(Number);
  assertEq(await page.$$eval('.clans-board .territory.last-move', (g) => g.map((x) => Number(x.dataset.id)).sort((a, b) => a - b)),
    third.sort((a, b) => a - b), 'stepping marks the territories of the decision just stepped over');
  await page.click('#replay-last');
  await page.waitForFunction((k) => document.querySelector('#replay-step').textContent.startsWith(`Decision ${k} of`), total);
  await page.waitForSelector('#result:not([hidden])');
  await checkBreakdown(page);
  await shot(page, '09-replay-end');
  // on a phone the breakdown fits the width, two seats side by side
  await page.setViewportSize({ width: 390, height: 844 });
  const fit = await page.$eval('#breakdown', (b) => {
    const seats = [...b.querySelectorAll('.breakdown-seat')];
    return { shown: b.getBoundingClientRect().width > 0, right: Math.max(...seats.map((s) => s.getBoundingClientRect().right)),
      overflow: seats.some((s) => s.scrollWidth > s.clientWidth), width: window.innerWidth };
  });
  if (fit.shown) {
    assert(fit.right <= fit.width && !fit.overflow, `the breakdown fits a 390 px phone (${JSON.stringify(fit)})`);
    await page.$eval('#breakdown', (b) => b.scrollIntoView());
    await shot(page, '09-replay-end-breakdown-phone');
  }
  // and so does the story: the points by stage show every seat and the
  // totals without scrolling sideways; the stage names under the graph are
  // inside it and never written over each other
  await page.waitForSelector('#story .stage-table');
  const story = await page.$eval('#story', (box) => {
    const wrap = box.querySelector('.stage-table-wrap');
    const g = box.querySelector('.score-graph').getBoundingClientRect();
    const names = [...box.querySelectorAll('.score-graph .stage-name')].map((t) => t.getBoundingClientRect());
    // a seat's name wraps at its spaces, never inside a word ("Compute r 1"); a word
    // longer than the column can hold is cut with an ellipsis, whole in the tooltip
    const isCut = (th) => { const n = th.querySelector('.name-cut'); return n.scrollWidth > n.clientWidth + 0.5; };
    const cut = [...wrap.querySelectorAll('thead th[data-col-seat]')].filter(isCut)
      .map((th) => ({ title: th.querySelector('.name-cut').title, ellipsis: getComputedStyle(th.querySelector('.name-cut')).textOverflow }));
    const broken = [...wrap.querySelectorAll('thead th[data-col-seat]')].filter((th) => !isCut(th)).filter((th) => {
      const word = th.textContent.split(/\s+/).reduce((a, b) => (b.length > a.length ? b : a), '');
      const probe = document.createElement('span');
      probe.style.whiteSpace = 'nowrap';
      probe.textContent = word;
      th.append(probe);
      const need = probe.getBoundingClientRect().width;
      probe.remove();
      const cs = getComputedStyle(th);
      return need > th.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) + 0.5;
    }).map((th) => th.textContent);
    // a stage's name ("Epoch II") on one line, not a word a line
    const lines = (th) => { const r = document.createRange(); r.selectNodeContents(th); return r.getClientRects().length; };
    const folded = [...wrap.querySelectorAll('tbody tr.stage th')].filter((th) => lines(th) > 1).map((th) => th.textContent);
    return { wide: wrap.scrollWidth, room: wrap.clientWidth, broken, cut, folded, names: names.length, ws: [...wrap.querySelectorAll('thead th, tbody tr:first-child th')].map((x) => [x.textContent, Math.round(x.getBoundingClientRect().width)]),
      outside: names.filter((r) => r.left < g.left || r.right > g.right).length,
      overlap: names.some((r, i) => i > 0 && r.left < names[i - 1].right) };
  });
  assert(story.wide <= story.room, `the points by stage fit a 390 px phone (${story.wide} px in ${story.room}) ${JSON.stringify(story.ws)}`);
  assertEq(story.broken, [], 'seat names of the points by stage broken inside a word');
  assertEq(story.cut, [{ title: 'Wolfeschlegelsteinhausen', ellipsis: 'ellipsis' }], 'the name of one long word is cut with an ellipsis, whole in its tooltip');
  assertEq(story.folded, [], 'stage names of the points by stage folded over lines');
  assert(story.names > 0 && story.outside === 0 && !story.overlap, `the stage names fit under the graph (${JSON.stringify(story)})`);
  await graphLabels(page, 'a 390 px phone');
  await page.setViewportSize({ width: 1280, height: 800 });
  await graphLabels(page, '1280×800');
  await page.setViewportSize({ width: 1440, height: 960 });
  // the story of the result: a score line per seat, and points by stage that add up
  await page.waitForSelector('#story .score-graph .seat-line');
  assertEq(await page.$$eval('#story .seat-line', (x) => x.length), 4, 'a score line per seat');
  // (a column per seat: its stages' points, then its total)
  const stageRows = await page.$$eval('#story .stage-table thead th[data-col-seat]', (heads) => heads.map((h) => {
    const seat = h.dataset.colSeat;
    const cells = [...h.closest('table').querySelectorAll(`tbody td[data-col-seat="${seat}"]`)].map((d) => Number(d.textContent));
    const total = Number(h.closest('table').querySelector(`tfoot td[data-col-seat="${seat}"]`).textContent);
    return { seat, sum: cells.reduce((a, b) => a + b, 0), total };
  }));
  const finalScores = await page.$$eval('#result > table tr[data-seat]', (rows) => Object.fromEntries(rows.map((r) =>
    [r.dataset.seat, Number(r.lastElementChild.textContent.replace(/\D/g, ''))])));
  assertEq(stageRows.length, 4, 'points by stage for every seat');
  for (const r of stageRows) {
    assertEq(r.sum, r.total, 'the points by stage add up to the total');
    assertEq(r.total, finalScores[r.seat], 'the total is the result');
  }
  assert((await page.$$eval('#story .stage-table tbody th', (x) => x.map((e) => e.textContent))).includes('Epoch I'), 'the stages are the epochs');
  const gb = await (await page.$('#story .score-graph')).boundingBox();
  await page.click('#story .score-graph', { position: { x: gb.width * 0.3, y: gb.height / 2 } });
  await page.waitForFunction((k) => !document.querySelector('#replay-step').textContent.startsWith(`Decision ${k} of`), total);
  assert(Number((await page.textContent('#replay-step')).match(/Decision (\d+)/)[1]) < total, 'clicking the graph goes to that moment');
  // jump with the slider
  await page.$eval('#replay-slider', (s, k) => { s.value = String(k); s.dispatchEvent(new Event('input')); }, Math.floor(total / 2));
  await page.waitForFunction((k) => document.querySelector('#replay-step').textContent.startsWith(`Decision ${k} of`), Math.floor(total / 2));
  await shot(page, '10-replay-middle');
  await page.click('#replay-first');
  await page.waitForFunction(() => document.querySelector('#replay-step').textContent.startsWith('Decision 0 of'));
  assertEq(await page.$$eval('.clans-board .hut', (h) => h.length), 60, 'back at the start');
  await page.close();
});

// A person's page in a new two-player game against the computer whose first
// connection never passes messages of `type` on to the server; `cut()` then
// closes that connection (the page reconnects by itself).
async function pageLosingFirst(type, name) {
  const r = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'clans', players: 2, seats: [{ kind: 'human', name }, { kind: 'ai', level: 'easy' }] }) });
  const g = await r.json();
  const page = await newPage();
  let first = null;
  await page.routeWebSocket(/\/ws\?/, (ws) => {
    const srv = ws.connectToServer();
    const mine = !first;
    if (mine) first = ws;
    ws.onMessage((m) => { if (!(mine && JSON.parse(m).type === type)) srv.send(m); });
  });
  await page.goto(`${server.base}${g.seats[0].link}`);
  const cut = async () => {
    await first.close();
    await page.waitForSelector('#banner:not([hidden])');
    await page.waitForFunction(() => document.querySelector('#conn-text').textContent === 'connected' && document.querySelector('#banner').hidden);
  };
  return { page, cut };
}

t.test('a hint asked as the connection drops can be asked again once the page is back', async () => {
  const { page, cut } = await pageLosingFirst('hint', 'Hinter');
  await page.waitForSelector('#hint-button:not([disabled])');
  // (the computer's seat says its level as the lobby does, not the engine's agent behind it)
  assertEq(await page.textContent('.player[data-seat="1"] .sub'), 'Computer · easy', 'the computer seat in words');
  await page.click('#hint-button');
  await page.waitForSelector('#hint-button[disabled]');
  await cut();
  await page.waitForSelector('#hint-button:not([disabled])', { timeout: 5000 });
  await page.click('#hint-button');
  await page.waitForSelector('#hint', { timeout: 20000 });
  assert(/^Hint: Hinter /.test(await page.textContent('#hint')), 'the hint came on the new connection');
  await page.close();
});

t.test('a move lost with the connection can be played again once the page is back', async () => {
  const { page, cut } = await pageLosingFirst('decide', 'Mover');
  await page.waitForSelector('.legal-source');
  const from = await page.$eval('.legal-source', (x) => x.dataset.id);
  await page.click(`.territory[data-id="${from}"]`);
  await page.waitForSelector('.legal-target');
  const to = await page.$eval('.legal-target', (x) => x.dataset.id);
  await page.click(`.territory[data-id="${to}"]`);
  await page.waitForFunction(() => !document.querySelector('.legal-source')); // sent: the board waits
  await cut();
  await page.waitForSelector('.legal-source', { timeout: 5000 }); // nothing arrived: still our turn, and the board takes it
  await page.click(`.territory[data-id="${from}"]`);
  await page.click(`.territory[data-id="${to}"]`);
  await page.waitForSelector('.log .entry[data-n="1"]', { timeout: 10000 });
  await page.close();
});

t.test('a moment of the log that cannot be shown leaves the page on the live board, saying so', async () => {
  const r = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'clans', players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }] }) });
  const g = await r.json();
  for (let i = 0; i < 400 && (await (await fetch(`${server.base}/api/games/${g.id}`)).json()).status !== 'over'; i++) await sleep(100);
  // (a page of its own: the failed request below is logged by the browser as an error)
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  await page.goto(`${server.base}/game.html?game=${g.id}`);
  await page.waitForSelector('#result:not([hidden])');
  await page.click('.log .entry[data-n="1"]');
  await page.waitForSelector('#look-return');
  await page.route(/\/replay\/\d+/, (route) => route.fulfill({ status: 500, contentType: 'application/json',
    body: JSON.stringify({ error: { code: 'store_failed', message: 'the store could not be read' } }) }));
  await page.click('.log .entry[data-n="2"]');
  await page.waitForSelector('.toast.error');
  assert((await page.textContent('.toast.error')).startsWith('Cannot show that moment'), 'the player is told');
  await page.waitForFunction(() => !document.querySelector('#look-return'), null, { timeout: 3000 });
  assert((await page.textContent('#turn')).includes('Game over'), 'the turn card is the live one again');
  await ctx.close();
});

t.test('the generic renderer (for games without their own) plays by buttons', async () => {
  const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'clans', players: 2, seats: [{ kind: 'human', name: 'North' }, { kind: 'human', name: 'South' }] }) });
  const g = await res.json();
  const pages = [];
  for (const s of g.seats) {
    const p = await newPage();
    await p.goto(`${server.base}${s.link}&renderer=generic`);
    await p.waitForSelector('.generic .kv');
    pages.push(p);
  }
  for (let i = 0; i < 12; i++) {
    const k = await Promise.race(pages.map((p, idx) => p.waitForSelector('.legal-move', { timeout: 15000 }).then(() => idx)));
    const p = pages[k];
    const other = pages[1 - k];
    assertEq(await other.$('.legal-move'), null, 'only the seat to move gets decisions');
    const moves = await p.$$eval('.legal-move', (b) => b.map((x) => x.dataset.move));
    await p.click(`.legal-move[data-move="${moves[i % moves.length]}"]`);
    await p.waitForFunction((n) => document.querySelectorAll('.log .entry').length === n, i + 1);
    if (i === 5) await shot(p, '11-generic-renderer');
  }
  const text = await pages[0].textContent('.generic .kv');
  assert(/decisions: 12/.test(text), 'the view shows 12 decisions');
  for (const p of pages) await p.context().close();
});

t.test('the deduction aid: off by default; turned on, it shows the other seats\' likely colours with percentages, for the seat only', async () => {
  const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'clans', players: 3, seats: [{ kind: 'human', name: 'Tester' }, { kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }] }) });
  const g = await res.json();
  const page = await newPage();
  await page.goto(`${server.base}${g.seats[0].link}`);
  await page.waitForSelector('.clans-board .territory');
  // off by default: offered in the settings, unchecked, no panel
  await page.click('#settings-button');
  await page.waitForSelector('#setting-deduce-box:not([hidden]) #setting-deduce');
  assertEq(await page.isChecked('#setting-deduce'), false, 'off by default');
  assert(await page.$eval('#deduce', (d) => d.hidden), 'no deduction panel by default');
  assertEq(await page.evaluate(() => localStorage.getItem('tabula.showDeduction')), null, 'nothing stored yet');
  await page.click('#settings-button'); // closed again
  // a few decisions: ours by clicking, the computer's in between
  const decideOnce = async (turn) => {
    await page.waitForSelector('.legal-source, .legal-village', { timeout: 30000 });
    const n = await page.$$eval('.log .entry', (x) => x.length);
    if (await page.$('.legal-village')) {
      await page.click('.legal-village >> nth=0');
    } else {
      const sources = await page.$$eval('.legal-source', (x) => x.map((e) => Number(e.dataset.id)));
      const from = sources[(turn * 5) % sources.length];
      await page.click(`.territory[data-id="${from}"]`);
      await page.waitForSelector('.legal-target');
      const targets = await page.$$eval('.legal-target', (x) => x.map((e) => Number(e.dataset.id)));
      await page.click(`.territory[data-id="${targets[turn % targets.length]}"]`, { force: true });
    }
    await page.waitForFunction((k) => document.querySelectorAll('.log .entry').length > k, n);
  };
  await decideOnce(0);
  // turned on: the panel shows every other seat with percentages, never our own seat
  await page.click('#settings-button');
  await page.check('#setting-deduce');
  assertEq(await page.evaluate(() => localStorage.getItem('tabula.showDeduction')), 'on', 'kept in the browser');
  await page.click('#settings-button');
  await page.waitForSelector('#deduce:not([hidden]) #deduce-list .deduce-seat', { timeout: 20000 });
  const seatsShown = await page.$$eval('#deduce-list .deduce-seat', (x) => x.map((e) => Number(e.dataset.seat)));
  assertEq(seatsShown.sort(), [1, 2], 'one line per other seat');
  const text = await page.textContent('#deduce');
  assert(!/Tester/.test(text), `our own seat is not guessed at (${text})`);
  for (const line of await page.$$eval('#deduce-list .deduce-seat', (x) => x.map((e) => e.textContent))) {
    assert(/\d+%|under 1%|over 99%/.test(line), `chances in percent (${line})`);
    assert(/(is probably .+: \d+%|no clear sign yet)/.test(line), `in words (${line})`);
  }
  const myColour = (await page.textContent('#your-colour')).toLowerCase();
  assert(text.includes(`You are ${myColour}.`), `it says our own colour (${text})`);
  assert(!new RegExp(`\\b${myColour} \\d`).test(text), 'our own colour is never offered for another seat');
  // updated after every decision: the panel follows the position
  for (let turn = 1; turn <= 3; turn++) await decideOnce(turn);
  await page.waitForFunction(() => {
    const d = document.querySelector('#deduce');
    const turn = document.querySelector('#turn');
    return d && !d.hidden && d.dataset.n && d.dataset.n === turn.dataset.n;
  }, null, { timeout: 20000 });
  await shot(page, '12-deduction');
  // at a phone's size the panel fits the screen
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForSelector('#deduce:not([hidden]) #deduce-list');
  assert(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling at 390 px');
  const box = await page.$eval('#deduce', (d) => { const r = d.getBoundingClientRect(); return { left: r.left, right: r.right }; });
  assert(box.left >= 0 && box.right <= 390, `the panel fits (${JSON.stringify(box)})`);
  await shot(page, '12b-deduction-phone');
  await page.setViewportSize({ width: 1280, height: 800 });
  // remembered: a reload shows it again
  await page.reload();
  await page.waitForSelector('#deduce:not([hidden]) #deduce-list .deduce-seat', { timeout: 20000 });
  // a spectator never gets one, even with the option stored
  const spec = await newPage();
  await spec.addInitScript(() => localStorage.setItem('tabula.showDeduction', 'on'));
  await spec.goto(`${server.base}/game.html?game=${g.id}`);
  await spec.waitForSelector('.clans-board .territory');
  await spec.waitForFunction(() => document.querySelectorAll('.log .entry').length >= 4);
  assert(await spec.$eval('#deduce', (d) => d.hidden), 'no panel for a spectator');
  assert(await spec.$eval('#setting-deduce-box', (d) => d.hidden), 'not offered to a spectator');
  // turned off again: the panel goes
  await page.click('#settings-button');
  await page.uncheck('#setting-deduce');
  assert(await page.$eval('#deduce', (d) => d.hidden), 'off: the panel is hidden');
  assertEq(await page.evaluate(() => localStorage.getItem('tabula.showDeduction')), 'off', 'kept off');
  await page.context().close();
  await spec.context().close();
});

t.test('the Clans renderer asks for the village order by clicking', async () => {
  // Village choices are rare in random play, so the renderer is driven here
  // directly in the browser with a position whose phase is "village".
  const page = await newPage();
  await page.goto(server.base + '/');
  const sent = await page.evaluate(async () => {
    const { create } = await import('/js/renderers/clans.js');
    const board = await (await fetch('/api/catalog/clans/board')).json();
    const games = (await (await fetch('/api/games?status=all')).json()).games;
    const view = (await (await fetch(`/api/games/${games[0].id}`)).json()).view;
    const boardEl = document.createElement('div'), panelsEl = document.createElement('div');
    document.body.append(boardEl, panelsEl);
    const decided = [];
    const r = create({ boardEl, panelsEl, board, decide: (m) => { decided.push(m); return true; } });
    const v = { ...view, phase: 'village', pending: [12, 17], seat: 0, your_colour: 'red' };
    r.update({ view: v, legal: ['village 12', 'village 17'], yourTurn: true, seat: 0, toMove: 0, n: 5, replay: false });
    const choices = [...boardEl.querySelectorAll('.legal-village')].map((g) => Number(g.dataset.id));
    const sources = boardEl.querySelectorAll('.legal-source').length;
    boardEl.querySelector('.territory[data-id="5"]').dispatchEvent(new MouseEvent('click'));
    boardEl.querySelector('.territory[data-id="17"]').dispatchEvent(new MouseEvent('click'));
    boardEl.querySelector('.territory[data-id="12"]').dispatchEvent(new MouseEvent('click')); // already sent: ignored
    const help = r.instruction({ view: v });
    return { choices, sources, decided, headline: help.headline };
  });
  assertEq(sent.choices, [12, 17], 'the waiting villages are the clickable ones');
  assertEq(sent.sources, 0, 'no hut move is offered while villages wait');
  assertEq(sent.decided, ['village 17'], 'one click sends one village decision');
  assertEq(sent.headline, 'Choose the next village', 'the prompt explains it in words');
  await page.context().close();
});

// The last move: marked until the next decision, animated once on arrival
// (the huts slide from where they came, the glow pulses, under 600 ms);
// with reduced motion the mark stays and nothing moves.
async function clansGame(page) {
  const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'clans', players: 2, seats: [{ kind: 'human', name: 'Mover' }, { kind: 'ai', level: 'random' }] }) });
  const g = await res.json();
  await page.goto(`${server.base}${g.seats[0].link}`);
  await page.waitForSelector('.legal-source', { timeout: 30000 });
  return g;
}
// Clicks a legal hut move; returns [from, to].
async function clickAMove(page) {
  const from = await page.$eval('.legal-source', (g) => Number(g.dataset.id));
  await page.click(`.territory[data-id="${from}"]`);
  await page.waitForSelector('.legal-target');
  const to = await page.$eval('.legal-target', (g) => Number(g.dataset.id));
  await page.click(`.territory[data-id="${to}"]`, { force: true });
  return [from, to];
}
const markedIds = (page) => page.$$eval('.clans-board .territory.last-move', (g) => g.map((x) => Number(x.dataset.id)).sort((a, b) => a - b));

t.test('the last move glows until the next decision and moves once on arrival; reduced motion keeps the glow still', async () => {
  const page = await newPage();
  await recordAnimations(page);
  const g = await clansGame(page);
  assertEq(await startedAnimations(page), [], 'a page opened on a position animates nothing');
  const [from] = await clickAMove(page);
  // the computer's reply: its territories are marked once my turn is back
  await page.waitForFunction(() => document.querySelectorAll('.log .entry').length >= 2 && document.querySelector('.legal-source'), null, { timeout: 30000 });
  const sum = await (await fetch(`${server.base}/api/games/${g.id}`)).json();
  const reply = sum.log.filter((e) => e.seat === 1 && /^\d+-\d+$/.test(e.move)).pop();
  const [a, b] = reply.move.split('-').map(Number);
  const marked = await markedIds(page);
  assert(marked.includes(a) && marked.includes(b), `the computer's move ${reply.move} is marked (${marked})`);
  assert(!marked.includes(from) || from === a || from === b, `my move's source ${from} is no longer marked once the computer has moved (${marked})`);
  assertEq(await page.$$eval('.clans-board .last-glow', (x) => x.length), marked.length, 'a glow on every marked territory');
  await shot(page, '12-last-move');
  // it arrived moving: the huts slid onto its target and the glow pulsed, each under 600 ms
  const played = await page.waitForFunction((to) => {
    const x = (window.animStarts || []).filter((e) => e.id === String(to) && /^clans-(slide|last-pulse)$/.test(e.name));
    return x.some((e) => e.name === 'clans-slide') && x.some((e) => e.name === 'clans-last-pulse') ? x : null;
  }, b, { timeout: 10000 }).then((h) => h.jsonValue()).catch(async (e) => {
    throw new Error(`${e.message}: started ${JSON.stringify(await startedAnimations(page))}`);
  });
  assert(played.every((x) => x.duration > 0 && x.duration <= 600), `the animations last at most 600 ms (${JSON.stringify(played)})`);
  // played once: soon nothing moves, the marks stay, a repaint replays nothing
  await page.waitForTimeout(700);
  const started = (await startedAnimations(page)).length;
  await page.click('.legal-source >> nth=0', { force: true });
  await page.waitForSelector('.legal-target');
  assertEq(await page.$$eval('.clans-board .last-glow, .clans-board .huts', (x) => x.flatMap((e) => e.getAnimations()).length), 0, 'no animation left after 600 ms or on a repaint');
  assertEq((await startedAnimations(page)).slice(started).filter((e) => /^clans-(slide|last-pulse)$/.test(e.name)), [], 'a repaint replays nothing');
  assertEq(await markedIds(page), marked, 'the marks stay until the next decision');
  await page.context().close();

  // Between two people (nobody answers at once): the move is marked on both
  // pages; with reduced motion nothing on the mover's board moves.
  const res = await fetch(`${server.base}/api/games`, { method: 'POST', body: JSON.stringify({
    game: 'clans', players: 2, seats: [{ kind: 'human', name: 'North' }, { kind: 'human', name: 'South' }] }) });
  const g2 = await res.json();
  const pages = [];
  for (const seat of g2.seats) {
    const p = await newPage();
    await p.emulateMedia({ reducedMotion: 'reduce' });
    await p.goto(`${server.base}${seat.link}`);
    await p.waitForSelector('.clans-board .territory');
    pages.push(p);
  }
  const k = await Promise.race(pages.map((p, i) => p.waitForSelector('.legal-source', { timeout: 30000 }).then(() => i)));
  const [still, other] = [pages[k], pages[1 - k]];
  const [from2, to2] = await clickAMove(still);
  const both = [from2, to2].sort((x, y) => x - y);
  await still.waitForSelector(`.clans-board .territory.last-move[data-id="${to2}"]`, { timeout: 10000 });
  assertEq(await markedIds(still), both, 'the move is marked');
  assertEq(await still.$eval('.clans-board', (x) => x.getAnimations({ subtree: true }).length), 0, 'with reduced motion nothing on the board moves');
  assertEq(await still.$$eval('.clans-board .last-glow', (x) => x.length), 2, 'while the last move is marked');
  await other.waitForSelector(`.clans-board .territory.last-move[data-id="${to2}"]`, { timeout: 10000 });
  assertEq(await markedIds(other), both, 'the other player sees the move marked');
  await shot(still, '13-last-move-reduced-motion');
  for (const p of pages) await p.context().close();
});

// In Spanish (issue 31): a Clans game in play and a finished one, on a phone
// and a desktop: no English word, nothing scrolls sideways, no button cut;
// then the renderer's words in every phase, driven directly.
t.test('in Spanish: a game in play and its result, on a phone and a desktop; every phase\'s words', async () => {
  await spanishPass({ game: 'clans', server, browser, tabula, dir, errors, ready: (page) => page.waitForSelector('.clans-board .territory'),
    shot: (page, name) => shot(page, name),
    phases: {
      cases: (v) => [
        { name: 'a move', view: { phase: 'move', your_colour: 'red' }, legal: ['1-2', '1-3', '5-6'], click: ['g.territory[data-id="1"]'] },
        { name: 'the village order', view: { phase: 'village', your_colour: 'blue' }, legal: ['village 5', 'village 9'] },
        { name: 'the end', view: {}, legal: [] },
      ],
      moves: ['12-13', 'village 5'],
    },
  });
});

await finish();
