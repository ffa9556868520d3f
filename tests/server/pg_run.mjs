// pg_run.mjs TABULA TEST.mjs — runs a server test against PostgreSQL: starts
// a throwaway cluster (initdb + pg_ctl from /usr/lib/postgresql/*/bin) on a
// free port in a temporary directory, runs `node TEST.mjs TABULA` with
// TABULA_TEST_PG=postgresql://tabula@127.0.0.1:PORT/ (lib.mjs's testDb then
// makes a fresh database per server), and stops the cluster at the end.
// A test may stop and start the cluster itself (lib.mjs's pgCluster: the
// options are passed as TABULA_TEST_PG_OPTS); it is stopped at the end
// whichever way it was left.
//
// Invariants: a missing PostgreSQL is a failure, never a skip; the cluster is
// stopped and its directory removed whatever happens to the test — on
// failure, on SIGTERM/SIGINT (a meson timeout), and even when this process is
// killed outright (a watchdog shell stops it once this process is gone).
// PostgreSQL refuses to run as root, so as root the cluster runs as the
// `postgres` system user of the Debian package (runuser).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const [tabula, testFile] = process.argv.slice(2);
if (!tabula || !testFile) {
  console.error('usage: node pg_run.mjs TABULA TEST.mjs');
  process.exit(2);
}

function findBin() {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = path.join(root, v, 'bin');
    if (fs.existsSync(path.join(bin, 'initdb')) && fs.existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

const freePort = () => new Promise((resolve, reject) => {
  const srv = net.createServer();
  srv.on('error', reject);
  srv.listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => resolve(port)); });
});

const bin = findBin();
if (!bin) {
  console.log('FAIL PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): ' +
    'run scripts/bootstrap.sh (scripts/packages.txt lists postgresql)');
  process.exit(1);
}
const root = process.getuid && process.getuid() === 0;
const asUser = (cmd, args) => (root ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
function run(cmd, args, what) {
  const [c, a] = asUser(cmd, args);
  const r = spawnSync(c, a, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${what} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout || r.error}`);
  return r.stdout;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tabula-pg-'));
const data = path.join(dir, 'data');
fs.chmodSync(dir, 0o755);
if (root) spawnSync('chown', ['postgres:', dir]);
const pgCtl = path.join(bin, 'pg_ctl');
let started = false, watchdog = null;

function stopCluster() {
  if (started) { // stopping a cluster a test stopped already is harmless
    const [c, a] = asUser(pgCtl, ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '20']);
    spawnSync(c, a, { stdio: 'ignore' });
    started = false;
  }
  if (watchdog) { try { watchdog.kill('SIGKILL'); } catch { /* gone */ } watchdog = null; }
  fs.rmSync(dir, { recursive: true, force: true });
}
process.on('exit', stopCluster);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => { stopCluster(); process.exit(1); });

let code = 1;
const t0 = Date.now();
try {
  const port = await freePort();
  run(path.join(bin, 'initdb'), ['-D', data, '-U', 'tabula', '-A', 'trust', '-E', 'UTF8',
    '--no-locale', '--no-sync'], 'initdb');
  // fsync off: this cluster lives for one test and spares the shared disk;
  // a crash of the *server* (kill -9), which is what the tests do, loses
  // nothing either way.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off ` +
    '-c full_page_writes=off -c max_connections=40 -c shared_buffers=16MB';
  started = true;
  run(pgCtl, ['start', '-D', data, '-w', '-t', '30', '-l', path.join(dir, 'log'), '-o', opts], 'pg_ctl start');
  // Stops the cluster even if this process is killed with SIGKILL.
  const stopCmd = (root ? `runuser -u postgres -- ` : '') + `'${pgCtl}' stop -D '${data}' -m immediate -w >/dev/null 2>&1; rm -rf '${dir}'`;
  watchdog = spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${stopCmd}`],
    { detached: true, stdio: 'ignore' });
  watchdog.unref();
  console.log(`# PostgreSQL (${path.basename(path.dirname(bin))}) on 127.0.0.1:${port}, up in ${Date.now() - t0} ms`);
  const child = spawn(process.execPath, [testFile, tabula], {
    stdio: 'inherit',
    env: { ...process.env, TABULA_TEST_PG: `postgresql://tabula@127.0.0.1:${port}/`,
      TABULA_TEST_PG_BIN: bin, TABULA_TEST_PG_DATA: data, TABULA_TEST_PG_OPTS: opts,
      TABULA_TEST_PG_LOG: path.join(dir, 'log') },
  });
  code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
} catch (e) {
  console.log(`FAIL ${e.message}`);
  try { console.log(fs.readFileSync(path.join(dir, 'log'), 'utf8').slice(-2000)); } catch { /* no log */ }
  code = 1;
}
stopCluster();
process.exit(code);
