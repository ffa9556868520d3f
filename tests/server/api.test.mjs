// api.test.mjs TABULA — integration tests of `tabula serve` over real sockets
// on 127.0.0.1: the HTTP API and its errors, whole games over WebSockets
// between scripted clients, every WebSocket error case, reconnecting, limits,
// tokens never stored, and that no client ever receives another seat's
// secrets (checked on the wire and against the engine's own views).
import fs from 'node:fs';
import path from 'node:path';
import {
  api, assert, assertEq, dbFiles, engine, pg, playSeat, runner, sayEnglish, sleep, startServer, tempDir, testDb,
  WsClient,
} from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir();
const db = testDb(dir, 'api');
const server = await startServer(tabula, { db, aiDelay: 0 });
const t = runner(`server API and WebSocket tests${pg ? ' (PostgreSQL)' : ''}`);

const create = (body) => api(server, 'POST', '/api/games', body);
const humans = (n) => Array.from({ length: n }, (_, i) => ({ kind: 'human', name: `P${i}` }));
const connect = (game, token) =>
  WsClient.connect(server.port, `?game=${game}${token ? `&token=${token}` : ''}`);

async function expectError(res, status, code) {
  assertEq(res.status, status, `HTTP status for ${code}`);
  assert(res.json && res.json.error && res.json.error.code === code,
    `error code ${code}, got ${res.text.slice(0, 200)}`);
  assert(typeof res.json.error.message === 'string' && res.json.error.message.length > 5,
    'the error explains itself');
}

// ---- HTTP API ----

t.test('catalog lists every game with options and the levels', async () => {
  const r = await api(server, 'GET', '/api/catalog');
  assertEq(r.status, 200, 'status');
  const clans = r.json.games.find((g) => g.name === 'clans');
  assert(clans, 'clans in the catalog');
  assertEq([clans.min_players, clans.max_players], [2, 4], 'clans players');
  assert(Array.isArray(clans.options), 'options array');
  assertEq(r.json.levels.map((l) => l.name), ['easy', 'normal', 'hard'], 'levels');
  const board = await api(server, 'GET', '/api/catalog/clans/board');
  assertEq(board.json.territories.length, 60, 'board territories');
  await expectError(await api(server, 'GET', '/api/catalog/chess/board'), 404, 'unknown_game');
});

t.test('POST /api/games refuses every malformed request', async () => {
  await expectError(await create('{"game": "clans"'), 400, 'bad_json');
  await expectError(await create('[1,2]'), 400, 'bad_request');
  await expectError(await create({ game: 'clans', colour: 'red' }), 400, 'bad_request');
  await expectError(await create({}), 400, 'bad_request');
  await expectError(await create({ game: 'chess' }), 400, 'unknown_game');
  await expectError(await create({ game: 'clans', players: 1 }), 400, 'bad_players');
  await expectError(await create({ game: 'clans', players: 5 }), 400, 'bad_players');
  await expectError(await create({ game: 'clans', players: '2' }), 400, 'bad_request');
  await expectError(await create({ game: 'clans', players: 3, seats: humans(2) }), 400, 'bad_seats');
  await expectError(await create({ game: 'clans', seats: [{ kind: 'robot' }, { kind: 'human' }] }), 400, 'bad_seats');
  await expectError(await create({ game: 'clans', seats: [{ kind: 'ai', level: 'godlike' }, { kind: 'human' }] }), 400, 'bad_level');
  await expectError(await create({ game: 'clans', seats: [{ kind: 'human', level: 'easy' }, { kind: 'human' }] }), 400, 'bad_seats');
  await expectError(await create({ game: 'clans', seats: [{ kind: 'human', name: 'a\nb' }, { kind: 'human' }] }), 400, 'bad_seats');
  await expectError(await create({ game: 'clans', seats: [{ kind: 'human', name: 'x'.repeat(80) }, { kind: 'human' }] }), 400, 'bad_seats');
  await expectError(await create({ game: 'clans', seats: [5, { kind: 'human' }] }), 400, 'bad_seats');
  await expectError(await create({ game: 'clans', options: { nonsense: 'yes' } }), 400, 'bad_options');
  await expectError(await create({ game: 'clans', options: 'x' }), 400, 'bad_options');
  await expectError(await create(JSON.stringify({ game: 'clans', pad: 'x'.repeat(20000) })), 413, 'too_large');
  const list = await api(server, 'GET', '/api/games?status=all');
  assertEq(list.json.games.length, 0, 'no game was created by bad requests');
});

t.test('unknown addresses, ids and methods get JSON errors', async () => {
  await expectError(await api(server, 'GET', '/api/nothing'), 404, 'not_found');
  await expectError(await api(server, 'GET', '/api/games/abcdefghijkm'), 404, 'unknown_game');
  await expectError(await api(server, 'GET', '/api/games/a/b/c/d/e'), 404, 'not_found');
  await expectError(await api(server, 'GET', '/api/games//record'), 404, 'not_found');
  await expectError(await api(server, 'GET', '/api/games/x%27%3B--'), 404, 'unknown_game');
  await expectError(await api(server, 'DELETE', '/api/games'), 405, 'method_not_allowed');
  await expectError(await api(server, 'POST', '/api/catalog', {}), 405, 'method_not_allowed');
  await expectError(await api(server, 'GET', '/api/games?status=weird'), 400, 'bad_request');
  await expectError(await api(server, 'GET', '/api/games?limit=0'), 400, 'bad_request');
  const ws = await api(server, 'GET', '/ws');
  assertEq(ws.status, 400, 'plain GET /ws');
  const traversal = await api(server, 'GET', '/..%2f..%2fetc/passwd');
  assertEq(traversal.status, 404, 'no path traversal');
  const hidden = await api(server, 'GET', '/.git/config');
  assertEq(hidden.status, 404, 'no hidden files');
  const index = await api(server, 'GET', '/');
  assertEq(index.status, 200, 'the UI is served');
  assert(/text\/html/.test(index.headers.get('content-type')), 'as HTML');
});

t.test('a created game: one secret link per human seat, only hashes stored', async () => {
  const r = await create({ game: 'clans', seats: [{ kind: 'human', name: 'Ann' }, { kind: 'ai', level: 'easy' }, { kind: 'human' }] });
  assertEq(r.status, 201, 'created');
  assert(/^[a-z0-9]{12}$/.test(r.json.id), 'game id');
  const [s0, s1, s2] = r.json.seats;
  assert(s0.token && s2.token && !s1.token, 'tokens for human seats only');
  assert(s0.token.length >= 22 && /^[A-Za-z0-9_-]+$/.test(s0.token), 'token has >= 128 bits in base64url');
  assert(s0.token !== s2.token, 'tokens differ');
  assertEq(s0.link, `/game.html?game=${r.json.id}&token=${s0.token}`, 'join link');
  assertEq(s2.name, 'Player 3', 'default name');
  assertEq(s1.kind, 'ai', 'AI seat');
  // The database (and its WAL) must not contain any token.
  await sleep(50);
  const files = dbFiles(db);
  assert(files.length > 0, 'the database files are there');
  for (const f of files) {
    const bytes = fs.readFileSync(f);
    assert(!bytes.includes(s0.token) && !bytes.includes(s2.token), `no token in ${f}`);
  }
  // Listed as open; spectator view hides every colour; record sealed.
  const list = await api(server, 'GET', '/api/games');
  const g = list.json.games.find((x) => x.id === r.json.id);
  assertEq(g.status, 'open', 'open until every person joined');
  const spec = await api(server, 'GET', `/api/games/${r.json.id}`);
  assertEq(spec.json.view.your_colour, null, 'spectator has no colour');
  assertEq(spec.json.view.colours, [null, null, null], 'spectator sees no colour');
  assert(!('legal' in spec.json) && !('prompt' in spec.json), 'no decisions for spectators');
  const rec = await api(server, 'GET', `/api/games/${r.json.id}/record`);
  assert(rec.json.sealed === true && !('seed' in rec.json), 'record sealed, no seed');
  // Looking back at a running game: a spectator sees what every seat sees; a
  // seat's key shows that seat's view then (its own colour), nothing more.
  const back = await api(server, 'GET', `/api/games/${r.json.id}/replay/0`);
  assertEq(back.status, 200, 'a running game can be looked back at');
  assertEq(back.json.view.colours, [null, null, null], 'the look back hides every colour from a spectator');
  assertEq(back.json.result, null, 'no result while the game runs');
  const mine = await api(server, 'GET', `/api/games/${r.json.id}/replay/0?token=${s0.token}`);
  assertEq(mine.status, 200, 'a seat looks back with its key');
  assert(mine.json.view.your_colour !== null, 'the seat sees its own colour in the look back');
  assertEq(mine.json.view.colours.filter((x) => x !== null).length, 1, 'and no other colour');
  await expectError(await api(server, 'GET', `/api/games/${r.json.id}/replay/0?token=nonsense`), 403, 'bad_token');
  await expectError(await api(server, 'GET', `/api/games/${r.json.id}/replay/999`), 404, 'bad_step');
  await expectError(await api(server, 'GET', `/api/games/${r.json.id}/scores`), 409, 'not_over');
  // A token of this game is no key to another game.
  const other = await create({ game: 'clans', players: 2, seats: humans(2) });
  const c = await connect(other.json.id, s0.token);
  const e = await c.next((m) => m.type === 'error');
  assertEq(e.code, 'bad_token', 'foreign token refused');
  await c.close();
});

t.test('an all-computer game plays through on its own', async () => {
  const r = await create({ game: 'clans', seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'easy' }, { kind: 'ai' }] });
  assertEq(r.status, 201, 'created');
  let g;
  for (let i = 0; i < 200; i++) {
    g = (await api(server, 'GET', `/api/games/${r.json.id}`)).json;
    if (g.status === 'over') break;
    await sleep(25);
  }
  assertEq(g.status, 'over', 'finished');
  assert(g.result && g.result.winners.length >= 1, 'result with winners');
  // the result breaks every seat's score down by source, adding up to it
  assertEq(g.result.breakdown.length, 3, 'a breakdown per seat');
  g.result.breakdown.forEach((parts, k) => {
    assert(parts.every((p) => typeof p.source === 'string' && p.source && Number.isInteger(p.points)), 'sources in words, whole points');
    assertEq(parts.reduce((a, p) => a + p.points, 0), g.result.scores[k], `seat ${k + 1}'s sources add up to its score`);
  });
  assertEq(g.log.length, g.decisions, 'log has every decision');
  assert(g.log.every((e) => e.by === 'ai'), 'made by the computer');
  const rec = (await api(server, 'GET', `/api/games/${r.json.id}/record`)).json;
  assert(typeof rec.seed === 'string' && !rec.sealed, 'record unsealed at the end');
  assertEq(rec.moves.length, g.decisions, 'record moves');
  const rp = (await api(server, 'GET', `/api/games/${r.json.id}/replay/5`)).json;
  assertEq([rp.step, rp.total, rp.last.n], [5, g.decisions, 5], 'replay step');
  await expectError(await api(server, 'GET', `/api/games/${r.json.id}/replay/9999`), 404, 'bad_step');
  const over = await api(server, 'GET', '/api/games?status=over');
  const listed = over.json.games.find((x) => x.id === r.json.id);
  assertEq(listed && listed.winners, g.result.winners, 'listed among finished games, with its winners');
  assertEq(g.winners, g.result.winners, 'the summary names the winners');
  // the score graph: every seat's score after every decision, and the stage
  const sc = (await api(server, 'GET', `/api/games/${r.json.id}/scores`)).json;
  assertEq([sc.players, sc.total, sc.scores.length, sc.stages.length], [3, g.decisions, g.decisions + 1, g.decisions + 1], 'a score row per position');
  assertEq(sc.scores[0], [0, 0, 0], 'nobody has scored at the start');
  assertEq(sc.scores[g.decisions], g.result.scores, 'the last row is the result');
  assertEq(sc.stages[0], 'Epoch I', 'the stage of every position');
  // points by stage: one story with the result's breakdown (tb_record_story_json)
  assertEq(sc.game, r.json.id, 'the game named');
  for (let k = 0; k < 3; k++) {
    assertEq(sc.by_stage.reduce((a, e) => a + e.points[k], 0), g.result.scores[k], `seat ${k + 1}'s stages add up to its score`);
    const bySource = {};
    for (const e of sc.by_stage) {
      assertEq(e.parts[k].reduce((a, p) => a + p.points, 0), e.points[k], `${e.stage}: seat ${k + 1}'s sources add up to its points`);
      for (const p of e.parts[k]) bySource[p.source] = (bySource[p.source] || 0) + p.points;
    }
    for (const p of g.result.breakdown[k]) assertEq(bySource[p.source] || 0, p.points, `seat ${k + 1}: ${p.source} over the stages`);
  }
  assert(g.log.every((e) => typeof e.said === 'string' && e.said.length > 0 && e.stage), 'every logged decision is said in words');
  // and as messages for each reader's language, whose English is those words
  for (const e of g.log) {
    assertEq(sayEnglish(e.said_msg), e.said, `decision ${e.n}: said_msg says said`);
    assertEq(sayEnglish(e.stage_msg), e.stage, `decision ${e.n}: stage_msg says stage`);
  }
});

// ---- a whole game over WebSockets ----

t.test('a full 4-seat game between scripted clients; no client ever sees another seat\'s secrets', async () => {
  const seats = [...humans(3), { kind: 'ai', level: 'random' }];
  const r = await create({ game: 'clans', seats });
  const clients = [];
  for (let i = 0; i < 3; i++) clients.push(await connect(r.json.id, r.json.seats[i].token));
  const spectator = await connect(r.json.id);
  const welcome = await clients[1].next((m) => m.type === 'welcome');
  assertEq([welcome.seat, welcome.role], [1, 'player'], 'welcome names the seat');
  assertEq((await spectator.next((m) => m.type === 'welcome')).role, 'spectator', 'spectator welcome');
  const acks = [];
  const finals = await Promise.all(clients.map((c) => playSeat(c, { onAck: (a) => acks.push(a) })));
  const final = await spectator.next((m) => m.type === 'state' && m.result);
  assertEq(finals.map((f) => f.n), [final.n, final.n, final.n], 'everyone saw the end');
  const rec = (await api(server, 'GET', `/api/games/${r.json.id}/record`)).json;
  assertEq(rec.moves.length, final.n, 'record length');
  assertEq(new Set(acks.map((a) => a.n)).size, acks.length, 'acks are distinct decisions');

  // The engine replays the record; every state message each seat received
  // must carry exactly the engine's view for that seat at that point.
  const cmds = [`new clans players=4 seed=${rec.seed}`];
  for (const m of rec.moves) cmds.push('view 0', 'view 1', 'view 2', 'view', `play ${m}`);
  cmds.push('view 0', 'view 1', 'view 2', 'view');
  const replies = await engine(tabula, cmds);
  const viewAt = (n, seat) => JSON.parse(replies[1 + n * 5 + (seat < 0 ? 3 : seat)]);
  const watchers = [...clients.map((c, i) => [c, i]), [spectator, -1]];
  for (const [c, seat] of watchers) {
    const states = c.messages.filter((m) => m.type === 'state');
    assert(states.length > 10, 'many states');
    for (const st of states) {
      assertEq(st.view, viewAt(st.n, seat), `seat ${seat} view at decision ${st.n}`);
      assert(!!st.legal === !!st.your_turn && !!st.prompt === !!st.your_turn,
        `seat ${seat} gets decisions only on its turn`);
      if (st.your_turn) assertEq(st.to_move, seat, 'your_turn means to_move');
    }
    // On the wire: the seed never appears before the result, nor the full state.
    const bytes = c.rawBytes().toString('latin1');
    const beforeEnd = bytes.slice(0, bytes.indexOf('"result":{'));
    assert(!beforeEnd.includes(rec.seed), `seat ${seat}: no seed on the wire before the end`);
    for (const key of ['"removed":', '"turn":', '"board":{']) {
      assert(!bytes.includes(key), `seat ${seat}: no state_json field ${key} on the wire`);
    }
    // Clans: the only secret is each seat's colour.
    const colours = final.view.colours;
    for (const st of states.filter((s) => !s.result)) {
      assertEq(st.view.your_colour, seat >= 0 ? colours[seat] : null, `seat ${seat} own colour`);
      st.view.colours.forEach((col, k) => assertEq(col, k === seat ? colours[k] : null,
        `seat ${seat} sees colour of seat ${k}`));
    }
  }
  for (const c of [...clients, spectator]) await c.close();
});

// ---- the deduction aid ----

t.test('deduce: a player gets their own deduction, nobody else gets it, spectators and other seats are refused', async () => {
  const r = await create({ game: 'clans', seats: [{ kind: 'human', name: 'Ann' }, { kind: 'human', name: 'Bob' }, { kind: 'human', name: 'Cy' }] });
  const seats = [];
  for (let i = 0; i < 3; i++) seats.push(await connect(r.json.id, r.json.seats[i].token));
  const spec = await connect(r.json.id);
  const expectErr = async (c, msg, code) => {
    const e = await c.request({ ...msg, id: `e-${code}` });
    assertEq([e.type, e.code], ['error', code], `error ${code}`);
    assert(e.message.length > 5, 'error explained');
  };
  const colourOf = async (c) => (await c.next((m) => m.type === 'state')).view.your_colour;
  const colours = [];
  for (const c of seats) colours.push(await colourOf(c));
  // Checks a deduction: for its seat, every other seat with its name and
  // chances that sum to 1, most likely first, never the asker's own colour.
  const check = (d, seat, n) => {
    assertEq([d.type, d.seat, d.n, d.decisions, d.colour], ['deduction', seat, n, n, colours[seat]], 'deduction header');
    assertEq(d.others.map((o) => [o.seat, o.name]), [0, 1, 2].filter((k) => k !== seat).map((k) => [k, ['Ann', 'Bob', 'Cy'][k]]), 'every other seat, by name');
    for (const o of d.others) {
      const sum = o.chances.reduce((s, c) => s + c.chance, 0);
      assert(Math.abs(sum - 1) < 1e-6, `chances sum to 1 (${sum})`);
      assert(o.chances.every((c, i) => i === 0 || c.chance <= o.chances[i - 1].chance), 'most likely first');
      assert(o.chances.every((c) => c.colour !== colours[seat]), 'never the asker\'s own colour');
      assert(o.chances.every((c) => /^(\d+%|under 1%|over 99%)$/.test(c.words)), `chances in words: ${o.chances.map((c) => c.words)}`);
      if (n === 0) assert(o.chances.length === 4 && o.chances.every((c) => Math.abs(c.chance - 0.25) < 1e-9), 'no evidence yet: every other colour equally likely');
    }
  };
  // At the start: every other colour equally likely.
  let at = seats[0].messages.length;
  seats[0].send({ type: 'deduce' });
  check(await seats[0].next((m) => m.type === 'deduction', { from: at, what: 'a deduction' }), 0, 0);
  // Thirty decisions later (villages founded), asked by a seat that is not to move.
  const N = 30;
  for (let n = 0; n < N; n++) {
    const states = await Promise.all(seats.map((c) => c.next((m) => m.type === 'state' && m.n === n)));
    const k = states.findIndex((s) => s.your_turn);
    const ack = await seats[k].request({ type: 'decide', move: states[k].legal[0], id: `d${n}`, n });
    assertEq(ack.type, 'ack', 'decision acknowledged');
  }
  const stN = await seats[0].next((m) => m.type === 'state' && m.n === N);
  const asker = (stN.to_move + 1) % 3;
  at = seats[asker].messages.length;
  seats[asker].send({ type: 'deduce', seat: asker });
  const d = await seats[asker].next((m) => m.type === 'deduction', { from: at, what: 'a deduction after the decisions' });
  check(d, asker, N);
  assert(d.others.some((o) => o.chances.some((c) => Math.abs(c.chance - 0.25) > 1e-3)), `play has shown something: ${JSON.stringify(d)}`);
  at = seats[asker].messages.length;
  seats[asker].send({ type: 'deduce' });
  assertEq(await seats[asker].next((m) => m.type === 'deduction', { from: at, what: 'the deduction again' }), d, 'asked again: the same');
  // Refused: spectators, a seat asking for another's, a game without secret colours.
  await expectErr(spec, { type: 'deduce' }, 'not_a_player');
  await expectErr(spec, { type: 'deduce', seat: asker }, 'not_a_player');
  await expectErr(seats[0], { type: 'deduce', seat: 1 }, 'not_your_seat');
  await expectErr(seats[0], { type: 'deduce', seat: 'all' }, 'not_your_seat');
  for (let k = 0; k < 3; k++) {
    assert(seats[k].messages.filter((m) => m.type === 'deduction').every((m) => m.seat === k), `seat ${k} hears only its own deduction`);
  }
  assertEq(spec.messages.filter((m) => m.type === 'deduction').length, 0, 'the spectator hears none');
  const ark = await create({ game: 'arkadia', seats: humans(2) });
  const a0 = await connect(ark.json.id, ark.json.seats[0].token);
  await expectErr(a0, { type: 'deduce' }, 'no_secret_roles');
  for (const c of [...seats, spec, a0]) await c.close();
});

// ---- WebSocket errors ----

t.test('every WebSocket error is a message, changes nothing and keeps the connection', async () => {
  const r = await create({ game: 'clans', players: 2, seats: humans(2) });
  const [a, b] = [await connect(r.json.id, r.json.seats[0].token), await connect(r.json.id, r.json.seats[1].token)];
  const spec = await connect(r.json.id);
  const st = await a.next((m) => m.type === 'state');
  const mover = st.to_move === 0 ? a : b, other = st.to_move === 0 ? b : a;
  const legal = (st.to_move === 0 ? st : await b.next((m) => m.type === 'state')).legal;
  const expectErr = async (c, send, code) => {
    const from = c.messages.length;
    send();
    const e = await c.next((m) => m.type === 'error', { from, what: `error ${code}` });
    assertEq(e.code, code, 'error code');
    assert(e.message.length > 5, 'error explained');
  };
  await expectErr(mover, () => mover.send('{"type":"decide",'), 'bad_json');
  await expectErr(mover, () => mover.send('[1,2,3]'), 'bad_message');
  await expectErr(mover, () => mover.send({ move: legal[0] }), 'bad_message');
  await expectErr(mover, () => mover.send({ type: 'dance' }), 'unknown_type');
  await expectErr(mover, () => mover.send({ type: 'decide' }), 'bad_message');
  await expectErr(mover, () => mover.send({ type: 'decide', move: 42 }), 'bad_message');
  await expectErr(mover, () => mover.send({ type: 'decide', move: '1-60' }), 'illegal');
  await expectErr(mover, () => mover.send({ type: 'decide', move: 'hello' }), 'illegal');
  await expectErr(mover, () => mover.send({ type: 'decide', move: legal[0], n: 7 }), 'stale');
  await expectErr(mover, () => mover.send({ type: 'decide', move: legal[0], n: 'x' }), 'bad_message');
  await expectErr(other, () => other.send({ type: 'decide', move: legal[0] }), 'not_your_turn');
  await expectErr(spec, () => spec.send({ type: 'decide', move: legal[0] }), 'spectator');
  await expectErr(other, () => other.send({ type: 'hint' }), 'not_your_turn');
  await expectErr(spec, () => spec.send({ type: 'hint' }), 'not_your_turn');
  // a hint: the computer's choice for this position, in words, with a reason
  let at = mover.messages.length;
  mover.send({ type: 'hint' });
  const hint = await mover.next((m) => m.type === 'hint', { from: at, what: 'a hint' });
  assert(legal.includes(hint.move), `the hint is a legal decision (${hint.move})`);
  assertEq(hint.n, 0, 'for this position');
  assert(/^.+ moves \d+ huts? from the \w+ at \d+/.test(hint.said), `the hint says it in words (${hint.said})`);
  assert(/you win about \d+% of them/.test(hint.reason) && !/computer wins/.test(hint.reason) && hint.win >= 0 && hint.win <= 1, `with a reason, the chance the player's (${hint.reason})`);
  assert(Number.isInteger(hint.points), `the points it gains (${hint.points})`);
  if (hint.next) assert(hint.reason.includes(hint.next.said) && !hint.reason.includes(`(${hint.next.move})`), `the next best in words (${hint.reason})`);
  assertEq(sayEnglish(hint.said_msg), hint.said, 'said_msg says the hint\'s words');
  assertEq(sayEnglish(hint.reason_msg), hint.reason, 'reason_msg says the reason');
  if (hint.next) assertEq(sayEnglish(hint.next.said_msg), hint.next.said, 'next.said_msg says the next best');
  at = mover.messages.length;
  mover.send({ type: 'hint' });
  assertEq(await mover.next((m) => m.type === 'hint', { from: at, what: 'the hint again' }), hint, 'asked again: the same hint');
  assertEq(other.messages.filter((m) => m.type === 'hint').length, 0, 'only the seat that asked hears it');
  await expectErr(mover, () => mover.sendBinary(Buffer.from('{"type":"ping"}')), 'bad_frame');
  await expectErr(mover, () => mover.send(JSON.stringify({ type: 'ping', pad: 'x'.repeat(40000) })), 'too_large');
  const echo = await mover.request({ type: 'ping', id: 'after-errors' });
  assertEq(echo.type, 'pong', 'still connected after every error');
  const e = await mover.request({ type: 'decide', move: 'nonsense', id: 77 });
  assertEq([e.type, e.id], ['error', 77], 'errors echo the id');
  // A message in three fragments is one message.
  const from = mover.messages.length;
  mover.sendFragments(['{"type":', '"ping",', '"id":"frag"}']);
  assertEq((await mover.next((m) => m.id === 'frag', { from })).type, 'pong', 'fragmented message');
  // Nothing changed.
  const spectatorView = (await api(server, 'GET', `/api/games/${r.json.id}`)).json;
  assertEq(spectatorView.decisions, 0, 'no decision was made by any error');
  // And a good decision still works, acknowledged before the new state.
  const ack = await mover.request({ type: 'decide', move: legal[0], id: 1, n: 0 });
  assertEq([ack.type, ack.n, ack.move], ['ack', 1, legal[0]], 'ack');
  const ackAt = mover.messages.indexOf(ack);
  const next = await mover.next((m) => m.type === 'state' && m.n === 1);
  assert(mover.messages.indexOf(next) > ackAt, 'ack before the new state');
  assertEq(next.last, { n: 1, seat: st.to_move, move: legal[0], said: next.last.said, stage: 'Epoch I', said_msg: next.last.said_msg, stage_msg: { msg: 'Epoch {epoch}', args: { epoch: 'I' } }, by: 'human' }, 'last decision');
  assertEq(sayEnglish(next.last.said_msg), next.last.said, 'said_msg says said');
  assert(/^P\d moves 1 hut from the \w+ at \d+ to the \w+ at \d+$/.test(next.last.said), `the log says it in words: ${next.last.said}`);
  await expectErr(mover, () => mover.send({ type: 'decide', move: legal[1] || legal[0], n: 1 }), 'not_your_turn');
  for (const c of [a, b, spec]) await c.close();
});

t.test('connecting to an unknown game, with a bad token or no game gets an error message', async () => {
  const r = await create({ game: 'clans', players: 2, seats: humans(2) });
  const cases = [[`?game=abcdefghijkm`, 'unknown_game'], [`?game=${r.json.id}&token=forged`, 'bad_token'],
    ['', 'bad_request'], [`?game=${'z'.repeat(300)}`, 'unknown_game']];
  for (const [q, code] of cases) {
    const c = await WsClient.connect(server.port, q);
    const e = await c.next((m) => m.type === 'error');
    assertEq(e.code, code, `connect ${q.slice(0, 30)}`);
    const again = await c.request({ type: 'decide', move: '1-2', id: 5 });
    assertEq(again.code, code, 'every later message gets the same error');
    assertEq((await c.request({ type: 'ping', id: 6 })).type, 'pong', 'connection stays open');
    await c.close();
  }
});

t.test('messages over the rate limit are refused with a message, then the connection recovers', async () => {
  const r = await create({ game: 'clans', players: 2, seats: humans(2) });
  const c = await connect(r.json.id);
  await c.next((m) => m.type === 'state');
  for (let i = 0; i < 120; i++) c.send({ type: 'ping', id: i });
  const e = await c.next((m) => m.type === 'error' && m.code === 'rate_limited');
  assert(/per second/.test(e.message), 'explains the limit');
  await sleep(400);
  const pongs = c.messages.filter((m) => m.type === 'pong').length;
  assert(pongs >= 35 && pongs < 120, `some pings answered, the rest refused (${pongs})`);
  await sleep(1500);
  assertEq((await c.request({ type: 'ping', id: 'later' })).type, 'pong', 'recovered');
  await c.close();
});

t.test('a reconnecting seat gets the current state at once, with its decisions', async () => {
  const r = await create({ game: 'clans', players: 2, seats: humans(2) });
  const toks = r.json.seats.map((s) => s.token);
  let cs = [await connect(r.json.id, toks[0]), await connect(r.json.id, toks[1])];
  // play 6 decisions, then drop both connections abruptly
  let n = 0;
  while (n < 6) {
    const sts = await Promise.all(cs.map((c) => c.next((m) => m.type === 'state' && m.n === n)));
    const k = sts[0].to_move;
    await cs[k].request({ type: 'decide', move: sts[k].legal[0], id: n, n });
    n++;
  }
  const before = await cs[0].next((m) => m.type === 'state' && m.n === 6);
  cs.forEach((c) => c.destroy());
  await sleep(100);
  const presence = (await api(server, 'GET', `/api/games/${r.json.id}`)).json.seats;
  assertEq(presence.map((s) => s.connected), [false, false], 'both gone');
  const again = await connect(r.json.id, toks[0]);
  const w = await again.next((m) => m.type === 'welcome');
  assertEq(w.log.length, 6, 'welcome carries the log');
  const st = await again.next((m) => m.type === 'state');
  assertEq(st.n, 6, 'current position');
  assertEq(st.view, before.view, 'same view as before');
  assertEq(!!st.legal, st.to_move === 0, 'decisions when it is this seat\'s turn');
  await again.close();
});

if (pg) t.test('a second server on the same PostgreSQL database shares it', async () => {
  const s2 = await startServer(tabula, { db });
  const ids = async (s) => (await api(s, 'GET', '/api/games?status=all')).json.games.map((g) => g.id).sort();
  const mine = await ids(server);
  assert(mine.length > 0, 'there are games');
  assertEq(await ids(s2), mine, 'both list every game');
  assertEq((await s2.stop()).code, 0, 'clean stop');
  assertEq((await api(server, 'GET', '/api/health')).json.ok, true, 'the first one still serves');
});

if (!pg) t.test('a second server on the same database refuses to start', async () => {
  let refused = null;
  try {
    const s2 = await startServer(tabula, { db });
    await s2.stop();
  } catch (e) {
    refused = e.message;
  }
  assert(refused && /another server uses/.test(refused), `refused: ${refused}`);
  assertEq((await api(server, 'GET', '/api/health')).json.ok, true, 'the first one still serves');
});

t.test('a full server refuses new games with 503 and keeps the others', async () => {
  const d2 = tempDir();
  const full = testDb(d2, 'full');
  const s2 = await startServer(tabula, { db: full, args: ['--max-games', '2'] });
  const ai = await api(s2, 'POST', '/api/games', { game: 'clans', players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }] });
  assertEq(ai.status, 201, 'a computer-only game');
  for (let i = 0; i < 100 && (await api(s2, 'GET', `/api/games/${ai.json.id}`)).json.status !== 'over'; i++) await sleep(20);
  for (let i = 0; i < 2; i++)
    assertEq((await api(s2, 'POST', '/api/games', { game: 'clans', players: 2, seats: humans(2) })).status, 201, 'created');
  await expectError(await api(s2, 'POST', '/api/games', { game: 'clans' }), 503, 'server_full');
  assertEq((await api(s2, 'GET', '/api/games')).json.games.length, 2, 'the two running games are there');
  assertEq((await api(s2, 'GET', '/api/games?status=all')).json.games.length, 3, 'and the finished one');
  const before = (await api(s2, 'GET', `/api/games/${ai.json.id}/replay/7`)).json;
  assertEq((await s2.stop()).code, 0, 'clean stop');
  // After a restart the finished game is read from the database on demand.
  const s3 = await startServer(tabula, { db: full, args: ['--max-games', '2'] });
  assert(/2 unfinished games resumed/.test(s3.stdout()), 'the two running games resumed');
  const g = (await api(s3, 'GET', `/api/games/${ai.json.id}`)).json;
  assertEq(g.status, 'over', 'the finished game is still there');
  assertEq((await api(s3, 'GET', `/api/games/${ai.json.id}/replay/7`)).json, before, 'its replay is the same');
  assert((await api(s3, 'GET', `/api/games/${ai.json.id}/record`)).json.seed, 'its record is unsealed');
  assertEq((await api(s3, 'GET', '/api/health')).json.games_in_memory, 2, 'looking at it did not load it for good');
  const w = await WsClient.connect(s3.port, `?game=${ai.json.id}`);
  assert((await w.next((m) => m.type === 'state')).result, 'a spectator of a finished game gets the result');
  await w.close();
  assertEq((await s3.stop()).code, 0, 'clean stop');
  fs.rmSync(d2, { recursive: true, force: true });
});

// The computers' pace: --ai-delay-ms is a pause before a computer's turn, and
// its decisions within the turn follow --ai-step-ms (0 by default) after one
// another (the pages play the turn out, web/js/pacing.js).
t.test('a computer pauses once before its turn, not before each of its decisions', async () => {
  const d2 = tempDir();
  const s2 = await startServer(tabula, { db: testDb(d2, 'pace'), aiDelay: 300 });
  const r = await api(s2, 'POST', '/api/games', { game: 'arkadia', players: 2, seats: [{ kind: 'ai', level: 'random' }, { kind: 'ai', level: 'random' }] });
  const seen = []; // each decision as it arrived: seat, time
  let done = false;
  const w = await WsClient.connect(s2.port, `?game=${r.json.id}`, { onmessage: (m) => {
    if (m.type !== 'state') return;
    if (m.last && !seen.some((x) => x.n === m.last.n)) seen.push({ n: m.last.n, seat: m.last.seat, at: Date.now() });
    done ||= Boolean(m.result);
  } });
  const turns = () => seen.filter((x, k) => k > 0 && x.seat !== seen[k - 1].seat).length;
  for (let i = 0; i < 300 && !done && turns() < 5; i++) await sleep(20);
  await w.close();
  const within = [], between = [];
  for (let k = 1; k < seen.length; k++) (seen[k].seat === seen[k - 1].seat ? within : between).push(seen[k].at - seen[k - 1].at);
  assert(within.length >= 3 && between.length >= 3, `turns of several decisions watched (${within.length} within, ${between.length} between)`);
  assert(between.every((ms) => ms >= 280), `a pause before each computer's turn (${between})`);
  within.sort((a, b) => a - b);
  assert(within[Math.floor(within.length / 2)] < 150, `no pause between the decisions of a turn (${within})`);
  assertEq((await s2.stop()).code, 0, 'clean stop');
  fs.rmSync(d2, { recursive: true, force: true });
});

t.test('SIGTERM stops the server cleanly and closes WebSockets with 1001', async () => {
  const d2 = tempDir();
  const s2 = await startServer(tabula, { db: testDb(d2, 'x') });
  const r = await api(s2, 'POST', '/api/games', { game: 'clans', players: 2, seats: humans(2) });
  const c = await WsClient.connect(s2.port, `?game=${r.json.id}&token=${r.json.seats[0].token}`);
  await c.next((m) => m.type === 'state');
  const t0 = Date.now();
  const { code } = await s2.stop();
  assertEq(code, 0, 'exit status 0');
  assert(Date.now() - t0 < 5000, 'stops quickly');
  await sleep(100);
  assertEq(c.closeCode, 1001, 'close frame "going away"');
  fs.rmSync(d2, { recursive: true, force: true });
});

t.test('boards: offered by name from --data-dir, chosen at creation, remembered by stored games', async () => {
  const d2 = tempDir();
  const small = fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'data', 'khronos-small.txt'), 'utf8');
  const boards = path.join(d2, 'boards');
  fs.mkdirSync(path.join(boards, 'khronos'), { recursive: true });
  fs.writeFileSync(path.join(boards, 'khronos', 'bad.txt'), small.replace('row 3 ....~~..m^', 'row 3 ....~~..mq'));
  let refused = null;
  try {
    const bad = await startServer(tabula, { db: testDb(d2, 'b'), args: ['--data-dir', boards] });
    await bad.stop();
  } catch (e) {
    refused = e.message;
  }
  assert(refused && /khronos\/bad\.txt:8: row 3: unknown terrain letter 'q'/.test(refused), `a bad board stops the server: ${refused}`);
  fs.rmSync(path.join(boards, 'khronos', 'bad.txt'));
  fs.writeFileSync(path.join(boards, 'khronos', 'small.txt'), small);
  const bdb = testDb(d2, 'boards');
  const s2 = await startServer(tabula, { db: bdb, args: ['--data-dir', boards] });
  const cat = (await api(s2, 'GET', '/api/catalog')).json.games;
  assertEq(cat.find((g) => g.name === 'khronos').boards, ['default', 'small'], 'khronos boards by name');
  assertEq(cat.find((g) => g.name === 'clans').boards, [], 'clans has none');
  const drawn = await api(s2, 'GET', '/api/catalog/khronos/boards/small');
  assertEq([drawn.json.width, drawn.json.height, drawn.json.data.name], [10, 8, 'small'], 'the small board drawn');
  await expectError(await api(s2, 'GET', '/api/catalog/khronos/boards/huge'), 404, 'unknown_board');
  const mk = (body) => api(s2, 'POST', '/api/games', body);
  await expectError(await mk({ game: 'khronos', board: 'huge' }), 400, 'unknown_board');
  await expectError(await mk({ game: 'khronos', board: '../../etc/passwd' }), 400, 'unknown_board');
  await expectError(await mk({ game: 'khronos', board: 7 }), 400, 'bad_request');
  await expectError(await mk({ game: 'clans', board: 'default' }), 400, 'unknown_board');
  const g = await mk({ game: 'khronos', board: 'small', players: 2, seats: humans(2) });
  assertEq(g.status, 201, 'a game on the small board');
  const dflt = await mk({ game: 'khronos', players: 2, seats: humans(2) });
  const clans = await mk({ game: 'clans', players: 2, seats: humans(2) });
  assertEq((await api(s2, 'GET', `/api/games/${g.json.id}`)).json.board, 'small', 'the game names its board');
  assertEq((await api(s2, 'GET', `/api/games/${dflt.json.id}`)).json.board, 'default', 'the built-in board');
  assertEq((await api(s2, 'GET', `/api/games/${clans.json.id}`)).json.board, null, 'clans: none');
  const c = await WsClient.connect(s2.port, `?game=${g.json.id}&token=${g.json.seats[0].token}`);
  const st = await c.next((m) => m.type === 'state');
  await c.close();
  assertEq((await s2.stop()).code, 0, 'clean stop');
  // Restarted with the board: the game resumes as it was.
  const s3 = await startServer(tabula, { db: bdb, args: ['--data-dir', boards] });
  assert(/3 unfinished games resumed/.test(s3.stdout()), `all three resumed: ${s3.stdout()}`);
  const c3 = await WsClient.connect(s3.port, `?game=${g.json.id}&token=${g.json.seats[0].token}`);
  assertEq((await c3.next((m) => m.type === 'state')).view, st.view, 'the same position on the same board');
  await c3.close();
  assertEq((await s3.stop()).code, 0, 'clean stop');
  // Without it, or with the file changed: that game is refused with the reason, the others play on.
  for (const [args, why] of [[[], /board 'small', which this server no longer has/],
    [['--data-dir', boards], /another version of the Khronos board 'small'/]]) {
    if (args.length) fs.writeFileSync(path.join(boards, 'khronos', 'small.txt'), small.replace(/^hand 4$/m, 'hand 5'));
    const s4 = await startServer(tabula, { db: bdb, args });
    assert(/2 unfinished games resumed/.test(s4.stdout()), `the two others resumed: ${s4.stdout()}`);
    const broken = (await api(s4, 'GET', `/api/games/${g.json.id}`)).json;
    assert(why.test(broken.error || ''), `refused with a reason: ${broken.error}`);
    const ok = (await api(s4, 'GET', `/api/games/${dflt.json.id}`)).json;
    assert(!ok.error && ok.board === 'default', 'the game on the built-in board plays on');
    assertEq((await s4.stop()).code, 0, 'clean stop');
  }
  fs.rmSync(d2, { recursive: true, force: true });
});

t.test('boards: an Arkadia board file from --data-dir, played on and resumed on it', async () => {
  const d2 = tempDir();
  const moved = fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'data', 'arkadia_moved.txt'), 'utf8');
  const boards = path.join(d2, 'boards');
  fs.mkdirSync(path.join(boards, 'arkadia'), { recursive: true });
  fs.writeFileSync(path.join(boards, 'arkadia', 'bad.txt'), moved.replace('tents a1 f1 ', 'tents a1 a1 '));
  let refused = null;
  try {
    const bad = await startServer(tabula, { db: testDb(d2, 'b'), args: ['--data-dir', boards] });
    await bad.stop();
  } catch (e) {
    refused = e.message;
  }
  assert(refused && /arkadia\/bad\.txt:15: the tent on a1 is given twice/.test(refused), `a bad board stops the server: ${refused}`);
  fs.rmSync(path.join(boards, 'arkadia', 'bad.txt'));
  fs.writeFileSync(path.join(boards, 'arkadia', 'moved.txt'), moved);
  const adb = testDb(d2, 'arkadia');
  const s2 = await startServer(tabula, { db: adb, args: ['--data-dir', boards] });
  const cat = (await api(s2, 'GET', '/api/catalog')).json.games;
  assertEq(cat.find((g) => g.name === 'arkadia').boards, ['default', 'moved'], 'arkadia boards by name');
  const drawn = (await api(s2, 'GET', '/api/catalog/arkadia/boards/moved')).json;
  assertEq([drawn.lot_size, drawn.tents.length, drawn.provisional], [[4, 4], 20, false], 'the moved board drawn');
  const g = await api(s2, 'POST', '/api/games', { game: 'arkadia', board: 'moved', players: 2, seats: humans(2) });
  assertEq(g.status, 201, 'a game on the moved board');
  const summary = (await api(s2, 'GET', `/api/games/${g.json.id}`)).json;
  assertEq([summary.board, summary.notice], ['moved', null], 'named, and no notice about the built-in board');
  const seat = summary.to_move;
  const c = await WsClient.connect(s2.port, `?game=${g.json.id}&token=${g.json.seats[seat].token}`);
  const st = await c.next((m) => m.type === 'state');
  await c.close();
  assert(st.legal.includes('lot k4'), `the lot goes where the moved board leaves room: ${st.legal}`);
  assertEq((await s2.stop()).code, 0, 'clean stop');
  const s3 = await startServer(tabula, { db: adb, args: ['--data-dir', boards] });
  const c3 = await WsClient.connect(s3.port, `?game=${g.json.id}&token=${g.json.seats[seat].token}`);
  const again = await c3.next((m) => m.type === 'state');
  await c3.close();
  assertEq([again.view, again.legal], [st.view, st.legal], 'resumed on the same board');
  assertEq((await s3.stop()).code, 0, 'clean stop');
  fs.rmSync(d2, { recursive: true, force: true });
});

t.test('the server stops cleanly at the end (no leak under ASan)', async () => {
  const exit = await server.stop();
  assertEq(exit.code, 0, `exit status (stderr: ${server.stderr().slice(0, 3000)})`);
});

const failed = await t.run();
fs.rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
