// undo.test.mjs TABULA — taking decisions back over the WebSocket (docs/http-api.md,
// docs/server.md "Undo and take back"): undo inside one's own turn, each
// refusal with its true reason in players' words (another seat played
// since, a card drawn or turned up, not your turn, spectators, stale, over),
// in each of the three games (showing or laying out one's own card, or
// placing Arkadia's castle lot, can be undone; a draw cannot),
// the position rewound for every connection exactly as it was, the undo
// kept across a server restart, and "take back my last turn" against the
// computer, written into the game record as a take-back.
import fs from 'node:fs';
import path from 'node:path';
import {
  api, assert, assertEq, pg, runner, sayEnglish, startServer, tempDir, testDb, WsClient,
} from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir();
const db = testDb(dir, 'undo');
let server = await startServer(tabula, { db, aiDelay: 0 });
const t = runner(`server undo and take-back tests${pg ? ' (PostgreSQL)' : ''}`);

const connect = (game, token) =>
  WsClient.connect(server.port, `?game=${game}${token ? `&token=${token}` : ''}`);
let reqId = 0;
const send = (c, msg) => c.request({ ...msg, id: ++reqId });
// The next state with decision count n after what this client has read
// so far (each client keeps a cursor, so an old state with the same count,
// before an undo, is never taken for the new one).
async function stateAt(c, n) {
  const from = c.cursor || 0;
  const m = await c.next((x) => x.type === "state" && x.n === n, { from, what: `the state after ${n} decisions` }).catch((e) => { console.log(c.messages.slice(-8).map((x) => `${x.type}:${x.n}:${x.code || ""}`).join(" "), "cursor", from); throw e; });
  c.cursor = c.messages.indexOf(m, from) + 1;
  return m;
}

// Arkadia, two people: turns of several decisions, and cards drawn from the
// hidden stack, so every kind of answer comes up within a few turns.
let ark = null; // {id, tokens, clients, spectator}

t.test('undo within one\'s own turn rewinds every connection; each refusal says why', async () => {
  const r = await api(server, 'POST', '/api/games', {
    game: 'arkadia', players: 2, seats: [{ kind: 'human', name: 'Anna' }, { kind: 'human', name: 'Ben' }],
  });
  assertEq(r.status, 201, 'created');
  ark = { id: r.json.id, tokens: r.json.seats.map((s) => s.token) };
  const clients = [await connect(ark.id, ark.tokens[0]), await connect(ark.id, ark.tokens[1])];
  const spectator = await connect(ark.id);
  ark.clients = clients;
  const views = [new Map(), new Map()]; // per seat: n -> view
  const seen = { undone: 0, hidden: 0, since: 0, notTurn: 0 };
  let n = 0;
  for (let step = 0; step < 400 && (seen.undone < 3 || seen.hidden < 1 || seen.since < 1); step++) {
    const states = await Promise.all(clients.map((c) => stateAt(c, n)));
    states.forEach((s, seat) => {
      if (views[seat].has(n)) assertEq(s.view, views[seat].get(n), `seat ${seat + 1}: the view after ${n} decisions is what it was`);
      views[seat].set(n, s.view);
    });
    const seat = states.findIndex((s) => s.your_turn);
    assert(seat >= 0, 'someone is to move');
    const me = states[seat], other = clients[1 - seat];
    assertEq(states[1 - seat].can_undo, undefined, 'only the seat to move hears whether it may undo');
    // The seat not to move is always refused.
    const notMine = await send(other, { type: 'undo' });
    assertEq([notMine.type, notMine.code], ['error', 'not_your_turn'], 'the other seat may not undo');
    assert(/Anna|Ben/.test(notMine.message), `the refusal names who is to move: ${notMine.message}`);
    seen.notTurn++;
    if (me.can_undo && step % 3 === 0) {
      // Take the last decision back: every connection sees the position before it.
      const from = [0, 0, spectator.messages.length];
      const stale = await send(clients[seat], { type: 'undo', n: n + 5 });
      assertEq(stale.code, 'stale', 'an undo against an old position is refused');
      const ack = await send(clients[seat], { type: 'undo', n });
      assertEq([ack.type, ack.undo, ack.n], ['ack', true, n - 1], `undo of decision ${n} acknowledged`);
      n -= 1;
      const after = await Promise.all(clients.map((c) => stateAt(c, n)));
      after.forEach((s, i) => assertEq(s.view, views[i].get(n), `seat ${i + 1} sees the position before the undone decision`));
      clients.forEach((c) => { c.cursor -= 1; }); // the loop reads this state again
      const note = await spectator.next((m) => m.type === 'undone', { from: from[2], what: 'the undone notice' });
      assertEq([note.n, note.seat, note.count], [n, seat, 1], 'spectators hear what was taken back');
      assert(/took back/.test(note.said), `the notice in words: ${note.said}`);
      assertEq(sayEnglish(note.said_msg), note.said, 'said_msg says the notice');
      spectator.cursor = spectator.messages.indexOf(note) + 1;
      await stateAt(spectator, n);
      seen.undone++;
      continue;
    }
    if (!me.can_undo && me.undo_why) {
      const no = await send(clients[seat], { type: 'undo', n });
      assertEq([no.type, no.code], ['error', 'undo_refused'], 'a refused undo');
      assertEq(no.message, me.undo_why, 'the state said the same reason beforehand');
      assertEq(sayEnglish(no.msg), no.message, 'the refusal\'s msg says its message');
      assertEq(sayEnglish(me.undo_why_msg), me.undo_why, 'undo_why_msg says undo_why');
      if (/has played since/.test(no.message)) {
        assert(no.message.startsWith(seat === 0 ? 'Ben' : 'Anna'), `names who played: ${no.message}`);
        seen.since++;
      } else {
        assert(DRAWN.test(no.message), `the other reason is a card drawn: ${no.message}`);
        seen.hidden++;
      }
    }
    // Prefer drawing from the stack: the drawn card makes the next undo refused.
    const move = me.legal.find((m) => /draw stack/.test(m)) || me.legal[(step * 7) % me.legal.length];
    const ack = await send(clients[seat], { type: 'decide', move, n });
    assertEq(ack.type, 'ack', `decision ${move}: ${ack.message}`);
    n += 1;
    views.forEach((v) => v.delete(n)); // a new position at this count
  }
  assert(seen.undone >= 3, `undos done: ${JSON.stringify(seen)}`);
  assert(seen.hidden >= 1, `refused after a draw: ${JSON.stringify(seen)}`);
  assert(seen.since >= 1, `refused after the other seat played: ${JSON.stringify(seen)}`);
  const spec = await send(spectator, { type: 'undo' });
  assertEq(spec.code, 'spectator', 'spectators cannot undo');
  const tb = await send(clients[0], { type: 'take_back' });
  assertEq(tb.code, 'takeback_refused', 'taking back a whole turn is for games against the computer');
  const bad = await send(clients[0], { type: 'undo', n: 'x' });
  assertEq(bad.code, 'bad_message', 'a bad n is refused');
  ark.n = n;
  ark.views = views;
  await spectator.close();
});

t.test('an undo survives a restart: the game reads back as it was after it', async () => {
  const { clients } = ark;
  // Make sure the last stored event is an undo: decide, then take it back.
  let n = ark.n, done = false;
  for (let tries = 0; tries < 60 && !done; tries++) {
    const states = await Promise.all(clients.map((c) => stateAt(c, n)));
    const seat = states.findIndex((s) => s.your_turn);
    const me = states[seat];
    if (me.can_undo) {
      const ack = await send(clients[seat], { type: 'undo', n });
      assertEq(ack.type, 'ack', `undo: ${ack.message}`);
      n -= 1;
      done = true;
      break;
    }
    const move = me.legal.find((m) => !/draw/.test(m)) || me.legal[0];
    assertEq((await send(clients[seat], { type: 'decide', move, n })).type, 'ack', 'decided');
    n += 1;
  }
  assert(done, 'an undo happened');
  const before = await Promise.all(clients.map((c) => stateAt(c, n)));
  await Promise.all(clients.map((c) => c.close()));
  assertEq((await server.stop()).code, 0, 'clean stop');
  server = await startServer(tabula, { db, aiDelay: 0 });
  const again = [await connect(ark.id, ark.tokens[0]), await connect(ark.id, ark.tokens[1])];
  const after = await Promise.all(again.map((c) => c.next((m) => m.type === 'state')));
  after.forEach((s, i) => {
    assertEq(s.n, n, 'the decision count after the restart');
    assertEq(s.view, before[i].view, `seat ${i + 1}: the same position after the restart`);
  });
  const game = await api(server, 'GET', `/api/games/${ark.id}`);
  assertEq(game.json.log.length, n, 'the log has no undone decision');
  await Promise.all(again.map((c) => c.close()));
});

t.test('take back my last turn against the computer: its replies go too, and the record says so', async () => {
  const r = await api(server, 'POST', '/api/games', {
    game: 'arkadia', players: 2, seats: [{ kind: 'human', name: 'Anna' }, { kind: 'ai', level: 'random' }],
  });
  const id = r.json.id, token = r.json.seats[0].token;
  const c = await connect(id, token);
  const views = new Map();
  // Anna plays until she has finished a turn and the computer has answered.
  let st = await c.next((m) => m.type === 'state' && m.your_turn, { what: 'Anna\'s turn' });
  const nobody = await send(c, { type: 'take_back', n: st.n });
  if (st.n === 0) assertEq(nobody.code, 'nothing_to_undo', 'nothing to take back before playing');
  let turnStart = null, replied = false;
  for (let i = 0; i < 80 && !replied; i++) {
    views.set(st.n, st.view);
    if (turnStart === null) turnStart = st.n;
    const move = st.legal[0];
    const ack = await send(c, { type: 'decide', move, n: st.n });
    assertEq(ack.type, 'ack', `decided ${move}`);
    const next = await c.next((m) => m.type === 'state' && m.n > st.n && (m.your_turn || m.result),
      { what: 'Anna\'s next turn' });
    replied = next.last && next.last.seat === 1;
    st = next;
  }
  assert(replied, 'the computer replied');
  assert(st.can_take_back === true, 'the state offers the take-back');
  const undo = await send(c, { type: 'undo', n: st.n });
  assertEq(undo.code, 'undo_refused', 'a plain undo cannot reach past the computer\'s move');
  const from = c.messages.length;
  const ack = await send(c, { type: 'take_back', n: st.n });
  assertEq([ack.type, ack.undo, ack.n], ['ack', true, turnStart], 'back to the start of Anna\'s turn');
  c.cursor = from;
  const back = await stateAt(c, turnStart);
  assertEq(back.view, views.get(turnStart), 'the position at the start of her turn');
  assert(back.your_turn, 'Anna is to move again');
  const note = await c.next((m) => m.type === 'undone', { from });
  assert(note.take_back && /took back their last turn/.test(note.said), `the notice: ${note.said}`);
  assertEq(sayEnglish(note.said_msg), note.said, 'said_msg says the take-back notice');
  const rec = await api(server, 'GET', `/api/games/${id}/record`);
  assertEq(rec.status, 200, 'record');
  const tbs = rec.json.takebacks;
  assert(Array.isArray(tbs) && tbs.length === 1, `one take-back in the record: ${rec.text.slice(0, 300)}`);
  assertEq([tbs[0].seat, tbs[0].after], [0, turnStart], 'who and from where');
  assert(tbs[0].moves.length >= 2 && tbs[0].seats.includes(1), 'the undone moves, the computer\'s among them');
  assertEq(typeof tbs[0].revealed, 'boolean', 'whether a card had been drawn or something hidden shown to her');
  assertEq(rec.json.moves.length, turnStart, 'the record\'s moves stop where the take-back went');
  // The take-back is kept across a restart.
  await c.close();
  assertEq((await server.stop()).code, 0, 'clean stop');
  server = await startServer(tabula, { db, aiDelay: 0 });
  const rec2 = await api(server, 'GET', `/api/games/${id}/record`);
  assertEq(rec2.json.takebacks, tbs, 'the take-back read back after a restart');
  const c2 = await connect(id, token);
  const s2 = await c2.next((m) => m.type === 'state');
  assertEq([s2.n, s2.view], [turnStart, views.get(turnStart)], 'the game resumes where the take-back left it');
  // Play on: the game goes on normally after a take-back.
  const ack2 = await send(c2, { type: 'decide', move: s2.legal[0], n: s2.n });
  assertEq(ack2.type, 'ack', 'a decision after the take-back is taken');
  await c2.close();
});

// The rule in each game, two people, Anna and Ben: a decision that only
// shows or lays out the mover's own card can be undone; one that draws a
// card (or turns one up) cannot, and says so; once the other seat has
// played, nothing before it can be, and the refusal names who played.
const DRAWN = /^your last decision drew a card or turned one face up, so it stands$/;
const NAMES = ['Anna', 'Ben'];

async function duo(game) {
  const r = await api(server, 'POST', '/api/games', {
    game, players: 2, seats: NAMES.map((name) => ({ kind: 'human', name })),
  });
  assertEq(r.status, 201, `${game} created`);
  const clients = [];
  for (const s of r.json.seats) clients.push(await connect(r.json.id, s.token));
  const g = { game, id: r.json.id, tokens: r.json.seats.map((x) => x.token), clients, n: 0, states: null, seat: -1, views: new Map() };
  await g_read(g);
  return g;
}
// Restarts the server and reconnects both seats: the server works out
// again, from the stored game alone, what the last decision showed.
async function g_restart(g) {
  await g_close(g);
  assertEq((await server.stop()).code, 0, 'clean stop');
  server = await startServer(tabula, { db, aiDelay: 0 });
  g.clients = [];
  for (const token of g.tokens) g.clients.push(await connect(g.id, token));
  return g_read(g);
}
// Reads both seats' states at g.n: who is to move, its state.
async function g_read(g) {
  g.states = await Promise.all(g.clients.map((c) => stateAt(c, g.n)));
  g.seat = g.states.findIndex((s) => s.your_turn);
  assert(g.seat >= 0, `${g.game}: someone is to move`);
  g.views.set(g.n, g.states.map((s) => s.view));
  return g.states[g.seat];
}
async function g_decide(g, move) {
  const me = g.states[g.seat];
  assert(me.legal.includes(move), `${g.game}: ${move} is legal (${me.legal.slice(0, 8).join(', ')}…)`);
  const ack = await send(g.clients[g.seat], { type: 'decide', move, n: g.n });
  assertEq(ack.type, 'ack', `${g.game}: ${move}: ${ack.message}`);
  g.n += 1;
  return g_read(g);
}
// The seat to move may undo: it does, and both seats see the position before.
async function g_undo(g, what) {
  const me = g.states[g.seat];
  assertEq([me.can_undo, me.undo_why], [true, undefined], `${g.game}: ${what} can be undone`);
  const ack = await send(g.clients[g.seat], { type: 'undo', n: g.n });
  assertEq([ack.type, ack.n], ['ack', g.n - 1], `${g.game}: ${what} undone: ${ack.message}`);
  g.n -= 1;
  const before = g.views.get(g.n);
  await g_read(g);
  assertEq(g.states.map((s) => s.view), before, `${g.game}: after undoing ${what} both seats see the position before it`);
  return g.states[g.seat];
}
// The seat to move may not undo, for the reason `why` (a regular expression).
async function g_refused(g, what, why) {
  const me = g.states[g.seat];
  assertEq(me.can_undo, false, `${g.game}: ${what} cannot be undone`);
  assert(why.test(me.undo_why), `${g.game}: ${what}: the reason is the true one: ${me.undo_why}`);
  const no = await send(g.clients[g.seat], { type: 'undo', n: g.n });
  assertEq([no.type, no.code, no.message], ['error', 'undo_refused', me.undo_why], `${g.game}: the undo of ${what} is refused with that reason`);
}
// Ends the turn of the seat to move with `choose`; then the other seat
// cannot undo, and its refusal names the seat that played (seat numbers
// from 1 where a seat has no name).
async function g_pass(g, choose) {
  const from = g.seat;
  for (let i = 0; i < 40 && g.seat === from; i++) await g_decide(g, choose(g.states[g.seat].legal));
  assert(g.seat !== from, `${g.game}: the turn passed`);
  await g_refused(g, 'the other seat\'s decision', new RegExp(`^${NAMES[from]} has played since, so your turn so far stands$`));
  const notMine = await send(g.clients[from], { type: 'undo', n: g.n });
  assertEq(notMine.code, 'not_your_turn', `${g.game}: the seat that played cannot undo once the turn has passed`);
}
const g_close = (g) => Promise.all(g.clients.map((c) => c.close()));

t.test('Arkadia: placing the castle lot and laying out a card can be undone; a draw cannot; nor the other seat\'s turn', async () => {
  const g = await duo('arkadia');
  let me = g.states[g.seat];
  const lot = me.legal.find((m) => m.startsWith('lot '));
  assert(lot, `the first decision places the castle lot: ${me.legal.slice(0, 3)}`);
  const starter = g.seat;
  me = await g_decide(g, lot);
  assertEq(g.seat, starter, 'the seat that placed the lot begins the first turn');
  await g_undo(g, 'placing the castle lot');
  me = await g_decide(g, lot);
  // Lay out a card (it leaves the hidden hand: the other seat sees it)
  const build = me.legal.find((m) => m.startsWith('build '));
  assert(build, `a card to lay out: ${me.legal.slice(0, 5)}`);
  me = await g_decide(g, build);
  await g_undo(g, 'choosing a card to lay out');
  me = await g_decide(g, build);
  me = await g_decide(g, me.legal[0]); // where it goes
  me = await g_undo(g, 'laying out the building');
  me = await g_decide(g, me.legal[0]);
  // Castle pieces or workers may come before the draw; then draw from the stack.
  for (let i = 0; i < 12 && !me.legal.some((m) => m.startsWith('draw ')); i++) me = await g_decide(g, me.legal[0]);
  assert(me.legal.includes('draw stack'), `the draw: ${me.legal}`);
  // Taking a face-up card also turns the stack's top card up: both settle chance.
  const faceUp = me.legal.find((m) => m.startsWith('draw ') && m !== 'draw stack');
  if (faceUp) {
    me = await g_decide(g, faceUp);
    await g_refused(g, 'taking a face-up card (the display refilled from the stack)', DRAWN);
  } else {
    me = await g_decide(g, 'draw stack');
    await g_refused(g, 'drawing from the stack', DRAWN);
  }
  await g_pass(g, (legal) => legal.find((m) => m === 'banner no') || legal[0]);
  await g_close(g);
});

t.test('Khronos: an ordinary build (cards paid from the hand) can be undone, also after a restart; an exchange draws and cannot; nor the other seat\'s turn', async () => {
  const g = await duo('khronos');
  let me = g.states[g.seat];
  const build = me.legal.find((m) => /^build /.test(m));
  assert(build, `a building to construct: ${me.legal.slice(0, 8)}`);
  me = await g_decide(g, build);
  const squares = me.legal[0];
  me = await g_decide(g, squares);
  if (me.legal.some((m) => m.startsWith('pay '))) me = await g_decide(g, me.legal.find((m) => m.startsWith('pay ')));
  assertEq(me.can_undo, true, 'the build can be undone');
  me = await g_restart(g);
  await g_undo(g, 'the build\'s last decision, after a restart');
  while (g.n > 0 && g.states[g.seat].can_undo) await g_undo(g, 'the build, one decision at a time');
  assertEq(g.n, 0, 'back to the start of the turn');
  me = g.states[g.seat];
  const exchange = me.legal.find((m) => m.startsWith('exchange '));
  assert(exchange, `an exchange at the start of the turn: ${me.legal.slice(0, 8)}`);
  me = await g_decide(g, exchange);
  await g_refused(g, 'an exchange (new cards drawn)', DRAWN);
  await g_pass(g, (legal) => legal.find((m) => m.startsWith('end')) || legal[0]);
  await g_close(g);
});

t.test('Clans: a move stands once the other seat is to move, and the refusal names who played', async () => {
  const g = await duo('clans');
  await g_pass(g, (legal) => legal[0]);
  await g_close(g);
});

t.test('the server stops cleanly at the end', async () => {
  const exit = await server.stop();
  assertEq(exit.code, 0, `exit status (stderr: ${server.stderr().slice(0, 3000)})`);
});

const failed = await t.run();
fs.rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
