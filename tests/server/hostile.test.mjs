// hostile.test.mjs TABULA — the server as a hostile client meets it: text
// that puts a multibyte character across every length limit of every
// message, bytes that are not UTF-8, NUL characters in addresses, bodies and
// decisions, announced bodies over the limit, slow and idle connections, and
// more connections from one address than it may hold.  After every attack
// the server must have answered with a clear error in valid UTF-8 JSON and
// must still be up, playing a game through to a real decision.
//
// Invariants: everything runs against 127.0.0.1 with a server this script
// started; every loop is bounded; the server's exit is a failure.
import net from 'node:net';
import path from 'node:path';
import {
  api, assert, assertEq, runner, sleep, startServer, tempDir, testDb, WsClient,
} from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir();
const server = await startServer(tabula, {
  db: testDb(dir, 'hostile'), aiDelay: 0,
  args: ['--request-timeout', '2', '--idle-timeout', '30', '--max-per-address', '64'],
});
let died = false;
server.exited.then(() => { died = true; });
const t = runner('the server under hostile input');

const create = (body) => api(server, 'POST', '/api/games', body);
const humans = (n) => Array.from({ length: n }, (_, i) => ({ kind: 'human', name: `P${i + 1}` }));

// Multibyte characters of 2, 3 and 4 bytes.
const WIDE = ['é', '€', '𝄞'];
// Strings with a multibyte character ending at every byte count up to `max`.
function straddlers(max) {
  const out = [];
  for (let n = 0; n <= max; n++) for (const w of WIDE) out.push('a'.repeat(n) + w + 'z');
  return out;
}
// Strings of only multibyte characters, every length up to `count` characters.
function wideRuns(count) {
  const out = [];
  for (let n = 1; n <= count; n++) for (const w of WIDE) out.push(w.repeat(n));
  return out;
}

async function alive() {
  assert(!died, 'the server is still running');
  const h = await api(server, 'GET', '/api/health');
  assertEq(h.status, 200, 'health answers');
}

function isError(res, status, what) {
  assert(res.json && res.json.error && typeof res.json.error.message === 'string',
    `${what}: a JSON error, got ${res.status} ${res.text.slice(0, 200)}`);
  if (status) assertEq(res.status, status, `${what}: status`);
  assert(!/JSON_|ALLOW_NUL|abort|assert/.test(res.json.error.message),
    `${what}: the message is in players' words: ${res.json.error.message}`);
}

// One raw HTTP exchange; resolves with the status line and the whole answer.
function rawHttp(request, { timeout = 5000 } = {}) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(server.port, '127.0.0.1');
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => { sock.destroy(); reject(new Error('no answer')); }, timeout);
    sock.on('connect', () => sock.write(request));
    sock.on('data', (d) => { data = Buffer.concat([data, d]); });
    sock.on('error', () => {});
    sock.on('close', () => {
      clearTimeout(timer);
      const text = data.toString('latin1');
      resolve({ status: Number((text.match(/^HTTP\/1\.1 (\d+)/) || [])[1] || 0), text });
    });
  });
}

t.test('POST /api/games: a multibyte character across every cut of every field', async () => {
  let n = 0;
  for (const s of straddlers(70)) {
    isError(await create({ game: s }), 400, `game '${s}'`);
    isError(await create({ game: 'clans', [s]: 1 }), 400, `field '${s}'`);
    isError(await create({ game: 'clans', options: { [s]: 'x' } }), 400, `option name '${s}'`);
    isError(await create({ game: 'clans', options: { [s]: { deep: 1 } } }), 400, `option object '${s}'`);
    isError(await create({ game: 'khronos', options: { holdem: s } }), 400, `option value '${s}'`);
    n += 5;
  }
  for (const s of wideRuns(40)) {
    isError(await create({ game: s }), 400, `game '${s}'`);
    isError(await create({ game: 'clans', seats: [{ kind: 'ai', level: s }, { kind: 'human' }] }), 400, `level '${s}'`);
    n += 2;
  }
  // Long names of multibyte text: either taken whole or refused, never cut.
  for (const s of wideRuns(30)) {
    const r = await create({ game: 'clans', seats: [{ kind: 'human', name: s }, { kind: 'human' }] });
    if (r.status === 201) assertEq(r.json.seats[0].name, s, 'a name is kept whole');
    else isError(r, 400, `name '${s}'`);
  }
  assert(n > 500, 'every vector was sent');
  await alive();
});

t.test('bodies that are not UTF-8, carry NUL characters or are not JSON', async () => {
  const bodies = [
    Buffer.from([0x7b, 0x22, 0x67, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"game":"\xff\xfe"}
    Buffer.from('{"game":"cla\\u0000ns"}'),
    Buffer.from('{"game":"clans","seats":[{"kind":"human","name":"a\\u0000b"},{"kind":"human"}]}'),
    Buffer.from('{"game":"\\ud800"}'),
    Buffer.from('['.repeat(5000)),
    Buffer.from('{"game":"clans",' + '"x":1,'.repeat(2000) + '"y":2}'),
    Buffer.alloc(3000, 0xc3), // a lead byte over and over
  ];
  for (const b of bodies) isError(await create(b), 400, `body ${b.subarray(0, 24).toString('hex')}`);
  const nul = await create(Buffer.from('{"game":"cla\\u0000ns"}'));
  assert(/NUL/.test(nul.json.error.message), `the NUL is named: ${nul.json.error.message}`);
  await alive();
});

t.test('addresses with a NUL or control character are refused with 400', async () => {
  for (const p of ['/index.html%00.png', '/%00', '/api/games/%00', '/api/catalog%00', '/js/%01x.js',
    '/api/games/abc%00def/record']) {
    const r = await rawHttp(`GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assertEq(r.status, 400, `GET ${p}`);
    assert(!/<html/i.test(r.text) || !/Tabula/.test(r.text), `GET ${p} does not serve a page`);
  }
  // Percent-encoded bytes that are not UTF-8 in the API: a clear error.
  isError(await api(server, 'GET', '/api/games/%FF%FE%FD'), 404, 'id of bad bytes');
  isError(await api(server, 'GET', '/api/games?status=%C3'), 400, 'status of a cut character');
  await alive();
});

t.test('/i18n/ serves the catalogues and nothing else of the disk; a lost address gets the 404 page', async () => {
  const ok = await rawHttp('GET /i18n/es.po HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assertEq(ok.status, 200, 'GET /i18n/es.po');
  assert(/Content-Type: text\/plain; charset=utf-8/i.test(ok.text) && /Plural-Forms/.test(ok.text), 'the Spanish catalogue');
  assertEq((await rawHttp('GET /i18n/LINGUAS HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status, 200, 'LINGUAS');
  for (const p of ['/i18n/xx.po', '/i18n/../meson.build', '/i18n/%2e%2e/meson.build', '/i18n/es.po.bak',
    '/i18n/es.mo', '/i18n/', '/i18n/e-s.po', '/i18n/LINGUAS/x', '/po/es.po', '/i18n/.po']) {
    const r = await rawHttp(`GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assertEq(r.status, 404, `GET ${p}`);
    assert(!/msgid/.test(r.text), `GET ${p} serves no file`);
  }
  // an address that is no page: the UI's page saying so, with a 404
  const lost = await rawHttp('GET /no-such-page.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assertEq(lost.status, 404, 'GET /no-such-page.html');
  assert(/data-i18n>This page does not exist/.test(lost.text) && /frame\.js/.test(lost.text), 'the translatable 404 page');
  await alive();
});

t.test('a Content-Length over the limit gets 413 at once, before any body', async () => {
  const t0 = Date.now();
  const r = await rawHttp('POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
    'Content-Length: 1000000000\r\n\r\n', { timeout: 4000 });
  assertEq(r.status, 413, 'status');
  assert(Date.now() - t0 < 1500, `answered without waiting for the body (${Date.now() - t0} ms)`);
  await alive();
});

// Makes one real decision in game g through the seat whose turn it is.
async function decideOnce(g, pick = (legal) => legal[0]) {
  const seats = await Promise.all(g.seats.map((s) => WsClient.connect(server.port, `?game=${g.id}&token=${s.token}`)));
  const firsts = await Promise.all(seats.map((c) => c.next((m) => m.type === 'state')));
  const i = firsts.findIndex((st) => st.your_turn);
  assert(i >= 0, 'one seat is to move');
  const ack = await seats[i].request({ type: 'decide', move: pick(firsts[i].legal), id: 1, n: firsts[i].n });
  for (const c of seats) c.destroy();
  return ack;
}

async function seatLinks() {
  const r = await create({ game: 'clans', seats: humans(2) });
  assertEq(r.status, 201, 'a game for the WebSocket tests');
  return r.json;
}

t.test('WebSocket upgrades: game and token of every shape get an error over the socket', async () => {
  const g = await seatLinks();
  const queries = [];
  for (const s of straddlers(50)) queries.push(`?game=${encodeURIComponent(s)}`);
  for (const s of wideRuns(20)) queries.push(`?game=${g.id}&token=${encodeURIComponent(s)}`);
  queries.push('?game=%FF%FE', `?game=${g.id}&token=%FF`, '?game=%C3', `?game=${g.id}%00`,
    `?game=${g.id}&token=%00`, `?game=${g.id}&token=${g.seats[0].token}%00`);
  for (const q of queries) {
    const c = await WsClient.connect(server.port, q);
    const e = await c.next((m) => m.type === 'error' || m.type === '__not_utf8__' || m.type === '__not_json__',
      { what: `the error for ${q}` });
    assertEq(e.type, 'error', `a JSON error in valid UTF-8 for ${q}`);
    assert(['unknown_game', 'bad_token', 'bad_request'].includes(e.code), `${q}: code ${e.code}`);
    c.destroy();
  }
  // token=%00 is a bad token, not a spectator
  const c = await WsClient.connect(server.port, `?game=${g.id}&token=%00`);
  const e = await c.next((m) => m.type === 'error' || m.type === 'state');
  assertEq([e.type, e.code], ['error', 'bad_token'], 'token=%00');
  c.destroy();
  await alive();
});

t.test('WebSocket messages: multibyte types, decisions and ids at every cut', async () => {
  const g = await seatLinks();
  // The seat to move, so that decisions reach the rules and their refusals.
  const both = await Promise.all(g.seats.map((s) => WsClient.connect(server.port, `?game=${g.id}&token=${s.token}`)));
  const firsts = await Promise.all(both.map((x) => x.next((m) => m.type === 'state')));
  const c = both[firsts.findIndex((st) => st.your_turn)];
  for (const x of both) if (x !== c) x.destroy();
  let id = 0;
  const expectError = async (msg, what) => {
    msg.id = ++id;
    const from = c.messages.length;
    c.send(msg);
    const r = await c.next((m) => m.id === msg.id || m.type === '__not_utf8__' || m.type === '__not_json__',
      { from, what });
    assertEq(r.type, 'error', `${what}: an error in valid UTF-8 JSON`);
    assert(!/JSON_|ALLOW_NUL/.test(r.message), `${what}: players' words: ${r.message}`);
    assert(r.code !== 'not_your_turn' && r.code !== 'rate_limited', `${what}: reached the rules (${r.code})`);
    return r;
  };
  let sent = 0;
  for (const s of straddlers(45)) {
    await expectError({ type: s }, `type '${s}'`);
    await expectError({ type: 'decide', move: s }, `move '${s}'`);
    sent += 2;
    if (sent % 20 === 0) await sleep(1050); // stay under the rate limit (20 a second)
  }
  for (const s of wideRuns(66)) { // 66 × 3 bytes stays under the 200-byte limit
    await expectError({ type: 'decide', move: s }, `move of ${s.length} wide characters`);
    if (++sent % 20 === 0) await sleep(1050);
  }
  await sleep(1100);
  // A NUL inside a string: the message cannot be read, so the error has no id.
  let from = c.messages.length;
  c.send({ type: 'decide', move: '12\u0000-17', id: 999 });
  const nul = await c.next((m) => m.type === 'error' || m.type === '__not_utf8__', { from, what: 'the NUL error' });
  assertEq(nul.code, 'bad_json', 'a decision with a NUL');
  assert(/NUL/.test(nul.message) && !/JSON_/.test(nul.message), `the NUL is named plainly: ${nul.message}`);
  // A text frame of bytes that are not UTF-8.
  from = c.messages.length;
  c._send(1, Buffer.from([0x7b, 0x22, 0x74, 0xff, 0x22, 0x7d]));
  const bad = await c.next((m) => m.type === 'error' || c.closed, { from, what: 'an answer to bad bytes' })
    .catch(() => ({ type: 'closed' }));
  assert(bad.type === 'error' || bad.type === 'closed', 'bad bytes get an error or a close');
  c.destroy();
  // The game still plays: a fresh connection makes a real decision.
  assertEq((await decideOnce(g)).type, 'ack', 'a legal decision is still taken');
  await alive();
});

t.test('slow requests are cut off; idle and slow clients cannot hold the server', async () => {
  const socks = [];
  for (let i = 0; i < 40; i++) {
    const s = net.connect(server.port, '127.0.0.1');
    s.on('error', () => {});
    s.closedAt = null;
    s.on('close', () => { s.closedAt = Date.now(); });
    // half the headers, or the headers of a body that never comes
    s.on('connect', () => s.write(i % 2
      ? 'GET / HTTP/1.1\r\nHost: x\r\nX-Slow: '
      : 'POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"ga'));
    socks.push(s);
  }
  const t0 = Date.now();
  // trickle a byte now and then, as a slowloris does
  const trickle = setInterval(() => { for (const s of socks) if (!s.closedAt) s.write('a'); }, 300);
  // meanwhile the server answers others
  await alive();
  for (let i = 0; i < 40 && socks.some((s) => !s.closedAt); i++) await sleep(250);
  clearInterval(trickle);
  const open = socks.filter((s) => !s.closedAt).length;
  for (const s of socks) s.destroy();
  assertEq(open, 0, 'every slow connection was closed');
  const slowest = Math.max(...socks.map((s) => s.closedAt - t0));
  assert(slowest < 6000, `closed within the 2 s request timeout and the watchdog's tick (${slowest} ms)`);
  await alive();
});

t.test('one address holds at most --max-per-address connections; others still get in after', async () => {
  const socks = [];
  for (let i = 0; i < 70; i++) {
    const s = net.connect(server.port, '127.0.0.1');
    s.on('error', () => {});
    s.gone = false;
    s.on('close', () => { s.gone = true; });
    socks.push(s);
  }
  await sleep(800);
  const open = socks.filter((s) => !s.gone).length;
  assert(open <= 64, `at most 64 open from one address (${open})`);
  assert(open >= 50, `the limit is not lower than asked (${open})`);
  for (const s of socks) s.destroy();
  await sleep(300);
  await alive();
});

t.test('after all that, a whole exchange works and the server never died', async () => {
  const g = await seatLinks();
  const ack = await decideOnce(g, (legal) => legal[legal.length - 1]);
  assertEq(ack.type, 'ack', 'decision taken');
  await alive();
});

const failed = await t.run();
const diedDuringTests = died;
await server.stop();
process.exit(failed || diedDuringTests ? 1 : 0);
