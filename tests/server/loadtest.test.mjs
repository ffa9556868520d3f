// loadtest.test.mjs TABULA — two servers on one PostgreSQL database under
// load, one killed at a time (issue 32, "two servers on PostgreSQL, one
// dies"), through `tabula loadtest --servers 2 --chaos-kills K`: 40 games
// created on both servers in turn, their seats connected to either server
// and following `elsewhere`; each kill (SIGKILL) makes the other server
// take the victim's games over.  Checks: the kills happened, no
// acknowledged decision is lost (every game read back from the database),
// no error of any kind, seats did follow `elsewhere`, every game taken down
// was played again within 5 s, and no server process is left behind.  Then
// the database is restarted under the same load (no kill): nothing
// acknowledged is lost, the only errors are the decisions written while it
// was away (`store_failed`, docs/server.md: the seat decides again), and play
// goes on at its pace.
//
// Runs under pg_run.mjs (TABULA_TEST_PG set); without PostgreSQL it fails.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pg, testDb } from './lib.mjs';

const tabula = path.resolve(process.argv[2]);
assert.ok(pg, 'TABULA_TEST_PG is not set: run this test through pg_run.mjs');
// Restarts the test cluster (pg_ctl restart -m fast), as multi.test.mjs does.
function restartDatabase() {
  const data = process.env.TABULA_TEST_PG_DATA;
  const pgCtl = path.join(process.env.TABULA_TEST_PG_BIN, 'pg_ctl');
  const args = ['restart', '-D', data, '-m', 'fast', '-w', '-t', '30', '-l', path.join(path.dirname(data), 'log')];
  const [cmd, argv] = process.getuid() === 0 ? ['runuser', ['-u', 'postgres', '--', pgCtl, ...args]] : [pgCtl, args];
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, argv, { stdio: 'ignore' });
    p.on('exit', (c) => (c === 0 ? resolve() : reject(new Error(`pg_ctl restart: ${c}`))));
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tabula-ltpg-'));
let failed = 0;
const check = (name, fn) => {
  try { fn(); console.log(`ok   ${name}`); } catch (e) { failed++; console.log(`FAIL ${name}: ${e.message}`); }
};

try {
  const db = testDb(dir, 'loadtest');
  const r = spawnSync(tabula, ['loadtest', '--spawn', '--db', db, '--servers', '2', '--games', '40',
    '--rate', '2', '--seconds', '10', '--chaos-kills', '3', '--seed', '7', '--json', '--quiet'],
  { encoding: 'utf8', env: { ...process.env, TMPDIR: dir }, timeout: 120000 });
  if (r.status !== 0) console.log(r.stderr);
  check('the run exits 0', () => assert.equal(r.status, 0));
  const j = JSON.parse(r.stdout);
  console.log('# ' + ['kills', 'acked', 'lost', 'errors', 'elsewhere', 'reconnects', 'unacked_at_kill',
    'unplayable_games', 'unplayable_p50_ms', 'unplayable_max_ms', 'moves_per_s', 'error_codes']
    .map((k) => `${k} ${JSON.stringify(j[k])}`).join(', '));
  check('two servers, three kills', () => { assert.equal(j.servers, 2); assert.equal(j.kills, 3); });
  check('nothing acknowledged is lost', () => {
    assert.equal(j.lost, 0);
    assert.equal(j.verified, j.acked);
    assert.ok(j.acked > 300, `only ${j.acked} decisions acknowledged`);
  });
  check('no error of any kind', () => { assert.equal(j.errors, 0); assert.deepEqual(j.error_codes, {}); });
  check('seats followed `elsewhere`', () => assert.ok(j.elsewhere > 0));
  check('the victims\' games were played again within 5 s', () => {
    assert.ok(j.unplayable_games >= 10, `${j.unplayable_games} games taken down`);
    assert.ok(j.unplayable_max_ms < 5000, `the longest gap was ${j.unplayable_max_ms} ms`);
  });
  check('no server process is left', () => {
    const left = spawnSync('pgrep', ['-f', '--', 'serve .*' + db.replace(/.*\//, '')], { encoding: 'utf8' });
    assert.notEqual(left.status, 0, `still running: ${left.stdout}`);
  });
  check('no temporary directory is left', () =>
    assert.deepEqual(fs.readdirSync(dir).filter((n) => n.startsWith('tabula-loadtest')), []));

  // The database restarted under load (pg_ctl restart -m fast: every
  // connection of both servers drops, their advisory locks with them).
  const db2 = testDb(dir, 'loadtest_dbrestart');
  const lt = spawn(tabula, ['loadtest', '--spawn', '--db', db2, '--servers', '2', '--games', '40',
    '--rate', '2', '--seconds', '10', '--verify', '--seed', '8', '--json', '--quiet'],
  { env: { ...process.env, TMPDIR: dir } });
  let out = '', err = '';
  lt.stdout.on('data', (d) => { out += d; });
  lt.stderr.on('data', (d) => { err += d; });
  const done = new Promise((resolve) => lt.on('exit', (code) => resolve(code)));
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const t0 = Date.now();
  await restartDatabase();
  console.log(`# PostgreSQL restarted in ${Date.now() - t0} ms`);
  const code = await done;
  if (code !== 0) console.log(err);
  const k = JSON.parse(out);
  console.log('# ' + ['acked', 'lost', 'errors', 'error_codes', 'elsewhere', 'reconnects', 'moves_per_s']
    .map((f) => `${f} ${JSON.stringify(k[f])}`).join(', '));
  check('database restart: nothing acknowledged is lost', () => {
    assert.equal(k.lost, 0);
    assert.equal(k.verified, k.acked);
    assert.ok(k.acked > 300, `only ${k.acked} decisions acknowledged`);
  });
  check('database restart: only decisions written while it was away failed (store_failed), and play went on', () => {
    for (const c of Object.keys(k.error_codes)) assert.equal(c, 'store_failed');
    assert.ok(k.moves_per_s > 0.75 * 80, `${k.moves_per_s} decisions/s of 80`);
  });
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(failed ? `${failed} failed` : 'all passed');
process.exit(failed ? 1 : 0);
