// review.test.mjs TABULA — the server's game review (docs/http-api.md,
// "/api/games/{id}/review"): refused while a game runs (it would reveal
// secrets), computed in the background for a finished game, one job however
// often it is asked for, progress while it runs, the result kept in the
// store across a restart, and play answered while a review computes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { api, assert, assertEq, pg, runner, sayEnglish, sleep, startServer, tempDir, testDb } from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir();
const db = testDb(dir, 'review');
let server = await startServer(tabula, { db, aiDelay: 0, quiet: false });
const t = runner(`game review tests${pg ? ' (PostgreSQL)' : ''}`);

async function expectError(res, status, code) {
  assertEq(res.status, status, `HTTP status for ${code}`);
  assert(res.json && res.json.error && res.json.error.code === code,
    `error code ${code}, got ${res.text.slice(0, 200)}`);
  assert(typeof res.json.error.message === 'string' && res.json.error.message.length > 5,
    'the error explains itself');
}

async function finishedGame(game = 'clans') {
  const r = await api(server, 'POST', '/api/games', {
    game, players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }],
  });
  assertEq(r.status, 201, 'game created');
  const id = r.json.id;
  for (let i = 0; i < 600; i++) {
    const g = await api(server, 'GET', `/api/games/${id}`);
    if (g.json.status === 'over') return { id, decisions: g.json.decisions };
    await sleep(50);
  }
  throw new Error('the computer players did not finish the game');
}

async function waitDone(id) {
  const seen = [];
  for (let i = 0; i < 1200; i++) {
    const r = await api(server, 'GET', `/api/games/${id}/review`);
    assertEq(r.status, 200, 'GET review status');
    seen.push(r.json.status);
    if (r.json.status === 'done') return { review: r.json.review, seen };
    assert(['queued', 'running'].includes(r.json.status), `status while computing: ${r.text.slice(0, 200)}`);
    if (r.json.status === 'running') {
      assert(r.json.done <= r.json.total, 'progress never passes the total');
    }
    await sleep(50);
  }
  throw new Error('the review did not finish');
}

let clansId, clansDecisions;

t.test('a running game cannot be reviewed; nothing is stored for it', async () => {
  const r = await api(server, 'POST', '/api/games', {
    game: 'clans', players: 2, seats: [{ kind: 'human', name: 'Ada' }, { kind: 'human', name: 'Bo' }],
  });
  const id = r.json.id;
  await expectError(await api(server, 'POST', `/api/games/${id}/review`), 409, 'not_over');
  const get = await api(server, 'GET', `/api/games/${id}/review`);
  assertEq([get.status, get.json.status], [200, 'none'], 'no review of a running game');
});

t.test('unknown games, ids and methods get JSON errors', async () => {
  await expectError(await api(server, 'GET', '/api/games/abcdefghijkm/review'), 404, 'unknown_game');
  await expectError(await api(server, 'POST', '/api/games/x%27%3B--/review'), 404, 'unknown_game');
  const { id } = await finishedGame();
  await expectError(await api(server, 'PUT', `/api/games/${id}/review`, {}), 405, 'method_not_allowed');
  await expectError(await api(server, 'DELETE', `/api/games/${id}/review`), 405, 'method_not_allowed');
});

t.test('a finished game is reviewed in the background, once however often it is asked', async () => {
  ({ id: clansId, decisions: clansDecisions } = await finishedGame());
  const none = await api(server, 'GET', `/api/games/${clansId}/review`);
  assertEq(none.json.status, 'none', 'nothing before it is asked for');
  const first = await api(server, 'POST', `/api/games/${clansId}/review`);
  assert([202, 200].includes(first.status), `first request: ${first.status} ${first.text.slice(0, 200)}`);
  const again = await Promise.all([1, 2, 3].map(() => api(server, 'POST', `/api/games/${clansId}/review`)));
  for (const a of again) assert(['queued', 'running', 'done'].includes(a.json.status), `again: ${a.text.slice(0, 100)}`);
  const health = await api(server, 'GET', '/api/health');
  assertEq(health.status, 200, 'the server answers while a review computes');
  const { review } = await waitDone(clansId);
  assertEq(review.game, 'clans', 'game');
  assertEq(review.players.map((p) => p.name), ['Computer 1', 'Computer 2'], 'players by name');
  assertEq(review.decisions, clansDecisions, 'decisions');
  assertEq(review.entries.length, clansDecisions, 'one entry per decision');
  assertEq([review.mistake, review.blunder], [0.1, 0.2], 'thresholds');
  assertEq(review.final.length, 2, 'final returns');
  review.entries.forEach((e, i) => {
    assertEq(e.index, i, 'entries in game order');
    assert(e.seat === 0 || e.seat === 1, 'seat');
    assert(typeof e.played === 'string' && typeof e.best === 'string', 'decisions as text');
    // and in players' words, naming the player, without the notation
    const name = `Computer ${e.seat + 1}`;
    for (const [words, m] of [[e.played_said, e.played], [e.best_said, e.best]]) {
      assert(typeof words === 'string' && words.startsWith(name), `decision ${i} in words: ${words}`);
      assert(!words.includes(m), `decision ${i}: '${words}' repeats the notation '${m}'`);
    }
    assertEq(e.win_rates.length, 2, 'a win rate per seat');
    for (const v of [e.before, e.after, e.best_value, ...e.win_rates]) assert(v >= 0 && v <= 1, `rate ${v}`);
    assert(Math.abs(e.loss - Math.max(0, e.best_value - e.after)) < 2e-4, 'loss');
    assert([null, 'mistake', 'blunder'].includes(e.mark), 'mark');
  });
  const rec = await api(server, 'GET', `/api/games/${clansId}/record`);
  assertEq(review.entries.map((e) => e.played), rec.json.moves, 'the played decisions are the record');
  const stored = await api(server, 'POST', `/api/games/${clansId}/review`);
  assertEq([stored.status, stored.json.status], [200, 'done'], 'asking again returns the stored review');
  assertEq(stored.json.review, review, 'the same review');
  const log = server.stderr();
  assert(!/review failed/.test(log), 'no failed review');
  const runs = log.split('\n').filter((l) => l.includes(`game ${clansId}: review stored`)).length;
  assertEq(runs, 1, 'four requests, one review computed');
});

t.test('the review is kept with the game across a restart', async () => {
  const before = await api(server, 'GET', `/api/games/${clansId}/review`);
  await server.stop();
  server = await startServer(tabula, { db, aiDelay: 0 });
  const after = await api(server, 'GET', `/api/games/${clansId}/review`);
  assertEq([after.status, after.json.status], [200, 'done'], 'stored');
  assertEq(after.json.review, before.json.review, 'the same review after a restart');
});

t.test('every game can be reviewed', async () => {
  for (const game of ['arkadia', 'khronos']) {
    const { id, decisions } = await finishedGame(game);
    const r = await api(server, 'POST', `/api/games/${id}/review`);
    assert([200, 202].includes(r.status), `${game}: ${r.text.slice(0, 200)}`);
    const { review } = await waitDone(id);
    assertEq(review.entries.length, decisions, `${game}: one entry per decision`);
    assert(review.entries.every((e) => typeof e.played_said === 'string' && typeof e.best_said === 'string'
      && e.played_said.length > 10), `${game}: every decision in words`);
    for (const e of review.entries) {
      assertEq(sayEnglish(e.played_said_msg), e.played_said, `${game}: played_said_msg says played_said`);
      assertEq(sayEnglish(e.best_said_msg), e.best_said, `${game}: best_said_msg says best_said`);
    }
  }
});

if (!pg) {
  t.test('a database of schema version 1 is upgraded in place and its games can be reviewed', async () => {
    await server.stop();
    const newest = spawnSync('sqlite3', [db, 'PRAGMA user_version;'], { encoding: 'utf8' }).stdout.trim();
    // back to version 1: without everything the later migrations add (reviews, the lobby's, take-backs)
    const back = ['DROP TABLE reviews', 'DROP TABLE game_lobby', 'DROP TABLE create_requests',
      'ALTER TABLE seats DROP COLUMN is_open', 'ALTER TABLE seats DROP COLUMN resigned', 'DROP TABLE takebacks'];
    const sql = spawnSync('sqlite3', [db, `${back.join('; ')}; PRAGMA user_version = 1;`], { encoding: 'utf8' });
    assertEq(sql.status, 0, `sqlite3: ${sql.stderr}`);
    server = await startServer(tabula, { db, aiDelay: 0, quiet: false });
    const none = await api(server, 'GET', `/api/games/${clansId}/review`);
    assertEq(none.json.status, 'none', 'the old database had no reviews');
    await api(server, 'POST', `/api/games/${clansId}/review`);
    const { review } = await waitDone(clansId);
    assertEq(review.entries.length, clansDecisions, 'reviewed after the upgrade');
    const v = spawnSync('sqlite3', [db, 'PRAGMA user_version;'], { encoding: 'utf8' });
    assertEq(v.stdout.trim(), newest, `brought up to the newest schema (${newest})`);
  });
}

t.test('the server stops cleanly at the end (no leak under ASan)', async () => {
  const exit = await server.stop();
  assertEq(exit.code, 0, `exit status (stderr: ${server.stderr().slice(0, 3000)})`);
});

const failed = await t.run();
fs.rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
