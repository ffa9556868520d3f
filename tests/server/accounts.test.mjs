// accounts.test.mjs — accounts and sessions over real sockets (issue 28;
// docs/http-api.md "Accounts and sessions"): sign up and log in with their
// refusals, the cookie's flags (Secure only behind TLS), no enumeration
// (the same 401 body and about the same time for an unknown name and a
// wrong password), the log-in rate limits per name and per address, CSRF
// (a foreign Origin with a session cookie is refused, without a cookie or
// from the server's own page it is not), sessions ended by log-out and by a
// password change, guessed tokens refused, account seats played over the
// WebSocket with the session cookie (and not with another account's),
// rated games, seats claimed by a guest who signs up, deleting an account
// ("a former player"), names holding HTML, and a version-4 database
// migrated with its games.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import {
  api, assert, assertEq, pg, psql, runner, sleep, startServer, tempDir, testDb, WsClient,
} from './lib.mjs';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir();
const db = testDb(dir, 'accounts');
const server = await startServer(tabula, { db, aiDelay: 0 });
// Behind a TLS proxy: Secure cookies, and the client's address from
// X-Forwarded-For, so the rate limits per address can be tried here
// without locking the test's own address out of the first server.
const tls = await startServer(tabula, { db: testDb(dir, 'tls'), aiDelay: 0, args: ['--behind-tls'] });
const t = runner(`accounts tests${pg ? ' (PostgreSQL)' : ''}`);

const uniq = (base) => `${base}${crypto.randomBytes(3).toString('hex')}`;
const cookieOf = (res) => {
  const sc = res.headers.get('set-cookie') || '';
  const m = sc.match(/tabula_session=([^;]*)/);
  return m ? `tabula_session=${m[1]}` : null;
};
const withCookie = (cookie, extra = {}) => ({ headers: { Cookie: cookie, ...extra } });
async function signup(name, password = 'correct horse', srv = server, extra = {}) {
  const res = await api(srv, 'POST', '/api/accounts', { name, password, ...extra });
  assertEq(res.status, 201, `sign up ${name} (${res.text.slice(0, 200)})`);
  return { name, password, cookie: cookieOf(res), res };
}
const login = (name, password, srv = server, headers = {}) =>
  api(srv, 'POST', '/api/session', { name, password }, { headers });
const me = (cookie, srv = server) => api(srv, 'GET', '/api/me', undefined, withCookie(cookie));

function expectError(res, status, code) {
  assertEq(res.status, status, `HTTP status for ${code} (${res.text.slice(0, 200)})`);
  assert(res.json && res.json.error && res.json.error.code === code,
    `error code ${code}, got ${res.text.slice(0, 200)}`);
}

t.test('sign up: 201 with a session cookie, HttpOnly, SameSite=Lax, Path=/, not Secure', async () => {
  const a = await signup(uniq('Ana'));
  const sc = a.res.headers.get('set-cookie');
  assert(/HttpOnly/.test(sc) && /SameSite=Lax/.test(sc) && /Path=\//.test(sc), `cookie flags: ${sc}`);
  assert(!/Secure/.test(sc), `no Secure without --behind-tls: ${sc}`);
  assert(/Max-Age=2592000/.test(sc), `30 days: ${sc}`);
  const m = await me(a.cookie);
  assertEq(m.status, 200, 'GET /api/me with the cookie');
  assertEq(m.json.name, a.name, 'my name');
  assertEq(m.json.games, [], 'no games yet');
  const who = await api(server, 'GET', '/api/session', undefined, withCookie(a.cookie));
  assertEq([who.status, who.json.signed_in, who.json.name], [200, true, a.name], 'GET /api/session signed in');
  const guest = await api(server, 'GET', '/api/session');
  assertEq([guest.status, guest.json], [200, { signed_in: false }], 'GET /api/session for a guest: 200, no error');
});

t.test('sign up refusals: 409 a taken name (in any case), 400 bad names and short passwords', async () => {
  const name = uniq('Bea');
  await signup(name);
  expectError(await api(server, 'POST', '/api/accounts', { name: name.toUpperCase(), password: 'another one' }), 409, 'name_taken');
  for (const bad of ['', ' lead', 'trail ', 'x'.repeat(33), 'a\u0001b', 'A former player'])
    expectError(await api(server, 'POST', '/api/accounts', { name: bad, password: 'long enough' }), 400, 'bad_name');
  expectError(await api(server, 'POST', '/api/accounts', { name: uniq('Cy'), password: 'short' }), 400, 'bad_password');
  expectError(await api(server, 'POST', '/api/accounts', { name: uniq('Cy') }), 400, 'bad_request');
  expectError(await api(server, 'POST', '/api/accounts', '[1]'), 400, 'bad_request');
  expectError(await api(server, 'GET', '/api/accounts'), 405, 'method_not_allowed');
});

t.test('log in: 200 and a cookie; unknown name and wrong password get the same 401 in about the same time', async () => {
  const a = await signup(uniq('Dan'));
  const ok = await login(a.name.toLowerCase(), a.password);
  assertEq(ok.status, 200, 'log in (name in another case)');
  assertEq(ok.json.name, a.name, 'the name as signed up');
  assert(cookieOf(ok) && cookieOf(ok) !== a.cookie, 'a new session');
  const timed = async (name, password) => {
    const t0 = process.hrtime.bigint();
    const res = await login(name, password);
    return { res, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
  };
  // the fastest of three each: a busy machine only ever adds time
  const fastest = async (name) => {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await timed(name(), 'not the password'));
    return runs.reduce((x, y) => (y.ms < x.ms ? y : x));
  };
  const wrong = await fastest(() => a.name);
  const unknown = await fastest(() => uniq('Nobody'));
  assertEq(wrong.res.status, 401, 'wrong password');
  assertEq(unknown.res.status, 401, 'unknown name');
  assertEq(unknown.res.text, wrong.res.text, 'the same body for both');
  assertEq(wrong.res.json.error.code, 'bad_login', 'bad_login');
  assert(!cookieOf(wrong.res) && !cookieOf(unknown.res), 'no cookie on a failure');
  // an unknown name costs the same Argon2id work as a wrong password
  assert(unknown.ms > wrong.ms * 0.4, `similar time: unknown ${unknown.ms} ms, wrong ${wrong.ms} ms`);
});

t.test('the Argon2id work of log-ins does not hold up other requests', async () => {
  const a = await signup(uniq('Ivo'));
  let done = 0;
  const logins = [1, 2, 3, 4].map(() => login(a.name, a.password).then((r) => { done++; return r; }));
  await sleep(5); // the log-ins are in the server
  const health = await api(server, 'GET', '/api/health');
  assertEq(health.status, 200, 'health');
  assert(done < 4, `a plain request was answered while log-ins were being checked (${done} of 4 done)`);
  for (const r of await Promise.all(logins)) assertEq(r.status, 200, 'each log-in');
});

t.test('GET /api/me: 401 without a session, with a guessed token, and after log-out', async () => {
  expectError(await api(server, 'GET', '/api/me'), 401, 'not_signed_in');
  const guess = `tabula_session=${crypto.randomBytes(32).toString('base64url')}`;
  expectError(await me(guess), 401, 'not_signed_in');
  expectError(await me('tabula_session='), 401, 'not_signed_in');
  const a = await signup(uniq('Eve'));
  assertEq((await me(a.cookie)).status, 200, 'signed in');
  const out = await api(server, 'DELETE', '/api/session', undefined, withCookie(a.cookie));
  assertEq(out.status, 200, 'log out');
  assert(/Max-Age=0/.test(out.headers.get('set-cookie') || ''), 'the cookie is cleared');
  expectError(await me(a.cookie), 401, 'not_signed_in'); // replaying the old cookie
});

// SQL on the first server's database, from outside (sqlite3, or psql on the test cluster).
function sql(text) {
  if (pg) return psql(db.slice(db.lastIndexOf('/') + 1), text);
  const r = spawnSync('sqlite3', ['-cmd', '.timeout 5000', db, text], { encoding: 'utf8' });
  assertEq(r.status, 0, `sqlite3: ${r.stderr}`);
  return r.stdout;
}

t.test('a session idle for 30 days ends; a new log-in clears the account\'s idle ones', async () => {
  const a = await signup(uniq('Old'));
  const other = cookieOf(await login(a.name, a.password));
  sql(`UPDATE sessions SET last_used = '2020-01-01T00:00:00.000Z' WHERE account_id = (SELECT id FROM accounts WHERE name = '${a.name}')`);
  expectError(await me(a.cookie), 401, 'not_signed_in');
  const fresh = await login(a.name, a.password);
  assertEq(fresh.status, 200, 'log in again');
  const left = sql(`SELECT count(*) FROM sessions WHERE account_id = (SELECT id FROM accounts WHERE name = '${a.name}')`).trim();
  assertEq(left, '1', 'only the new session is kept');
  expectError(await me(other), 401, 'not_signed_in');
  assertEq((await me(cookieOf(fresh))).status, 200, 'the new one works');
});

t.test('a password change ends the other sessions (replay refused) and keeps this one', async () => {
  const a = await signup(uniq('Fay'));
  const other = cookieOf(await login(a.name, a.password));
  expectError(await api(server, 'POST', '/api/me/password', { old: 'not it at all', new: 'brand new one' },
    withCookie(a.cookie)), 403, 'wrong_password');
  expectError(await api(server, 'POST', '/api/me/password', { old: a.password, new: 'short' },
    withCookie(a.cookie)), 400, 'bad_password');
  assertEq((await me(other)).status, 200, 'refusals changed nothing');
  const ch = await api(server, 'POST', '/api/me/password', { old: a.password, new: 'brand new one' },
    withCookie(a.cookie));
  assertEq(ch.status, 200, `change (${ch.text})`);
  expectError(await me(other), 401, 'not_signed_in');
  assertEq((await me(a.cookie)).status, 200, 'this session goes on');
  assertEq((await login(a.name, a.password)).status, 401, 'the old password');
  assertEq((await login(a.name, 'brand new one')).status, 200, 'the new password');
  expectError(await api(server, 'POST', '/api/me/password', { old: 'x', new: 'yyyyyyyyyy' }), 401, 'not_signed_in');
});

t.test('language: PUT /api/me/lang is remembered; bad codes refused', async () => {
  const a = await signup(uniq('Gil'));
  assertEq((await api(server, 'PUT', '/api/me/lang', { lang: 'es' }, withCookie(a.cookie))).status, 200, 'set es');
  assertEq((await me(a.cookie)).json.lang, 'es', 'remembered');
  expectError(await api(server, 'PUT', '/api/me/lang', { lang: '../x' }, withCookie(a.cookie)), 400, 'bad_lang');
  assertEq((await me(a.cookie)).json.lang, 'es', 'unchanged');
});

t.test('CSRF: a session cookie with a foreign Origin is refused (403); own Origin or no cookie goes on', async () => {
  const a = await signup(uniq('Hal'));
  const body = { game: 'clans', seats: [{ kind: 'human' }, { kind: 'ai' }] };
  const own = `http://127.0.0.1:${server.port}`;
  expectError(await api(server, 'POST', '/api/games', body, withCookie(a.cookie, { Origin: 'https://evil.example' })), 403, 'foreign_origin');
  expectError(await api(server, 'POST', '/api/games', body, withCookie(a.cookie, { Origin: 'null' })), 403, 'foreign_origin');
  expectError(await api(server, 'DELETE', '/api/session', undefined, withCookie(a.cookie, { Origin: `http://127.0.0.1:${server.port + 1}` })), 403, 'foreign_origin');
  assertEq((await me(a.cookie)).status, 200, 'the refused log-out changed nothing');
  assertEq((await api(server, 'POST', '/api/games', body, withCookie(a.cookie, { Origin: own }))).status, 201, 'own origin');
  assertEq((await api(server, 'POST', '/api/games', body, { headers: { Origin: 'https://evil.example' } })).status, 201, 'no cookie');
  assertEq((await api(server, 'POST', '/api/games', body, withCookie(a.cookie))).status, 201, 'no Origin (not a browser)');
  // a WebSocket upgrade is state-changing too
  const g = (await api(server, 'POST', '/api/games', body)).json;
  let refused = null;
  try {
    const ws = await WsClient.connect(server.port, `?game=${g.id}`, { headers: { Cookie: a.cookie, Origin: 'https://evil.example' } });
    ws.destroy();
  } catch (e) { refused = e; }
  assert(refused && /403/.test(refused.message), `upgrade refused: ${refused && refused.message}`);
});

t.test('account seats: played over the WebSocket with the cookie, not with another account\'s', async () => {
  const a = await signup(uniq('Ida')), b = await signup(uniq('Jon')), c = await signup(uniq('Kit'));
  const res = await api(server, 'POST', '/api/games', {
    game: 'clans', seats: [{ kind: 'human', account: a.name.toLowerCase() }, { kind: 'human', account: b.name }],
  });
  assertEq(res.status, 201, `create (${res.text.slice(0, 200)})`);
  assertEq(res.json.seats.map((s) => [s.name, s.account]), [[a.name, true], [b.name, true]], 'seats named by their accounts');
  const id = res.json.id;
  const wa = await WsClient.connect(server.port, `?game=${id}`, { headers: { Cookie: a.cookie } });
  const wb = await WsClient.connect(server.port, `?game=${id}`, { headers: { Cookie: b.cookie } });
  const wc = await WsClient.connect(server.port, `?game=${id}`, { headers: { Cookie: c.cookie } });
  assertEq((await wa.next((m) => m.type === 'welcome')).seat, 0, 'Ida plays seat 1 by her cookie');
  assertEq((await wb.next((m) => m.type === 'welcome')).seat, 1, 'Jon plays seat 2 by his cookie');
  const wcw = await wc.next((m) => m.type === 'welcome');
  assertEq([wcw.seat, wcw.role], [null, 'spectator'], 'another account only watches');
  const sa = await wa.next((m) => m.type === 'state');
  const mover = sa.your_turn ? wa : wb;
  const st = sa.your_turn ? sa : await wb.next((m) => m.type === 'state' && m.your_turn);
  const refused = await wc.request({ type: 'decide', move: st.legal[0], id: 7 });
  assertEq(refused.type, 'error', `a spectator's decision is refused (${JSON.stringify(refused).slice(0, 160)})`);
  assertEq((await mover.request({ type: 'decide', move: st.legal[0], id: 8 })).type, 'ack', 'the account seat decides');
  // GET /api/me: the game, whose turn it is, your turn first
  const second = await api(server, 'POST', '/api/games', {
    game: 'clans', seats: [{ kind: 'human', account: b.name }, { kind: 'human', account: a.name }],
  });
  const wa2 = await WsClient.connect(server.port, `?game=${second.json.id}`, { headers: { Cookie: a.cookie } });
  const wb2 = await WsClient.connect(server.port, `?game=${second.json.id}`, { headers: { Cookie: b.cookie } });
  await wa2.next((m) => m.type === 'state');
  await wb2.next((m) => m.type === 'state');
  for (const who of [a, b]) {
    const list = (await me(who.cookie)).json.games;
    assertEq(list.length, 2, `${who.name} has two games`);
    for (const g of list) {
      const sum = (await api(server, 'GET', `/api/games/${g.id}`)).json;
      const mine = sum.seats.findIndex((s) => s.name === who.name);
      assertEq(g.your_turn, sum.to_move === mine, `your_turn of ${g.id} for ${who.name}`);
      assertEq(g.status, 'running', 'running');
      assertEq(g.opponents, sum.seats.filter((s) => s.name !== who.name).map((s) => s.name), 'opponents');
      assert(g.updated && g.game === 'clans' && g.id, 'fields');
    }
    const turns = list.map((g) => g.your_turn);
    assertEq(turns, [...turns].sort((x, y) => Number(y) - Number(x)), `${who.name}: your turn first`);
  }
  for (const w of [wa, wb, wc, wa2, wb2]) w.destroy();
  expectError(await api(server, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human', account: uniq('ghost') }, { kind: 'ai' }] }), 400, 'unknown_account');
  expectError(await api(server, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'ai', account: a.name }, { kind: 'ai' }] }), 400, 'bad_seats');
});

t.test('play again with account seats: the session shows who asks; seats stay the accounts\'', async () => {
  const a = await signup(uniq('Lia')), b = await signup(uniq('Max')), c = await signup(uniq('Ned'));
  const res = await api(server, 'POST', '/api/games', {
    game: 'clans', seats: [{ kind: 'human', account: a.name }, { kind: 'human', account: b.name }],
  });
  const id = res.json.id;
  const wa = await WsClient.connect(server.port, `?game=${id}`, { headers: { Cookie: a.cookie } });
  await wa.next((m) => m.type === 'state');
  wa.send({ type: 'resign', id: 'r' });
  await wa.next((m) => m.type === 'state' && m.result);
  const url = `/api/games/${id}/rematch`;
  expectError(await api(server, 'POST', url, {}), 403, 'not_a_player');
  expectError(await api(server, 'POST', url, {}, withCookie(c.cookie)), 403, 'bad_token');
  const made = await api(server, 'POST', url, {}, withCookie(a.cookie));
  assertEq(made.status, 201, `made by the account's session (${made.text.slice(0, 200)})`);
  assertEq([made.json.link, made.json.token], [`/game.html?game=${made.json.id}`, undefined], 'the game\'s own address, no key');
  const again = await api(server, 'POST', url, {}, withCookie(b.cookie));
  assertEq([again.status, again.json.id], [200, made.json.id], 'the other player gets the same game');
  const sum = (await api(server, 'GET', `/api/games/${made.json.id}`)).json;
  assertEq(sum.seats.map((x) => [x.name, x.account]), [[b.name, true], [a.name, true]], 'seats rotated, still the accounts\'');
  const wb = await WsClient.connect(server.port, `?game=${made.json.id}`, { headers: { Cookie: b.cookie } });
  assertEq((await wb.next((m) => m.type === 'welcome')).seat, 0, 'Max plays the new game\'s first seat by his session');
  for (const w of [wa, wb]) w.destroy();
});

t.test('the creator\'s own seat is their account\'s; rated needs every person\'s seat an account', async () => {
  const a = await signup(uniq('Lou')), b = await signup(uniq('May'));
  const mine = await api(server, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human' }, { kind: 'ai' }] }, withCookie(a.cookie));
  assertEq([mine.json.seats[0].name, mine.json.seats[0].account], [a.name, true], 'the creator sits at seat 1');
  const ws = await WsClient.connect(server.port, `?game=${mine.json.id}`, { headers: { Cookie: a.cookie } });
  assertEq((await ws.next((m) => m.type === 'welcome')).seat, 0, 'and plays it by cookie');
  ws.destroy();
  expectError(await api(server, 'POST', '/api/games', { game: 'clans', rated: true, seats: [{ kind: 'human', account: a.name }, { kind: 'human' }] }), 400, 'rated_needs_accounts');
  expectError(await api(server, 'POST', '/api/games', { game: 'clans', rated: 'yes', seats: [{ kind: 'human', account: a.name }, { kind: 'ai' }] }), 400, 'bad_request');
  const rated = await api(server, 'POST', '/api/games', { game: 'clans', rated: true, seats: [{ kind: 'human', account: a.name }, { kind: 'human', account: b.name }, { kind: 'ai', level: 'easy' }] });
  assertEq(rated.status, 201, `rated (${rated.text.slice(0, 200)})`);
  assertEq((await api(server, 'GET', `/api/games/${rated.json.id}`)).json.rated, true, 'the summary says rated');
  const listed = (await me(b.cookie)).json.games.find((g) => g.id === rated.json.id);
  assertEq(listed && listed.rated, true, 'GET /api/me says rated');
});

t.test('a guest who signs up (or logs in) keeps the seats of the links the browser holds', async () => {
  const g = (await api(server, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human', name: 'Guest' }, { kind: 'ai' }] })).json;
  const other = (await api(server, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human' }, { kind: 'ai' }] })).json;
  const claim = [{ game: g.id, token: g.seats[0].token }, { game: other.id, token: 'not-a-token' }, { game: 'nosuchgame1', token: 'x' }];
  const a = await signup(uniq('Ned'), 'correct horse', server, { claim });
  assertEq(a.res.json.claimed, 1, 'one seat claimed (the bad token and the unknown game change nothing)');
  const list = (await me(a.cookie)).json.games;
  assertEq(list.map((x) => x.id), [g.id], 'the game is in my games');
  assertEq((await api(server, 'GET', `/api/games/${g.id}`)).json.seats[0].name, a.name, 'the seat goes by the account\'s name');
  const ws = await WsClient.connect(server.port, `?game=${g.id}`, { headers: { Cookie: a.cookie } });
  assertEq((await ws.next((m) => m.type === 'welcome')).seat, 0, 'played by cookie from now on');
  ws.destroy();
  // another account cannot take it over with the same link
  const b = await signup(uniq('Oda'));
  const again = await api(server, 'POST', '/api/me/claim', { claim: [{ game: g.id, token: g.seats[0].token }] }, withCookie(b.cookie));
  assertEq(again.json.claimed, 0, 'a seat that is an account\'s stays so');
  const g2 = (await api(server, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human' }, { kind: 'ai' }] })).json;
  const byLogin = await api(server, 'POST', '/api/session', { name: b.name, password: b.password, claim: [{ game: g2.id, token: g2.seats[0].token }] });
  assertEq(byLogin.json.claimed, 1, 'claimed at log-in too');
  // a free seat taken from the lobby with a session is the account's at once
  const table = (await api(server, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human', name: 'Host' }, { kind: 'human', open: true }] })).json;
  const took = await api(server, 'POST', `/api/games/${table.id}/seats`, { seat: 1, name: 'Guest name' }, withCookie(b.cookie));
  assertEq([took.status, took.json.name], [201, b.name], `the seat taken goes by the account's name (${took.text.slice(0, 160)})`);
  assert((await me(b.cookie)).json.games.some((x) => x.id === table.id), 'and is in my games');
});

t.test('deleting an account: its password asked, its games keep "a former player", its sessions end', async () => {
  const a = await signup(uniq('Pia')), b = await signup(uniq('Quin'));
  const g = (await api(server, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human', account: a.name }, { kind: 'human', account: b.name }] })).json;
  expectError(await api(server, 'DELETE', '/api/me', { password: 'wrong wrong' }, withCookie(b.cookie)), 403, 'wrong_password');
  expectError(await api(server, 'DELETE', '/api/me', { password: b.password }), 401, 'not_signed_in');
  const del = await api(server, 'DELETE', '/api/me', { password: b.password }, withCookie(b.cookie));
  assertEq(del.status, 200, `delete (${del.text})`);
  expectError(await me(b.cookie), 401, 'not_signed_in');
  assertEq((await login(b.name, b.password)).status, 401, 'no such account any more');
  const sum = (await api(server, 'GET', `/api/games/${g.id}`)).json;
  assertEq(sum.seats.map((s) => s.name), [a.name, 'a former player'], 'a neutral name in the game');
  assertEq(sum.seats[1].account, false, 'no account behind it');
  const list = (await me(a.cookie)).json.games;
  assertEq(list[0].opponents, ['a former player'], 'and in the other player\'s list');
  await signup(b.name); // the name is free again
});

t.test('a name holding HTML comes back as the same characters', async () => {
  const name = `<script>x</script>&"'`;
  const a = await signup(name);
  const m = await me(a.cookie);
  assertEq(m.json.name, name, 'the same characters');
  assert(/application\/json/.test(m.headers.get('content-type')), 'served as JSON');
  const g = (await api(server, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human' }, { kind: 'ai' }] }, withCookie(a.cookie))).json;
  assertEq(g.seats[0].name, name, 'in a game too');
});

t.test('behind TLS: Secure cookies; only https origins are the server\'s own', async () => {
  const a = await signup(uniq('Ray'), 'correct horse', tls);
  assert(/; Secure/.test(a.res.headers.get('set-cookie')), 'Secure');
  const body = { game: 'clans', seats: [{ kind: 'human' }, { kind: 'ai' }] };
  const host = `127.0.0.1:${tls.port}`;
  expectError(await api(tls, 'POST', '/api/games', body, withCookie(a.cookie, { Origin: `http://${host}` })), 403, 'foreign_origin');
  assertEq((await api(tls, 'POST', '/api/games', body, withCookie(a.cookie, { Origin: `https://${host}` }))).status, 201, 'https origin');
});

t.test('rate limits: 10 failed log-ins a minute per name, then 429 with Retry-After', async () => {
  const a = await signup(uniq('Sam'), 'correct horse', tls);
  for (let i = 0; i < 10; i++) {
    const r = await login(a.name, 'wrong guess', tls, { 'X-Forwarded-For': `10.1.0.${i}` });
    assertEq(r.status, 401, `failure ${i + 1}`);
  }
  const r = await login(a.name, a.password, tls, { 'X-Forwarded-For': '10.1.0.99' });
  expectError(r, 429, 'too_many_attempts');
  const wait = Number(r.headers.get('retry-after'));
  assert(wait >= 1 && wait <= 61, `Retry-After ${wait}`);
  assertEq((await login(uniq('Other'), 'x', tls, { 'X-Forwarded-For': '10.1.0.98' })).status, 401, 'other names go on');
});

t.test('rate limits: 10 failed log-ins a minute per address, then 429', async () => {
  const a = await signup(uniq('Tia'), 'correct horse', tls);
  for (let i = 0; i < 10; i++)
    assertEq((await login(uniq('who'), 'wrong guess', tls, { 'X-Forwarded-For': '10.2.0.1' })).status, 401, `failure ${i + 1}`);
  expectError(await login(a.name, a.password, tls, { 'X-Forwarded-For': '10.2.0.1' }), 429, 'too_many_attempts');
  assertEq((await login(a.name, a.password, tls, { 'X-Forwarded-For': '10.2.0.2' })).status, 200, 'another address logs in');
});

t.test('a version-4 database keeps its games when migrated', async () => {
  const d = tempDir();
  const old = testDb(d, 'v4');
  const s1 = await startServer(tabula, { db: old });
  const g = (await api(s1, 'POST', '/api/games', { game: 'clans', seats: [{ kind: 'human', name: 'Old' }, { kind: 'ai' }] })).json;
  await s1.stop();
  // take the database back to schema 4: what migration 5 added goes
  const down = 'DROP TABLE turn_emails; DROP TABLE rating_history; DROP TABLE ratings; DROP TABLE chat;' +
    ' DROP INDEX seats_account; ALTER TABLE seats DROP COLUMN account_id; DROP TABLE sessions; DROP TABLE accounts;' +
    ' ALTER TABLE games DROP COLUMN rated; ALTER TABLE games DROP COLUMN rematch_of; ALTER TABLE games DROP COLUMN rematch;';
  if (pg) {
    const name = old.slice(old.lastIndexOf('/') + 1);
    psql(name, `${down} UPDATE tabula_schema SET version = 4`);
  } else {
    const r = spawnSync('sqlite3', [old, `${down} PRAGMA user_version = 4;`], { encoding: 'utf8' });
    assertEq(r.status, 0, `sqlite3: ${r.stderr}`);
  }
  const s2 = await startServer(tabula, { db: old });
  try {
    const sum = await api(s2, 'GET', `/api/games/${g.id}`);
    assertEq(sum.status, 200, 'the game is still there');
    assertEq(sum.json.seats[0].name, 'Old', 'with its seats');
    const a = await signup(uniq('Uma'), 'correct horse', s2, { claim: [{ game: g.id, token: g.seats[0].token }] });
    assertEq(a.res.json.claimed, 1, 'accounts work on the migrated database');
  } finally {
    await s2.stop();
  }
});

const failed = await t.run();
await server.stop();
await tls.stop();
process.exit(failed ? 1 : 0);
