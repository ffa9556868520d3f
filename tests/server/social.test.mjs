// social.test.mjs — the table chat and "Play again" over real sockets
// (docs/server.md, "Chat and Play again"): a line broadcast to everyone at the
// table, stored and read back after a restart and in the replay, the limits
// (500 characters counted as characters, a rate per seat, no control
// characters, no empty line, valid UTF-8 only), spectators refused, HTML kept
// verbatim; the rematch of a finished game made once, seats rotated, computer
// levels kept, each person's link sent to that person only, strangers,
// spectators and running games refused.
import path from 'node:path';
import {
  api, assert, assertEq, pg, runner, sleep, startServer, tempDir, testDb, WsClient,
} from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir();
const db = testDb(dir, 'social');
let server = await startServer(tabula, { db, aiDelay: 0 });
const t = runner(`social tests${pg ? ' (PostgreSQL)' : ''}`);

const create = (body) => api(server, 'POST', '/api/games', body);
const connect = (game, token) =>
  WsClient.connect(server.port, `?game=${game}${token ? `&token=${token}` : ''}`);
const two = (a = 'Ana', b = 'Bo') =>
  create({ game: 'clans', seats: [{ kind: 'human', name: a }, { kind: 'human', name: b }] });

// Sends a chat line; resolves with the error the sender got, or with the
// line as the sender heard it back.
async function say(ws, text, id) {
  const from = ws.messages.length;
  ws.send({ type: 'chat', text, id });
  return ws.next((m) => (m.type === 'error' && m.id === id) || (m.type === 'chat' && m.text === text),
    { from, what: `the answer to chat ${id}` });
}

async function joined(ws) {
  await ws.next((m) => m.type === 'chat_log', { what: 'the chat so far' });
  return ws;
}

// Ends a two-player game at once: `ws`'s person resigns (tried again while a
// decision is being saved).
async function resign(ws) {
  for (let attempt = 0; ; attempt++) {
    const from = ws.messages.length;
    ws.send({ type: 'resign', id: 'r' });
    const m = await ws.next((x) => x.type === 'notice' || (x.type === 'error' && x.id === 'r'), { from, what: 'the resignation' });
    if (m.code !== 'busy' || attempt === 20) return m;
    await sleep(100);
  }
}

let chatGame = null; // the game whose lines the restart test reads back

t.test('a line goes to everyone at the table (spectators too), with seat, name, text and time', async () => {
  const g = (await two()).json;
  chatGame = g;
  const ana = await joined(await connect(g.id, g.seats[0].token));
  const bo = await joined(await connect(g.id, g.seats[1].token));
  const watcher = await joined(await connect(g.id));
  const fromBo = bo.messages.length, fromW = watcher.messages.length;
  const mine = await say(ana, 'Hello, good luck!', 1);
  assertEq(mine.type, 'chat', `the sender hears the line (${JSON.stringify(mine)})`);
  const heard = await bo.next((m) => m.type === 'chat', { from: fromBo });
  const seen = await watcher.next((m) => m.type === 'chat', { from: fromW });
  for (const m of [mine, heard, seen]) {
    assertEq([m.seat, m.name, m.text, m.n, m.decisions], [0, 'Ana', 'Hello, good luck!', 1, 0], 'the line');
    assert(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(m.at), `its time: ${m.at}`);
  }
  // A decision, then a line: it says at which moment it was said.
  const st = await ana.next((m) => m.type === 'state');
  const mover = st.your_turn ? ana : bo;
  const s2 = mover.latestState();
  assertEq((await mover.request({ type: 'decide', move: s2.legal[0], id: 7 })).type, 'ack', 'a decision');
  await mover.next((m) => m.type === 'state' && m.n === 1);
  const later = await say(bo, '<img src=x onerror="window.pwned=1"> & <b>bold</b>', 2);
  assertEq([later.type, later.seat, later.decisions], ['chat', 1, 1], 'said after the first decision');
  // HTML arrives as the very characters that were sent, never escaped or cut.
  assertEq(later.text, '<img src=x onerror="window.pwned=1"> & <b>bold</b>', 'HTML kept verbatim');
  // A spectator reads only.
  const r = await watcher.request({ type: 'chat', text: 'hi from the rail', id: 3 });
  assertEq([r.type, r.code], ['error', 'spectator'], 'a spectator may not write');
  for (const ws of [ana, bo, watcher]) await ws.close();
});

t.test('limits: 500 characters (not bytes) pass, 501 are too_long; empty, control characters and a wrong shape refused', async () => {
  const g = (await two('Cy', 'Di')).json;
  const cy = await joined(await connect(g.id, g.seats[0].token));
  const di = await joined(await connect(g.id, g.seats[1].token));
  // 500 two-byte and 500 four-byte (two UTF-16 units) characters are 500 characters.
  assertEq((await say(cy, 'é'.repeat(500), 1)).type, 'chat', '500 two-byte characters pass');
  assertEq((await say(di, '😀'.repeat(500), 2)).type, 'chat', '500 four-byte characters pass');
  const long = await say(cy, 'é'.repeat(501), 3);
  assertEq([long.type, long.code], ['error', 'too_long'], '501 characters are too long');
  assert(/500/.test(long.message), `the error says the limit: ${long.message}`);
  assertEq((await say(di, 'a'.repeat(501), 4)).code, 'too_long', '501 one-byte characters too');
  assertEq((await say(cy, '  \n\u3000 ', 5)).code, 'empty', 'white space only is refused');
  assertEq((await say(cy, '', 6)).code, 'empty', 'an empty line is refused');
  assertEq((await say(cy, 'ding\u0007', 7)).code, 'bad_text', 'a control character is refused');
  assertEq((await say(cy, 'a\u009bb', 8)).code, 'bad_text', 'a C1 control character is refused');
  assertEq((await say(cy, 'two\nlines', 9)).type, 'chat', 'a new line is fine');
  const shape = await cy.request({ type: 'chat', text: 42, id: 10 });
  assertEq(shape.code, 'bad_message', 'text must be a string');
  // Escapes that are not characters: refused before the room sees them.
  const from = cy.messages.length;
  cy.send('{"type":"chat","text":"lone \\ud800 half","id":11}');
  const lone = await cy.next((m) => m.type === 'error', { from });
  assertEq(lone.code, 'bad_json', 'a lone surrogate is not text');
  // Bytes that are not UTF-8: the connection ends (RFC 6455: 1007), nothing said.
  const bad = Buffer.concat([Buffer.from('{"type":"chat","text":"x'), Buffer.from([0xc3, 0x28]), Buffer.from('y","id":12}')]);
  const fromDi = di.messages.length;
  cy._send(1, bad);
  await cy.next(() => false, { timeout: 3000 }).catch(() => {});
  assert(cy.closed || cy.closeCode === 1007, `invalid UTF-8 ends the connection (close ${cy.closeCode})`);
  await sleep(200);
  assert(!di.messages.slice(fromDi).some((m) => m.type === 'chat'), 'nothing was said');
  const rep = (await api(server, 'GET', `/api/games/${g.id}/replay/0`)).json;
  assertEq(rep.chat.map((l) => [l.seat, [...l.text].length]), [[0, 500], [1, 500], [0, 9]],
    'only the accepted lines are stored');
  await di.close();
  await cy.close();
});

t.test('slow_down: five lines in ten seconds per seat, then refused (the other seat still talks)', async () => {
  const g = (await two('Eve', 'Fay')).json;
  const eve = await joined(await connect(g.id, g.seats[0].token));
  const fay = await joined(await connect(g.id, g.seats[1].token));
  for (let i = 1; i <= 5; i++) assertEq((await say(eve, `line ${i}`, i)).type, 'chat', `line ${i} passes`);
  const sixth = await say(eve, 'line 6', 6);
  assertEq([sixth.type, sixth.code], ['error', 'slow_down'], 'the sixth line within ten seconds is refused');
  assertEq((await say(fay, 'my turn to talk', 7)).type, 'chat', 'per seat: the other player is not slowed');
  const rep = (await api(server, 'GET', `/api/games/${g.id}/replay/0`)).json;
  assertEq(rep.chat.length, 6, 'the refused line was not stored');
  await eve.close();
  await fay.close();
});

t.test('the chat is stored: after a restart a new connection gets it, and the replay lists it with its moments', async () => {
  await server.stop();
  server = await startServer(tabula, { db, aiDelay: 0 });
  const g = chatGame;
  const bo = await connect(g.id, g.seats[1].token);
  const log = await bo.next((m) => m.type === 'chat_log');
  assertEq(log.lines.map((l) => [l.n, l.seat, l.name, l.decisions]), [[1, 0, 'Ana', 0], [2, 1, 'Bo', 1]],
    'the lines, in order, with who said them and when');
  assertEq(log.lines[1].text, '<img src=x onerror="window.pwned=1"> & <b>bold</b>', 'verbatim after the restart');
  assertEq(log.max_chars, 500, 'the page learns the limit');
  const rep = (await api(server, 'GET', `/api/games/${g.id}/replay/1`)).json;
  assertEq(rep.chat.map((l) => [l.n, l.decisions, l.text.slice(0, 5)]), [[1, 0, 'Hello'], [2, 1, '<img ']],
    'the replay carries every line with the decision count it was said at');
  // The new line continues the numbering.
  assertEq((await say(bo, 'back again', 1)).n, 3, 'numbering goes on');
  await bo.close();
});

t.test('play again: a person against the computer — refused while running, made once, seats rotated, level kept', async () => {
  const g = (await create({ game: 'clans', seats: [{ kind: 'human', name: 'Gil' }, { kind: 'ai', level: 'easy', name: 'Robo' }] })).json;
  const token = g.seats[0].token;
  const running = await api(server, 'POST', `/api/games/${g.id}/rematch`, { token });
  assertEq([running.status, running.json.error.code], [409, 'not_over'], 'a running game is refused');
  const gil = await connect(g.id, token);
  await gil.next((m) => m.type === 'state');
  const notice = await resign(gil);
  assertEq(notice.code, 'resigned', 'the game ends by a resignation');
  await gil.next((m) => m.type === 'state' && m.result);
  const stranger = await api(server, 'POST', `/api/games/${g.id}/rematch`, { token: 'A'.repeat(43) });
  assertEq([stranger.status, stranger.json.error.code], [403, 'bad_token'], 'a stranger is refused');
  const watcher = await api(server, 'POST', `/api/games/${g.id}/rematch`, {});
  assertEq([watcher.status, watcher.json.error.code], [403, 'not_a_player'], 'no key: refused');
  const notJson = await api(server, 'POST', `/api/games/${g.id}/rematch`, '{"token":');
  assertEq(notJson.status, 400, 'a body that is not JSON');
  const none = await api(server, 'POST', '/api/games/AAAAAAAAAAAA/rematch', { token });
  assertEq(none.status, 404, 'no such game');
  assertEq((await api(server, 'GET', `/api/games/${g.id}`)).json.rematch, null, 'nothing was made by the refusals');
  const made = await api(server, 'POST', `/api/games/${g.id}/rematch`, { token });
  assertEq(made.status, 201, `made (${made.text.slice(0, 200)})`);
  const m = made.json;
  assertEq([m.of, m.seat, m.token], [g.id, 1, token], 'Gil moves one seat on and keeps his key');
  assertEq(m.link, `/game.html?game=${m.id}&token=${token}`, 'his own link');
  const again = await api(server, 'POST', `/api/games/${g.id}/rematch`, { token });
  assertEq([again.status, again.json.id], [200, m.id], 'a second call answers the same game');
  const fresh = (await api(server, 'GET', `/api/games/${m.id}`)).json;
  assertEq(fresh.seats.map((s) => [s.kind, s.name, s.level || null]), [['ai', 'Robo', 'easy'], ['human', 'Gil', null]],
    'seats rotated, the computer keeps its level');
  assertEq([fresh.game, fresh.options, fresh.rematch_of], ['clans', (await api(server, 'GET', `/api/games/${g.id}`)).json.options, g.id],
    'the same game and options');
  assertEq((await api(server, 'GET', `/api/games/${g.id}`)).json.rematch, m.id, 'the old game names its rematch');
  const inNew = await WsClient.connect(server.port, `?game=${m.id}&token=${token}`);
  const w = await inNew.next((x) => x.type === 'welcome');
  assertEq([w.seat, w.role], [1, 'player'], 'the key plays the new seat');
  await inNew.close();
  await gil.close();
});

t.test('play again with two people: each connection is offered its own link, nobody else\'s key; the new game plays', async () => {
  const g = (await two('Hal', 'Ivy')).json;
  const [hk, ik] = [g.seats[0].token, g.seats[1].token];
  const hal = await connect(g.id, hk);
  const ivy = await connect(g.id, ik);
  const spectator = await connect(g.id);
  await spectator.next((m) => m.type === 'state');
  await ivy.next((m) => m.type === 'state');
  assertEq((await resign(hal)).code, 'resigned', 'Hal resigns: the game is over');
  const spec = await api(server, 'POST', `/api/games/${g.id}/rematch`, { token: '' });
  assertEq(spec.status, 403, 'a spectator (no key) is refused');
  // Both ask at once: one game.
  const [a, b] = await Promise.all([
    api(server, 'POST', `/api/games/${g.id}/rematch`, { token: ik }),
    api(server, 'POST', `/api/games/${g.id}/rematch`, { token: hk }),
  ]);
  assertEq([a.json.id === b.json.id, [a.status, b.status].sort()], [true, [200, 201]], 'one rematch for two calls');
  assertEq([a.json.token, a.json.seat, b.json.token, b.json.seat], [ik, 0, hk, 1], 'each answer holds only the caller\'s key');
  const offerH = await hal.next((m) => m.type === 'rematch');
  const offerI = await ivy.next((m) => m.type === 'rematch');
  const offerS = await spectator.next((m) => m.type === 'rematch');
  assertEq([offerH.id, offerH.seat, offerH.link], [a.json.id, 1, `/game.html?game=${a.json.id}&token=${hk}`], 'Hal\'s offer');
  assertEq([offerI.id, offerI.seat, offerI.link], [a.json.id, 0, `/game.html?game=${a.json.id}&token=${ik}`], 'Ivy\'s offer');
  assertEq([offerS.seat, offerS.link], [null, `/game.html?game=${a.json.id}`], 'a spectator may watch it');
  const texts = (ws) => ws.texts.join('\n');
  assert(!texts(hal).includes(ik) && !texts(spectator).includes(ik), 'Ivy\'s key reached nobody else');
  assert(!texts(ivy).includes(hk) && !texts(spectator).includes(hk), 'Hal\'s key reached nobody else');
  assertEq(offerH.seat === 1 && offerI.seat === 0, true, 'seats rotated');
  // The new game: both keys play their new seats.
  const ivy2 = await connect(a.json.id, ik);
  const hal2 = await connect(a.json.id, hk);
  const st = await ivy2.next((m) => m.type === 'state');
  const mover = st.your_turn ? ivy2 : hal2;
  const s = mover.latestState() || await mover.next((m) => m.type === 'state');
  assertEq((await mover.request({ type: 'decide', move: s.legal[0], id: 1 })).type, 'ack', 'a decision in the new game');
  for (const ws of [hal, ivy, spectator, ivy2, hal2]) await ws.close();
});

t.test('the server stops cleanly (no leak under ASan)', async () => {
  const { code } = await server.stop();
  assertEq(code, 0, `exit status (stderr: ${server.stderr().slice(0, 2000)})`);
});

const failed = await t.run();
process.exit(failed ? 1 : 0);
