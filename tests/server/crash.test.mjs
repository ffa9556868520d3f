// crash.test.mjs TABULA — the crash test: games in full swing (computer-only
// games and people-against-computer games played by scripted clients) while
// the server is killed with SIGKILL twice and restarted on the same SQLite
// database.  Every acknowledged decision must survive, every game must
// resume exactly where it was (the views seen before the crash are the views
// the replay gives after it), reconnecting seats get their state at once,
// computer seats resume thinking, and every game plays to its end.
import fs from 'node:fs';
import path from 'node:path';
import {
  api, assert, assertEq, pg, playSeat, runner, sleep, startServer, tempDir, testDb, WsClient,
} from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir();
const db = testDb(dir, 'crash');
const t = runner(`server crash test (kill -9 and restart)${pg ? ' (PostgreSQL)' : ''}`);

const specs = [
  { seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'easy' }] },
  { seats: [{ kind: 'ai' }, { kind: 'ai' }, { kind: 'ai' }] },
  { seats: [{ kind: 'ai' }, { kind: 'ai' }, { kind: 'ai' }, { kind: 'ai' }] },
  { seats: [{ kind: 'human' }, { kind: 'ai', level: 'random' }] },
  { seats: [{ kind: 'human' }, { kind: 'human' }, { kind: 'ai' }] },
  { seats: [{ kind: 'human' }, { kind: 'human' }, { kind: 'human' }, { kind: 'human' }] },
];

const games = []; // {id, tokens[], seen: Map n -> view, log: Map n -> entry, acked: Map n -> move}

function watch(g, client) {
  // Everything a spectator sees: the views by decision count and the log.
  const onMsg = () => {
    for (; g.read < client.messages.length; g.read++) {
      const m = client.messages[g.read];
      if (m.type === 'welcome') for (const e of m.log) g.log.set(e.n, e);
      if (m.type === 'state') {
        if (g.seen.has(m.n)) assertEq(m.view, g.seen.get(m.n), `game ${g.id}: one view per position`);
        g.seen.set(m.n, m.view);
        if (m.last) g.log.set(m.last.n, m.last);
        if (m.result) g.over = true;
      }
    }
  };
  g.read = 0;
  const timer = setInterval(onMsg, 5);
  return () => { clearInterval(timer); onMsg(); };
}

const AI_DELAY = 30, THINK = 20; // ms: games last a couple of seconds

// Runs one life of the server: spectators watch, people play, until every
// game has seen `more` new decisions (or ended); then SIGKILL.  With
// more = Infinity: until every game is over.
async function life(server, more) {
  const ms = more; // Infinity marks the last life
  const stops = [], players = [];
  for (const g of games) {
    const spec = await WsClient.connect(server.port, `?game=${g.id}`);
    stops.push(watch(g, spec));
    g.tokens.forEach((tok, seat) => {
      if (!tok) return;
      const play = (async () => {
        const c = await WsClient.connect(server.port, `?game=${g.id}&token=${tok}`);
        const first = await c.next((m) => m.type === 'state');
        assert(first.n >= 0, 'a reconnecting seat gets the state at once');
        await playSeat(c, { onAck: (a) => g.acked.set(a.n, a.move), timeout: 60000, think: THINK });
      })();
      // Only the kill may end a seat's play early (in a life that ends in a kill).
      players.push(ms === Infinity ? play : play.catch(() => {}));
    });
  }
  if (ms === Infinity) {
    await Promise.all(players);
    for (let i = 0; i < 400; i++) {
      const list = (await api(server, 'GET', '/api/games?status=running')).json.games;
      if (list.length === 0) break;
      await sleep(50);
    }
    await sleep(100);
    stops.forEach((s) => s());
    return;
  }
  const start = games.map((g) => (g.seen.size ? Math.max(...g.seen.keys()) : 0));
  for (let i = 0; i < 3000; i++) {
    const progressed = games.every((g, k) => g.seen.size && (Math.max(...g.seen.keys()) >= start[k] + more ||
      [...g.log.values()].length && g.over));
    if (progressed) break;
    await sleep(5);
  }
  await server.kill9();
  await Promise.allSettled(players);
  stops.forEach((s) => s());
}

t.test('games survive two kill -9s and finish exactly', async () => {
  let server = await startServer(tabula, { db, aiDelay: AI_DELAY });
  for (const s of specs) {
    const r = await api(server, 'POST', '/api/games', { game: 'clans', seats: s.seats });
    assertEq(r.status, 201, 'created');
    games.push({ id: r.json.id, tokens: r.json.seats.map((x) => x.token || null),
      seen: new Map(), log: new Map(), acked: new Map() });
  }
  for (let round = 0; round < 2; round++) {
    await life(server, 6);
    server = await startServer(tabula, { db, aiDelay: AI_DELAY });
    const m = server.stdout().match(/(\d+) unfinished games? resumed/);
    const all = (await api(server, 'GET', '/api/games?status=all')).json.games;
    const unfinished = all.filter((g) => g.status !== 'over').length;
    assert(unfinished >= 1, `the kill came in the middle of games (round ${round})`);
    // A computer-only game may finish between the resume and the listing, so
    // the listing can count fewer; a game left out of the resume would never
    // finish, which the last life and the records below would catch.
    assert(m, 'the server says how many games it resumed');
    const resumed = Number(m[1]);
    assert(resumed >= unfinished && resumed <= games.length,
      `every unfinished game resumed (${resumed} resumed, ${unfinished} unfinished now)`);
    for (const g of games) {
      const now = (await api(server, 'GET', `/api/games/${g.id}`)).json;
      assert(now.status !== 'broken', `game ${g.id} replays`);
      // Every acknowledged decision and every decision anyone saw is stored.
      for (const [n, move] of g.acked)
        assertEq(now.log[n - 1] && now.log[n - 1].move, move, `game ${g.id}: acked decision ${n} kept`);
      for (const [n, e] of g.log)
        assertEq(now.log[n - 1], e, `game ${g.id}: seen decision ${n} kept`);
      // Nothing moved while the server was down.
      const maxSeen = Math.max(...g.seen.keys());
      assert(now.decisions >= maxSeen, `game ${g.id}: ${now.decisions} >= ${maxSeen} decisions`);
    }
  }
  await life(server, Infinity);
  for (const g of games) {
    const rec = (await api(server, 'GET', `/api/games/${g.id}/record`)).json;
    assert(rec.result && rec.seed, `game ${g.id} finished with an unsealed record`);
    assert(rec.moves.length > 20, 'a real game');
    for (const [n, e] of g.log) assertEq(rec.moves[n - 1], e.move, `game ${g.id} move ${n}`);
    // The views seen before, between and after the crashes are exactly the
    // ones the record replays to.
    const steps = [...g.seen.keys()].sort((a, b) => a - b);
    assert(steps.length > 10, `game ${g.id}: many positions seen (${steps.length})`);
    for (const n of steps) {
      const rp = (await api(server, 'GET', `/api/games/${g.id}/replay/${n}`)).json;
      assertEq(rp.view, g.seen.get(n), `game ${g.id}: view at decision ${n}`);
    }
  }
  const { code } = await server.stop();
  assertEq(code, 0, 'clean stop at the end');
});

const failed = await t.run();
fs.rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
