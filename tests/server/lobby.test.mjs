// lobby.test.mjs — the lobby's rules over real sockets (docs/server.md,
// "Lobby and games"): an open seat taken from the lobby, two people racing
// for the last seat, creation repeated with one request key, deleting (the
// creator's key, before any decision) and the refusals, expiry of games never
// started, resigning with two and with three players (also after a restart),
// and an absent seat played by the computer until its person is back.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  api, assert, assertEq, dbFiles, pg, runner, sayEnglish, sleep, startServer, tempDir, testDb, WsClient,
} from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir();
const db = testDb(dir, 'lobby');
let server = await startServer(tabula, { db, aiDelay: 0 });
// A second server with tiny timers: games never started expire after 2 s,
// and a person at an open table is replaced after 1 s.
const quick = await startServer(tabula, {
  db: testDb(dir, 'quick'), aiDelay: 0, args: ['--unstarted-expiry', '2s', '--absent-after', '1'],
});
const t = runner(`lobby tests${pg ? ' (PostgreSQL)' : ''}`);

const create = (body, srv = server) => api(srv, 'POST', '/api/games', body);
const take = (id, body, srv = server) => api(srv, 'POST', `/api/games/${id}/seats`, body);
const del = (id, body, srv = server) => api(srv, 'DELETE', `/api/games/${id}`, body);
const connect = (srv, game, token) =>
  WsClient.connect(srv.port, `?game=${game}${token ? `&token=${token}` : ''}`);
const key = () => crypto.randomBytes(24).toString('base64url');
const openTable = (extra = {}) => ({
  game: 'clans', seats: [{ kind: 'human', name: 'Ana' }, { kind: 'human', open: true }], ...extra,
});

async function expectError(res, status, code) {
  assertEq(res.status, status, `HTTP status for ${code} (${res.text.slice(0, 160)})`);
  assert(res.json && res.json.error && res.json.error.code === code,
    `error code ${code}, got ${res.text.slice(0, 200)}`);
  assert(typeof res.json.error.message === 'string' && res.json.error.message.length > 5,
    'the error explains itself');
}

async function until(what, fn, timeout = 20000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

// Makes the first decision of a game with a person at seat 1 and the
// computer at seat 0 (whoever is to move).
async function startGame(srv, g) {
  const ws = await connect(srv, g.id, g.seats[1].token);
  const st = await ws.next((m) => m.type === 'state' && (m.your_turn || m.n > 0));
  if (st.your_turn) assertEq((await ws.request({ type: 'decide', move: st.legal[0], id: 1 })).type, 'ack', 'first decision');
  await until('the first decision', async () => (await api(srv, 'GET', `/api/games/${g.id}`)).json.decisions > 0);
  await ws.close();
}

t.test('an open seat: listed in the lobby, the game waits, someone takes it, the game starts', async () => {
  const c = await create(openTable());
  assertEq(c.status, 201, 'created');
  const g = c.json;
  assert(g.seats[0].token && !g.seats[1].token && g.seats[1].open, 'no token for the open seat');
  assert(g.creator_token && g.creator_token.length === 43, 'the creator gets a key');
  assertEq(g.free_seats, 1, 'one free seat');
  const listed = (await api(server, 'GET', '/api/games?status=open')).json.games.find((x) => x.id === g.id);
  assert(listed, 'the lobby lists the open table');
  assertEq([listed.free_seats, listed.seats[1].open, listed.seats[0].name], [1, true, 'Ana'], 'free seat, who sits');
  // Nobody decides while a seat is free.
  const ana = await connect(server, g.id, g.seats[0].token);
  const st0 = await ana.next((m) => m.type === 'state');
  if (st0.your_turn) {
    const r = await ana.request({ type: 'decide', move: st0.legal[0], id: 1 });
    assertEq(r.code, 'waiting', 'a decision before the table is full is refused');
  }
  assertEq((await api(server, 'GET', `/api/games/${g.id}`)).json.decisions, 0, 'no decision yet');
  // Bad requests change nothing.
  await expectError(await take(g.id, { seat: 1 }), 400, 'bad_name');
  await expectError(await take(g.id, { seat: 1, name: 'x\ny' }), 400, 'bad_name');
  await expectError(await take(g.id, { seat: 7, name: 'Bea' }), 400, 'bad_seat');
  await expectError(await take(g.id, { seat: 0, name: 'Bea' }), 409, 'seat_taken');
  await expectError(await take(g.id, { name: 'Bea', colour: 'red' }), 400, 'bad_request');
  await expectError(await take(g.id, '{"name":'), 400, 'bad_json');
  await expectError(await take('zzzzzzzzzzzz', { name: 'Bea' }), 404, 'unknown_game');
  const bea = await take(g.id, { seat: 1, name: 'Bea' });
  assertEq(bea.status, 201, 'seat taken');
  assert(bea.json.token && bea.json.token.length === 43 && bea.json.link.includes(bea.json.token), 'own token');
  assertEq([bea.json.seat, bea.json.started], [1, true], 'the game starts');
  await expectError(await take(g.id, { name: 'Cy' }), 409, 'seat_taken');
  const after = (await api(server, 'GET', `/api/games/${g.id}`)).json;
  assertEq([after.free_seats, after.seats[1].name, !!after.seats[1].open], [0, 'Bea', false], 'Bea sits');
  const beaWs = await connect(server, g.id, bea.json.token);
  const welcome = await beaWs.next((m) => m.type === 'welcome');
  assertEq(welcome.seat, 1, 'Bea plays seat 1');
  // Whoever is to move now decides, and it is taken.
  const st = await beaWs.next((m) => m.type === 'state');
  const mover = st.to_move === 1 ? beaWs : ana;
  const ms = st.to_move === 1 ? st : await ana.next((m) => m.type === 'state' && m.your_turn);
  const ack = await mover.request({ type: 'decide', move: ms.legal[0], id: 2 });
  assertEq(ack.type, 'ack', 'the game plays');
  await ana.close();
  await beaWs.close();
});

t.test('two people race for the last seat: one wins, the other is told plainly', async () => {
  for (let round = 0; round < 6; round++) {
    const g = (await create(openTable())).json;
    const [a, b] = await Promise.all([take(g.id, { name: 'Bo' }), take(g.id, { name: 'Cy' })]);
    const won = [a, b].filter((r) => r.status === 201);
    const lost = [a, b].filter((r) => r.status !== 201);
    assertEq(won.length, 1, 'exactly one takes the seat');
    await expectError(lost[0], 409, 'seat_taken');
    const seat = (await api(server, 'GET', `/api/games/${g.id}`)).json.seats[1];
    assertEq(seat.name, won[0].json.name, 'the winner sits there');
  }
});

t.test('creating twice with one request key makes one game and answers it again', async () => {
  const before = (await api(server, 'GET', '/api/games?status=all&limit=500')).json.games.length;
  const k = key();
  const body = { game: 'clans', seats: [{ kind: 'human', name: 'Di' }, { kind: 'ai', level: 'easy' }], request_key: k };
  const [a, b] = await Promise.all([create(body), create(body)]);
  assert([a.status, b.status].includes(201), 'one created');
  assertEq(a.json.id, b.json.id, 'the same game');
  assertEq(a.json.seats[0].token, b.json.seats[0].token, 'the same seat link');
  assertEq(a.json.creator_token, b.json.creator_token, 'the same creator key');
  const c = await create(body);
  assertEq([c.status, c.json.id, c.json.repeated], [200, a.json.id, true], 'a later repeat too');
  const after = (await api(server, 'GET', '/api/games?status=all&limit=500')).json.games.length;
  assertEq(after - before, 1, 'one game more');
  const other = await create({ ...body, request_key: key() });
  assert(other.status === 201 && other.json.id !== a.json.id, 'another key: another game');
  // Neither the request key nor a token it gave is stored anywhere.
  const secrets = [k, a.json.creator_token, a.json.seats[0].token];
  for (const f of dbFiles(db)) {
    const bytes = fs.readFileSync(f);
    for (const x of secrets) assert(!bytes.includes(Buffer.from(x)), `${path.basename(f)} holds no key or token`);
  }
  await expectError(await create({ ...body, request_key: 'short' }), 400, 'bad_request');
  await expectError(await create({ ...body, request_key: 'x'.repeat(30) + '!' }), 400, 'bad_request');
  await expectError(await create({ ...body, request_key: 42 }), 400, 'bad_request');
});

t.test('the creator deletes a game nobody has played; other people and started games cannot', async () => {
  const g = (await create(openTable())).json;
  const watcher = await connect(server, g.id);
  await watcher.next((m) => m.type === 'state');
  await expectError(await del(g.id, {}), 403, 'bad_token');
  await expectError(await del(g.id, { token: g.seats[0].token }), 403, 'bad_token');
  await expectError(await del(g.id, '{"token":'), 400, 'bad_json');
  const ok = await del(g.id, { token: g.creator_token });
  assertEq([ok.status, ok.json.deleted], [200, true], 'deleted');
  const told = await watcher.next((m) => m.type === 'error' && m.code === 'deleted');
  assert(/deleted/.test(told.message), 'the page hears it');
  await expectError(await api(server, 'GET', `/api/games/${g.id}`), 404, 'unknown_game');
  await expectError(await del(g.id, { token: g.creator_token }), 404, 'unknown_game');
  const listed = (await api(server, 'GET', '/api/games?status=all&limit=500')).json.games;
  assert(!listed.some((x) => x.id === g.id), 'gone from the lobby');
  await watcher.close();
  // Started (the computer moved first): refused, nothing changes.
  const s = (await create({ game: 'clans', seats: [{ kind: 'ai', level: 'easy' }, { kind: 'human', name: 'Ed' }] })).json;
  await startGame(server, s);
  await expectError(await del(s.id, { token: s.creator_token }), 409, 'started');
  assertEq((await api(server, 'GET', `/api/games/${s.id}`)).status, 200, 'still there');
  await expectError(await api(server, 'PUT', `/api/games/${s.id}`, {}), 405, 'method_not_allowed');
});

t.test('games never started expire; started ones stay', async () => {
  const idle = (await create(openTable(), quick)).json;
  const started = (await create({ game: 'clans', seats: [{ kind: 'ai', level: 'easy' }, { kind: 'human', name: 'Fa' }] }, quick)).json;
  await startGame(quick, started);
  await until('expiry', async () => (await api(quick, 'GET', `/api/games/${idle.id}`)).status === 404, 15000);
  await sleep(2500);
  assertEq((await api(quick, 'GET', `/api/games/${started.id}`)).status, 200, 'a started game stays');
});

// Resigns; a two-player game refuses while a decision is being saved
// ('busy': the page tries again), so this does too.
async function resign(ws, id) {
  for (let attempt = 0; ; attempt++) {
    const from = ws.messages.length;
    ws.send({ type: 'resign', id });
    const m = await ws.next((x) => x.type === 'notice' || (x.type === 'error' && x.id === id), { from, what: 'the resignation' });
    if (m.code !== 'busy' || attempt === 20) return m;
    await sleep(100);
  }
}

t.test('two players: resigning ends the game, the other wins, the record says who resigned', async () => {
  const g = (await create({ game: 'clans', seats: [{ kind: 'human', name: 'Gil' }, { kind: 'human', name: 'Hal' }] })).json;
  const gil = await connect(server, g.id, g.seats[0].token);
  const hal = await connect(server, g.id, g.seats[1].token);
  const spectator = await connect(server, g.id);
  await spectator.next((m) => m.type === 'state');
  const r = await spectator.request({ type: 'resign', id: 9 });
  assertEq(r.code, 'spectator', 'a spectator cannot resign');
  const notice = await resign(hal, 1);
  assertEq([notice.code, notice.seat], ['resigned', 1], 'said');
  assert(/Hal resigned; Gil wins/.test(notice.text), `in words: ${notice.text}`);
  assertEq(sayEnglish(notice.text_msg), notice.text, 'text_msg says the notice');
  const end = await gil.next((m) => m.type === 'state' && m.result);
  assertEq([end.status, end.result.winners, end.result.resigned, end.your_turn], ['over', [0], [1], false], 'over');
  const again = await resign(gil, 2);
  assertEq(again.code, 'game_over', 'no resigning after the end');
  const summary = (await api(server, 'GET', `/api/games/${g.id}`)).json;
  assertEq([summary.status, summary.winners, summary.seats[1].resigned], ['over', [0], true], 'summary');
  const rec = (await api(server, 'GET', `/api/games/${g.id}/record`)).json;
  assertEq(rec.players[1].kind, 'human, resigned', 'the record');
  // The game is over, so its record is the full one (seed and result), which
  // `tabula replay` reads, and it can be reviewed.
  assert(!rec.sealed && rec.seed !== undefined, `the record is no longer sealed: ${JSON.stringify(rec).slice(0, 300)}`);
  assertEq([rec.result.winners, rec.result.resigned], [[0], [1]], 'the record says who resigned and who won');
  const file = path.join(dir, 'resigned.json');
  fs.writeFileSync(file, JSON.stringify(rec));
  const replay = spawnSync(tabula, ['replay', file], { encoding: 'utf8' });
  assertEq(replay.status, 0, `tabula replay reads it: ${replay.stderr}`);
  const review = await api(server, 'POST', `/api/games/${g.id}/review`);
  assert([200, 202].includes(review.status), `a resigned game can be reviewed: ${review.status} ${review.text.slice(0, 200)}`);
  for (const c of [gil, hal, spectator]) await c.close();
  // After a restart the game is still over, the same way.
  const stopped = await server.stop();
  assertEq(stopped.code, 0, `the server stops cleanly (${server.stderr().slice(0, 1500)})`);
  server = await startServer(tabula, { db, aiDelay: 0 });
  const back = (await api(server, 'GET', `/api/games/${g.id}`)).json;
  assertEq([back.status, back.winners, back.result.resigned, back.to_move], ['over', [0], [1], null], 'after a restart');
  const listed = (await api(server, 'GET', '/api/games?status=over&limit=500')).json.games.find((x) => x.id === g.id);
  assertEq(listed.winners, [0], 'the lobby lists it as won by Gil');
});

t.test('a game ended by a resignation takes nothing back: neither an undo nor a take-back', async () => {
  const g = (await create({ game: 'clans', seats: [{ kind: 'human', name: 'Ivy' }, { kind: 'human', name: 'Jon' }] })).json;
  const ivy = await connect(server, g.id, g.seats[0].token);
  const jon = await connect(server, g.id, g.seats[1].token);
  const first = await ivy.next((m) => m.type === 'state');
  const [mover, other] = first.your_turn ? [ivy, jon] : [jon, ivy];
  const st = mover === ivy ? first : await mover.next((m) => m.type === 'state');
  const ack = await mover.request({ type: 'decide', move: st.legal[0], n: st.n, id: 1 });
  assertEq(ack.type, 'ack', `a first decision: ${ack.message}`);
  assertEq((await resign(other, 2)).code, 'resigned', 'the other player resigns');
  for (const type of ['undo', 'take_back']) {
    const r = await mover.request({ type, id: 3 });
    assertEq(r.code, 'game_over', `${type} after the resignation`);
  }
  const after = (await api(server, 'GET', `/api/games/${g.id}`)).json;
  assertEq([after.status, after.decisions], ['over', 1], 'the game stays as it ended');
  for (const c of [ivy, jon]) await c.close();
});

t.test('three players: the resigned seat is played by the computer to the end and cannot win', async () => {
  const g = (await create({
    game: 'clans', seats: [{ kind: 'human', name: 'Ida' }, { kind: 'human', name: 'Jo' }, { kind: 'ai', level: 'easy' }],
  })).json;
  const ida = await connect(server, g.id, g.seats[0].token);
  const jo = await connect(server, g.id, g.seats[1].token);
  await jo.next((m) => m.type === 'state');
  const notice = await resign(jo, 1);
  assert(/Jo resigned; the computer plays for Jo/.test(notice.text), `in words: ${notice.text}`);
  assertEq(sayEnglish(notice.text_msg), notice.text, 'text_msg says the notice');
  assertEq((await resign(jo, 2)).code, 'resigned', 'once only');
  assertEq((await jo.request({ type: 'decide', move: '1-2', id: 3 })).code, 'resigned', 'no deciding after resigning');
  // Ida plays; the computer plays Jo's seat and seat 3.
  let seen = -1, id = 10, end;
  for (;;) {
    const st = await ida.next((m) => m.type === 'state' && (m.n > seen || m.result), { timeout: 120000 });
    if (st.result) { end = st; break; }
    seen = st.n;
    if (!st.your_turn) continue;
    const ack = await ida.request({ type: 'decide', move: st.legal[0], id: ++id, n: st.n });
    assert(ack.type === 'ack' || ack.code === 'stale', `decision taken: ${JSON.stringify(ack)}`);
  }
  assertEq(end.result.resigned, [1], 'the result says who resigned');
  assertEq(end.result.ranks[1], 3, 'ranked after the others');
  assert(!end.result.winners.includes(1), 'never a winner');
  const full = (await api(server, 'GET', `/api/games/${g.id}`)).json;
  const byComputer = full.log.filter((e) => e.seat === 1);
  assert(byComputer.length > 0 && byComputer.every((e) => e.by === 'ai'), 'the computer played the seat');
  assert(/^Jo resigned; the computer plays for Jo\./.test(byComputer[0].said), `the log says so: ${byComputer[0].said}`);
  assertEq(sayEnglish(byComputer[0].said_msg), byComputer[0].said, 'said_msg says the log\'s words');
  await ida.close();
  await jo.close();
});

t.test('an absent seat: the computer plays it, the log says so, the person takes it back', async () => {
  // Per game (a friends' game asks for it), and the server's default for open tables.
  const plain = (await create({ game: 'clans', seats: [{ kind: 'human', name: 'Kim' }, { kind: 'human', name: 'Lu' }] })).json;
  assertEq(plain.absent_after, 0, "friends' games wait by default");
  assertEq((await create(openTable())).json.absent_after, 180, 'open tables: 180 s by default');
  await expectError(await create({ ...openTable(), absent_after: -1 }), 400, 'bad_request');
  await expectError(await create({ ...openTable(), absent_after: 'soon' }), 400, 'bad_request');
  const table = (await create(openTable(), quick)).json;
  assertEq(table.absent_after, 1, '--absent-after');
  const g = (await create({ game: 'clans', absent_after: 1, seats: [{ kind: 'human', name: 'Mo' }, { kind: 'human', name: 'Ned' }] })).json;
  assertEq(g.absent_after, 1, 'asked for');
  const watcher = await connect(server, g.id);
  const first = await watcher.next((m) => m.type === 'state');
  const who = first.to_move, name = who === 0 ? 'Mo' : 'Ned';
  const notice = await watcher.next((m) => m.type === 'notice' && m.code === 'away', { timeout: 15000 });
  assertEq(notice.seat, who, 'the seat to move');
  assert(notice.text.startsWith(`${name} was away; the computer plays for ${name}`), `in words: ${notice.text}`);
  assertEq(sayEnglish(notice.text_msg), notice.text, 'text_msg says the away notice');
  await watcher.next((m) => m.type === 'state' && m.n >= 1, { timeout: 30000 });
  const full = (await api(server, 'GET', `/api/games/${g.id}`)).json;
  assertEq([full.log[0].seat, full.log[0].by], [who, 'ai'], 'the computer decided for the seat');
  assert(full.log[0].said.startsWith(`${name} was away; the computer plays for ${name}.`), `the log: ${full.log[0].said}`);
  // The person comes back: the seat is theirs again.
  const person = await connect(server, g.id, g.seats[who].token);
  await person.next((m) => m.type === 'welcome');
  const s = (await api(server, 'GET', `/api/games/${g.id}`)).json;
  assert(!s.seats[who].away, 'back');
  await person.close();
  await watcher.close();
});

// The store's migration 2 on a database of version 1 (SQLite; the
// PostgreSQL migrations run from an empty database in every _pg test).
if (!pg) {
  t.test('a version-1 database is brought up to date and its games go on', async () => {
    const old = path.join(dir, 'v1.db');
    const sql = `CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL,
        options TEXT NOT NULL DEFAULT '{}', seed TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running','over')), created TEXT NOT NULL, finished TEXT, result TEXT);
      CREATE INDEX games_status ON games(status, created);
      CREATE TABLE seats (game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('human','ai')), name TEXT NOT NULL, level TEXT NOT NULL DEFAULT '',
        token_hash BLOB, joined INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game_id, seat));
      CREATE TABLE decisions (game_id TEXT NOT NULL REFERENCES games(id), n INTEGER NOT NULL, seat INTEGER NOT NULL,
        move TEXT NOT NULL, by TEXT NOT NULL CHECK (by IN ('human','ai')), at TEXT NOT NULL, PRIMARY KEY (game_id, n));
      INSERT INTO games VALUES ('oldgame22222', 'clans', 2, '{}', '7', 'running', '${new Date().toISOString()}', NULL, NULL);
      INSERT INTO seats VALUES ('oldgame22222', 0, 'human', 'Old', '', NULL, 1);
      INSERT INTO seats VALUES ('oldgame22222', 1, 'ai', 'Computer 2', 'easy', NULL, 0);
      PRAGMA user_version = 1;`;
    const r = spawnSync('sqlite3', [old], { input: sql, encoding: 'utf8' });
    assertEq(r.status, 0, `sqlite3 made the old database (${r.stderr || r.error})`);
    const srv = await startServer(tabula, { db: old, aiDelay: 0 });
    try {
      const g = (await api(srv, 'GET', '/api/games/oldgame22222')).json;
      assertEq([g.free_seats, g.seats[0].name, !!g.seats[0].open, g.absent_after], [0, 'Old', false, 0], 'the old game');
      await expectError(await del('oldgame22222', { token: 'x'.repeat(43) }, srv), 403, 'bad_token');
      const fresh = await create(openTable(), srv);
      assertEq(fresh.status, 201, 'new games work');
    } finally {
      const { code } = await srv.stop();
      assertEq(code, 0, `the server stops cleanly (${srv.stderr().slice(0, 1500)})`);
    }
    const v = spawnSync('sqlite3', [old, 'PRAGMA user_version'], { encoding: 'utf8' });
    assert(Number(v.stdout.trim()) >= 2, `migrated (version ${v.stdout.trim()})`);
  });
}

t.test('the servers stop cleanly (no leak under ASan)', async () => {
  for (const srv of [server, quick]) {
    const { code } = await srv.stop();
    assertEq(code, 0, `exit status (stderr: ${srv.stderr().slice(0, 2000)})`);
  }
});

const failed = await t.run();
process.exit(failed ? 1 : 0);
