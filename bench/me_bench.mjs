// me_bench.mjs — GET /api/me for a player with many games (issue 28: 1,000
// games, p99 under 20 ms), not a timed test.  Starts `tabula serve` on a
// fresh database, signs up one account, creates N games with its seat
// (every fourth finished by a resignation, every other one with a few
// decisions), then asks GET /api/me R times, one after another, and prints
// the latency's percentiles.  Results: bench/RESULTS.md ("GET /api/me").
//
//   node bench/me_bench.mjs [--tabula build/tabula] [--games 1000] [--requests 300]
//                           [--db postgresql://…]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, startServer, tempDir, WsClient } from '../tests/server/lib.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) =>
  (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const tabula = path.resolve(args.tabula || 'build/tabula');
const GAMES = Number(args.games || 1000), REQUESTS = Number(args.requests || 300);
const dir = tempDir('tabula-me-');
const server = await startServer(tabula, { db: args.db || path.join(dir, 'me.db'), aiDelay: 60000 });

const signup = await api(server, 'POST', '/api/accounts', { name: 'Bench', password: 'a bench password' });
if (signup.status !== 201) throw new Error(`sign up: ${signup.text}`);
const cookie = signup.headers.get('set-cookie').split(';')[0];
const headers = { Cookie: cookie };

const t0 = Date.now();
for (let i = 0; i < GAMES; i++) {
  const r = await api(server, 'POST', '/api/games', {
    game: 'clans', seats: [{ kind: 'human', account: 'Bench' }, { kind: 'human', name: `Friend ${i}` }],
  });
  if (r.status !== 201) throw new Error(`create: ${r.text}`);
  if (i % 2 === 0 || i % 4 === 1) {
    // both seats sit down; some games get decisions, some end by resignation
    const socks = await Promise.all(r.json.seats.map((s) => WsClient.connect(server.port, `?game=${r.json.id}&token=${s.token}`)));
    const states = await Promise.all(socks.map((w) => w.next((m) => m.type === 'state')));
    if (i % 2 === 0) {
      for (let k = 0; k < 3; k++) {
        const who = states.findIndex((s) => s.your_turn);
        if (who < 0) break;
        const ack = await socks[who].request({ type: 'decide', move: states[who].legal[0], id: k + 1 });
        if (ack.type !== 'ack') break;
        const next = await Promise.all(socks.map((w) => w.next((m) => m.type === 'state' && m.n === k + 1)));
        states.splice(0, states.length, ...next);
      }
    } else {
      const from = socks[1].messages.length;
      socks[1].send({ type: 'resign', id: 1 });
      await socks[1].next((m) => m.type === 'notice' || m.type === 'error', { from, what: 'the resignation' });
    }
    for (const w of socks) w.destroy();
  }
}
const made = (Date.now() - t0) / 1000;

// the server's own CPU time (user + system, clock ticks of 10 ms): on a shared machine the
// latency also counts the time the server waited for a CPU, this does not
const cpuTicks = () => { const f = fs.readFileSync(`/proc/${server.proc.pid}/stat`, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); };
const lat = [];
let size = 0;
const cpu0 = cpuTicks();
for (let i = 0; i < REQUESTS; i++) {
  const s = process.hrtime.bigint();
  const r = await api(server, 'GET', '/api/me', undefined, { headers });
  lat.push(Number(process.hrtime.bigint() - s) / 1e6);
  if (r.status !== 200 || r.json.games.length !== GAMES) throw new Error(`GET /api/me: ${r.status} ${r.json && r.json.games.length}`);
  size = r.text.length;
}
const cpuMs = ((cpuTicks() - cpu0) * 10) / REQUESTS;
lat.sort((a, b) => a - b);
const pct = (p) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))].toFixed(2);
console.log(`GET /api/me, ${GAMES} games (${size} bytes), ${REQUESTS} requests one after another` +
  ` (${args.db ? 'PostgreSQL' : 'SQLite'}; games made in ${made.toFixed(0)} s):`);
console.log(`  p50 ${pct(50)} ms  p90 ${pct(90)} ms  p99 ${pct(99)} ms  max ${lat[lat.length - 1].toFixed(2)} ms`);
console.log(`  the server's CPU time per request: ${cpuMs.toFixed(1)} ms`);
console.log(`  machine: ${os.cpus()[0].model}, ${os.cpus().length} CPUs, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
await server.stop();
