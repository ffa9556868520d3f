// server_load.mjs — load test of `tabula serve` (not a timed test): many
// concurrent games on loopback, each played by two scripted WebSocket clients
// that answer every position with a random legal decision at once, plus
// optional computer-only games running beside them.  Reports decisions per
// second and the latency from a decision sent to its acknowledgement (which
// the server gives only after the decision is stored in SQLite), and fails
// on any error.  Results: bench/RESULTS.md.
//
//   node bench/server_load.mjs [--tabula build/tabula] [--games 200] [--ai-games 0]
//                              [--players 2] [--sync normal|full] [--db postgresql://…]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, startServer, tempDir, WsClient } from '../tests/server/lib.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) =>
  (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const tabula = path.resolve(args.tabula || 'build/tabula');
const GAMES = Number(args.games || 200), AI_GAMES = Number(args['ai-games'] || 0);
const PLAYERS = Number(args.players || 2);
const dir = tempDir('tabula-load-');
const server = await startServer(tabula, { db: args.db || path.join(dir, 'load.db'), aiDelay: 0,
  args: args.sync ? ['--sync', args.sync] : [] });

let errors = 0, decisions = 0, done = 0;
const lat = [];
const problems = [];
const fail = (what) => { errors++; if (problems.length < 10) problems.push(what); };

async function scriptedGame() {
  const r = await api(server, 'POST', '/api/games', { game: 'clans', players: PLAYERS,
    seats: Array.from({ length: PLAYERS }, () => ({ kind: 'human' })) });
  if (r.status !== 201) { fail(`create: ${r.text}`); return; }
  let finished = 0;
  await new Promise((resolve) => {
    r.json.seats.forEach(async (s) => {
      const sent = new Map();
      let last = -1, id = 0, over = false;
      const onmessage = (m, c) => {
        if (m.type === 'error') fail(`${m.code}: ${m.message}`);
        if (m.type === 'ack') {
          const t0 = sent.get(m.id);
          if (t0 !== undefined) { lat.push(Number(process.hrtime.bigint() - t0) / 1000); sent.delete(m.id); decisions++; }
        }
        if (m.type !== 'state' || over) return;
        if (m.result) {
          over = true;
          c.close();
          if (++finished === PLAYERS) resolve();
          return;
        }
        if (m.your_turn && m.n > last) {
          last = m.n;
          const move = m.legal[Math.floor(Math.random() * m.legal.length)];
          sent.set(++id, process.hrtime.bigint());
          c.send({ type: 'decide', move, id, n: m.n });
        }
      };
      try {
        await WsClient.connect(server.port, `?game=${r.json.id}&token=${s.token}`, { onmessage, timeout: 30000 });
      } catch (e) {
        fail(`connect: ${e.message}`);
        if (++finished === PLAYERS) resolve();
      }
    });
  });
  done++;
}

async function aiGame() {
  const r = await api(server, 'POST', '/api/games', { game: 'clans', players: 4,
    seats: Array.from({ length: 4 }, () => ({ kind: 'ai', level: 'random' })) });
  if (r.status !== 201) { fail(`create: ${r.text}`); return null; }
  return r.json.id;
}

const t0 = Date.now();
const aiIds = (await Promise.all(Array.from({ length: AI_GAMES }, aiGame))).filter(Boolean);
await Promise.all(Array.from({ length: GAMES }, scriptedGame));
const wall = (Date.now() - t0) / 1000;
// computer-only games must all have finished too
let aiOver = 0, aiDecisions = 0;
const pending = new Set(aiIds);
for (let i = 0; i < 6000 && pending.size; i++) {
  for (const id of [...pending]) {
    const g = (await api(server, 'GET', `/api/games/${id}`)).json;
    if (g.status === 'over') { aiOver++; aiDecisions += g.decisions; pending.delete(id); }
  }
  if (pending.size) await new Promise((r) => setTimeout(r, 20));
}
const aiWall = (Date.now() - t0) / 1000;
// CPU time the server used (user + system), from /proc.
const ticks = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); };
const serverCpu = ticks(server.proc.pid) / 100;
const clientCpu = (process.cpuUsage().user + process.cpuUsage().system) / 1e6;
const stop = await server.stop();
if (stop.code !== 0) fail(`server exit ${stop.code}`);
lat.sort((a, b) => a - b);
const q = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] / 1000 : NaN);
const dbBytes = fs.readdirSync(dir).reduce((s, f) => s + fs.statSync(path.join(dir, f)).size, 0);
fs.rmSync(dir, { recursive: true, force: true });
const summary = {
  games: GAMES, finished: done, ai_games: AI_GAMES, ai_finished: aiOver, players: PLAYERS,
  decisions, seconds: Number(wall.toFixed(2)), decisions_per_second: Math.round(decisions / wall),
  ack_ms: { p50: Number(q(0.5).toFixed(2)), p90: Number(q(0.9).toFixed(2)), p99: Number(q(0.99).toFixed(2)), max: Number(q(1).toFixed(2)) },
  ai_decisions: aiDecisions, ai_seconds: Number(aiWall.toFixed(2)),
  ai_decisions_per_second: aiWall > 0 ? Math.round(aiDecisions / aiWall) : 0,
  errors, sync: args.sync || 'normal', cpus: os.cpus().length, db_bytes: dbBytes,
  server_cpu_s: Number(serverCpu.toFixed(2)), client_cpu_s: Number(clientCpu.toFixed(2)),
  server_cpu_us_per_decision: Math.round((serverCpu * 1e6) / Math.max(1, decisions)),
  load_average: os.loadavg().map((x) => Number(x.toFixed(2))),
};
console.log(`${GAMES} scripted games (${PLAYERS} seats each) + ${AI_GAMES} computer-only games, concurrently`);
console.log(`finished: ${done}/${GAMES} scripted, ${aiOver}/${AI_GAMES} computer-only; errors: ${errors}`);
console.log(`${decisions} acknowledged decisions in ${wall.toFixed(2)} s: ${summary.decisions_per_second} decisions/s`);
if (AI_GAMES) console.log(`computer-only: ${aiDecisions} decisions, all games over after ${aiWall.toFixed(2)} s (${summary.ai_decisions_per_second} decisions/s, stored, no watchers)`);
console.log(`decision sent -> ack: p50 ${summary.ack_ms.p50} ms, p90 ${summary.ack_ms.p90} ms, p99 ${summary.ack_ms.p99} ms, max ${summary.ack_ms.max} ms`);
console.log(`CPU: server ${summary.server_cpu_s} s (${summary.server_cpu_us_per_decision} us per decision), clients ${summary.client_cpu_s} s; load average ${summary.load_average.join(' ')}`);
for (const p of problems) console.log(`  error: ${p}`);
console.log(JSON.stringify(summary));
process.exit(errors || done !== GAMES || aiOver !== AI_GAMES ? 1 : 0);
