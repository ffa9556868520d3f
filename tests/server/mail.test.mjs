// mail.test.mjs — turn e-mails for slow games (docs/server.md, "Turn e-mails")
// against a real local SMTP server: tests/server/smtp_sink.py (Debian's
// python3-aiosmtpd), started here on a free port, writes each message it
// receives to a folder this test reads.  An address is confirmed by the link
// its e-mail carries (once; a wrong link and a HEAD are refused); no turn
// e-mail before that; one e-mail after --turn-email-after (1 s here) for a
// turn nobody has open, with the game's link, the opponent, the title and a
// one-click unsubscribe (link and List-Unsubscribe headers); none while the
// game is open over a WebSocket; none twice for one turn, also after a
// restart; a new one for the next turn; the unsubscribe link stops them; the
// e-mails in Spanish match po/es.po (the server reads its compiled
// catalogue, as the command line does); a relay that is down does not slow
// play and is logged once; without --smtp nothing is sent and the API says
// so.  The SMTP server is stopped at the end, however the test ends.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  api, assert, assertEq, pg, runner, sleep, startServer, tempDir, testDb, WsClient,
} from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir('tabula-mail-');
const t = runner(`turn e-mails${pg ? ' (PostgreSQL)' : ''}`);

// ---- the SMTP server ----
function startSink(folder) {
  return new Promise((resolve, reject) => {
    const p = spawn('/usr/bin/python3', [path.join(here, 'smtp_sink.py'), folder],
      { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('the SMTP server did not start')), 15000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, port: Number(m[1]), folder }); }
    });
    p.on('exit', (code) => reject(new Error(`the SMTP server exited (${code})`)));
    p.on('error', reject);
  });
}
const mailsIn = (folder) => fs.readdirSync(folder).filter((n) => n.endsWith('.json')).sort()
  .map((n) => JSON.parse(fs.readFileSync(path.join(folder, n), 'utf8')));

const sink = await startSink(path.join(dir, 'mail'));
const stopSink = () => { try { sink.proc.stdin.end(); sink.proc.kill('SIGTERM'); } catch { /* gone */ } };
process.on('exit', stopSink);

// A port nobody listens on: the relay that is down.
const deadPort = await new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
});

const mainDb = testDb(dir, 'mail');
const mainArgs = ['--smtp', `smtp://127.0.0.1:${sink.port}`, '--mail-from', 'games@tabula.test', '--turn-email-after', '1'];
let server = await startServer(tabula, { db: mainDb, aiDelay: 0, args: mainArgs });
const downServer = await startServer(tabula, {
  db: testDb(dir, 'down'), aiDelay: 0, quiet: false, args: ['--smtp', `smtp://127.0.0.1:${deadPort}`, '--turn-email-after', '1'],
});
const plainServer = await startServer(tabula, { db: testDb(dir, 'plain'), aiDelay: 0 });

// ---- helpers ----
const cookieOf = (res) => (res.headers.get('set-cookie') || '').split(';')[0];
const as = (cookie) => ({ headers: { Cookie: cookie } });
let names = 0;
async function signup(srv, prefix = 'ann') {
  const name = `${prefix}${++names}`;
  const res = await api(srv, 'POST', '/api/accounts', { name, password: 'correct horse battery' });
  assertEq(res.status, 201, `sign up ${name}: ${res.text.slice(0, 200)}`);
  return { name, cookie: cookieOf(res) };
}
async function until(what, fn, timeout = 15000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
// The messages the SMTP server got for `to`, in order.
const mailsTo = (to) => mailsIn(sink.folder).filter((m) => m.to.includes(to));
const linkIn = (body, pathPart) => {
  const m = new RegExp(`(http://\\S+${pathPart}\\?token=[\\w-]+(?:&lang=\\w+)?)`).exec(body);
  assert(m, `a ${pathPart} link in: ${body}`);
  return m[1];
};
// Spanish of a msgid in po/es.po.
const poText = fs.readFileSync(path.join(here, '..', '..', 'po', 'es.po'), 'utf8');
const spanish = (id) => {
  const m = new RegExp(`msgid "${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\nmsgstr "((?:[^"\\\\]|\\\\.)*)"`).exec(poText);
  assert(m, `po/es.po has "${id}"`);
  return m[1];
};
// A game of Clans: the account's seat against the computer ("Robot").
async function gameFor(srv, who) {
  const res = await api(srv, 'POST', '/api/games', {
    game: 'clans', seats: [{ kind: 'human', account: who.name }, { kind: 'ai', level: 'easy', name: 'Robot' }],
  }, as(who.cookie));
  assertEq(res.status, 201, `game for ${who.name}: ${res.text.slice(0, 200)}`);
  return res.json.id;
}
const open = (srv, id, who) => WsClient.connect(srv.port, `?game=${id}`, { headers: { Cookie: who.cookie } });
// Plays one decision of the account's seat once it is its turn; resolves
// when it is the account's turn again (the computer answered).
async function playOne(ws) {
  const seen = ws.played ?? -1;
  const st = await ws.next((m) => m.type === 'state' && m.your_turn && m.n > seen, { from: 0, what: 'my turn' });
  ws.played = st.n;
  const ack = await ws.request({ type: 'decide', move: st.legal[0], id: st.n + 1, n: st.n });
  assertEq(ack.type, 'ack', `decision acknowledged (${JSON.stringify(ack).slice(0, 200)})`);
  return ws.next((m) => m.type === 'state' && m.n > st.n && (m.your_turn || m.result), { from: 0, what: 'my next turn' });
}

// Long enough for a turn e-mail to have gone out if one were due: the wait
// (--turn-email-after 1) plus the sweeper's round (a second) plus slack.
const PAST_DUE = 2300;

let ann, game, confirmMail, firstTurnMail;

// The relay that is down, checked beside the other tests (it waits for a
// second attempt): its result is awaited by its own test below.
const downCheck = (async () => {
  const cy = await signup(downServer, 'cy');
  const t0 = Date.now();
  const put = await api(downServer, 'PUT', '/api/me/email', { email: 'cy@example.org' }, as(cy.cookie));
  assertEq(put.status, 202, 'queued');
  assert(Date.now() - t0 < 1000, `answered at once (${Date.now() - t0} ms)`);
  const id = await gameFor(downServer, cy);
  const ws = await open(downServer, id, cy);
  for (let i = 0; i < 3; i++) {
    const t1 = Date.now();
    await playOne(ws);
    assert(Date.now() - t1 < 3000, `a decision and the computer's answer in ${Date.now() - t1} ms`);
  }
  ws.close();
  assertEq((await api(downServer, 'GET', '/api/health')).status, 200, 'healthy');
  assert(downServer.proc.exitCode === null, 'still running');
  await until('the log line', () => /mail: the relay .* refused or failed/.test(downServer.stderr()));
  await sleep(5500); // tried again meanwhile (after 5 s): still one line
  assertEq(downServer.stderr().match(/refused or failed/g).length, 1, `logged once: ${downServer.stderr()}`);
})();
downCheck.catch(() => {}); // reported by its test

t.test('an address: GET says none, PUT sends a confirmation e-mail with a link; a bad address is refused', async () => {
  ann = await signup(server);
  const none = await api(server, 'GET', '/api/me/email', undefined, as(ann.cookie));
  assertEq(none.status, 200, 'GET /api/me/email');
  assertEq(none.json, { email: '', confirmed: false, pending: false, turn_emails: true, sending: true }, 'no address yet');
  assertEq((await api(server, 'GET', '/api/me/email')).status, 401, 'without a session');
  for (const bad of ['no-at-sign', 'a@b', 'x@y.z\r\nBcc: evil@example.org', '<a@b.c>', 'a b@c.d']) {
    const r = await api(server, 'PUT', '/api/me/email', { email: bad }, as(ann.cookie));
    assertEq([r.status, r.json && r.json.error.code], [400, 'bad_email'], `refused: ${JSON.stringify(bad)}`);
  }
  assertEq((await api(server, 'GET', '/api/me/email', undefined, as(ann.cookie))).json.email, '', 'nothing changed');
  // a game that waits on Ann from now on, not open anywhere
  game = await gameFor(server, ann);
  const put = await api(server, 'PUT', '/api/me/email', { email: 'ann@example.org' }, as(ann.cookie));
  assertEq(put.status, 202, `PUT /api/me/email: ${put.text}`);
  assertEq([put.json.email, put.json.confirmed, put.json.pending], ['ann@example.org', false, true], 'pending');
  const again = await api(server, 'PUT', '/api/me/email', { email: 'ann.other@example.org' }, as(ann.cookie));
  assertEq([again.status, again.json.error.code], [429, 'too_soon'], 'a second confirmation at once is refused');
  assertEq((await api(server, 'GET', '/api/me/email', undefined, as(ann.cookie))).json.email, 'ann@example.org', 'and changes nothing');
  confirmMail = (await until('the confirmation e-mail', () => mailsTo('<ann@example.org>')[0] || mailsTo('ann@example.org')[0]));
  assertEq(confirmMail.from, 'games@tabula.test', 'envelope sender (--mail-from)');
  assertEq(confirmMail.headers.Subject, 'Confirm your e-mail address for Tabula', 'subject');
  assert(/^Tabula <games@tabula\.test>$/.test(confirmMail.headers.From), `From: ${confirmMail.headers.From}`);
  assert(confirmMail.body.includes(`Hello ${ann.name},`), 'greets the account');
  linkIn(confirmMail.body, '/email/confirm');
  assert(!confirmMail.headers['List-Unsubscribe'], 'no unsubscribe header on a confirmation');
});

t.test('no turn e-mail before the address is confirmed', async () => {
  await sleep(PAST_DUE); // the turn has waited well past --turn-email-after
  assertEq(mailsTo('ann@example.org').length, 1, 'only the confirmation e-mail');
});

t.test('the confirmation link works once; a wrong one is refused in words', async () => {
  const link = linkIn(confirmMail.body, '/email/confirm');
  const url = new URL(link);
  const head = await fetch(`${server.base}${url.pathname}${url.search}`, { method: 'HEAD' });
  assertEq(head.status, 405, 'a HEAD (a link checker) does not confirm');
  const res = await fetch(`${server.base}${url.pathname}${url.search}`);
  const page = await res.text();
  assertEq(res.status, 200, 'confirmed');
  assert(/text\/html/.test(res.headers.get('content-type')), 'a page');
  assertEq(res.headers.get('referrer-policy'), 'no-referrer', 'the token never leaves in a Referer');
  assert(/default-src 'none'/.test(res.headers.get('content-security-policy') || ''), 'a page that runs nothing');
  assert(page.includes('E-mail address confirmed') && page.includes('ann@example.org'), `the page says so: ${page}`);
  const again = await fetch(`${server.base}${url.pathname}${url.search}`);
  assertEq(again.status, 404, 'used once only');
  assert((await again.text()).includes('This link does not work'), 'said in words');
  const wrong = await fetch(`${server.base}/email/confirm?token=${'A'.repeat(43)}`);
  assertEq(wrong.status, 404, 'a guessed link');
  const state = await api(server, 'GET', '/api/me/email', undefined, as(ann.cookie));
  assertEq([state.json.confirmed, state.json.pending, state.json.turn_emails], [true, false, true], 'confirmed');
});

t.test('one turn e-mail after the wait: the link, the opponent, the title, a one-click unsubscribe', async () => {
  firstTurnMail = await until('the turn e-mail', () => mailsTo('ann@example.org')[1], 8000);
  const m = firstTurnMail;
  assertEq(m.headers.Subject, 'Your turn in Clans', 'subject');
  assert(m.body.includes(`${server.base}/game.html?game=${game}`), `the game's link: ${m.body}`);
  assert(m.body.includes('your game of Clans with Robot'), `the opponent and the title: ${m.body}`);
  const unsub = linkIn(m.body, '/email/unsubscribe');
  assertEq(m.headers['List-Unsubscribe'], `<${unsub}>`, 'List-Unsubscribe: the same link');
  assertEq(m.headers['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click', 'List-Unsubscribe-Post');
  assert(/text\/plain; charset="?utf-8"?/i.test(m.headers['Content-Type']), 'plain text');
  assert(Math.abs(Date.parse(m.headers.Date) - Date.now()) < 120000, `a Date header: ${m.headers.Date}`);
  assert(/^<[0-9a-f]{24}@tabula\.test>$/.test(m.headers['Message-ID']), `a Message-ID: ${m.headers['Message-ID']}`);
});

t.test('no second e-mail for the same turn, even after a restart (the turn_emails row)', async () => {
  await sleep(PAST_DUE);
  assertEq(mailsTo('ann@example.org').length, 2, 'still the confirmation and one turn e-mail');
  await server.stop();
  server = await startServer(tabula, { db: mainDb, aiDelay: 0, args: mainArgs });
  await sleep(PAST_DUE); // the restarted server finds the same turn waiting
  assertEq(mailsTo('ann@example.org').length, 2, 'not sent again by the restarted server');
});

t.test('none while the game is open; the next turn gets its own e-mail once it is closed', async () => {
  const ws = await open(server, game, ann);
  const st = await playOne(ws); // Ann moved, the computer answered: a new turn
  assert(st.your_turn, 'Ann is to move again');
  await sleep(PAST_DUE); // open all along: no e-mail
  assertEq(mailsTo('ann@example.org').length, 2, 'no e-mail while the game is open');
  ws.close();
  const next = await until('the next turn e-mail', () => mailsTo('ann@example.org')[2], 8000);
  assertEq(next.headers.Subject, 'Your turn in Clans', 'subject');
  await sleep(1500);
  assertEq(mailsTo('ann@example.org').length, 3, 'one for that turn');
});

t.test('the one-click unsubscribe (POST, as a mail program sends it) stops them; opening the link only asks', async () => {
  const unsub = new URL(firstTurnMail.headers['List-Unsubscribe'].slice(1, -1));
  // opening the link (a person, or a mail scanner that follows links) changes nothing: its page's
  // button posts the same address
  const asked = await fetch(`${server.base}${unsub.pathname}${unsub.search}`);
  const askedPage = await asked.text();
  assertEq(asked.status, 200, 'the link opens a page');
  assert(/<form method="post" action="\/email\/unsubscribe\?token=[A-Za-z0-9_-]+&amp;lang=en">/.test(askedPage) &&
    askedPage.includes('Stop turn e-mails</button>'), `a button that posts the link: ${askedPage}`);
  const still = await api(server, 'GET', '/api/me/email', undefined, as(ann.cookie));
  assertEq(still.json.turn_emails, true, 'opening the link stopped nothing');
  const res = await fetch(`${server.base}${unsub.pathname}${unsub.search}`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click',
  });
  assertEq(res.status, 200, 'unsubscribed');
  assert((await res.text()).includes('You will get no more e-mails when it is your turn.'), 'said in words');
  const state = await api(server, 'GET', '/api/me/email', undefined, as(ann.cookie));
  assertEq([state.json.confirmed, state.json.turn_emails], [true, false], 'turn e-mails off');
  const ws = await open(server, game, ann);
  await playOne(ws);
  ws.close();
  await sleep(PAST_DUE);
  assertEq(mailsTo('ann@example.org').length, 3, 'no e-mail after unsubscribing');
  const bad = await fetch(`${server.base}/email/unsubscribe?token=nope`, { method: 'POST' });
  assertEq(bad.status, 404, 'a wrong unsubscribe link');
  const head = await fetch(`${server.base}${unsub.pathname}${unsub.search}`, { method: 'HEAD' });
  assertEq(head.status, 405, 'a HEAD (a link checker) does nothing');
  // turned on again from the account page: the next turn is e-mailed
  const on = await api(server, 'PUT', '/api/me/email', { turn_emails: true }, as(ann.cookie));
  assertEq([on.status, on.json.turn_emails], [200, true], 'on again');
  await until('a turn e-mail again', () => mailsTo('ann@example.org')[3], 8000);
});

t.test('in Spanish for an account in Spanish, word for word as po/es.po', async () => {
  const bea = await signup(server, 'bea');
  assertEq((await api(server, 'PUT', '/api/me/lang', { lang: 'es' }, as(bea.cookie))).status, 200, 'Spanish');
  assertEq((await api(server, 'PUT', '/api/me/email', { email: 'bea@example.org' }, as(bea.cookie))).status, 202, 'address');
  const c = await until('the Spanish confirmation', () => mailsTo('bea@example.org')[0]);
  assertEq(c.headers.Subject, spanish('Confirm your e-mail address for Tabula'), 'subject in Spanish');
  assert(c.body.includes(spanish('Hello {name},').replace('{name}', bea.name)), `greeting in Spanish: ${c.body}`);
  const page = await (await fetch(linkIn(c.body, '/email/confirm').replace(/^http:\/\/[^/]+/, server.base))).text();
  assert(page.includes(spanish('E-mail address confirmed')) && page.includes('lang="es"'), `page in Spanish: ${page}`);
  await gameFor(server, bea);
  const turn = await until('the Spanish turn e-mail', () => mailsTo('bea@example.org')[1], 8000);
  assertEq(turn.headers.Subject, spanish('Your turn in {game}').replace('{game}', 'Clans'), 'subject');
  assert(turn.body.includes(spanish('It is your turn in your game of {game} with {opponents}.')
    .replace('{game}', 'Clans').replace('{opponents}', 'Robot')), `body in Spanish: ${turn.body}`);
  // a wrong link's page in the link's language
  const bad = await (await fetch(`${server.base}/email/unsubscribe?token=nope&lang=es`, { method: 'POST' })).text();
  assert(bad.includes(spanish('This link does not work')), 'the refusal in Spanish');
});

t.test('a relay that is down: asking for a confirmation and playing are as fast as ever', () => downCheck);

t.test('without --smtp: nothing is sent, and the API says so', async () => {
  const dee = await signup(plainServer, 'dee');
  const st = await api(plainServer, 'GET', '/api/me/email', undefined, as(dee.cookie));
  assertEq(st.json.sending, false, 'sending: false');
  const put = await api(plainServer, 'PUT', '/api/me/email', { email: 'dee@example.org' }, as(dee.cookie));
  assertEq([put.status, put.json.error.code], [409, 'no_mail'], 'refused');
  assertEq(mailsTo('dee@example.org').length, 0, 'nothing sent');
});

t.test('every server stops cleanly and at once, an e-mail still waiting for the relay that is down', async () => {
  for (const s of [server, downServer, plainServer]) {
    const t0 = Date.now();
    const { code } = await s.stop();
    assertEq(code, 0, `exit status (stderr: ${s.stderr().slice(-1500)})`);
    assert(Date.now() - t0 < 5000, `stopped in ${Date.now() - t0} ms`);
  }
  assert(/1 e-mail not sent \(the server stopped\)/.test(downServer.stderr()), `the log says what was not sent: ${downServer.stderr()}`);
});

const failed = await t.run();
for (const s of [server, downServer, plainServer]) await s.stop();
stopSink();
fs.rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
