// multi.test.mjs TABULA — two `tabula serve` instances on one PostgreSQL
// database (run through pg_run.mjs); bad URLs and unreachable databases; a
// restart of PostgreSQL under running games.  Both list every game; a seat that
// connects to the instance not playing its game is told where it is played;
// when the instance playing games is killed (kill -9) the other one takes
// them over and they play to the end with every acknowledged decision kept
// and none doubled; an instance paused past its lease (SIGSTOP) loses its
// game to the other and, woken up, never writes into it again.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {
  api, assert, assertEq, pg, playSeat, psql, runner, sleep, startServer, tempDir, testDb, WsClient,
} from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
if (!pg) {
  console.log('FAIL multi.test.mjs needs PostgreSQL: run it as `node pg_run.mjs TABULA multi.test.mjs`');
  process.exit(1);
}
const dir = tempDir();
const db = testDb(dir, 'multi');
const LEASE = 2; // seconds: a silent instance keeps its games this long
const serve = (aiDelay, quiet = true) =>
  startServer(tabula, { db, aiDelay, quiet, args: ['--lease-seconds', String(LEASE)] });
const t = runner('two server instances on one PostgreSQL database');
const servers = [];

t.test('a bad URL, an unreachable or unknown database, a newer schema: one line, exit 1', async () => {
  const closed = await new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => resolve(port)); });
  });
  const newer = testDb(dir, 'newer');
  await (await startServer(tabula, { db: newer })).stop();
  psql(new URL(newer).pathname.slice(1), 'UPDATE tabula_schema SET version = 99');
  const base = new URL(pg);
  const cases = [
    [`postgresql://tabula:s3cret@127.0.0.1:${base.port}/x?bogus=1`, /bad database URL/],
    [`postgresql://tabula:s3cret@127.0.0.1:${closed}/x`, /cannot connect to the database postgresql:\/\/tabula@127\.0\.0\.1:\d+\/x: .*refused/],
    [`postgres://tabula:s3cret@127.0.0.1:${base.port}/nosuchdb`, /database "nosuchdb" does not exist/],
    [newer.replace('tabula@', 'tabula:s3cret@'), /schema version 99 is newer than this build knows/],
  ];
  for (const [url, want] of cases) {
    const r = spawnSync(tabula, ['serve', '--port', '0', '--db', url], { encoding: 'utf8', timeout: 15000 });
    assertEq(r.status, 1, `exit status for ${url}`);
    const lines = r.stderr.split('\n').filter((l) => l.length);
    assertEq(lines.length, 1, `one line for ${url}: ${r.stderr}`);
    assert(want.test(lines[0]), `${lines[0]} matches ${want}`);
    assert(!r.stderr.includes('s3cret') && !r.stdout.includes('s3cret'), 'the password is never shown');
  }
});

// Connects to game `id` on `server`; with `retry`, waits while the game is
// played elsewhere.  Resolves with the client and its first message.
async function join(server, id, token, { retry = 0 } = {}) {
  const deadline = Date.now() + retry;
  for (;;) {
    const c = await WsClient.connect(server.port, `?game=${id}${token ? `&token=${token}` : ''}`);
    const first = await c.next((m) => m.type === 'welcome' || m.type === 'error', { what: 'welcome' });
    if (first.type === 'welcome' || Date.now() > deadline) return { c, first };
    c.destroy();
    await sleep(100);
  }
}

// Records what a spectator sees: views by decision count and the log.
function watch(g, c) {
  let read = 0;
  const take = () => {
    for (; read < c.messages.length; read++) {
      const m = c.messages[read];
      if (m.type === 'welcome') for (const e of m.log) g.log.set(e.n, e);
      if (m.type === 'state' && m.view) {
        if (g.seen.has(m.n)) assertEq(m.view, g.seen.get(m.n), `game ${g.id}: one view per position`);
        g.seen.set(m.n, m.view);
        if (m.last) g.log.set(m.last.n, m.last);
        if (m.result) g.over = true;
      }
    }
  };
  const timer = setInterval(take, 5);
  return () => { clearInterval(timer); take(); };
}

const most = (g) => (g.seen.size ? Math.max(...g.seen.keys()) : 0);

// Every acknowledged or seen decision is in the finished record at its
// number, and every view seen is the one the record replays to.
async function checkFinished(server, g) {
  const rec = (await api(server, 'GET', `/api/games/${g.id}/record`)).json;
  assert(rec.result && rec.seed, `game ${g.id} finished with an unsealed record`);
  for (const [n, move] of g.acked) assertEq(rec.moves[n - 1], move, `game ${g.id}: acked decision ${n} kept`);
  for (const [n, e] of g.log) assertEq(rec.moves[n - 1], e.move, `game ${g.id}: seen decision ${n} kept`);
  for (const n of g.seen.keys()) {
    const rp = (await api(server, 'GET', `/api/games/${g.id}/replay/${n}`)).json;
    assertEq(rp.view, g.seen.get(n), `game ${g.id}: view at decision ${n}`);
  }
  return rec;
}

async function waitOver(server, ids, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const all = (await api(server, 'GET', '/api/games?status=all')).json.games;
    if (ids.every((id) => all.find((x) => x.id === id)?.status === 'over')) return;
    if (Date.now() > deadline) throw new Error('games did not finish in time');
    await sleep(100);
  }
}

t.test('both list every game; kill -9 of one: the other resumes its games, nothing lost or doubled', async () => {
  const a = await serve(30), b = await serve(30);
  servers.push(a, b);
  const specs = [
    [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'easy' }],
    [{ kind: 'ai' }, { kind: 'ai' }, { kind: 'ai' }],
    [{ kind: 'human' }, { kind: 'ai', level: 'random' }],
    [{ kind: 'human' }, { kind: 'human' }, { kind: 'ai' }],
  ];
  const games = [];
  for (const seats of specs) {
    const r = await api(a, 'POST', '/api/games', { game: 'clans', seats });
    assertEq(r.status, 201, 'created on A');
    games.push({ id: r.json.id, tokens: r.json.seats.map((x) => x.token || null),
      seen: new Map(), log: new Map(), acked: new Map() });
  }
  const onB = await api(b, 'POST', '/api/games', { game: 'clans', seats: specs[0] });
  assertEq(onB.status, 201, 'created on B');
  const ids = [...games.map((g) => g.id), onB.json.id].sort();
  for (const s of [a, b]) {
    const listed = (await api(s, 'GET', '/api/games?status=all')).json.games.map((g) => g.id).sort();
    assertEq(listed, ids, `port ${s.port} lists every game`);
  }
  // The wrong instance says where the game is played; its HTTP reads work.
  const human = games[2];
  const wrong = await join(b, human.id, human.tokens[0]);
  assertEq(wrong.first.code, 'elsewhere', 'a seat on the other instance is sent away');
  assert(wrong.first.message.includes(`127.0.0.1:${a.port}`), `with A's address: ${wrong.first.message}`);
  assertEq((await wrong.c.request({ type: 'decide', move: 'x', id: 1 })).code, 'elsewhere', 'and it stays so');
  wrong.c.destroy();
  assertEq((await api(b, 'GET', `/api/games/${human.id}`)).status, 200, 'B shows A\'s game');

  // Life on A: spectators watch, people play; kill -9 after 6 decisions each.
  const stops = [], plays = [];
  for (const g of games) {
    stops.push(watch(g, (await join(a, g.id)).c));
    g.tokens.forEach((tok, seat) => {
      if (!tok) return;
      plays.push((async () => {
        const { c } = await join(a, g.id, tok);
        await playSeat(c, { onAck: (x) => g.acked.set(x.n, x.move), timeout: 20000, think: 20 });
      })().catch(() => {}));
    });
  }
  for (let i = 0; i < 1000 && !games.every((g) => most(g) >= 6); i++) await sleep(5);
  const killedAt = Date.now();
  await a.kill9();
  await Promise.allSettled(plays);
  stops.forEach((s) => s());
  const before = games.map(most), overAtKill = games.map((g) => !!g.over);
  assert(overAtKill.filter((x) => !x).length >= 2, 'the kill came in the middle of games');

  // B takes them over: the seats reconnect there and play to the end.
  const stops2 = [], plays2 = [];
  for (const g of games) {
    const { c, first } = await join(b, g.id, null, { retry: (LEASE + 3) * 1000 });
    assertEq(first.type, 'welcome', `B took game ${g.id} over`);
    stops2.push(watch(g, c));
    g.tokens.forEach((tok) => {
      if (!tok) return;
      plays2.push((async () => {
        const { c: p } = await join(b, g.id, tok, { retry: 2000 });
        await playSeat(p, { onAck: (x) => g.acked.set(x.n, x.move), timeout: 30000, think: 5 });
      })());
    });
  }
  console.log(`# B took over ${games.length} games ${Date.now() - killedAt} ms after the kill`);
  await Promise.all(plays2);
  await waitOver(b, ids, 30000);
  await sleep(100);
  stops2.forEach((s) => s());
  for (const [k, g] of games.entries()) {
    const rec = await checkFinished(b, g);
    if (!overAtKill[k]) assert(rec.moves.length > before[k], `game ${g.id} went on after the kill`);
  }
});

t.test('an instance paused past its lease loses its game and never writes into it again', async () => {
  const b = servers[1];
  const a = await serve(150, false); // slow computer players: the game outlives the pause
  servers.push(a);
  const r = await api(a, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }] });
  const g = { id: r.json.id, seen: new Map(), log: new Map(), acked: new Map() };
  const spec = await join(a, g.id);
  const stop = watch(g, spec.c);
  for (let i = 0; i < 400 && most(g) < 3; i++) await sleep(5);
  a.proc.kill('SIGSTOP');
  const pausedAt = Date.now();
  // B takes it once the lease has expired, and plays on.
  let atB = null;
  for (let i = 0; i < 100 && !atB; i++) {
    await sleep(100);
    const j = await join(b, g.id);
    if (j.first.type === 'welcome') atB = j.c; else j.c.destroy();
  }
  assert(atB, 'B took the game of the paused instance');
  const tookAfter = Date.now() - pausedAt;
  // Its last renewal came at most a third of the lease before the pause.
  // (A live instance's game would go at B's next round, within a third of it.)
  assert(tookAfter >= (LEASE * 1000) / 2, `not before the lease expired (${tookAfter} ms)`);
  const seenOnA = most(g);
  stop();
  const g2 = { id: g.id, seen: new Map(), log: new Map(), acked: new Map() };
  const stop2 = watch(g2, atB);
  for (let i = 0; i < 400 && most(g2) < seenOnA + 3; i++) await sleep(5);
  a.proc.kill('SIGCONT');
  // A wakes up: its room is stale; the spectator there hears where the game went.
  await spec.c.next((m) => m.type === 'error' && m.code === 'elsewhere', { timeout: LEASE * 1000 + 3000, what: 'elsewhere' });
  await waitOver(b, [g.id], 30000);
  await sleep(100);
  stop2();
  for (const [n, v] of g.seen) if (!g2.seen.has(n)) g2.seen.set(n, v);
  for (const [n, e] of g.log) if (!g2.log.has(n)) g2.log.set(n, e);
  const rec = await checkFinished(b, g2);
  assertEq((await api(a, 'GET', `/api/games/${g.id}/record`)).json.moves, rec.moves, 'A reads the same record');
  assert(/another server instance (took it over|plays game)/.test(a.stderr()), `A noticed: ${a.stderr().slice(-600)}`);
  spec.c.destroy();
  atB.close();
  console.log(`# B took the paused instance's game ${tookAfter} ms after the pause`);
});

// Restarts the test cluster (pg_ctl restart -m fast: every connection drops).
function restartDatabase() {
  const data = process.env.TABULA_TEST_PG_DATA;
  const pgCtl = path.join(process.env.TABULA_TEST_PG_BIN, 'pg_ctl');
  const args = ['restart', '-D', data, '-m', 'fast', '-w', '-t', '30', '-l', path.join(path.dirname(data), 'log')];
  const [cmd, argv] = process.getuid() === 0 ? ['runuser', ['-u', 'postgres', '--', pgCtl, ...args]] : [pgCtl, args];
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, argv, { stdio: 'ignore' });
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl restart: ${code}`))));
  });
}

t.test('the database restarts under running games: the server reconnects and they finish', async () => {
  const s = await startServer(tabula, { db: testDb(dir, 'restart'), aiDelay: 40, quiet: false });
  servers.push(s);
  const ai = await api(s, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }] });
  const person = await api(s, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human' }, { kind: 'ai', level: 'random' }] });
  const g = { id: ai.json.id, seen: new Map(), log: new Map(), acked: new Map() };
  const stop = watch(g, (await join(s, g.id)).c);
  for (let i = 0; i < 400 && most(g) < 5; i++) await sleep(5);
  await restartDatabase();
  // The person's decisions go through the reconnected store.
  const h = { id: person.json.id, seen: new Map(), log: new Map(), acked: new Map() };
  const { c } = await join(s, h.id, person.json.seats[0].token);
  await playSeat(c, { onAck: (x) => h.acked.set(x.n, x.move), timeout: 30000 });
  await waitOver(s, [g.id, h.id], 30000);
  await sleep(100);
  stop();
  await checkFinished(s, g);
  await checkFinished(s, h);
  assert(s.proc.exitCode === null, 'the server kept running');
  assert(/connection is lost/.test(s.stderr()), `the server saw the database go: ${s.stderr().slice(-500)}`);
  c.destroy();
});

t.test('every server stops cleanly (no leak under ASan)', async () => {
  for (const s of servers.slice(1)) {
    s.proc.kill('SIGCONT'); // in case the pause test failed half-way
    const exit = await s.stop();
    assertEq(exit.code, 0, `exit status (stderr: ${s.stderr().slice(0, 2000)})`);
  }
});

const failed = await t.run();
for (const s of servers) if (s.proc.exitCode === null && !s.proc.signalCode) { s.proc.kill('SIGCONT'); s.proc.kill('SIGKILL'); }
fs.rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
