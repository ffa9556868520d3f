// disk.test.mjs TABULA — storage failing under a running `tabula serve`, and
// coming back.  SQLite: the database lives on a small tmpfs of its own
// (mounted here; the test runs as root, as CI does), which is filled to the
// last byte with a file; PostgreSQL (under pg_run.mjs): the database server
// is stopped, then started again.  Each time: a decision is refused with
// store_failed and not applied (the players' and a spectator's views, the
// game and its record stay as they were, and so does the database after a
// restart); a take-back against the computer, a new game and taking an open
// seat are refused too; /api/health answers 503 with the
// reason; the log says once that storage is failing (not per decision) and
// once that it works again; once space (or the server) is back, health is
// 200 again without anyone playing and the game goes on.  SQLite: PRAGMA
// integrity_check (python3's sqlite3) after every fault.
//
// Invariants: the tmpfs is unmounted and the directory removed whatever
// happens (a finally, and the server is killed first so nothing holds it).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  api, assert, assertEq, pg, pgCluster, runner, sleep, startServer, tempDir, testDb, WsClient,
} from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir('tabula-disk-');
const t = runner(`server under failing storage${pg ? ' (PostgreSQL stopped)' : ' (a full disk)'}`);

const FAILING = /storage is failing/g, WORKS = /storage works again/g;
const count = (text, re) => (text.match(re) || []).length;

// PRAGMA integrity_check on the live database (read-only; WAL included);
// returns how many decisions game `id` has there.
function integrity(db, id) {
  const code = 'import sqlite3, sys\n' +
    'c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)\n' +
    'print(c.execute("PRAGMA integrity_check").fetchone()[0])\n' +
    'print(c.execute("SELECT COUNT(*) FROM decisions WHERE game_id = ?", (sys.argv[2],)).fetchone()[0])\n';
  const r = spawnSync('python3', ['-c', code, db, id], { encoding: 'utf8' });
  assertEq(r.status, 0, `integrity check ran: ${r.stderr}`);
  const [verdict, decisions] = r.stdout.trim().split('\n');
  assertEq(verdict, 'ok', 'PRAGMA integrity_check');
  return Number(decisions);
}

// Fills the file system under `mnt` to the last byte (4 KiB at a time).
function fill(file) {
  const fd = fs.openSync(file, 'w');
  const block = Buffer.alloc(4096, 7);
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (e) {
    if (e.code !== 'ENOSPC') throw e;
  } finally {
    fs.closeSync(fd);
  }
}

async function health(server) {
  const h = await api(server, 'GET', '/api/health');
  return { status: h.status, json: h.json };
}

async function waitHealth(server, status, ms) {
  let h;
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    h = await health(server);
    if (h.status === status) return h;
  }
  throw new Error(`health did not become ${status}: ${JSON.stringify(h)}`);
}

// A game of two people and a spectator; `turn()` is the seat to move and its state.
async function newGame(server) {
  const r = await api(server, 'POST', '/api/games',
    { game: 'clans', seats: [{ kind: 'human', name: 'Anna' }, { kind: 'human', name: 'Ben' }] });
  assertEq(r.status, 201, 'game created');
  const id = r.json.id;
  const players = await Promise.all(r.json.seats.map((s) =>
    WsClient.connect(server.port, `?game=${id}&token=${s.token}`)));
  const spectator = await WsClient.connect(server.port, `?game=${id}`);
  // and an open table, whose free seat someone tries to take
  const open = await api(server, 'POST', '/api/games',
    { game: 'clans', seats: [{ kind: 'human', name: 'Dee' }, { kind: 'human', open: true }] });
  assertEq(open.status, 201, 'open table created');
  // and a game against the computer, where the person takes back a turn
  const vs = await api(server, 'POST', '/api/games',
    { game: 'clans', seats: [{ kind: 'human', name: 'Eve' }, { kind: 'ai', level: 'random' }] });
  assertEq(vs.status, 201, 'game against the computer created');
  const eve = await WsClient.connect(server.port, `?game=${vs.json.id}&token=${vs.json.seats[0].token}`);
  let mine = await eve.next((m) => m.type === 'state' && m.your_turn, { what: 'Eve\'s turn' });
  const ack = await eve.request({ type: 'decide', move: mine.legal[0], n: mine.n, id: 1 });
  assertEq(ack.type, 'ack', 'Eve decided');
  mine = await eve.next((m) => m.type === 'state' && m.your_turn && m.can_take_back,
    { what: 'Eve\'s turn after the computer\'s reply' });
  const g = { id, players, spectator, asked: 0, open: open.json.id, eve, eveAt: mine.n };
  g.at = async (n) => Promise.all(players.map((c) =>
    c.next((m) => m.type === 'state' && m.n === n, { what: `the state after ${n} decisions` })));
  g.decide = async (n) => {
    const states = await g.at(n);
    const seat = states.findIndex((s) => s.your_turn);
    assert(seat >= 0, 'a seat is to move');
    const move = states[seat].legal[0];
    return players[seat].request({ type: 'decide', move, n, id: ++g.asked });
  };
  g.close = () => Promise.all([...players, spectator, eve].map((c) => c.close()));
  return g;
}

// The fault as this store meets it: `start` it, `end` it.
let fault;
if (pg) {
  fault = { start: () => pgCluster('stop'), end: () => pgCluster('start'), check: () => {} };
} else {
  const mnt = path.join(dir, 'mnt'), filler = path.join(dir, 'mnt', 'filler');
  fault = {
    mnt, start: () => fill(filler), end: () => fs.rmSync(filler),
    check: (id) => integrity(path.join(mnt, 'disk.db'), id),
  };
}

// One fault under a game at decision n: refused, nothing applied, health
// 503, logged once; then back.  Returns the new decision count.
async function underFault(server, g, n, round) {
  const views = (await g.at(n)).map((s) => s.view);
  await g.spectator.next((m) => m.type === 'state' && m.n === n, { what: 'the position' });
  const spectatorStates = g.spectator.messages.filter((m) => m.type === 'state').length;
  fault.start();
  // The first write to fail is a take-back: refused, and storage seen failing.
  const back = await g.eve.request({ type: 'take_back', id: `back${round}` });
  assertEq([back.type, back.code], ['error', 'store_failed'], 'a take-back refused while storage fails');
  assertEq((await health(server)).status, 503, 'a failed take-back is enough to see storage failing');
  assertEq(g.eve.latestState().n, g.eveAt, 'the take-back changed nothing');
  for (let i = 0; i < 3; i++) {
    const reply = await g.decide(n);
    assertEq([reply.type, reply.code], ['error', 'store_failed'], `decision refused while storage fails (${i})`);
    assert(/nothing changed/.test(reply.message), `the refusal says nothing changed: ${reply.message}`);
  }
  const created = await api(server, 'POST', '/api/games', { game: 'clans', players: 2 });
  assertEq([created.status, created.json.error.code], [500, 'store_failed'], 'no new game while storage fails');
  const seat = await api(server, 'POST', `/api/games/${g.open}/seats`, { seat: 1, name: `Cy${round}` });
  assertEq([seat.status, seat.json.error.code], [500, 'store_failed'], 'no seat taken while storage fails');
  const table = (await api(server, 'GET', `/api/games/${g.open}`)).json;
  assertEq([table.free_seats, !!table.seats[1].open], [1, true], 'the open seat is still free');
  // Nothing was applied: the same views, the game, its record, no new state.
  const latest = g.players.map((c) => c.latestState());
  assertEq(latest.map((s) => [s.n, s.view]), views.map((v) => [n, v]), 'the players see the same position');
  const game = (await api(server, 'GET', `/api/games/${g.id}`)).json;
  assertEq(game.decisions, n, 'the game did not move');
  const rec = (await api(server, 'GET', `/api/games/${g.id}/record`)).json;
  assertEq(rec.moves.length, n, 'the record did not grow');
  assertEq(g.spectator.messages.filter((m) => m.type === 'state').length, spectatorStates,
    'the spectator saw no new position');
  const h = await health(server);
  assertEq([h.status, h.json.ok], [503, false], '/api/health says storage is failing');
  assert(/^storage is failing: /.test(h.json.reason) && h.json.reason.length > 25,
    `the health reason says why: ${h.json.reason}`);
  if (!pg) assert(/full/.test(h.json.reason), `the reason names the full disk: ${h.json.reason}`);
  assertEq(count(server.stderr(), FAILING), round, 'the log says it once, not per decision');
  assertEq(count(server.stderr(), /decision \d+:|game \w+: database|taking back/g), 0,
    'no log line per refused decision, take-back or seat');
  if (!pg) assertEq(fault.check(g.id), n, 'the database is whole, with every acknowledged decision');
  fault.end();
  // Back without anyone playing (the server tries a small write every second).
  await waitHealth(server, 200, pg ? 8000 : 4000);
  assertEq(count(server.stderr(), WORKS), round, 'the log says once that storage works again');
  const ack = await g.decide(n);
  assertEq([ack.type, ack.n], ['ack', n + 1], 'the game goes on');
  if (round === 2) {
    const taken = await api(server, 'POST', `/api/games/${g.open}/seats`, { seat: 1, name: 'Cy' });
    assertEq(taken.status, 201, 'the open seat can be taken again');
  }
  await g.spectator.next((m) => m.type === 'state' && m.n === n + 1, { what: 'the new position' });
  if (!pg) assertEq(fault.check(g.id), n + 1, 'the database is whole after the fault');
  return n + 1;
}

t.test('a decision that cannot be stored is refused, and the game goes on once storage is back', async () => {
  let server = null, mounted = false;
  try {
    let db;
    if (pg) {
      db = testDb(dir, 'disk');
    } else {
      assert(process.getuid() === 0, 'this test mounts a tmpfs: run it as root (CI does)');
      fs.mkdirSync(fault.mnt);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', fault.mnt]);
      mounted = true;
      db = path.join(fault.mnt, 'disk.db');
    }
    server = await startServer(tabula, { db, quiet: false });
    assertEq((await health(server)).status, 200, 'healthy at first');
    const g = await newGame(server);
    let n = 0;
    for (; n < 3; n++) assertEq((await g.decide(n)).type, 'ack', `decision ${n + 1}`);
    n = await underFault(server, g, n, 1);
    n = await underFault(server, g, n, 2); // a second time, just as well
    await g.close();
    assertEq((await server.stop()).code, 0, 'clean stop');
    // What was stored is what was played: the refused decisions are not there.
    server = await startServer(tabula, { db, quiet: false });
    const again = (await api(server, 'GET', `/api/games/${g.id}`)).json;
    assertEq(again.decisions, n, 'after a restart the game has exactly the decisions taken');
    assertEq((await server.stop()).code, 0, 'clean stop');
    server = null;
  } finally {
    if (server) await server.kill9();
    if (mounted) execFileSync('umount', [fault.mnt]);
  }
});

const failed = await t.run();
fs.rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
