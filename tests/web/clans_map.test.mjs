// clans_map.test.mjs TABULA — the stylised Clans map of the browser UI
// (web/js/clans-geometry.js) against the rules' adjacency (rules/clans.md
// §2.7): two territories share a drawn border, or are joined by a drawn ford,
// exactly when the board data makes them neighbours; every shape is a real
// polygon holding the point where its huts are drawn; no two shapes overlap.
import path from 'node:path';
import fs from 'node:fs';
import { api, assert, assertEq, runner, startServer, tempDir } from '../server/lib.mjs';
import { area, buildClansMap, touchingPairs } from '../../web/js/clans-geometry.js';

const tabula = path.resolve(process.argv[2] || 'build/tabula');
const dir = tempDir('tabula-web-');
const server = await startServer(tabula, { db: path.join(dir, 'w.db') });
const board = (await api(server, 'GET', '/api/catalog/clans/board')).json;
await server.stop();
fs.rmSync(dir, { recursive: true, force: true });

const t = runner('Clans map geometry');
const map = buildClansMap(board);
const key = (a, b) => `${Math.min(a, b)}-${Math.max(a, b)}`;
const rules = new Set();
for (const tr of board.territories) for (const n of tr.neighbours) rules.add(key(tr.id, n));

t.test('the board data is the real board: 60 territories, 135 adjacencies', () => {
  assertEq(board.territories.length, 60, 'territories');
  assertEq(rules.size, 135, 'adjacencies');
});

t.test('drawn borders and fords are exactly the rules\' adjacency', () => {
  const drawn = new Set([...touchingPairs(map).map(([a, b]) => key(a, b)), ...map.fords.map((f) => key(f.a, f.b))]);
  const missing = [...rules].filter((k) => !drawn.has(k));
  const extra = [...drawn].filter((k) => !rules.has(k));
  assertEq(missing, [], 'neighbours drawn apart');
  assertEq(extra, [], 'non-neighbours drawn touching');
  assert(map.fords.length <= 5, `few fords (${map.fords.length}); most neighbours share a border`);
  assertEq(map.borders.length + map.fords.length, 135, 'every adjacency drawn once');
});

t.test('rivers run exactly between regions', () => {
  const region = new Map(board.territories.map((x) => [x.id, x.region]));
  for (const b of map.borders) assertEq(b.river, region.get(b.a) !== region.get(b.b), `border ${b.a}-${b.b}`);
  assertEq(map.borders.filter((b) => !b.river).length + map.fords.filter((f) => region.get(f.a) === region.get(f.b)).length,
    90, 'land borders inside regions');
});

t.test('every territory is a real shape holding its huts\' spot; shapes do not overlap', () => {
  const inside = (poly, [x, y]) => {
    let c = false;
    for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      const [xi, yi] = poly[i], [xj, yj] = poly[j];
      if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
    }
    return c;
  };
  for (const c of map.cells.values()) {
    assert(area(c.poly) > 3000, `territory ${c.id} has a real area (${area(c.poly).toFixed(0)})`);
    assert(inside(c.poly, c.centre), `territory ${c.id} holds its centre`);
    const orig = board.territories.find((x) => x.id === c.id);
    assert(inside(c.poly, [orig.x, orig.y]), `territory ${c.id} holds the data's centre`);
    for (const d of map.cells.values()) {
      if (d.id !== c.id) assert(!inside(d.poly, c.centre), `centre of ${c.id} is not inside ${d.id}`);
    }
  }
});

const failed = await t.run();
process.exit(failed ? 1 : 0);
