// lib.mjs — helpers for the server tests and the load test: start and stop
// `tabula serve`, call the HTTP API, and a small WebSocket client written on
// raw TCP so that tests see exactly the bytes the server put on the wire.
//
// Invariants: every server started here listens on 127.0.0.1 with a port the
// kernel picked (--port 0), so parallel runs never collide; every client
// keeps all raw bytes it received (`raw`) next to the parsed messages.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export function tempDir(prefix = 'tabula-test-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the database under test ----
// Under pg_run.mjs (TABULA_TEST_PG set) the servers use PostgreSQL, one fresh
// database per testDb call; otherwise an SQLite file in the test's directory.
export const pg = process.env.TABULA_TEST_PG || null;

// Runs SQL with psql on the test cluster; returns its output (unaligned).
export function psql(database, sql) {
  const url = new URL(pg);
  const r = spawnSync(path.join(process.env.TABULA_TEST_PG_BIN, 'psql'),
    ['-h', url.hostname, '-p', url.port, '-U', 'tabula', '-d', database, '-qAtX', '-v', 'ON_ERROR_STOP=1', '-c', sql],
    { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql: ${r.stderr || r.error}`);
  return r.stdout;
}

// Stops or starts the test cluster under a running test (pg_run.mjs's):
// 'stop' (fast: sessions are cut) or 'start' (waits until it accepts).
export function pgCluster(action) {
  const bin = process.env.TABULA_TEST_PG_BIN, data = process.env.TABULA_TEST_PG_DATA;
  const args = action === 'stop' ? ['stop', '-D', data, '-m', 'fast', '-w', '-t', '20']
    : ['start', '-D', data, '-w', '-t', '30', '-l', process.env.TABULA_TEST_PG_LOG,
      '-o', process.env.TABULA_TEST_PG_OPTS];
  const cmd = path.join(bin, 'pg_ctl');
  const root = process.getuid && process.getuid() === 0;
  const r = root ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8' })
    : spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pg_ctl ${action}: ${r.stderr || r.stdout || r.error}`);
}

export function testDb(dir, name) {
  if (!pg) return path.join(dir, `${name}.db`);
  const db = `${name}_${crypto.randomBytes(4).toString('hex')}`;
  psql('postgres', `CREATE DATABASE ${db}`);
  return pg + db;
}

// Every file in which the database keeps data (to check that no secret is
// ever stored): the SQLite file and its WAL, or the whole PostgreSQL cluster
// (its WAL holds every row written) after a checkpoint.
export function dbFiles(db) {
  if (!pg) {
    const dir = path.dirname(db), base = path.basename(db);
    return fs.readdirSync(dir).filter((n) => n.startsWith(base)).map((n) => path.join(dir, n));
  }
  psql('postgres', 'CHECKPOINT');
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else if (e.isFile()) out.push(p);
    }
  };
  walk(process.env.TABULA_TEST_PG_DATA);
  return out;
}

// Starts `tabula serve`; resolves when it printed its URL.
export async function startServer(tabula, { db, aiDelay = 0, args = [], quiet = true } = {}) {
  const argv = ['serve', '--host', '127.0.0.1', '--port', '0', '--db', db,
    '--ai-delay-ms', String(aiDelay), ...(quiet ? ['--quiet'] : []), ...args];
  const proc = spawn(tabula, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Never leave a server behind, even when the test itself dies.
  const reap = () => { if (proc.exitCode === null && !proc.signalCode) proc.kill('SIGKILL'); };
  process.on('exit', reap);
  let out = '', err = '', stopping = false, port = null;
  proc.stderr.on('data', (d) => { err += d; });
  // 'close' comes after the process ended and its output was read.
  const exited = new Promise((resolve) => proc.on('close', (code, signal) => {
    process.off('exit', reap);
    if (!stopping && port) console.log(`# server exited unexpectedly (${code ?? signal}); its stderr:\n${err}`);
    resolve({ code, signal });
  }));
  port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 15000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    exited.then(({ code }) => { clearTimeout(timer); reject(new Error(`server exited ${code}: ${err}`)); });
  });
  return {
    port, proc, exited,
    base: `http://127.0.0.1:${port}`,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      stopping = true;
      if (proc.exitCode !== null || proc.signalCode) return exited;
      proc.kill('SIGTERM');
      return exited;
    },
    async kill9() {
      stopping = true;
      proc.kill('SIGKILL');
      return exited;
    },
  };
}

export async function api(server, method, pathname, body, { raw = false } = {}) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.body = typeof body === 'string' || body instanceof Buffer ? body : JSON.stringify(body);
    opts.headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(server.base + pathname, opts);
  const bytes = Buffer.from(await res.arrayBuffer());
  let text;
  try { text = strictUtf8.decode(bytes); } catch { throw new Error(`${method} ${pathname}: the answer is not valid UTF-8`); }
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, text, json: raw ? null : json };
}

// ---- WebSocket client on raw TCP ----

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export class WsClient {
  constructor() {
    this.raw = [];            // every byte received after the handshake
    this.messages = [];       // parsed JSON messages, in order
    this.texts = [];          // message texts as received
    this.waiters = [];
    this.closed = false;
    this.closeCode = null;
    this.buf = Buffer.alloc(0);
    this.fragments = null;
  }

  // With `onmessage`, messages go to that callback and nothing is kept (load tests).
  static async connect(port, query, { timeout = 10000, onmessage = null } = {}) {
    const c = new WsClient();
    c.onmessage = onmessage;
    await c._open(port, query, timeout);
    return c;
  }

  _open(port, query, timeout) {
    return new Promise((resolve, reject) => {
      const key = crypto.randomBytes(16).toString('base64');
      const expect = crypto.createHash('sha1').update(key + GUID).digest('base64');
      const sock = net.connect(port, '127.0.0.1');
      this.sock = sock;
      sock.setNoDelay(true);
      let head = Buffer.alloc(0), upgraded = false;
      const timer = setTimeout(() => { sock.destroy(); reject(new Error('handshake timeout')); }, timeout);
      sock.on('connect', () => {
        sock.write(`GET /ws${query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n` +
          `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      });
      sock.on('data', (d) => {
        if (upgraded) { this._data(d); return; }
        head = Buffer.concat([head, d]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        const lines = head.subarray(0, end).toString().split('\r\n');
        if (!/^HTTP\/1\.1 101/.test(lines[0])) {
          clearTimeout(timer);
          reject(new Error(`no upgrade: ${lines[0]}`));
          sock.destroy();
          return;
        }
        const accept = lines.find((l) => /^sec-websocket-accept:/i.test(l));
        if (!accept || accept.split(':')[1].trim() !== expect) {
          clearTimeout(timer);
          reject(new Error('bad Sec-WebSocket-Accept'));
          sock.destroy();
          return;
        }
        upgraded = true;
        clearTimeout(timer);
        resolve();
        const rest = head.subarray(end + 4);
        if (rest.length) this._data(rest);
      });
      sock.on('error', (e) => { if (!upgraded) { clearTimeout(timer); reject(e); } });
      sock.on('close', () => { this.closed = true; this._notify(); });
    });
  }

  _data(d) {
    if (!this.onmessage) this.raw.push(d);
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const b = this.buf;
      if (b.length < 2) return;
      const fin = (b[0] & 0x80) !== 0, op = b[0] & 0x0f;
      let len = b[1] & 0x7f, off = 2;
      if (b[1] & 0x80) throw new Error('server frames must not be masked');
      if (len === 126) { if (b.length < 4) return; len = b.readUInt16BE(2); off = 4; }
      else if (len === 127) { if (b.length < 10) return; len = Number(b.readBigUInt64BE(2)); off = 10; }
      if (b.length < off + len) return;
      const payload = b.subarray(off, off + len);
      this.buf = b.subarray(off + len);
      if (op === 8) {
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        this.closeReason = payload.subarray(2).toString();
        this._notify();
        continue;
      }
      if (op === 9) { this._send(10, payload); continue; }
      if (op === 10) continue;
      if (op === 0) this.fragments.push(payload); else this.fragments = [payload];
      if (!fin) continue;
      const bytes = Buffer.concat(this.fragments);
      this.fragments = null;
      // A text frame must be valid UTF-8 (RFC 6455): decoded strictly, so a
      // server that cut a character in two is caught, not papered over.
      let text = null, msg;
      try { text = strictUtf8.decode(bytes); } catch { msg = { type: '__not_utf8__', text: bytes.toString('hex') }; }
      if (text !== null) {
        try { msg = JSON.parse(text); } catch { msg = { type: '__not_json__', text }; }
      }
      if (this.onmessage) { this.onmessage(msg, this); continue; } // light mode: nothing kept
      this.texts.push(text);
      this.messages.push(msg);
      this._notify();
    }
  }

  _notify() {
    const keep = [];
    for (const w of this.waiters) if (!w.check()) keep.push(w);
    this.waiters = keep;
  }

  // Frames a payload (masked, as a client must) and writes it.
  _send(op, payload, { fin = true } = {}) {
    const data = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
    const mask = crypto.randomBytes(4);
    let header;
    if (data.length < 126) {
      header = Buffer.from([(fin ? 0x80 : 0) | op, 0x80 | data.length]);
    } else if (data.length < 65536) {
      header = Buffer.alloc(4);
      header[0] = (fin ? 0x80 : 0) | op; header[1] = 0x80 | 126; header.writeUInt16BE(data.length, 2);
    } else {
      header = Buffer.alloc(10);
      header[0] = (fin ? 0x80 : 0) | op; header[1] = 0x80 | 127; header.writeBigUInt64BE(BigInt(data.length), 2);
    }
    const masked = Buffer.alloc(data.length);
    for (let i = 0; i < data.length; i++) masked[i] = data[i] ^ mask[i & 3];
    this.sock.write(Buffer.concat([header, mask, masked]));
  }

  send(obj) { this._send(1, typeof obj === 'string' ? obj : JSON.stringify(obj)); }
  sendBinary(buf) { this._send(2, buf); }
  sendFragments(parts) {
    parts.forEach((p, i) => this._send(i === 0 ? 1 : 0, p, { fin: i === parts.length - 1 }));
  }

  // Resolves with the first message at index >= from matching pred.
  next(pred, { from = 0, timeout = 10000, what = 'a message' } = {}) {
    return new Promise((resolve, reject) => {
      let timer;
      const w = {
        check: () => {
          for (let i = from; i < this.messages.length; i++) {
            if (pred(this.messages[i], i)) { clearTimeout(timer); resolve(this.messages[i]); return true; }
          }
          if (this.closed) { clearTimeout(timer); reject(new Error(`connection closed while waiting for ${what}`)); return true; }
          return false;
        },
      };
      if (w.check()) return;
      timer = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeout);
      this.waiters.push(w);
    });
  }

  // Sends and waits for the reply whose id matches.
  async request(obj, timeout = 10000) {
    const from = this.messages.length;
    this.send(obj);
    return this.next((m) => m.id === obj.id && (m.type === 'ack' || m.type === 'error' || m.type === 'pong'),
      { from, timeout, what: `reply to ${JSON.stringify(obj).slice(0, 60)}` });
  }

  latestState() {
    for (let i = this.messages.length - 1; i >= 0; i--) if (this.messages[i].type === 'state') return this.messages[i];
    return null;
  }

  rawBytes() { return Buffer.concat(this.raw); }

  close() {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.sock.once('close', resolve);
      try { this._send(8, Buffer.from([0x03, 0xe8])); } catch { /* gone */ }
      setTimeout(() => this.sock.destroy(), 500);
    });
  }

  destroy() { this.sock.destroy(); }
}

// ---- a tiny test runner ----

export function runner(title) {
  const tests = [];
  return {
    test(name, fn) { tests.push({ name, fn }); },
    async run() {
      let passed = 0, failed = 0;
      console.log(`# ${title}`);
      for (const t of tests) {
        const t0 = Date.now();
        try {
          await t.fn();
          passed++;
          console.log(`ok   ${t.name} (${Date.now() - t0} ms)`);
        } catch (e) {
          failed++;
          console.log(`FAIL ${t.name}: ${e && e.stack ? e.stack : e}`);
        }
      }
      console.log(`${passed} passed, ${failed} failed`);
      return failed;
    },
  };
}

export function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

export function assertEq(actual, expected, msg) {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${msg}: expected ${e.slice(0, 400)}, got ${a.slice(0, 400)}`);
}

// Runs `tabula engine` over a list of commands; returns the replies.
export function engine(tabula, commands) {
  return new Promise((resolve, reject) => {
    const p = spawn(tabula, ['engine'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('exit', () => {
      const replies = out.split('\n\n').filter((r) => r.length).map((r) => r.replace(/^= ?/, ''));
      resolve(replies);
    });
    p.on('error', reject);
    p.stdin.end(commands.join('\n') + '\nquit\n');
  });
}

// A scripted player: whenever its seat is to move, it sends a legal decision
// (chosen by `choose`) and waits for the ack.  Resolves at the result.
export async function playSeat(client, { choose = (legal) => legal[Math.floor(Math.random() * legal.length)], onAck, timeout = 120000, think = 0 } = {}) {
  let seen = -1, id = 0;
  const deadline = Date.now() + timeout;
  for (;;) {
    const st = await client.next((m) => m.type === 'state' && (m.n > seen || m.result), {
      from: 0, timeout: Math.max(1000, deadline - Date.now()), what: 'a new state' });
    if (st.result) return st;
    seen = st.n;
    if (!st.your_turn) continue;
    if (think) await sleep(think * (0.5 + Math.random()));
    const move = choose(st.legal, st);
    const msg = { type: 'decide', move, id: ++id, n: st.n };
    const t0 = process.hrtime.bigint();
    const reply = await client.request(msg, Math.max(1000, deadline - Date.now()));
    const us = Number(process.hrtime.bigint() - t0) / 1000;
    if (reply.type !== 'ack') throw new Error(`decision ${move} refused: ${reply.code}: ${reply.message}`);
    if (onAck) onAck(reply, us);
  }
}

// The English text of an engine message {"msg", "plural"?, "args"?}
// (docs/translating.md): what the server's English field beside it (F next to
// F_msg) must say.  Throws on a message that is not one (an unknown
// placeholder, a stray brace), so a test cannot pass on a broken message.
export function sayEnglish(m) {
  if (!m || typeof m !== 'object' || typeof m.msg !== 'string') throw new Error(`not a message: ${JSON.stringify(m)}`);
  const args = m.args || {};
  const tmpl = m.plural !== undefined && args.n !== 1 ? m.plural : m.msg;
  return tmpl.replace(/\{\{|\}\}|\{([^{}]*)\}|[{}]/g, (all, name) => {
    if (all === '{{') return '{';
    if (all === '}}') return '}';
    if (name === undefined || !(name in args)) throw new Error(`bad placeholder ${all} in ${JSON.stringify(m)}`);
    const v = args[name];
    return typeof v === 'object' ? sayEnglish(v) : String(v);
  });
}
