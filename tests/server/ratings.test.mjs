// ratings.test.mjs TABULA — rated games and the ratings API over real sockets
// (issue 28; docs/ratings.md, docs/http-api.md "Ratings"): a rated game
// between an account and a computer level moves the account's rating by the
// update's formulas (the computer's rating fixed), three seats with two
// accounts, a resignation ranked last, an unrated game changing nothing, the
// rating written in the same transaction as the game's end (a refused rating
// write leaves the game unfinished in the store; once the cause is gone a
// restart finishes and rates it, once), GET /api/ratings/{game} (order,
// fields, limit, unknown game) and GET /api/players/{name} (profile, unknown
// and deleted players).  Under PostgreSQL a second server on the same
// database sees the same ratings.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  api, assert, assertEq, pg, playSeat, psql, runner, startServer, tempDir, testDb, WsClient,
} from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = tempDir();
const db = testDb(dir, 'ratings');
let server = await startServer(tabula, { db, aiDelay: 0 });
const t = runner(`ratings tests${pg ? ' (PostgreSQL)' : ''}`);

// ---- the update, written again here from docs/ratings.md as the oracle ----
const MU0 = 25, SIGMA0 = 25 / 3, BETA = 25 / 6, TAU = 25 / 300, KAPPA = 0.0001;
function update(players) { // [{mu, sigma, rank, fixed}] -> [{mu, sigma}]
  const v = players.map((p) => p.sigma * p.sigma + TAU * TAU);
  const c2 = v.reduce((a, x) => a + x + BETA * BETA, 0), c = Math.sqrt(c2);
  return players.map((pi, i) => {
    if (pi.fixed) return { mu: pi.mu, sigma: pi.sigma };
    let omega = 0, delta = 0;
    players.forEach((pq, q) => {
      if (pq.rank > pi.rank) return;
      const pool = players.filter((s) => s.rank >= pq.rank);
      const a = players.filter((s) => s.rank === pq.rank).length;
      const p = Math.exp(pi.mu / c) / pool.reduce((s, x) => s + Math.exp(x.mu / c), 0);
      omega += ((q === i ? 1 : 0) - p) / a;
      delta += p * (1 - p) / a;
    });
    omega *= v[i] / c;
    delta *= (Math.sqrt(v[i]) / c) * v[i] / c2;
    return { mu: pi.mu + omega, sigma: Math.sqrt(v[i] * Math.max(1 - delta, KAPPA)) };
  });
}
const levels = {}; // data/computer_ratings.txt, as compiled into the server
for (const line of fs.readFileSync(path.join(ROOT, 'data', 'computer_ratings.txt'), 'utf8').split('\n')) {
  const w = line.trim().split(/\s+/);
  if (w[0] === 'level') levels[`${w[1]} ${w[2]}`] = { mu: Number(w[3]), sigma: Number(w[4]) };
}

// ---- accounts and games ----
const uniq = (base) => `${base}${crypto.randomBytes(3).toString('hex')}`;
const cookieOf = (res) => {
  const m = (res.headers.get('set-cookie') || '').match(/tabula_session=([^;]*)/);
  return m ? `tabula_session=${m[1]}` : null;
};
async function signup(name) {
  const res = await api(server, 'POST', '/api/accounts', { name, password: 'correct horse' });
  assertEq(res.status, 201, `sign up ${name} (${res.text.slice(0, 200)})`);
  return { name, cookie: cookieOf(res) };
}
async function create(seats, rated = true, game = 'clans') {
  const res = await api(server, 'POST', '/api/games', { game, rated, seats });
  assertEq(res.status, 201, `create (${res.text.slice(0, 200)})`);
  return res.json.id;
}
const connect = (id, who) => WsClient.connect(server.port, `?game=${id}`, { headers: { Cookie: who.cookie } });
const board = async (game = 'clans', srv = server) => {
  const r = await api(srv, 'GET', `/api/ratings/${game}?limit=500`);
  assertEq(r.status, 200, `GET /api/ratings/${game} (${r.text.slice(0, 200)})`);
  return r.json;
};
const entry = (list, name) => list.find((e) => !e.computer && e.name === name);
const profile = async (name) => api(server, 'GET', `/api/players/${encodeURIComponent(name)}`);
const near = (a, b, eps, msg) => assert(Math.abs(a - b) <= eps, `${msg}: ${a} vs ${b}`);
function dbStatus(id) {
  if (pg) return psql(new URL(db).pathname.slice(1), `SELECT status FROM games WHERE id = '${id}'`).trim();
  return spawnSync('sqlite3', [db, `SELECT status FROM games WHERE id = '${id}'`], { encoding: 'utf8' }).stdout.trim();
}
function dbExec(sql) {
  if (pg) return psql(new URL(db).pathname.slice(1), sql);
  const r = spawnSync('sqlite3', [db, sql], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sqlite3: ${r.stderr}`);
  return r.stdout;
}

t.test('a rated game against the easy computer: the account moves by the formulas, the computer stays', async () => {
  const a = await signup(uniq('Ann'));
  const before = await board();
  const id = await create([{ kind: 'human', account: a.name }, { kind: 'ai', level: 'easy' }]);
  const ws = await connect(id, a);
  const end = await playSeat(ws);
  ws.close();
  const ranks = end.result.ranks;
  const after = await board();
  const mine = entry(after, a.name);
  assert(mine, 'the account is on the leaderboard');
  assertEq(mine.games, 1, 'one rated game');
  const easy = levels['clans easy'];
  const [want] = update([{ mu: MU0, sigma: SIGMA0, rank: ranks[0] }, { ...easy, rank: ranks[1], fixed: true }]);
  near(mine.mu, want.mu, 0.051, 'mu as the formulas give it');
  near(mine.uncertainty, want.sigma, 0.051, 'sigma as the formulas give it');
  near(mine.rating, want.mu - 3 * want.sigma, 0.11, 'the shown rating is mu - 3 sigma');
  assert(ranks[0] === 1 ? mine.mu > MU0 : mine.mu < MU0, `the winner gains, the loser loses (ranks ${ranks})`);
  assertEq(after.filter((e) => e.computer), before.filter((e) => e.computer), 'the computer levels did not move');
  const p = (await profile(a.name.toUpperCase())).json;
  assertEq(p.name, a.name, 'the profile by name in any case');
  assertEq(p.history.map((h) => [h.game, h.game_id, h.rank]), [['clans', id, ranks[0]]], 'one history point');
  assertEq(p.ratings.map((r) => [r.game, r.games, r.wins]), [['clans', 1, ranks[0] === 1 ? 1 : 0]], 'ratings per game');
  assertEq(p.games.map((g) => [g.id, g.status, g.rated, g.rank]), [[id, 'over', true, ranks[0]]], 'the game listed');
  assertEq(p.wins, [{ game: 'clans', played: 1, wins: ranks[0] === 1 ? 1 : 0 }], 'wins by game');
  assert(['about', 'above', 'below'].includes(mine.standing.as) && levels[`clans ${mine.standing.level}`],
    `where the player stands: ${JSON.stringify(mine.standing)}`);
});

t.test('three seats, two accounts and the normal computer: both accounts rated from the final ranks', async () => {
  const a = await signup(uniq('Bea')), b = await signup(uniq('Cid'));
  const id = await create([{ kind: 'human', account: a.name }, { kind: 'ai', level: 'normal' },
    { kind: 'human', account: b.name }]);
  const [wa, wb] = [await connect(id, a), await connect(id, b)];
  const [ea] = await Promise.all([playSeat(wa), playSeat(wb)]);
  wa.close(); wb.close();
  const ranks = ea.result.ranks;
  const want = update([{ mu: MU0, sigma: SIGMA0, rank: ranks[0] }, { ...levels['clans normal'], rank: ranks[1], fixed: true },
    { mu: MU0, sigma: SIGMA0, rank: ranks[2] }]);
  const list = await board();
  near(entry(list, a.name).mu, want[0].mu, 0.051, 'the first account');
  near(entry(list, b.name).mu, want[2].mu, 0.051, 'the second account');
  if (ranks[0] < ranks[2]) assert(entry(list, a.name).mu > entry(list, b.name).mu, 'the better rank is rated higher');
});

t.test('a resignation counts as last place, even where the computer then plays the seat well', async () => {
  const a = await signup(uniq('Dov')), b = await signup(uniq('Eva'));
  const id = await create([{ kind: 'human', account: a.name }, { kind: 'human', account: b.name },
    { kind: 'ai', level: 'easy' }]);
  const [wa, wb] = [await connect(id, a), await connect(id, b)];
  await wa.next((m) => m.type === 'state');
  const from = wa.messages.length;
  wa.send({ type: 'resign', id: 1 });
  const r = await wa.next((m) => m.type === 'notice' || (m.type === 'error' && m.id === 1), { from, what: 'the resignation' });
  assertEq([r.type, r.code], ['notice', 'resigned'], 'resigned');
  const end = await playSeat(wb);
  wa.close(); wb.close();
  assertEq(end.result.ranks[0], 3, 'the result ranks the resigned seat last');
  const p = (await profile(a.name)).json;
  assertEq(p.history.map((h) => h.rank), [3], 'the rating history says last');
  assert(entry(await board(), a.name).mu < MU0, 'and the rating went down');
});

t.test('an unrated game changes no rating', async () => {
  const a = await signup(uniq('Fay'));
  const id0 = await create([{ kind: 'human', account: a.name }, { kind: 'ai', level: 'easy' }]);
  const w0 = await connect(id0, a);
  await playSeat(w0);
  w0.close();
  const before = await board(), hist = (await profile(a.name)).json.history;
  const id = await create([{ kind: 'human', account: a.name }, { kind: 'ai', level: 'easy' }], false);
  const ws = await connect(id, a);
  await playSeat(ws);
  ws.close();
  assertEq(await board(), before, 'the leaderboard is the same');
  const p = (await profile(a.name)).json;
  assertEq(p.history, hist, 'no history point');
  assertEq(p.games.find((g) => g.id === id).rated, false, 'the game is listed, unrated');
});

t.test('the rating goes in the transaction of the game\'s end: refused, the end is not stored either', async () => {
  const a = await signup(uniq('Gus'));
  const id = await create([{ kind: 'human', account: a.name }, { kind: 'ai', level: 'easy' }]);
  // the database refuses the history row, as a full disk or a lost server would
  dbExec(pg ? "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql;" +
    ' CREATE TRIGGER refuse BEFORE INSERT ON rating_history FOR EACH ROW EXECUTE FUNCTION refuse();'
    : "CREATE TRIGGER refuse BEFORE INSERT ON rating_history BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;");
  const ws = await connect(id, a);
  const end = await playSeat(ws);
  ws.close();
  assert(end.result, 'the game ended for its players');
  assertEq(dbStatus(id), 'running', 'with its rating refused, the end was not stored either');
  assertEq(entry(await board(), a.name), undefined, 'and no rating');
  dbExec(pg ? 'DROP TRIGGER refuse ON rating_history; DROP FUNCTION refuse();' : 'DROP TRIGGER refuse;');
  await server.kill9();
  server = await startServer(tabula, { db, aiDelay: 0 });
  const g = await api(server, 'GET', `/api/games/${id}`);
  assertEq(g.json.status, 'over', 'read again, the game is finished');
  assertEq(dbStatus(id), 'over', 'and stored so');
  const mine = entry(await board(), a.name);
  assertEq(mine && mine.games, 1, 'rated together with its end');
  await server.stop();
  server = await startServer(tabula, { db, aiDelay: 0 });
  assertEq(entry(await board(), a.name).games, 1, 'once: another restart rates nothing again');
  assertEq((await profile(a.name)).json.history.length, 1, 'one history point');
});

t.test('GET /api/ratings/{game}: best first, the fields, people and computer levels, limit, refusals', async () => {
  const list = await board();
  for (const e of list) {
    assert(typeof e.name === 'string' && typeof e.rating === 'number' && typeof e.uncertainty === 'number' &&
      Number.isInteger(e.games) && typeof e.computer === 'boolean', `fields of ${JSON.stringify(e)}`);
  }
  for (let i = 1; i < list.length; i++) assert(list[i - 1].rating >= list[i].rating, 'best first');
  assertEq(list.filter((e) => e.computer).map((e) => e.name).sort(), ['easy', 'hard', 'normal'], 'the three levels');
  assert(list.some((e) => !e.computer), 'and people');
  for (const e of list.filter((x) => x.computer)) {
    const l = levels[`clans ${e.name}`];
    near(e.mu, l.mu, 0.051, `${e.name}'s fitted mu`);
    near(e.rating, l.mu - 3 * l.sigma, 0.11, `${e.name}'s shown rating`);
  }
  const two = await api(server, 'GET', '/api/ratings/clans?limit=2');
  assertEq(two.json, list.slice(0, 2), 'limit');
  for (const bad of ['0', '501', 'x', ''])
    assertEq((await api(server, 'GET', `/api/ratings/clans?limit=${bad}`)).status, 400, `limit=${bad}`);
  const unknown = await api(server, 'GET', '/api/ratings/chess');
  assertEq([unknown.status, unknown.json.error.code], [404, 'unknown_game'], 'unknown game');
  assertEq((await api(server, 'POST', '/api/ratings/clans', {})).status, 405, 'GET only');
  const k = await board('khronos');
  assertEq(k.filter((e) => !e.computer), [], 'Khronos is rated apart: nobody yet');
});

t.test('GET /api/players/{name}: unknown and deleted players are 404, a name holding HTML comes back as text', async () => {
  assertEq((await profile('nobody-here')).status, 404, 'unknown');
  const odd = await signup(uniq('<b>Hal</b>'));
  const p = await profile(odd.name);
  assertEq([p.status, p.json.name], [200, odd.name], 'the same characters');
  const del = await api(server, 'DELETE', '/api/me', { password: 'correct horse' }, { headers: { Cookie: odd.cookie } });
  assertEq(del.status, 200, `deleted (${del.text.slice(0, 200)})`);
  const gone = await profile(odd.name);
  assertEq([gone.status, gone.json.error.code], [404, 'unknown_player'], 'a deleted account is gone');
});

if (pg) {
  t.test('two servers on one PostgreSQL database see the same ratings', async () => {
    const other = await startServer(tabula, { db, aiDelay: 0 });
    try {
      assertEq(await board('clans', other), await board(), 'the same leaderboard');
    } finally {
      await other.stop();
    }
  });
}

const failed = await t.run();
await server.stop();
if (!failed) fs.rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
