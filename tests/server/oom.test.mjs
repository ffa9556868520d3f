// oom.test.mjs TABULA FAILALLOC — the server when memory runs out (docs/server.md, "When
// memory runs out"). The server runs with failalloc.so preloaded (a test-only library: the
// shipped binary has no hook), which makes the Nth allocation from the moment the test arms
// it fail, in whatever thread makes it. For each kind of request and message — create, join,
// list, decide, undo, hint, replay, review, chat, rematch — N is swept 1, 2, 3 … until the request no longer
// reaches an Nth allocation (every N up to 150, then one in N/20; OOM_FULL=1: every N). After
// each one: the request was answered (its success, or an error that changed nothing:
// `internal`, `store_failed`), the server still answers, and every game's record, log and
// seats are byte for byte what they were before the request, or what the same request makes
// of them without a fault. OOM_VERBOSE=1 prints each refusal.
import fs from 'node:fs';
import path from 'node:path';
import { api, assert, assertEq, runner, sleep, startServer, tempDir, WsClient } from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const shim = path.resolve(process.argv[3] || 'build/tests/libfailalloc.so');
const dir = tempDir();
const ctlPath = path.join(dir, 'failalloc.ctl');
fs.writeFileSync(ctlPath, Buffer.alloc(16));
const ctl = fs.openSync(ctlPath, 'r+');

// The control words (failalloc.c): the countdown, and how many allocations failed.
function arm(n) {
  const b = Buffer.alloc(16);
  b.writeBigInt64LE(BigInt(n), 0);
  fs.writeSync(ctl, b, 0, 16, 0);
}
function disarm() { // true when the armed allocation was reached
  fs.writeSync(ctl, Buffer.alloc(8), 0, 8, 0);
  const r = Buffer.alloc(8);
  fs.readSync(ctl, r, 0, 8, 8);
  return r.readBigInt64LE(0) > 0n;
}

process.env.LD_PRELOAD = shim;
process.env.TABULA_FAILALLOC = ctlPath;
const server = await startServer(tabula, { db: path.join(dir, 'oom.db'), aiDelay: 0 });
delete process.env.LD_PRELOAD;
delete process.env.TABULA_FAILALLOC;
const t = runner('server when memory runs out');

// The games checked after every faulted request: a bystander (another game, which must never
// change) and the game the requests are about.
const games = new Set();
const connect = (game, token) => WsClient.connect(server.port, `?game=${game}${token ? `&token=${token}` : ''}`);
let reqId = 0;

// Every game's record and log, read without a fault.
async function snapshot() {
  const out = new Map();
  for (const id of games) {
    const rec = await api(server, 'GET', `/api/games/${id}/record`);
    const game = await api(server, 'GET', `/api/games/${id}`);
    assertEq([rec.status, game.status], [200, 200], `game ${id} reads`);
    const { view, ...kept } = rec.json; // a running game's record carries the spectator's view
    out.set(id, { record: rec.text, moves: kept.moves, kept: JSON.stringify(kept), log: game.json.log,
      logText: JSON.stringify(game.json.log), seats: JSON.stringify(game.json.seats) });
  }
  return out;
}

// The games after a faulted request: each byte for byte as before, but the game `touched`
// when the request succeeded, which must be what the request makes of it (`made`).
function sameGames(before, after, { touched = null, made = null } = {}, what) {
  for (const [id, b] of before) {
    const a = after.get(id);
    if (id === touched && made) {
      assert(made(b, a), `${what}: game ${id} is what the request makes of it\n before ${b.kept.slice(-400)} ${b.logText.slice(-300)}\n after  ${a.kept.slice(-400)} ${a.logText.slice(-300)}`);
      continue;
    }
    assert(a.record === b.record && a.logText === b.logText && a.seats === b.seats,
      `${what}: game ${id} is byte for byte what it was\n before ${b.record.slice(-400)} ${b.seats}\n after  ${a.record.slice(-400)} ${a.seats}`);
  }
}

const FAILURES = new Set(['internal', 'store_failed', 'dropped']);
const stats = {}; // per kind: allocations failed, of those the request makes

// Sweeps the fault over every allocation of one kind of request (every `stride`th, for a
// request whose every try costs an Argon2id hash; OOM_FULL=1: every one). `prepare` (optional, no
// fault) returns what the request needs; `run(prep)` makes the request with the fault armed
// and returns {ok, code}; a request that succeeded may change the game `touched(prep)` only
// as `made(prep)(before, after)` says; `reset` (no fault) follows a success.
async function sweep(kind, { prepare, run, touched, made, reset, max = 4000, stride = 1 }) {
  let n = 1, ok = 0, failed = 0, tried = 0;
  for (; n <= max; n = full ? n + 1 : Math.max(next(n), n + stride)) {
    let prep = null;
    try {
      prep = prepare ? await prepare() : null;
    } catch (e) {
      throw new Error(`${kind}, before allocation ${n} (no fault): ${e.message}`);
    }
    const before = await snapshot();
    arm(n);
    let outcome;
    try {
      outcome = await run(prep);
    } catch (e) {
      if (process.env.OOM_VERBOSE) console.log(`# ${kind} ${n}: ${e.message}`);
      throw new Error(`${kind}, allocation ${n}: ${e.message}`);
    } finally {
      await sleep(2); // what the request set going (a broadcast) ends under the fault too
    }
    const hit = disarm();
    if (process.env.OOM_VERBOSE && !outcome.ok) console.log(`# ${kind} ${n}: ${outcome.code}`);
    const health = await api(server, 'GET', '/api/health');
    assertEq(health.status, 200, `${kind}, allocation ${n}: the server still answers`);
    assert(outcome.ok || FAILURES.has(outcome.code),
      `${kind}, allocation ${n}: answered with success or an error that changed nothing (got ${outcome.code}: ${outcome.message})`);
    if (outcome.ok) ok++; else failed++;
    const after = await snapshot();
    // a dropped connection is an answer lost on the way (libmicrohttpd had no memory to take
    // the connection in, or to send the answer): as after a network failure, the request
    // may or may not have been done, but only ever whole
    const change = (outcome.ok || outcome.code === 'dropped') && touched
      ? { touched: touched(prep), made: (b, a) => made(prep)(b, a) || (outcome.code === 'dropped' && a.record === b.record && a.logText === b.logText && a.seats === b.seats) }
      : {};
    sameGames(before, after, change, `${kind}, allocation ${n}${outcome.ok ? '' : ' (refused)'}`);
    if ((outcome.ok || outcome.code === 'dropped') && reset) await reset();
    if (!hit) break;
    tried++;
  }
  assert(n <= max, `${kind}: the sweep reached the request's last allocation (at most ${max})`);
  assert(n > 1, `${kind}: the request allocates`);
  assert(failed > 0, `${kind}: some failed allocation was answered with an error`);
  stats[kind] = `${tried} of ${n - 1}`;
}

// Every allocation up to the 150th, then one in every N/20 (the allocations past a few
// hundred repeat the same few paths: reading a game back, printing a long list), so the test
// stays under a minute; OOM_FULL=1 sweeps every one (a few minutes).
const full = process.env.OOM_FULL === '1';
const next = (n) => (full || n < 150 ? n + 1 : n + Math.floor(n / 20));

// HTTP outcome: {ok} for 2xx, else the error's code.  libmicrohttpd closes a connection it
// has no memory to take in (before any code of the server runs): `dropped`, counted apart.
const dropped = {};
async function http(request, kind) {
  let r;
  try {
    r = await request();
  } catch (e) {
    if (!/fetch failed/.test(e.message)) throw e;
    dropped[kind] = (dropped[kind] || 0) + 1;
    return { ok: false, code: 'dropped' };
  }
  return r.status < 300 ? { ok: true, r } : { ok: false, code: r.json?.error?.code, message: r.text.slice(0, 200) };
}
// A WebSocket message and its answer: the reply with its id (or the `broadcast` message it
// sets going, a hint), or the `internal` error of a message the server had no memory to
// read (it cannot know the id then).
async function ask(c, msg, types = ['ack', 'error', 'pong'], broadcast = null) {
  const from = c.messages.length;
  c.send(msg);
  const m = await c.next((x) => (x.id === msg.id && types.includes(x.type)) || x.type === broadcast
    || (x.type === 'error' && x.id === undefined && x.code === 'internal'), { from, timeout: 5000, what: `the answer to ${msg.type}` })
    .catch((e) => { throw new Error(`${e.message} (connection ${c.closed ? `closed ${c.closeCode}` : 'open'}; since: ${c.messages.slice(from).map((x) => JSON.stringify(x).slice(0, 120)).join(' | ')})`); });
  return m.type === 'error' ? { ok: false, code: m.code, message: m.message } : { ok: true, m };
}

const people = (n) => Array.from({ length: n }, (_, i) => ({ kind: 'human', name: `P${i + 1}` }));
async function create(body) {
  const r = await api(server, 'POST', '/api/games', body);
  assertEq(r.status, 201, `a game is created without a fault: ${r.text}`);
  games.add(r.json.id);
  return r.json;
}

t.test('create, list and join: every allocation failed in turn', async () => {
  await create({ game: 'clans', players: 2, seats: people(2) }); // the bystander, checked throughout
  let made = 0;
  await sweep('create', {
    run: async () => {
      const o = await http(() => api(server, 'POST', '/api/games', { game: 'khronos', players: 2, seats: people(2) }), 'create');
      if (o.ok) made++;
      return o;
    },
  });
  assert(made >= 1, 'a game was created');
  const all = await api(server, 'GET', '/api/games?status=all&limit=2');
  await sweep('list', {
    run: async () => {
      const o = await http(() => api(server, 'GET', '/api/games?status=all&limit=2'), 'list');
      if (o.ok) assertEq(o.r.text, all.text, 'a list made under a fault is the fault-free list');
      return o;
    },
  });
  // join: a game with an open seat each time; a seat taken is a game started
  let open = await create({ game: 'clans', players: 2, seats: [{ kind: 'human', name: 'Host' }, { kind: 'human', open: true }] });
  await sweep('join', {
    run: () => http(() => api(server, 'POST', `/api/games/${open.id}/seats`, { name: 'Guest' }), 'join'),
    touched: () => open.id,
    made: () => (b, a) => a.logText === b.logText && JSON.stringify(a.moves) === JSON.stringify(b.moves)
      && a.seats.includes('"Guest"') && !b.seats.includes('"Guest"'),
    reset: async () => {
      games.delete(open.id);
      open = await create({ game: 'clans', players: 2, seats: [{ kind: 'human', name: 'Host' }, { kind: 'human', open: true }] });
    },
  });
  games.delete(open.id);
});

// `a` is `b` with one more decision, `move`: the same record but for it (a game that it ends
// has its full record then: the same moves), the same log entries before it.
function oneMore(b, a, move) {
  if (a.moves.length !== b.moves.length + 1 || a.moves[a.moves.length - 1] !== move) return false;
  if (JSON.stringify(a.moves.slice(0, -1)) !== JSON.stringify(b.moves)) return false;
  const bk = JSON.parse(b.kept), ak = JSON.parse(a.kept);
  ak.moves.pop();
  const ended = ak.result !== undefined && bk.result === undefined;
  return (ended || JSON.stringify(ak) === JSON.stringify(bk)) && a.log.length === b.log.length + 1
    && JSON.stringify(a.log.slice(0, -1)) === b.logText;
}

// A game of two people.  Each try connects the seat to move afresh (a connection may send
// 20 messages a second): its `welcome` and `state` carry the position and the legal
// decisions, read before the fault is armed.
async function table(game = 'arkadia') {
  const g = await create({ game, players: 2, seats: people(2) });
  return { id: g.id, tokens: g.seats.map((x) => x.token), conns: [] };
}
async function current(tb) {
  for (const c of tb.conns) c.destroy();
  tb.conns = [];
  const game = await api(server, 'GET', `/api/games/${tb.id}`);
  const seat = game.json.to_move;
  assert(seat === 0 || seat === 1, `someone is to move (${JSON.stringify(game.json).slice(0, 200)})`);
  const c = await connect(tb.id, tb.tokens[seat]);
  tb.conns.push(c);
  const state = await c.next((m) => m.type === 'state', { timeout: 5000, what: 'the state on connecting' });
  assert(state.your_turn && state.n === game.json.decisions, 'the state on connecting is the position');
  return { seat, state, c };
}

t.test('decide and undo: every allocation failed in turn', async () => {
  const tb = await table('arkadia');
  // decide: the first legal decision of the seat to move (the game goes on after a success)
  await sweep('decide', {
    prepare: async () => {
      const g = await api(server, 'GET', `/api/games/${tb.id}`);
      if (g.json.status === 'over') { // a game the sweep played to its end: another one
        games.delete(tb.id);
        Object.assign(tb, await table('arkadia'));
      }
      return current(tb);
    },
    run: ({ state, c }) => ask(c, { type: 'decide', move: state.legal[0], n: state.n, id: ++reqId }),
    touched: () => tb.id,
    made: ({ state }) => (b, a) => oneMore(b, a, state.legal[0]),
  });
  games.delete(tb.id);
  // undo, on a game of its own (a short history to go back in): the seat to move takes back
  // its own decision of this turn, made without a fault before each try (Arkadia's turns
  // have several decisions)
  Object.assign(tb, await table('arkadia'));
  const decideOne = async () => {
    for (;;) {
      const { state, c } = await current(tb);
      const r = await c.request({ type: 'decide', move: state.legal[0], n: state.n, id: ++reqId });
      assertEq(r.type, 'ack', 'a decision without a fault');
      const next = await current(tb);
      if (next.state.can_undo) return next;
    }
  };
  await sweep('undo', {
    prepare: async () => {
      const here = await current(tb);
      return here.state.can_undo ? here : decideOne();
    },
    run: ({ c }) => ask(c, { type: 'undo', id: ++reqId }),
    touched: () => tb.id,
    made: () => (b, a) => oneMore(a, b, b.moves[b.moves.length - 1]),
  });
});

t.test('hint, replay and review: every allocation failed in turn', async () => {
  const tb = await table('clans');
  await sweep('hint', {
    prepare: () => current(tb),
    run: ({ c }) => ask(c, { type: 'hint', id: ++reqId }, ['error'], 'hint'),
  });
  // a finished game for the replay and the review: played out without a fault
  const done = await table('clans');
  { // a resignation at the start ends it (a short game to read back: fewer allocations)
    const { c } = await current(done);
    const from = c.messages.length;
    c.send({ type: 'resign', id: ++reqId });
    await c.next((m) => m.type === 'state' && m.result, { from, what: 'the game over' });
  }
  await sweep('replay', {
    run: () => http(() => api(server, 'GET', `/api/games/${done.id}/replay/0`), 'replay'),
  });
  await sweep('review', {
    run: () => http(() => api(server, 'POST', `/api/games/${done.id}/review`, {}), 'review'),
  });
  for (const c of [...tb.conns, ...done.conns]) c.destroy();
  games.delete(tb.id);
  games.delete(done.id);
});

t.test('chat and play again: every allocation failed in turn', async () => {
  // chat: a line from the seat to move.  A refused line is never stored, a line said is
  // stored once (an `internal` error may also be the broadcast of a stored line that could
  // not be sent: then it is there once).  A seat says 5 lines in 10 s: a fresh table (not
  // among the games checked byte for byte: chat changes no record) after 4.
  let tb = null, said = 0, last = null;
  const count = async (id) => (await api(server, 'GET', `/api/games/${id}/replay/0`)).json.chat.length;
  await sweep('chat', {
    prepare: async () => {
      if (tb) {
        const n = await count(tb.id);
        if (last && !last.ok && last.code === 'internal' && n === said + 1) said++; // stored, its broadcast lost
        assertEq(n, said, 'the chat holds each line said, once');
      }
      if (!tb || said >= 4) {
        if (tb) for (const c of tb.conns) c.destroy();
        const g = (await api(server, 'POST', '/api/games', { game: 'clans', players: 2, seats: people(2) })).json;
        tb = { id: g.id, tokens: g.seats.map((x) => x.token), conns: [] };
        said = 0;
        last = null;
      }
      return current(tb);
    },
    run: async ({ c }) => {
      last = await ask(c, { type: 'chat', text: 'hello', id: ++reqId }, ['error'], 'chat');
      if (last.ok) said++;
      return last;
    },
  });
  if (tb) for (const c of tb.conns) c.destroy();
  // play again: a refused request makes nothing (the old game names no rematch); one that
  // succeeded links its game.  A finished game of two people for each success.
  const finished = async () => {
    const g = (await api(server, 'POST', '/api/games', { game: 'clans', players: 2, seats: people(2) })).json;
    const c = await connect(g.id, g.seats[0].token);
    await c.next((m) => m.type === 'state', { what: 'the state' });
    c.send({ type: 'resign', id: ++reqId });
    await c.next((m) => m.type === 'state' && m.result, { what: 'the game over' });
    c.destroy();
    return { id: g.id, token: g.seats[0].token };
  };
  let old = null, made = false; // made: true, false, or null (dropped: it may have been)
  await sweep('rematch', {
    prepare: async () => {
      if (old && made !== null) {
        const g = (await api(server, 'GET', `/api/games/${old.id}`)).json;
        if (made) assert(typeof g.rematch === 'string' && g.rematch.length === 12, 'Play again linked its game');
        else assertEq(g.rematch, null, 'a refused Play again made nothing');
      }
      if (!old || made !== false) old = await finished();
      return old;
    },
    run: async ({ id, token }) => {
      const out = await http(() => api(server, 'POST', `/api/games/${id}/rematch`, { token }), 'rematch');
      made = out.ok ? true : out.code === 'dropped' ? null : false;
      return out;
    },
  });
});

// Accounts (issue 28): a sign-up under a fault either makes the account with its session or
// nothing (the name free again); a log-in and GET /api/me answer whole or fail alone.
t.test('sign up, log in, my games: every allocation failed in turn', async () => {
  let k = 0;
  await sweep('sign up', {
    run: async () => {
      const name = `oom${k++}`;
      const o = await http(() => api(server, 'POST', '/api/accounts', { name, password: 'long enough' }), 'sign up');
      if (!o.ok && o.code !== 'dropped') {
        const again = await api(server, 'POST', '/api/accounts', { name, password: 'long enough' });
        assertEq(again.status, 201, `a refused sign-up (${o.code}) made no account: the name is free`);
      }
      return o;
    },
    max: 400,
    stride: 3, // each try costs a hash: every third allocation (OOM_FULL=1: all)
  });
  const a = await api(server, 'POST', '/api/accounts', { name: 'Oom', password: 'long enough' });
  assertEq(a.status, 201, 'sign up without a fault');
  const cookie = a.headers.get('set-cookie').split(';')[0];
  await create({ game: 'clans', seats: [{ kind: 'human', account: 'Oom' }, { kind: 'human' }] }); // nobody moves
  // (an allocation failing inside libsodium's Argon2id can make it report a mismatch: that
  // log-in hears "wrong name or password", which changes nothing but a failure count)
  await sweep('log in', {
    run: async () => {
      const o = await http(() => api(server, 'POST', '/api/session', { name: 'oom', password: 'long enough' }), 'log in');
      return o.code === 'bad_login' ? { ...o, code: 'internal' } : o;
    },
    max: 400,
    stride: 3,
  });
  const mine = await api(server, 'GET', '/api/me', undefined, { headers: { Cookie: cookie } });
  await sweep('my games', {
    run: async () => {
      const o = await http(() => api(server, 'GET', '/api/me', undefined, { headers: { Cookie: cookie } }), 'my games');
      if (o.ok) assertEq(o.r.json.games.map((g) => g.id), mine.json.games.map((g) => g.id), 'the list made under a fault is the fault-free list');
      return o;
    },
  });
});

const failed = await t.run();
console.log(`# allocations swept per request: ${JSON.stringify(stats)}`);
console.log(`# connections libmicrohttpd closed for want of memory: ${JSON.stringify(dropped)}`);
await server.stop();
fs.closeSync(ctl);
fs.rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
