// clans-geometry.js — the shapes of the stylised Clans map, computed from the
// board data (territory centres and the real adjacency, /api/catalog/clans/board).
//
// Not a plain Voronoi diagram (rules/clans.md §2.7): each territory starts as
// a disc around its site (so the coast and the lakes stay open water) and is
// cut by the bisector against every nearby territory.  Neighbours are cut on
// the bisector itself, so they share a border (a land border inside a region,
// a river between regions); territories that are NOT neighbours are cut back
// by a channel of water, so they never touch.  Sites start at the data's
// centres; neighbours that would not touch pull their sites towards each
// other a little (never more than MAX_SHIFT), and a pair that still does not
// touch gets a ford, drawn as a link.  Invariant, checked by
// tests/web/clans_map.test.mjs: two territories touch or are linked exactly
// when the rules make them neighbours.
//
// Pure functions, no DOM: the browser and node both import this file.

const DISC_RADIUS = 100;  // reach of a territory from its site
const DISC_SIDES = 72;
const CHANNEL = 14;       // width of the water between non-neighbours
const MIN_BORDER = 10;    // a shared border shorter than this does not count
const WIDTH = 1200, HEIGHT = 800, MARGIN = 8;
const MAX_SHIFT = 20;     // how far a site may move from the data's centre
const PULL = 0.03, ROUNDS = 60;

function clip(poly, nx, ny, c) {
  // Keeps the part of the convex polygon where nx*x + ny*y <= c.
  const out = [];
  for (let i = 0; i < poly.length; i++) {
    const p = poly[i], q = poly[(i + 1) % poly.length];
    const dp = nx * p[0] + ny * p[1] - c, dq = nx * q[0] + ny * q[1] - c;
    if (dp <= 0) out.push(p);
    if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) {
      const t = dp / (dp - dq);
      out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
    }
  }
  return out;
}

function disc(cx, cy, r) {
  const pts = [];
  for (let k = 0; k < DISC_SIDES; k++) {
    const a = (2 * Math.PI * k) / DISC_SIDES;
    pts.push([cx + r * Math.cos(a), cy + r * Math.sin(a)]);
  }
  return pts;
}

// The length of border that polygons a and b share on the line n·x = c.
function sharedOnLine(pa, pb, nx, ny, c) {
  const tx = -ny, ty = nx;
  const span = (poly) => {
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < poly.length; i++) {
      const p = poly[i], q = poly[(i + 1) % poly.length];
      if (Math.abs(nx * p[0] + ny * p[1] - c) < 0.01 && Math.abs(nx * q[0] + ny * q[1] - c) < 0.01) {
        for (const r of [p, q]) {
          const s = tx * r[0] + ty * r[1];
          lo = Math.min(lo, s); hi = Math.max(hi, s);
        }
      }
    }
    return [lo, hi];
  };
  const [a0, a1] = span(pa), [b0, b1] = span(pb);
  const lo = Math.max(a0, b0), hi = Math.min(a1, b1);
  if (!(hi > lo)) return null;
  return { length: hi - lo, from: [tx * lo + nx * c, ty * lo + ny * c], to: [tx * hi + nx * c, ty * hi + ny * c] };
}

export function area(poly) {
  let s = 0;
  for (let i = 0; i < poly.length; i++) {
    const p = poly[i], q = poly[(i + 1) % poly.length];
    s += p[0] * q[1] - q[0] * p[1];
  }
  return Math.abs(s) / 2;
}

export function centroid(poly) {
  let cx = 0, cy = 0, a = 0;
  for (let i = 0; i < poly.length; i++) {
    const p = poly[i], q = poly[(i + 1) % poly.length];
    const f = p[0] * q[1] - q[0] * p[1];
    cx += (p[0] + q[0]) * f; cy += (p[1] + q[1]) * f; a += f;
  }
  return a ? [cx / (3 * a), cy / (3 * a)] : poly[0];
}

// board: {territories:[{id, x, y, region, terrain, neighbours:[ids]}]}
// Returns {cells: Map id -> {id, poly, centre, region, terrain},
//          borders: [{a, b, from, to, river}], fords: [{a, b, from, to}],
//          width, height}.
export function buildClansMap(board) {
  const orig = board.territories;
  const site = new Map(orig.map((t) => [t.id, [t.x, t.y]]));
  let map = null;
  for (let round = 0; round < ROUNDS; round++) {
    map = buildCells(orig.map((t) => ({ ...t, x: site.get(t.id)[0], y: site.get(t.id)[1] })));
    if (!map.fords.length) break;
    for (const f of map.fords) {
      for (const [a, b] of [[f.a, f.b], [f.b, f.a]]) {
        const pa = site.get(a), pb = site.get(b), o = orig.find((t) => t.id === a);
        const nx = pa[0] + (pb[0] - pa[0]) * PULL, ny = pa[1] + (pb[1] - pa[1]) * PULL;
        if (Math.hypot(nx - o.x, ny - o.y) <= MAX_SHIFT) site.set(a, [nx, ny]);
      }
    }
  }
  for (const c of map.cells.values()) c.centre = centroid(c.poly);
  for (const f of map.fords) { f.from = map.cells.get(f.a).centre; f.to = map.cells.get(f.b).centre; }
  return map;
}

function buildCells(ts) {
  const byId = new Map(ts.map((t) => [t.id, t]));
  const isNb = (a, b) => byId.get(a).neighbours.includes(b);
  const cells = new Map();
  for (const t of ts) {
    let poly = disc(t.x, t.y, DISC_RADIUS);
    poly = clip(poly, -1, 0, -MARGIN);
    poly = clip(poly, 1, 0, WIDTH - MARGIN);
    poly = clip(poly, 0, -1, -MARGIN);
    poly = clip(poly, 0, 1, HEIGHT - MARGIN);
    for (const u of ts) {
      if (u.id === t.id) continue;
      const dx = u.x - t.x, dy = u.y - t.y, d = Math.hypot(dx, dy);
      if (d > 2 * DISC_RADIUS + CHANNEL) continue;
      const nx = dx / d, ny = dy / d;
      const mid = nx * (t.x + u.x) / 2 + ny * (t.y + u.y) / 2;
      poly = clip(poly, nx, ny, isNb(t.id, u.id) ? mid : mid - CHANNEL / 2);
    }
    cells.set(t.id, { id: t.id, poly, centre: [t.x, t.y], region: t.region, terrain: t.terrain });
  }
  const borders = [], fords = [];
  for (const t of ts) {
    for (const nb of t.neighbours) {
      if (nb <= t.id) continue;
      const u = byId.get(nb);
      const dx = u.x - t.x, dy = u.y - t.y, d = Math.hypot(dx, dy);
      const nx = dx / d, ny = dy / d;
      const mid = nx * (t.x + u.x) / 2 + ny * (t.y + u.y) / 2;
      const s = sharedOnLine(cells.get(t.id).poly, cells.get(nb).poly, nx, ny, mid);
      if (s && s.length >= MIN_BORDER) {
        borders.push({ a: t.id, b: nb, from: s.from, to: s.to, river: t.region !== u.region });
      } else {
        fords.push({ a: t.id, b: nb, from: [t.x, t.y], to: [u.x, u.y] });
      }
    }
  }
  return { cells, borders, fords, width: WIDTH, height: HEIGHT };
}

// Every pair of cells that share a border of at least MIN_BORDER, whatever
// the rules say (the test compares this with the adjacency).
export function touchingPairs(map) {
  const ids = [...map.cells.keys()];
  const pairs = [];
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) {
      const a = map.cells.get(ids[i]), b = map.cells.get(ids[j]);
      const dx = b.centre[0] - a.centre[0], dy = b.centre[1] - a.centre[1], d = Math.hypot(dx, dy);
      if (d > 2 * DISC_RADIUS + CHANNEL) continue;
      // Any edge of a lying on any edge of b (collinear, overlapping) is a shared border.
      let shared = 0;
      for (let p = 0; p < a.poly.length; p++) {
        const a0 = a.poly[p], a1 = a.poly[(p + 1) % a.poly.length];
        const ex = a1[0] - a0[0], ey = a1[1] - a0[1], el = Math.hypot(ex, ey);
        if (el < 1e-6) continue;
        const ux = ex / el, uy = ey / el;
        for (let q = 0; q < b.poly.length; q++) {
          const b0 = b.poly[q], b1 = b.poly[(q + 1) % b.poly.length];
          const off0 = (b0[0] - a0[0]) * uy - (b0[1] - a0[1]) * ux;
          const off1 = (b1[0] - a0[0]) * uy - (b1[1] - a0[1]) * ux;
          if (Math.abs(off0) > 0.05 || Math.abs(off1) > 0.05) continue;
          const s0 = (b0[0] - a0[0]) * ux + (b0[1] - a0[1]) * uy;
          const s1 = (b1[0] - a0[0]) * ux + (b1[1] - a0[1]) * uy;
          const lo = Math.max(0, Math.min(s0, s1)), hi = Math.min(el, Math.max(s0, s1));
          if (hi > lo) shared += hi - lo;
        }
      }
      if (shared >= MIN_BORDER) pairs.push([a.id, b.id]);
    }
  }
  return pairs;
}
