// arkadia.js — the Arkadia renderer: the 16 × 12 grid in SVG (squares a1…p12
// labelled, tent camps, the castle lot with its 10 castle squares, stack
// heights and the seal visible on each, polyomino buildings in their seal's
// colour with their form, completed ones marked, workers by colour, neutral
// ones beige); beside it the family values, the castle pools, the face-up
// cards and the stack; under it a bar with the controls of the current
// decision; below, every player's screen (with a switch that hides the
// opponents' totals).  The hand is shown in the "you" card, to its owner only
// (other seats' hands never reach this page: the view has them as null).
//
// Deciding by clicking.  Every decision is taken from the server's legal list
// and nothing else is ever sent:
//   lot SQ          hover the middle of the board: the 4 × 3 outline follows the
//                   pointer over the legal places; click.
//   build CARD      click a card of your hand.
//   SQUARES         the placement preview follows the pointer over the legal
//                   places of the chosen orientation (R, right click or the ⟳
//                   button cycle the legal orientations); click.
//   workers SQ      click a highlighted building.
//   own/neutral SQ  click a highlighted square (own or neutral as chosen in the
//                   bar; Shift-click takes the other kind); "Stop" in the bar.
//   castle FAM N    choose a colour in the bar, click a highlighted castle square.
//   draw …          click a face-up card or the stack.
//   banner yes/no   buttons; sell FAM N: a slider and a button.
// A legal decision this renderer does not recognise still gets a button.
//
// The last move (js/lastmove.js): the buildings, workers, castle squares and
// lot it changed carry the class `last-move` and a glowing outline until the
// next decision; on arrival a tile drops in and workers fade in, once.  A
// decision staged for Confirm is drawn in the preview style (class
// `staged-preview`): the tile, lot, worker or castle piece where it would go.
import { clear, el, forScreen, svg, touchScreen } from '../common.js';
import { displayName, t, tn } from '../i18n.js';
import { lastMoveTracker } from '../lastmove.js';

export const FAMILY = {
  red: { fill: '#b83a30', dark: '#7c211b', soft: '#efc3bb', ink: '#fff' },
  olive: { fill: '#7f8f2e', dark: '#525d17', soft: '#dde4b6', ink: '#fff' },
  black: { fill: '#33302d', dark: '#141312', soft: '#c9c5bf', ink: '#fff' },
  silver: { fill: '#aab3bc', dark: '#6c7680', soft: '#e5e9ee', ink: '#1d2226' },
};
export const SEAT_COLOUR = {
  yellow: '#f1c22c', orange: '#e8772c', green: '#3c9b52', violet: '#8a58bd', neutral: '#eadfc4',
};
const SEAT_INK = { yellow: '#6b5200', orange: '#7a3306', green: '#174d24', violet: '#3e1d63', neutral: '#7d6a45' };
const FAMILIES = ['red', 'olive', 'black', 'silver'];
// Words are made when shown (the catalogue loads before the first paint);
// sentences that must agree with a building, a colour or a count are whole
// catalogue entries (a building with its article, seals and pieces by colour).
const formTitle = (f) => ({
  house: t('House'), farm: t('Farm'), tavern: t('Tavern'), mill: t('Mill'), smithy: t('Smithy'),
  'trade-centre': t('Trade centre'), monastery: t('Monastery'),
})[f] || f;
const formLower = (f) => formTitle(f).toLocaleLowerCase();
const aForm = (f) => ({
  house: t('a house'), farm: t('a farm'), tavern: t('a tavern'), mill: t('a mill'), smithy: t('a smithy'),
  'trade-centre': t('a trade centre'), monastery: t('a monastery'),
})[f] || f;
// a family's colour as a label ("Red") and inside a sentence ("red")
const famLabel = (f) => ({ red: t('Red'), olive: t('Olive'), black: t('Black'), silver: t('Silver') })[f] || f;
const famWord = (f) => ({ red: t('red'), olive: t('olive'), black: t('black'), silver: t('silver') })[f] || f;
const seatColourName = (c) => ({ yellow: t('Yellow'), orange: t('Orange'), green: t('Green'), violet: t('Violet') })[c] || c;
// the families' titles of the built-in data (a board file may bring its own)
const familyTitle = (s) => ({ 'cloth merchants': t('cloth merchants'), 'spice merchants': t('spice merchants'), carpenters: t('carpenters'), silversmiths: t('silversmiths') })[s] || s;
function sealsWords(f, n) {
  switch (f) {
    case 'red': return tn('{n} red seal', '{n} red seals', n);
    case 'olive': return tn('{n} olive seal', '{n} olive seals', n);
    case 'black': return tn('{n} black seal', '{n} black seals', n);
    case 'silver': return tn('{n} silver seal', '{n} silver seals', n);
    default: return `${n} ${f}`;
  }
}
function piecesWords(f, n) {
  switch (f) {
    case 'red': return tn('{n} red piece', '{n} red pieces', n);
    case 'olive': return tn('{n} olive piece', '{n} olive pieces', n);
    case 'black': return tn('{n} black piece', '{n} black pieces', n);
    case 'silver': return tn('{n} silver piece', '{n} silver pieces', n);
    default: return `${n} ${f}`;
  }
}
function workerWords(c) {
  switch (c) {
    case 'yellow': return t('yellow worker');
    case 'orange': return t('orange worker');
    case 'green': return t('green worker');
    case 'violet': return t('violet worker');
    default: return t('neutral worker');
  }
}
const C = 46; // one square, in SVG units
const M = 24; // margin for the coordinate labels
const HIDE_KEY = 'tabula.arkadia.hideOpponents';

// ---- squares ----
const sqName = (x, y) => `${String.fromCharCode(97 + x)}${y + 1}`;
function sqXY(s) {
  const m = /^([a-p])(\d{1,2})$/.exec(s);
  return m ? [m[1].charCodeAt(0) - 97, Number(m[2]) - 1] : null;
}
const px = (x) => M + x * C;

// What a move changed, as keys: `b:SQUARES` a building laid or completed,
// `w:SQ` a worker placed, `c:N` a castle square built on, `lot` the lot.
function boardKeys(v) {
  const k = new Map();
  for (const b of v.buildings) k.set(`b:${b.squares}`, `${b.family}|${b.done ? 1 : 0}`);
  for (const [colour, list] of Object.entries(v.workers)) for (const s of list) k.set(`w:${s}`, colour);
  (v.castle || []).forEach((cs, i) => k.set(`c:${i + 1}`, cs.pieces.join(',')));
  if (v.lot) k.set('lot', v.lot);
  return k;
}
function changedKeys(before, view) {
  const old = boardKeys(before);
  return [...boardKeys(view)].filter(([key, val]) => old.get(key) !== val).map(([key]) => key);
}
// Without the position before: what the decision's text names.
function namedKeys(last, view) {
  const m = last.move;
  let r;
  if (/^[a-p]\d{1,2}(-[a-p]\d{1,2})+$/.test(m) || /^[a-p]\d{1,2}$/.test(m)) {
    return view.buildings.some((b) => b.squares === m) ? [`b:${m}`] : [];
  }
  if ((r = /^(?:own|neutral) ([a-p]\d{1,2})$/.exec(m))) return [`w:${r[1]}`];
  if ((r = /^castle \w+ (\d+)$/.exec(m))) return [`c:${r[1]}`];
  if (/^lot /.test(m)) return ['lot'];
  return [];
}

// The outline of a set of cells [[x,y]…] as one closed path (polyominoes here
// have no holes): walk the boundary edges clockwise.
function outline(cells, inset = 0) {
  const has = new Set(cells.map(([x, y]) => `${x},${y}`));
  const edges = new Map();
  const add = (a, b) => edges.set(`${a[0]},${a[1]}`, b);
  for (const [x, y] of cells) {
    if (!has.has(`${x},${y - 1}`)) add([x, y], [x + 1, y]);
    if (!has.has(`${x + 1},${y}`)) add([x + 1, y], [x + 1, y + 1]);
    if (!has.has(`${x},${y + 1}`)) add([x + 1, y + 1], [x, y + 1]);
    if (!has.has(`${x - 1},${y}`)) add([x, y + 1], [x, y]);
  }
  const startKey = edges.keys().next().value;
  const pts = [];
  let key = startKey;
  for (let guard = 0; guard < 200; guard++) {
    const [x, y] = key.split(',').map(Number);
    pts.push([x, y]);
    const nxt = edges.get(key);
    key = `${nxt[0]},${nxt[1]}`;
    if (key === startKey) break;
  }
  // drop collinear points
  const poly = pts.filter((p, i) => {
    const a = pts[(i + pts.length - 1) % pts.length], b = pts[(i + 1) % pts.length];
    return !((a[0] === p[0] && p[0] === b[0]) || (a[1] === p[1] && p[1] === b[1]));
  });
  // Inset every vertex along the inward bisector (rectilinear, clockwise):
  // the inside is to the right of each edge.
  const out = poly.map((p, i) => {
    if (!inset) return p;
    const a = poly[(i + poly.length - 1) % poly.length], b = poly[(i + 1) % poly.length];
    const d1 = [Math.sign(p[0] - a[0]), Math.sign(p[1] - a[1])], d2 = [Math.sign(b[0] - p[0]), Math.sign(b[1] - p[1])];
    const n1 = [-d1[1], d1[0]], n2 = [-d2[1], d2[0]]; // right-hand normals (y down)
    return [p[0] + (n1[0] + n2[0]) * inset, p[1] + (n1[1] + n2[1]) * inset];
  });
  return out;
}
const polyPath = (poly, s = C, ox = M, oy = M) =>
  `M${poly.map(([x, y]) => `${(ox + x * s).toFixed(1)} ${(oy + y * s).toFixed(1)}`).join(' L')} Z`;

// Where a tile's seal and name go: the middle of a straight or square tile,
// else the middle of the cell nearest to the tile's centroid.
function labelSpot(cells) {
  const cx = cells.reduce((a, c) => a + c[0], 0) / cells.length + 0.5;
  const cy = cells.reduce((a, c) => a + c[1], 0) / cells.length + 0.5;
  const x0 = Math.min(...cells.map((c) => c[0])), x1 = Math.max(...cells.map((c) => c[0]));
  const y0 = Math.min(...cells.map((c) => c[1])), y1 = Math.max(...cells.map((c) => c[1]));
  if ((x1 - x0 + 1) * (y1 - y0 + 1) === cells.length) return { x: cx, y: cy, wide: x1 > x0 };
  let best = cells[0], bd = Infinity;
  for (const c of cells) {
    const d = (c[0] + 0.5 - cx) ** 2 + (c[1] + 0.5 - cy) ** 2;
    if (d < bd - 1e-9) { bd = d; best = c; }
  }
  return { x: best[0] + 0.5, y: best[1] + 0.5, wide: false };
}

function loadCss() {
  if (document.querySelector('link[data-arkadia-css]')) return;
  document.head.append(el('link', { rel: 'stylesheet', href: '/css/arkadia.css', 'data-arkadia-css': true }));
}

const MEEPLE = 'M50 8C61 8 67 17 65 27C64 32 61 35 59 37L86 45C97 48 97 62 86 62L71 60L84 91C86 96 82 98 78 98L59 98L50 80L41 98L22 98C18 98 14 96 16 91L29 60L14 62C3 62 3 48 14 45L41 37C39 35 36 32 35 27C33 17 39 8 50 8Z';

function meeple(cx, cy, colour, size = 30, extra = {}) {
  const k = size / 100;
  return svg('g', { transform: `translate(${(cx - size / 2).toFixed(1)} ${(cy - size / 2 - 1).toFixed(1)}) scale(${k})`, ...extra },
    svg('path', { d: MEEPLE, fill: SEAT_COLOUR[colour], stroke: colour === 'neutral' ? '#8a7650' : 'rgba(0,0,0,.55)', 'stroke-width': 5, 'stroke-linejoin': 'round' }));
}

function seal(cx, cy, family, r = 10, extra = {}) {
  const f = FAMILY[family];
  return svg('g', { class: `seal seal-${family}`, ...extra },
    svg('circle', { cx, cy, r, fill: f.fill, stroke: f.dark, 'stroke-width': 1.4 }),
    svg('circle', { cx, cy, r: r * 0.62, fill: 'none', stroke: family === 'silver' ? 'rgba(0,0,0,.25)' : 'rgba(255,255,255,.45)', 'stroke-width': 1.2 }));
}

// A small drawing of a form (its first orientation) for cards and buttons.
function miniShape(cells, family, unit = 9, cls = 'ark-mini') {
  const w = Math.max(...cells.map((c) => c[0])) + 1, h = Math.max(...cells.map((c) => c[1])) + 1;
  const f = FAMILY[family] || { fill: '#8b8478', dark: '#5d574d' };
  return svg('svg', { class: cls, viewBox: `-1 -1 ${w * unit + 2} ${h * unit + 2}`, width: w * unit + 2, height: h * unit + 2, 'aria-hidden': 'true' },
    svg('path', { d: polyPath(outline(cells), unit, 0, 0), fill: f.fill, stroke: f.dark, 'stroke-width': 1.2, 'stroke-linejoin': 'round' }),
    cells.map(([x, y]) => svg('rect', { x: x * unit + 1.5, y: y * unit + 1.5, width: unit - 3, height: unit - 3, fill: 'rgba(255,255,255,.16)', rx: 1 })));
}

export function create({ boardEl, panelsEl, board, decide }) {
  loadCss();
  const W = board.width, H = board.height;
  const forms = new Map(board.forms.map((f) => [f.name, f]));
  const tents = new Set(board.tents);
  const castleDef = board.castle; // [{square, offset, printed}]
  const [lotW, lotH] = board.lot_size;
  const cellsKey = (cells) => cells.map((c) => c.join(',')).sort().join(';');
  const orientKey = new Map(); // form -> Map(normalised key -> orientation index)
  for (const f of board.forms) orientKey.set(f.name, new Map(f.orientations.map((o, i) => [cellsKey(o.cells), i])));

  // ---- the SVG board ----
  const VW = 2 * M + W * C, VH = 2 * M + H * C;
  const root = svg('svg', { viewBox: `0 0 ${VW} ${VH}`, class: 'arkadia-board', role: 'img', 'aria-label': t('Arkadia board') });
  const defs = svg('defs', {},
    svg('pattern', { id: 'ark-meadow', width: 2 * C, height: 2 * C, patternUnits: 'userSpaceOnUse', x: M, y: M },
      svg('rect', { width: 2 * C, height: 2 * C, fill: '#c9d99b' }),
      svg('path', { d: `M8 14 l2 -5 M12 14 l-1 -4 M${C + 20} ${C + 30} l2 -5 M${C + 24} ${C + 30} l-1 -4 M${C + 8} 30 l1.5 -4 M30 ${C + 12} l1.5 -4`, stroke: '#aebf7c', 'stroke-width': 1.4, 'stroke-linecap': 'round' })),
    svg('pattern', { id: 'ark-stone', width: 12, height: 12, patternUnits: 'userSpaceOnUse' },
      svg('rect', { width: 12, height: 12, fill: '#d7cfbf' }),
      svg('path', { d: 'M0 6 h12 M6 0 v6 M0 12 h12 M3 6 v6 M9 6 v6', stroke: '#c4baa6', 'stroke-width': 0.8 })),
    svg('pattern', { id: 'ark-roof', width: 8, height: 8, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      svg('rect', { width: 8, height: 8, fill: 'rgba(0,0,0,0)' }),
      svg('path', { d: 'M0 0 V8', stroke: 'rgba(0,0,0,.13)', 'stroke-width': 3 })),
    svg('filter', { id: 'ark-lift', x: '-20%', y: '-20%', width: '140%', height: '140%' },
      svg('feDropShadow', { dx: 0, dy: 1.4, stdDeviation: 1.3, 'flood-opacity': 0.35 })));
  root.append(defs);
  root.append(svg('rect', { x: 0, y: 0, width: VW, height: VH, rx: 10, fill: '#5d4a2c' }),
    svg('rect', { x: M - 3, y: M - 3, width: W * C + 6, height: H * C + 6, rx: 4, fill: '#3f3220' }));
  const cellLayer = svg('g', { class: 'cells' });
  const tentLayer = svg('g', { class: 'tents' });
  const lotLayer = svg('g', { class: 'lot' });
  // one shadow filter per layer, not per piece (much cheaper to paint)
  const bldLayer = svg('g', { class: 'buildings', filter: 'url(#ark-lift)' });
  const wkLayer = svg('g', { class: 'workers', filter: 'url(#ark-lift)' });
  const reachLayer = svg('g', { class: 'reach-layer' });
  const lastLayer = svg('g', { class: 'last-layer' });
  const hlLayer = svg('g', { class: 'hl-layer' });
  const pvLayer = svg('g', { class: 'preview-layer' });
  const stagedLayer = svg('g', { class: 'staged-layer' });
  const labelLayer = svg('g', { class: 'coords' });
  root.append(cellLayer, tentLayer, reachLayer, lotLayer, bldLayer, wkLayer, lastLayer, hlLayer, pvLayer, stagedLayer, labelLayer);

  const cellEl = new Map(); // square -> {rect, title}
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const name = sqName(x, y);
      const title = svg('title');
      const rect = svg('rect', { class: 'sq', x: px(x), y: px(y), width: C, height: C, fill: 'url(#ark-meadow)', 'data-sq': name }, title);
      cellLayer.append(rect);
      cellEl.set(name, { rect, title });
      if (tents.has(name)) {
        const cx = px(x) + C / 2, cy = px(y) + C / 2;
        tentLayer.append(svg('g', { class: 'tent', 'data-sq': name },
          svg('path', { d: `M${cx - 13} ${cy + 9} L${cx} ${cy - 11} L${cx + 13} ${cy + 9} Z`, fill: '#efe3c6', stroke: '#7a5d32', 'stroke-width': 1.5, 'stroke-linejoin': 'round' }),
          svg('path', { d: `M${cx - 4} ${cy + 9} L${cx} ${cy - 1} L${cx + 4} ${cy + 9} Z`, fill: '#7a5d32' }),
          svg('path', { d: `M${cx} ${cy - 11} l0 -5 l6 2 l-6 2`, fill: '#b83a30', stroke: '#7a5d32', 'stroke-width': 0.8 })));
      }
    }
  }
  for (let x = 0; x < W; x++) {
    const t = String.fromCharCode(97 + x);
    labelLayer.append(svg('text', { x: px(x) + C / 2, y: M - 8, 'text-anchor': 'middle' }, t),
      svg('text', { x: px(x) + C / 2, y: VH - 8, 'text-anchor': 'middle' }, t));
  }
  for (let y = 0; y < H; y++) {
    labelLayer.append(svg('text', { x: M / 2, y: px(y) + C / 2 + 4, 'text-anchor': 'middle' }, String(y + 1)),
      svg('text', { x: VW - M / 2, y: px(y) + C / 2 + 4, 'text-anchor': 'middle' }, String(y + 1)));
  }

  // ---- the strip beside the board, the decision bar, the panels ----
  const strip = el('div.ark-strip');
  const bar = el('div.ark-bar#ark-bar', { hidden: true });
  boardEl.append(el('div.ark-layout', el('div.ark-board-box', root), strip), bar);
  const screensCard = el('div.card.ark-screens-card');
  panelsEl.append(screensCard);
  const legendCard = el('div.card.ark-legend-card');
  panelsEl.append(legendCard);
  let hideOthers = localStorage.getItem(HIDE_KEY) === '1';
  document.body.classList.toggle('ark-hide-others', hideOthers);

  // ---- state ----
  let ctx = null, L = null, sent = false;
  let orientPos = 0, orientCard = null, castleFam = null, workerKind = 'own', saleAmount = null, saleFor = null;
  let pointer = null; // {fx, fy} in squares, or null
  let shown = null; // the placement or lot place the preview shows (a click sends what is shown)
  let occupied = new Map(); // square -> {kind:'building', b} | {kind:'lot'} | {kind:'worker', colour}
  let staged = null; // a decision waiting for the player's Confirm (game.js), drawn on the board
  const lastMove = lastMoveTracker({ diff: changedKeys, fromText: namedKeys });
  // the classes of a piece the last move changed (the animation only on arrival)
  const lastCls = (key) => (lastMove.has(key) ? ` last-move${lastMove.enters(key) ? ' last-move-enter' : ''}` : '');
  const lastStyle = (key) => (lastMove.enters(key) ? lastMove.enterStyle() : null);

  function parseLegal(legal, view) {
    const P = {
      lots: [], builds: [], workersAt: new Map(), own: new Map(), neutral: new Map(), stop: null,
      castle: [], draws: new Map(), drawStack: null, banner: {}, sells: [], placements: [], other: [],
    };
    for (const m of legal || []) {
      let r;
      if ((r = /^lot ([a-p]\d{1,2})$/.exec(m))) P.lots.push({ move: m, sq: r[1] });
      else if ((r = /^build (\S+) (\S+)$/.exec(m))) P.builds.push({ move: m, card: `${r[1]} ${r[2]}` });
      else if ((r = /^workers (\S+)$/.exec(m))) P.workersAt.set(r[1], m);
      else if ((r = /^(own|neutral) ([a-p]\d{1,2})$/.exec(m))) P[r[1]].set(r[2], m);
      else if (m === 'stop') P.stop = m;
      else if ((r = /^castle (\w+) (\d+)$/.exec(m))) P.castle.push({ move: m, fam: r[1], n: Number(r[2]) });
      else if (m === 'draw stack') P.drawStack = m;
      else if ((r = /^draw (\S+) (\S+)$/.exec(m))) P.draws.set(`${r[1]} ${r[2]}`, m);
      else if ((r = /^banner (yes|no)$/.exec(m))) P.banner[r[1]] = m;
      else if ((r = /^sell (\w+) (\d+)$/.exec(m))) P.sells.push({ move: m, fam: r[1], n: Number(r[2]) });
      else if (/^[a-p]\d{1,2}(-[a-p]\d{1,2})*$/.test(m) && view.card) {
        const sqs = m.split('-').map(sqXY);
        const mx = Math.min(...sqs.map((s) => s[0])), my = Math.min(...sqs.map((s) => s[1]));
        const form = view.card.split(' ')[0];
        const o = orientKey.get(form) ? orientKey.get(form).get(cellsKey(sqs.map(([x, y]) => [x - mx, y - my]))) : undefined;
        if (o === undefined) { P.other.push(m); continue; }
        P.placements.push({
          move: m, squares: m.split('-'), cells: sqs, orient: o,
          cx: sqs.reduce((a, s) => a + s[0] + 0.5, 0) / sqs.length, cy: sqs.reduce((a, s) => a + s[1] + 0.5, 0) / sqs.length,
        });
      } else P.other.push(m);
    }
    P.orients = [...new Set(P.placements.map((p) => p.orient))].sort((a, b) => a - b);
    return P;
  }

  const mine = () => ctx && ctx.yourTurn && !sent && L;
  const send = (move) => {
    if (!mine()) return;
    if (decide(move)) { sent = true; paint(); }
  };

  // ---- geometry of the view ----
  function lotCells(view) {
    if (!view.lot) return [];
    const [ax, ay] = sqXY(view.lot);
    const out = [];
    for (let dy = 0; dy < lotH; dy++) for (let dx = 0; dx < lotW; dx++) out.push([ax + dx, ay + dy]);
    return out;
  }
  function castleSquareAt(view, name) {
    if (!view.lot) return null;
    const [ax, ay] = sqXY(view.lot), [x, y] = sqXY(name);
    const d = castleDef.find((c) => c.offset[0] === x - ax && c.offset[1] === y - ay);
    return d ? d.square : null;
  }
  const buildingFirst = (b) => b.squares.split('-')[0];

  function computeOccupied(view) {
    occupied = new Map();
    for (const [x, y] of lotCells(view)) occupied.set(sqName(x, y), { kind: 'lot' });
    for (const b of view.buildings) for (const s of b.squares.split('-')) occupied.set(s, { kind: 'building', b });
    for (const [colour, list] of Object.entries(view.workers)) for (const s of list) occupied.set(s, { kind: 'worker', colour });
  }

  // ---- painting the board ----
  function paintBoard() {
    const v = ctx.view;
    computeOccupied(v);
    // titles
    for (const [name, c] of cellEl) {
      const o = occupied.get(name);
      const parts = [name];
      if (tents.has(name)) parts.push(t('tent camp'));
      if (o && o.kind === 'lot') {
        const q = castleSquareAt(v, name);
        if (q) {
          const cs = v.castle[q - 1];
          parts.push(t('castle square {n}', { n: q }), cs.pieces.length
            ? tn('{n} high, {colour} on top', '{n} high, {colour} on top', cs.pieces.length, { colour: famWord(cs.visible) })
            : t('printed seal: {colour}', { colour: cs.printed ? famWord(cs.printed) : t('none') }));
        } else parts.push(t('castle lot'));
      }
      if (o && o.kind === 'building') {
        parts.push(o.b.done ? t('{building} ({colour}, completed)', { building: formTitle(o.b.form), colour: famWord(o.b.family) })
          : t('{building} ({colour}, under construction)', { building: formTitle(o.b.form), colour: famWord(o.b.family) }));
      }
      if (o && o.kind === 'worker') parts.push(workerWords(o.colour));
      c.title.textContent = parts.join(' · ');
    }
    // lot and castle
    clear(lotLayer);
    if (v.lot) {
      const [ax, ay] = sqXY(v.lot);
      lotLayer.setAttribute('data-lot', v.lot);
      lotLayer.append(svg('rect', { class: `lot-base${lastCls('lot')}`, style: lastStyle('lot'), x: px(ax) + 1, y: px(ay) + 1, width: lotW * C - 2, height: lotH * C - 2, rx: 5, fill: 'url(#ark-stone)' }));
      // the keep: the inner squares
      const inner = [];
      for (let dy = 1; dy < lotH - 1; dy++) for (let dx = 1; dx < lotW - 1; dx++) inner.push([ax + dx, ay + dy]);
      if (inner.length) {
        const ix = Math.min(...inner.map((c) => c[0])), iy = Math.min(...inner.map((c) => c[1]));
        const iw = Math.max(...inner.map((c) => c[0])) - ix + 1, ih = Math.max(...inner.map((c) => c[1])) - iy + 1;
        lotLayer.append(svg('rect', { class: 'keep', x: px(ix) + 5, y: px(iy) + 5, width: iw * C - 10, height: ih * C - 10, rx: 4 }),
          svg('text', { class: 'keep-text', x: px(ix) + (iw * C) / 2, y: px(iy) + (ih * C) / 2 + 4, 'text-anchor': 'middle' }, t('FLOOR {n}', { n: v.floor })));
      }
      for (const d of castleDef) {
        const cs = v.castle[d.square - 1];
        const x = px(ax + d.offset[0]), y = px(ay + d.offset[1]);
        const g = svg('g', { class: `castle-sq${lastCls(`c:${d.square}`)}`, style: lastStyle(`c:${d.square}`), 'data-castle': d.square, 'data-height': cs.pieces.length, 'data-visible': cs.visible || '' });
        g.append(svg('rect', { x: x + 2, y: y + 2, width: C - 4, height: C - 4, rx: 4, class: 'castle-cell' }));
        if (!cs.pieces.length) {
          if (cs.printed) g.append(seal(x + C / 2, y + C / 2, cs.printed, 12));
          else g.append(svg('circle', { cx: x + C / 2, cy: y + C / 2, r: 11, class: 'blank-seal' }));
        } else {
          cs.pieces.forEach((fam, i) => {
            const inset = 4 + i * 6;
            g.append(svg('rect', { x: x + inset, y: y + inset, width: C - 2 * inset, height: C - 2 * inset, rx: 5 - i,
              fill: FAMILY[fam].fill, stroke: FAMILY[fam].dark, 'stroke-width': 1.5, filter: 'url(#ark-lift)' }));
          });
          g.append(seal(x + C / 2, y + C / 2, cs.visible, 7));
          g.append(svg('g', { class: 'height-badge' },
            svg('circle', { cx: x + C - 8, cy: y + C - 8, r: 7 }),
            svg('text', { x: x + C - 8, y: y + C - 5, 'text-anchor': 'middle' }, String(cs.pieces.length))));
        }
        g.append(svg('text', { class: 'castle-num', x: x + 6, y: y + 12 }, String(d.square)));
        lotLayer.append(g);
      }
    } else lotLayer.removeAttribute('data-lot');
    // buildings
    clear(bldLayer);
    for (const b of v.buildings) {
      const cells = b.squares.split('-').map(sqXY);
      const f = FAMILY[b.family];
      const g = svg('g', { class: `building${b.done ? ' done' : ''}${lastCls(`b:${b.squares}`)}`, style: lastStyle(`b:${b.squares}`), 'data-squares': b.squares, 'data-family': b.family, 'data-form': b.form, 'data-first': buildingFirst(b) });
      const d = polyPath(outline(cells, 0.04));
      g.append(svg('path', { class: 'tile', d, fill: b.done ? f.fill : f.soft, stroke: f.dark, 'stroke-width': 2, 'stroke-linejoin': 'round' }));
      if (b.done) g.append(svg('path', { d, fill: 'url(#ark-roof)', 'pointer-events': 'none' }));
      else g.append(svg('path', { d: polyPath(outline(cells, 0.12)), fill: 'none', stroke: f.fill, 'stroke-width': 1.5, 'stroke-dasharray': '4 3', opacity: 0.8 }));
      const spot = labelSpot(cells);
      const lx = M + spot.x * C, ly = M + spot.y * C;
      if (b.done) {
        g.append(svg('g', { class: 'done-badge' }, svg('circle', { cx: lx, cy: ly - 5, r: 9, fill: '#fffdf6', stroke: f.dark, 'stroke-width': 1.5 }),
          svg('path', { d: `M${lx - 4.5} ${ly - 5} l3 3 l6 -6.5`, fill: 'none', stroke: f.dark === '#141312' ? '#2e7d4f' : f.dark, 'stroke-width': 2.2, 'stroke-linecap': 'round', 'stroke-linejoin': 'round' })));
      } else g.append(seal(lx, ly - 5, b.family, 10));
      const words = formLower(b.form);
      // a long name on a narrow building: two lines, cut at its middle space
      const cut = words.indexOf(' ');
      const name = cut > 0 && !spot.wide ? [words.slice(0, cut), words.slice(cut + 1)] : [words];
      g.append(svg('text', { class: `form-name${b.done ? ' on-dark' : ''}${b.family === 'silver' && b.done ? ' on-silver' : ''}`, x: lx, y: ly + 14 - (name.length - 1) * 4, 'text-anchor': 'middle' },
        name.map((w, i) => svg('tspan', { x: lx, dy: i ? 8 : 0 }, w))));
      bldLayer.append(g);
    }
    // workers
    clear(wkLayer);
    for (const [colour, list] of Object.entries(v.workers)) {
      for (const s of list) {
        const [x, y] = sqXY(s);
        wkLayer.append(meeple(px(x) + C / 2, px(y) + C / 2, colour, 32, { class: `worker worker-${colour}${lastCls(`w:${s}`)}`, style: lastStyle(`w:${s}`), 'data-sq': s, 'data-colour': colour }));
      }
    }
    // what the last move changed: a glowing outline round each piece
    clear(lastLayer);
    for (const key of lastMove.keys()) {
      let cells = null;
      if (key === 'lot') cells = lotCells(v);
      else if (key.startsWith('b:')) cells = key.slice(2).split('-').map(sqXY);
      else if (key.startsWith('w:')) cells = [sqXY(key.slice(2))];
      else if (key.startsWith('c:') && v.lot) {
        const d = castleDef[Number(key.slice(2)) - 1];
        const [ax, ay] = sqXY(v.lot);
        cells = [[ax + d.offset[0], ay + d.offset[1]]];
      }
      if (cells && cells.length) {
        lastLayer.append(svg('path', { class: `last-outline${lastMove.enters(key) ? ' last-move-enter' : ''}`, style: lastStyle(key), 'data-last': key, d: polyPath(outline(cells, -0.06)) }));
      }
    }
  }

  // ---- highlights and the preview ----
  const cellRect = (x, y, cls, extra = {}) => svg('rect', { class: cls, x: px(x) + 2, y: px(y) + 2, width: C - 4, height: C - 4, rx: 5, ...extra });

  function currentOrient() {
    if (!L || !L.orients.length) return null;
    return L.orients[((orientPos % L.orients.length) + L.orients.length) % L.orients.length];
  }

  function paintHighlights() {
    clear(reachLayer);
    clear(hlLayer);
    for (const c of cellEl.values()) c.rect.classList.remove('target');
    if (!mine()) return;
    const v = ctx.view;
    const target = (name) => { const c = cellEl.get(name); if (c) c.rect.classList.add('target'); };
    if (L.lots.length) {
      const seen = new Set();
      for (const l of L.lots) {
        const [x, y] = sqXY(l.sq);
        for (let dy = 0; dy < lotH; dy++) {
          for (let dx = 0; dx < lotW; dx++) {
            const s = sqName(x + dx, y + dy);
            target(s);
            if (!seen.has(s)) { seen.add(s); reachLayer.append(cellRect(x + dx, y + dy, 'reach lot-reach')); }
          }
        }
        reachLayer.append(svg('circle', { class: 'lot-anchor', cx: px(x) + C / 2, cy: px(y) + C / 2, r: 6, 'data-lot-anchor': l.sq }));
      }
    }
    if (L.placements.length) {
      const o = currentOrient();
      const seen = new Set();
      for (const p of L.placements) {
        if (p.orient !== o) continue;
        for (const s of p.squares) {
          if (seen.has(s)) continue;
          seen.add(s);
          const [x, y] = sqXY(s);
          reachLayer.append(cellRect(x, y, 'reach', { 'data-reach': s }));
          target(s);
        }
      }
    }
    if (L.workersAt.size) {
      for (const b of v.buildings) {
        const first = buildingFirst(b);
        if (!L.workersAt.has(first)) continue;
        hlLayer.append(svg('path', { class: 'hl-building', d: polyPath(outline(b.squares.split('-').map(sqXY), -0.02)), 'data-workers-target': first }));
        for (const s of b.squares.split('-')) target(s);
      }
      if (L.workersAt.has('lot') && v.lot) {
        hlLayer.append(svg('path', { class: 'hl-building', d: polyPath(outline(lotCells(v), -0.02)), 'data-workers-target': 'lot' }));
        for (const [x, y] of lotCells(v)) target(sqName(x, y));
      }
    }
    if (L.own.size || L.neutral.size) {
      // the building the workers go next to
      const tb = v.target === 'lot' ? null : v.buildings.find((b) => b.squares.split('-').includes(v.target));
      const cells = v.target === 'lot' ? lotCells(v) : tb ? tb.squares.split('-').map(sqXY) : [];
      if (cells.length) hlLayer.append(svg('path', { class: 'hl-selected', d: polyPath(outline(cells, -0.02)) }));
      const kind = effectiveKind();
      for (const s of new Set([...L.own.keys(), ...L.neutral.keys()])) {
        const [x, y] = sqXY(s);
        const k = (kind === 'own' ? L.own : L.neutral).has(s) ? kind : kind === 'own' ? 'neutral' : 'own';
        hlLayer.append(cellRect(x, y, `hl-square worker-spot ${k}`, { 'data-worker-spot': s }));
        target(s);
      }
    }
    if (L.castle.length && v.lot) {
      const fams = new Set(L.castle.map((c) => c.fam));
      if (castleFam && !fams.has(castleFam)) castleFam = null;
      if (!castleFam && fams.size === 1) castleFam = [...fams][0];
      const squares = new Set(L.castle.filter((c) => !castleFam || c.fam === castleFam).map((c) => c.n));
      const [ax, ay] = sqXY(v.lot);
      for (const n of squares) {
        const d = castleDef[n - 1];
        hlLayer.append(cellRect(ax + d.offset[0], ay + d.offset[1], `hl-square castle-target${castleFam ? '' : ' faint'}`, { 'data-castle-target': n }));
        target(sqName(ax + d.offset[0], ay + d.offset[1]));
      }
    }
  }

  function effectiveKind() {
    if (workerKind === 'own' && !L.own.size && L.neutral.size) return 'neutral';
    if (workerKind === 'neutral' && !L.neutral.size && L.own.size) return 'own';
    return workerKind;
  }

  // The legal placement shown for the pointer: among the current
  // orientation's placements that cover the square under the pointer, the
  // one whose centre is nearest to it (so every placement can be reached by
  // pointing at its centre).
  function previewPlacement() {
    if (!pointer || !L || !L.placements.length) return null;
    const o = currentOrient();
    const sx = Math.floor(pointer.fx), sy = Math.floor(pointer.fy);
    let best = null, bd = Infinity;
    for (const p of L.placements) {
      if (p.orient !== o || !p.cells.some(([x, y]) => x === sx && y === sy)) continue;
      const d = (p.cx - pointer.fx) ** 2 + (p.cy - pointer.fy) ** 2;
      if (d < bd) { bd = d; best = p; }
    }
    return best;
  }

  function previewLot() {
    if (!pointer || !L || !L.lots.length) return null;
    const sx = Math.floor(pointer.fx), sy = Math.floor(pointer.fy);
    let best = null, bd = Infinity;
    for (const l of L.lots) {
      const [x, y] = sqXY(l.sq);
      if (sx < x || sx >= x + lotW || sy < y || sy >= y + lotH) continue;
      const d = (x + lotW / 2 - pointer.fx) ** 2 + (y + lotH / 2 - pointer.fy) ** 2;
      if (d < bd) { bd = d; best = l; }
    }
    return best;
  }

  function paintPreview() {
    clear(pvLayer);
    shown = null;
    pvLayer.removeAttribute('data-squares');
    pvLayer.removeAttribute('data-legal');
    if (!mine() || !pointer) return;
    const v = ctx.view;
    if (L.placements.length) {
      const fam = v.card.split(' ')[1];
      const f = FAMILY[fam];
      const p = previewPlacement();
      shown = p;
      let cells, legal = true;
      if (p) cells = p.cells;
      else {
        // an illegal ghost of the current orientation, to show the rotation
        const shape = forms.get(v.card.split(' ')[0]).orientations[currentOrient()].cells;
        const gx = shape.reduce((a, c) => a + c[0], 0) / shape.length, gy = shape.reduce((a, c) => a + c[1], 0) / shape.length;
        const ox = Math.floor(pointer.fx) - Math.round(gx), oy = Math.floor(pointer.fy) - Math.round(gy);
        cells = shape.map(([x, y]) => [x + ox, y + oy]);
        legal = false;
      }
      pvLayer.setAttribute('data-squares', p ? p.move : '');
      pvLayer.setAttribute('data-legal', legal ? '1' : '0');
      pvLayer.append(svg('path', { class: `preview-tile${legal ? '' : ' illegal'}`, d: polyPath(outline(cells, 0.04)), fill: legal ? f.fill : 'rgba(179,58,58,.25)', stroke: legal ? f.dark : '#b33a3a' }));
      if (legal) {
        const spot = labelSpot(cells);
        pvLayer.append(seal(M + spot.x * C, M + spot.y * C - 5, fam, 10));
        const covered = p.squares.filter((s) => tents.has(s)).length;
        if (covered) {
          pvLayer.append(svg('text', { class: 'preview-note', x: M + spot.x * C, y: M + spot.y * C + 15, 'text-anchor': 'middle' }, `+${covered} neutral`));
        }
      }
      return;
    }
    if (L.lots.length) {
      const l = previewLot();
      shown = l;
      if (!l) return;
      const [x, y] = sqXY(l.sq);
      pvLayer.setAttribute('data-squares', l.sq);
      pvLayer.setAttribute('data-legal', '1');
      pvLayer.append(svg('rect', { class: 'preview-lot', x: px(x) + 1, y: px(y) + 1, width: lotW * C - 2, height: lotH * C - 2, rx: 5 }),
        svg('text', { class: 'preview-note', x: px(x) + (lotW * C) / 2, y: px(y) + (lotH * C) / 2 + 4, 'text-anchor': 'middle' }, `castle lot at ${l.sq}`));
      return;
    }
    // hover feedback on worker spots
    const s = sqName(Math.floor(pointer.fx), Math.floor(pointer.fy));
    if ((L.own.size || L.neutral.size) && (L.own.has(s) || L.neutral.has(s))) {
      const kind = kindFor(s, false);
      const [x, y] = sqXY(s);
      pvLayer.append(meeple(px(x) + C / 2, px(y) + C / 2, kind === 'own' ? v.seats[ctx.seat].colour : 'neutral', 32, { opacity: 0.75 }));
    }
  }

  // The decision staged for Confirm, where it would go on the board.
  function paintStaged() {
    clear(stagedLayer);
    stagedLayer.removeAttribute('data-move');
    if (!staged || !ctx) return;
    const v = ctx.view;
    const m = staged;
    let r;
    const mark = (cells, extra = {}) => svg('path', { class: 'staged-preview', d: polyPath(outline(cells, 0.04)), ...extra });
    if (/^[a-p]\d{1,2}(-[a-p]\d{1,2})*$/.test(m) && v.card) {
      const cells = m.split('-').map(sqXY);
      const f = FAMILY[v.card.split(' ')[1]];
      stagedLayer.append(mark(cells, { fill: f ? f.fill : '#d7cfbf', stroke: f ? f.dark : '#4d4436' }));
    } else if ((r = /^lot ([a-p]\d{1,2})$/.exec(m))) {
      const [x, y] = sqXY(r[1]);
      const cells = [];
      for (let dy = 0; dy < lotH; dy++) for (let dx = 0; dx < lotW; dx++) cells.push([x + dx, y + dy]);
      stagedLayer.append(mark(cells, { fill: '#d7cfbf', stroke: '#4d4436' }));
    } else if ((r = /^(own|neutral) ([a-p]\d{1,2})$/.exec(m))) {
      const [x, y] = sqXY(r[2]);
      const colour = r[1] === 'own' && v.seats[ctx.seat] ? v.seats[ctx.seat].colour : 'neutral';
      stagedLayer.append(mark([[x, y]], { fill: 'rgba(255, 248, 210, .5)', stroke: '#a67c00' }),
        meeple(px(x) + C / 2, px(y) + C / 2, colour, 32, { class: 'staged-piece' }));
    } else if ((r = /^castle (\w+) (\d+)$/.exec(m)) && v.lot && FAMILY[r[1]]) {
      const d = castleDef[Number(r[2]) - 1];
      const [ax, ay] = sqXY(v.lot);
      stagedLayer.append(mark([[ax + d.offset[0], ay + d.offset[1]]], { fill: FAMILY[r[1]].fill, stroke: FAMILY[r[1]].dark }));
    } else if ((r = /^workers (\S+)$/.exec(m))) {
      const b = v.buildings.find((x) => x.squares.split('-').includes(r[1]));
      const cells = r[1] === 'lot' ? lotCells(v) : b ? b.squares.split('-').map(sqXY) : [];
      if (cells.length) stagedLayer.append(mark(cells, { fill: 'rgba(255, 230, 120, .3)', stroke: '#a67c00' }));
    }
    if (stagedLayer.childElementCount) stagedLayer.setAttribute('data-move', m);
  }

  function kindFor(s, shift) {
    let k = effectiveKind();
    if (shift) k = k === 'own' ? 'neutral' : 'own';
    if (!(k === 'own' ? L.own : L.neutral).has(s)) k = k === 'own' ? 'neutral' : 'own';
    return (k === 'own' ? L.own : L.neutral).has(s) ? k : null;
  }

  // ---- pointer ----
  function toSquares(ev) {
    const ctm = root.getScreenCTM();
    if (!ctm) return null;
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(ctm.inverse());
    const fx = (p.x - M) / C, fy = (p.y - M) / C;
    if (fx < 0 || fy < 0 || fx >= W || fy >= H) return null;
    return { fx, fy };
  }
  root.addEventListener('pointermove', (ev) => {
    pointer = toSquares(ev);
    paintPreview();
  });
  // A press re-reads the pointer: if the board moved under a still mouse (a
  // scroll, a panel growing), the preview catches up before the click, so
  // what is placed is what is drawn under the pointer when it is pressed.
  root.addEventListener('pointerdown', (ev) => {
    const p = toSquares(ev);
    if (!p || (pointer && p.fx === pointer.fx && p.fy === pointer.fy)) return;
    pointer = p;
    paintPreview();
  });
  root.addEventListener('pointerleave', () => { pointer = null; paintPreview(); });
  root.addEventListener('contextmenu', (ev) => {
    if (mine() && L.placements.length) { ev.preventDefault(); rotate(1); }
  });
  root.addEventListener('click', (ev) => {
    const p = toSquares(ev);
    if (!p || !mine()) return;
    const v = ctx.view;
    const sx = Math.floor(p.fx), sy = Math.floor(p.fy);
    const s = sqName(sx, sy);
    // Send what the preview shows when the click is inside it (click events
    // carry whole-pixel coordinates, pointer moves fractional ones).
    if (L.lots.length) {
      let l = shown && L.lots.includes(shown) ? shown : null;
      if (l) { const [x, y] = sqXY(l.sq); if (sx < x || sx >= x + lotW || sy < y || sy >= y + lotH) l = null; }
      if (!l) { pointer = p; l = previewLot(); }
      if (l) send(l.move);
      return;
    }
    if (L.placements.length) {
      let pl = shown && L.placements.includes(shown) && shown.squares.includes(s) ? shown : null;
      if (!pl) { pointer = p; pl = previewPlacement(); }
      if (pl) send(pl.move);
      else flashBar(touchScreen() ? t('It does not fit there this way round: tap a highlighted square, or turn it with ⟳.')
        : t('It does not fit there this way round: point at a highlighted square, or rotate (R).'));
      return;
    }
    pointer = p;
    if (L.own.size || L.neutral.size) {
      const k = kindFor(s, ev.shiftKey);
      if (k) send((k === 'own' ? L.own : L.neutral).get(s));
      return;
    }
    if (L.castle.length) {
      const q = castleSquareAt(v, s);
      if (!q) return;
      const fams = L.castle.filter((c) => c.n === q);
      if (!fams.length) return;
      const c = castleFam ? fams.find((x) => x.fam === castleFam) : fams.length === 1 || new Set(L.castle.map((x) => x.fam)).size === 1 ? fams[0] : null;
      if (c) send(c.move);
      else flashBar(t('Choose the colour of the castle piece first.'));
      return;
    }
    if (L.workersAt.size) {
      const o = occupied.get(s);
      if (o && o.kind === 'building' && L.workersAt.has(buildingFirst(o.b))) send(L.workersAt.get(buildingFirst(o.b)));
      else if (o && o.kind === 'lot' && L.workersAt.has('lot')) send(L.workersAt.get('lot'));
    }
  });
  document.addEventListener('keydown', (ev) => {
    if (ev.target && ['INPUT', 'SELECT', 'TEXTAREA'].includes(ev.target.tagName) && ev.target.type !== 'range') return;
    if ((ev.key === 'r' || ev.key === 'R') && !ev.ctrlKey && !ev.metaKey && mine() && L.placements.length) {
      ev.preventDefault();
      rotate(ev.shiftKey ? -1 : 1);
    }
    if (ev.key === 'Escape' && castleFam && mine()) { castleFam = null; paint(); }
  });

  function rotate(step) {
    orientPos += step;
    paintHighlights();
    paintPreview();
    paintBar();
  }

  function flashBar(text) {
    const n = bar.querySelector('.ark-bar-msg');
    if (n) { n.textContent = text; n.classList.add('flash'); setTimeout(() => n.classList.remove('flash'), 900); }
  }

  // ---- cards ----
  function cardNode(card, { onclick, cls = '', tag = null } = {}) {
    const [form, fam] = card.split(' ');
    const fm = forms.get(form);
    return el(`div.ark-card${onclick ? '.clickable' : ''}${cls}`, {
      'data-card': card, title: `${formTitle(form)} · ${famLabel(fam)}`, role: onclick ? 'button' : null, tabindex: onclick ? 0 : null,
      onclick: onclick || null, onkeydown: onclick ? (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onclick(); } } : null,
    },
    el(`div.band.fam-${fam}`, el('span', famLabel(fam))),
    el('div.pic', fm ? miniShape(fm.orientations[0].cells, fam) : null),
    el('div.name', formTitle(form)), tag ? el('div.tag', tag) : null);
  }

  // ---- the strip: values, castle pools, display, stack ----
  function paintStrip() {
    const v = ctx.view;
    clear(strip);
    const famNames = Object.fromEntries(board.families.map((f) => [f.id, familyTitle(f.name)]));
    strip.append(el('div.ark-strip-sec',
      el('h3', t('Family values')),
      el('div.ark-values', FAMILIES.map((f) => el('div.ark-value', { 'data-family': f, title: t('{colour}: {family} — a seal sells for {n} gold', { colour: famLabel(f), family: famNames[f], n: v.values[f] }) },
        el(`span.seal-dot.fam-${f}`), el('span.fname', famLabel(f), el('small', famNames[f])),
        el('span.pips', Array.from({ length: 10 }, (_, i) => el(`i${i < v.values[f] ? `.on.fam-${f}` : ''}`))),
        el('b.val', String(v.values[f])))))));
    const floorBuilt = v.castle.filter((c) => c.pieces.length >= v.floor).length;
    strip.append(el('div.ark-strip-sec',
      el('h3', t('Castle')),
      el('div.small.ark-floor-line', v.phase === 'over' ? t('The game is over.') : t('Building floor {floor}: {n} of 10 squares', { floor: v.floor, n: v.floor <= 3 ? floorBuilt : 0 }),
        v.trigger_turn !== null && v.phase !== 'over' ? el('div.ark-final', t('Final round: floor 2 is complete')) : null),
      el('div.ark-pools', [0, 1, 2].map((i) => el(`div.ark-pool${v.floor === i + 1 ? '.now' : ''}`, { 'data-floor': i + 1 },
        el('span.fl', t('Floor {n}', { n: i + 1 })),
        el('span.pcs', FAMILIES.map((f) => el('span.pc', { title: piecesWords(f, v.pools[i][f]) },
          el(`i.fam-${f}`), String(v.pools[i][f])))))))));
    const draw = mine() && (L.draws.size || L.drawStack);
    strip.append(el('div.ark-strip-sec',
      el('h3', t('Face-up cards')),
      el('div.ark-display', v.display.length ? v.display.map((c) => cardNode(c, {
        onclick: draw && L.draws.has(c) ? () => send(L.draws.get(c)) : null, cls: draw && L.draws.has(c) ? '.target' : '',
      })) : el('span.small.muted', t('none left'))),
      el('div.ark-stack-row',
        el(`div.ark-stack${draw && L.drawStack ? '.clickable.target' : ''}#ark-stack`, {
          title: t('the draw stack'), role: draw && L.drawStack ? 'button' : null,
          onclick: draw && L.drawStack ? () => send(L.drawStack) : null,
        }, el('span.n', String(v.stack)), el('span.l', tn('card', 'cards', v.stack))),
        el('div.small.muted', t('Draw stack'), el('br'), tn('{n} neutral worker in the pool', '{n} neutral workers in the pool', v.neutral_pool)))));
  }

  // ---- the decision bar ----
  function paintBar() {
    clear(bar);
    if (!mine()) { bar.hidden = true; return; }
    bar.hidden = false;
    const v = ctx.view;
    const parts = [];
    const msg = el('span.ark-bar-msg');
    if (L.placements.length) {
      const [form, fam] = v.card.split(' ');
      const fm = forms.get(form);
      const o = currentOrient();
      parts.push(el('span.ark-bar-card', cardNode(v.card, { cls: '.small' })),
        el('button.small#ark-rotate', { type: 'button', title: t('Next orientation (R, or right-click on the board)'), onclick: () => rotate(1) }, t('⟳ Rotate'), el('kbd', 'R')),
        el('div.ark-orients', L.orients.map((oi, i) => el(`button.small.orient${oi === o ? '.on' : ''}`, {
          type: 'button', 'data-orient': oi, title: t('orientation {i} of {n}', { i: i + 1, n: L.orients.length }),
          onclick: () => { orientPos = i; rotate(0); },
        }, miniShape(fm.orientations[oi].cells, fam, 8)))),
        msg);
      const places = L.placements.filter((p) => p.orient === o).length;
      msg.textContent = tn('{n} place in this orientation', '{n} places in this orientation', places);
    } else if (L.own.size || L.neutral.size || L.stop) {
      const me = v.seats[ctx.seat];
      const kind = effectiveKind();
      parts.push(el('div.ark-seg',
        el(`button.small${kind === 'own' ? '.on' : ''}#ark-kind-own`, { type: 'button', disabled: !L.own.size, onclick: () => { workerKind = 'own'; paint(); } },
          miniMeeple(me.colour), t('Own ({n})', { n: me.workers })),
        el(`button.small${kind === 'neutral' ? '.on' : ''}#ark-kind-neutral`, { type: 'button', disabled: !L.neutral.size, onclick: () => { workerKind = 'neutral'; paint(); } },
          miniMeeple('neutral'), t('Neutral ({n})', { n: me.neutral }))),
      el('button.small.primary#ark-stop', { type: 'button', disabled: !L.stop, onclick: () => send(L.stop) }, t('Stop placing workers')),
      msg);
      const other = touchScreen() ? '' : t('Shift-click places the other kind.');
      msg.textContent = v.placed ? `${tn('{n} placed this turn.', '{n} placed this turn.', v.placed)} ${other}`.trim() : other;
    } else if (L.castle.length) {
      const fams = FAMILIES.filter((f) => L.castle.some((c) => c.fam === f));
      const pool = v.pools[Math.min(2, v.floor - 1)];
      parts.push(el('span.small', v.castle_left > 1 ? t('Piece ({n} to place) from the floor {floor} pool:', { n: v.castle_left, floor: v.floor })
        : t('Piece from the floor {floor} pool:', { floor: v.floor })),
        el('div.ark-seg', fams.map((f) => el(`button.small.fam-btn${castleFam === f ? '.on' : ''}`, {
          type: 'button', 'data-castle-family': f, onclick: () => { castleFam = castleFam === f ? null : f; paint(); },
        }, el(`i.piece.fam-${f}`), `${famLabel(f)} ×${pool[f]}`))), msg);
      msg.textContent = forScreen(castleFam ? t('Now click a highlighted castle square for the {colour} piece.', { colour: famWord(castleFam) }) : t('Choose a colour, then a castle square.'));
    } else if (L.banner.yes || L.banner.no) {
      const me = v.seats[ctx.seat];
      parts.push(el('button.small.primary#ark-banner-yes', { type: 'button', disabled: !L.banner.yes, onclick: () => send(L.banner.yes) },
        t('⚑ Play a banner'), el('span.sub', tn('+2 workers, then sell seals ({n} left)', '+2 workers, then sell seals ({n} left)', me.banners))),
      el('button.small#ark-banner-no', { type: 'button', disabled: !L.banner.no, onclick: () => send(L.banner.no) }, t('Keep my banners')), msg);
    } else if (L.sells.length) {
      const fam = L.sells[0].fam;
      const max = Math.max(...L.sells.map((s) => s.n));
      if (saleFor !== `${ctx.n}`) { saleFor = `${ctx.n}`; saleAmount = max; }
      const value = v.values[fam];
      const out = el('b.ark-sale-gold');
      const num = el('span.ark-sale-n');
      const range = el('input#ark-sale-range', { type: 'range', min: 0, max, value: saleAmount, 'aria-label': t('{colour} seals to sell', { colour: famWord(fam) }) });
      const sync = () => {
        saleAmount = Number(range.value);
        num.textContent = t('{n} of {max}', { n: saleAmount, max });
        out.textContent = t('= {n} gold', { n: saleAmount * value });
      };
      range.addEventListener('input', sync);
      sync();
      parts.push(el('span.ark-sale-fam', el(`span.seal-dot.fam-${fam}`), t('Sell {colour} seals at {n} gold', { colour: famWord(fam), n: value })), range, num, out,
        el('button.small#ark-sale-none', { type: 'button', onclick: () => { range.value = 0; sync(); } }, t('None')),
        el('button.small#ark-sale-all', { type: 'button', onclick: () => { range.value = max; sync(); } }, t('All')),
        el('button.small.primary#ark-sell', { type: 'button', onclick: () => {
          const s = L.sells.find((x) => x.n === saleAmount);
          if (s) send(s.move);
        } }, t('Sell')));
    } else if (L.draws.size || L.drawStack) {
      parts.push(el('span.ark-bar-msg.ark-bar-said', touchScreen() ? t('Tap a face-up card or the draw stack.') : t('Click a face-up card or the draw stack (beside the board).')),
        // docked on a narrow screen, the bar holds the cards to take itself (CSS shows them only there)
        el('div.ark-bar-cards', v.display.filter((c) => L.draws.has(c)).map((c) => cardNode(c, { onclick: () => send(L.draws.get(c)), cls: '.ark-bar-card' })),
          L.drawStack ? el('button.ark-bar-stack', { type: 'button', onclick: () => send(L.drawStack) }, t('Draw stack ({n})', { n: v.stack })) : null));
    } else if (L.builds.length || L.workersAt.size) {
      parts.push(el('span.ark-bar-msg.ark-bar-said', forScreen(L.builds.length && L.workersAt.size
        ? t('Click a card of your hand to lay out its building, or a highlighted building to introduce workers.')
        : L.builds.length ? t('Click a card of your hand to lay out its building.') : t('Click a highlighted building to introduce workers.'))));
      // docked on a narrow screen, the bar holds the hand's playable cards (CSS shows them only there)
      if (L.builds.length) {
        parts.push(el('div.ark-bar-cards', L.builds.map((b) => cardNode(b.card, { onclick: () => send(b.move), cls: '.ark-bar-card' }))));
      }
    } else if (L.lots.length) {
      parts.push(el('span.ark-bar-msg.ark-bar-said', touchScreen() ? t('Tap the middle of the board where the middle of the castle lot goes.')
        : t('Point at the middle of the board and click where the castle lot goes.')));
    }
    if (L.other.length) {
      parts.push(el('div.ark-other', L.other.map((m) => el('button.small.legal-move', { type: 'button', 'data-move': m, onclick: () => send(m) }, m))));
    }
    bar.append(...parts);
  }

  function miniMeeple(colour) {
    return svg('svg', { class: 'ark-mini meeple', viewBox: '0 0 100 100', width: 14, height: 14, 'aria-hidden': 'true' },
      svg('path', { d: MEEPLE, fill: SEAT_COLOUR[colour], stroke: colour === 'neutral' ? '#8a7650' : 'rgba(0,0,0,.5)', 'stroke-width': 6 }));
  }

  // ---- panels below: the screens, the legend ----
  function sealCounts(seals, cls) {
    return el(`span.ark-seals${cls}`, FAMILIES.map((f) => el('span.sc', { title: sealsWords(f, seals[f]) }, el(`i.fam-${f}`), String(seals[f]))));
  }

  function paintScreens() {
    const v = ctx.view;
    clear(screensCard);
    const toggle = el('label.ark-toggle', { title: t('Seals, gold and workers behind the screens follow from public events; hide them to play from memory.') },
      el('input#ark-hide-others', { type: 'checkbox', checked: hideOthers || null, onchange: (e) => {
        hideOthers = e.target.checked;
        localStorage.setItem(HIDE_KEY, hideOthers ? '1' : '0');
        document.body.classList.toggle('ark-hide-others', hideOthers);
      } }), t('Hide opponents’ totals'));
    screensCard.append(el('div.card-head', el('h3', t('Behind the screens')), toggle));
    const masked = (k, node) => (k === ctx.seat ? node : [el('span.v', node), el('span.m', '•••')]);
    const rows = v.seats.map((s, k) => {
      const other = k !== ctx.seat;
      return el(`tr${v.to_move === k && v.phase !== 'over' ? '.to-move' : ''}${other ? '.ark-opp' : '.ark-me'}`, { 'data-seat': k },
        el('td', el('span.ark-colour', { style: `background:${SEAT_COLOUR[s.colour]}` }), ' ', el('b', ctxSeatName(k)), k === ctx.seat ? el('span.muted', ` ${t('(you)')}`) : null),
        el('td.num', { title: t('cards in hand') }, String(s.cards),
          s.seen && s.seen.length && other ? el('div.ark-seen', { title: t('cards everybody saw taken face up') }, s.seen.map((c) => el(`span.fam-${c.split(' ')[1]}`, formTitle(c.split(' ')[0])))) : null),
        el('td.num', masked(k, el('span', miniMeeple(s.colour), ` ${s.workers}`, el('span.muted', ' + '), miniMeeple('neutral'), ` ${s.neutral}`))),
        el('td.num', { title: t('own workers still in the general pool') }, String(s.pool)),
        el('td.num', { title: t('architect banners still hanging') }, el('span.ark-banners', Array.from({ length: board.workers.banners }, (_, i) => el(`i${i < s.banners ? `.on` : ''}`, { style: i < s.banners ? `background:${SEAT_COLOUR[s.colour]}` : null })))),
        el('td', masked(k, sealCounts(s.seals, ''))),
        el('td.num.gold', masked(k, el('span', `${s.gold}`))));
    });
    screensCard.append(el('table.ark-screens', el('thead', el('tr', [t('Player'), t('Cards'), t('Workers (own + neutral)'), t('Pool'), t('Banners'), t('Seals'), t('Gold')].map((h) => el('th', h)))),
      el('tbody', rows)));
  }

  let ctxSeatName = (k) => t('Player {n}', { n: k + 1 });

  function paintLegend() {
    if (legendCard.childElementCount) return;
    const icon = (...kids) => svg('svg', { class: 'ark-mini legend-icon', viewBox: '0 0 46 46', width: 30, height: 30, 'aria-hidden': 'true' }, ...kids);
    const rowsL = [
      [icon(svg('rect', { width: 46, height: 46, fill: '#c9d99b' }), svg('path', { d: 'M10 32 L23 12 L36 32 Z', fill: '#efe3c6', stroke: '#7a5d32', 'stroke-width': 1.5 }), svg('path', { d: 'M19 32 L23 22 L27 32 Z', fill: '#7a5d32' })), t('Tent camp: covering it with a building brings a neutral worker')],
      [icon(svg('rect', { x: 2, y: 2, width: 42, height: 42, rx: 4, fill: FAMILY.red.soft, stroke: FAMILY.red.dark, 'stroke-width': 2 }), seal(23, 23, 'red', 10)), t('Under construction: the seal lies on it')],
      [icon(svg('rect', { x: 2, y: 2, width: 42, height: 42, rx: 4, fill: FAMILY.olive.fill, stroke: FAMILY.olive.dark, 'stroke-width': 2 }), svg('circle', { cx: 23, cy: 23, r: 9, fill: '#fffdf6' }), svg('path', { d: 'M18.5 23 l3 3 l6 -6.5', fill: 'none', stroke: FAMILY.olive.dark, 'stroke-width': 2.2 })), t('Completed: enclosed on every side, paid out')],
      [icon(svg('rect', { x: 2, y: 2, width: 42, height: 42, rx: 4, fill: '#d7cfbf' }), svg('rect', { x: 6, y: 6, width: 34, height: 34, rx: 4, fill: FAMILY.black.fill }), svg('rect', { x: 12, y: 12, width: 22, height: 22, rx: 3, fill: FAMILY.silver.fill }), seal(23, 23, 'silver', 6)), t('Castle square: stacked pieces, the top seal counts')],
      [icon(meeple(23, 23, 'neutral', 34)), t('Neutral worker (beige): earns nobody anything')],
    ];
    legendCard.append(el('div.card-head', el('h3', t('Legend'))),
      el('div.ark-legend', rowsL.map(([i, words]) => el('div.row', i, el('span.small', words)))));
  }

  function paint() {
    if (!ctx) return;
    paintBoard();
    paintHighlights();
    paintPreview();
    paintStaged();
    paintStrip();
    paintBar();
    paintScreens();
    paintLegend();
    root.classList.toggle('my-turn', !!mine());
  }

  return {
    // What the page keeps in reach at the bottom of a narrow screen.
    actions() { return [bar]; },
    update(next) {
      const prevN = ctx ? ctx.n : -1;
      ctx = next;
      if (next.seats) ctxSeatName = (k) => (next.seats[k] ? displayName(next.seats[k].name) : t('Player {n}', { n: k + 1 }));
      if (next.n !== prevN || !next.yourTurn) { sent = false; staged = null; }
      L = next.yourTurn && next.legal ? parseLegal(next.legal, next.view) : null;
      lastMove.update(next);
      if (!L || next.view.card !== orientCard) { orientPos = 0; orientCard = L ? next.view.card : null; }
      if (next.n !== prevN) castleFam = L && L.castle.length && castleFam && L.castle.some((c) => c.fam === castleFam) ? castleFam : null;
      paint();
    },
    reset() { sent = false; staged = null; if (ctx) paint(); },
    preview(move) { staged = move; if (ctx) paintStaged(); },
    instruction(c) {
      const v = c.view;
      const fam = (x) => x.split(' ')[1], form = (x) => x.split(' ')[0];
      switch (v.phase) {
        case 'lot': return { headline: t('Place the castle lot'), detail: touchScreen()
          ? t('Tap the middle of the board where the middle of the 4 × 3 lot goes: it fits where it covers no tent camp.')
          : t('Point at the middle of the board: the 4 × 3 outline follows the pointer over the places where the lot fits without covering a tent camp. Click to place it.') };
        case 'action': {
          const canBuild = L && L.builds.length, canWork = L && L.workersAt.size;
          if (canBuild && canWork) return { headline: t('Lay out a building or introduce workers'), detail: t('Click a card of your hand to lay out its building, or click a highlighted building to put workers next to it.') };
          if (canBuild) return { headline: t('Lay out a building'), detail: t('Click a card of your hand: you then place its building on the board.') };
          return { headline: t('Introduce workers'), detail: t('Click a highlighted building to put workers next to it.') };
        }
        case 'place': return { headline: t('Lay out the {colour} {building}', { colour: famWord(fam(v.card)), building: formLower(form(v.card)) }), detail: touchScreen()
          ? t('Tap a highlighted square to lay it out there; the ⟳ button turns it first.')
          : t('Move the pointer over the highlighted squares: the outline follows it. Rotate with R, a right click or the ⟳ button under the board. Click to lay it out.') };
        case 'workers': return { headline: t('Place workers next to the building'), detail: v.placed
          ? t('Click a highlighted square for each worker (own or neutral, as chosen under the board). Stop when you are done.')
          : t('Click a highlighted square for each worker (own or neutral, as chosen under the board). At least one.') };
        case 'castle': return v.castle_left > 1
          ? { headline: t('Build the castle: {n} pieces', { n: v.castle_left }), detail: t('Your action completed buildings. Choose a colour from the floor {floor} pool under the board, then click a highlighted castle square.', { floor: v.floor }) }
          : { headline: t('Build the castle'), detail: t('Your action completed a building. Choose a colour from the floor {floor} pool under the board, then click a highlighted castle square.', { floor: v.floor }) };
        case 'draw': return { headline: t('Refill your hand'), detail: touchScreen() ? t('Tap one of the face-up cards or the draw stack.')
          : t('Click one of the face-up cards or the draw stack beside the board.') };
        case 'banner': return { headline: t('Use an architect banner?'), detail: v.action === 'skip'
          ? t('No card fits and no worker can be placed this turn. A banner brings 2 of your workers, and then you may sell seals at the current family values. At most one per turn.')
          : t('A banner brings 2 of your workers, and then you may sell seals at the current family values. At most one per turn.') };
        case 'sale': return { headline: t('Sell {colour} seals?', { colour: famWord(v.family) }), detail: t('Each {colour} seal is worth {n} gold now. Choose how many under the board.', { colour: famWord(v.family), n: v.values[v.family] }) };
        default: return { headline: t('Choose a decision'), detail: c.prompt || '' };
      }
    },
    youPanel(c) {
      const v = c.view;
      if (c.replay || c.seat === null || c.seat === undefined || !v.seats[c.seat]) return null;
      const me = v.seats[c.seat];
      const canBuild = mine() && L.builds.length;
      const hand = me.hand || [];
      return el('div.ark-you',
        el('div.ark-you-head',
          el('span.swatch', { style: `background:${SEAT_COLOUR[me.colour]}` }, miniMeeple(me.colour)),
          el('div', el('div.label', t('You play')), el('div.value#ark-your-colour', seatColourName(me.colour))),
          el('div.ark-you-gold', el('div.label', t('Gold')), el('div.value#ark-my-gold', String(me.gold)))),
        el('div.label', { style: 'margin-top:10px' }, t('Your hand ({n})', { n: hand.length })),
        el('div.ark-hand', hand.map((card) => {
          const b = canBuild ? L.builds.find((x) => x.card === card) : null;
          return cardNode(card, { onclick: b ? () => send(b.move) : null, cls: `.ark-hand-card${b ? '.target' : ''}` });
        }), v.card && c.seat === v.to_move && v.phase === 'place' ? cardNode(v.card, { cls: '.ark-hand-card.laying', tag: t('laying out') }) : null),
        el('div.ark-you-grid',
          el('div', el('div.label', { title: t('behind your screen') }, t('Workers')), el('div.value.small.nowrap', miniMeeple(me.colour), ` ${tn('{n} own', '{n} own', me.workers)}  `, miniMeeple('neutral'), ` ${tn('{n} neutral', '{n} neutral', me.neutral)}`)),
          el('div', el('div.label', t('Banners')), el('div.value.small#ark-my-banners', tn('{n} left', '{n} left', me.banners))),
          el('div', { style: 'grid-column: 1 / -1' }, el('div.label', t('Seals')), sealCounts(me.seals, '.big'))));
    },
    seatExtras(c, k) {
      const s = c.view.seats[k];
      if (!s) return null;
      const other = k !== c.seat;
      return el(`span.ark-extras${other ? '.ark-opp' : ''}`,
        el('span.ark-colour', { title: seatColourName(s.colour), style: `background:${SEAT_COLOUR[s.colour]}` }),
        el('span.ark-flag', { title: t('banners left') }, `⚑${s.banners}`),
        el('span.ark-gold', { title: t('gold') }, other ? [el('span.v', String(s.gold)), el('span.m', '•')] : String(s.gold)));
    },
    resultExtras(c, k, finalView) {
      const v = finalView || c.view;
      const s = v && v.seats ? v.seats[k] : null;
      return s ? [el('span.ark-colour', { style: `background:${SEAT_COLOUR[s.colour]}` }), ` ${seatColourName(s.colour)}`] : null;
    },
    // The decision as a sentence for the player about to make it (the
    // Confirm line); null for a decision it has no words for.
    sayMove(m) {
      let r;
      if (/^lot /.test(m)) return t('Place the castle lot on the highlighted squares.');
      if ((r = /^build (\S+) (\S+)$/.exec(m))) return t('Lay out your {colour} card to build {building}.', { colour: famWord(r[2]), building: aForm(r[1]) });
      if (/^[a-p]\d{1,2}(-[a-p]\d{1,2})+$/.test(m)) return t('Put the building on the highlighted squares.');
      if (m === 'workers lot') return t('Put workers down beside the castle lot.');
      if (/^workers /.test(m)) return t('Put workers down beside the highlighted building.');
      if (/^own /.test(m)) return t('Put one of your own workers on the highlighted square.');
      if (/^neutral /.test(m)) return t('Put a neutral worker on the highlighted square.');
      if (m === 'stop') return t('Stop putting workers down.');
      if ((r = /^castle (\w+) (\d+)$/.exec(m))) return t('Add {pieces} to the castle.', { pieces: piecesWords(r[1], Number(r[2])) });
      if (m === 'draw stack') return t('Draw the top card of the stack.');
      if ((r = /^draw (\S+) (\S+)$/.exec(m))) return t('Take the {colour} {building} card from the display.', { colour: famWord(r[2]), building: formLower(r[1]) });
      if (m === 'banner yes') return t('Hang an architect banner.');
      if (m === 'banner no') return t('Keep your banners.');
      if ((r = /^sell (\w+) (\d+)$/.exec(m))) return t('Sell {seals} for gold.', { seals: sealsWords(r[1], Number(r[2])) });
      return null;
    },
    formatMove(m) {
      let r;
      if ((r = /^lot (\S+)$/.exec(m))) return t('lot at {square}', { square: r[1] });
      if ((r = /^build (\S+) (\S+)$/.exec(m))) return t('lays {colour} {building}', { colour: famWord(r[2]), building: formLower(r[1]) });
      if (/^[a-p]\d{1,2}(-[a-p]\d{1,2})+$/.test(m)) return t('on {squares}', { squares: m.replace(/-/g, ' ') });
      if (m === 'workers lot') return t('workers by the castle lot');
      if ((r = /^workers (\S+)$/.exec(m))) return t('workers by {square}', { square: r[1] });
      if (m === 'stop') return t('stops placing workers');
      if ((r = /^own (\S+)$/.exec(m))) return t('own worker {square}', { square: r[1] });
      if ((r = /^neutral (\S+)$/.exec(m))) return t('neutral worker {square}', { square: r[1] });
      if ((r = /^castle (\w+) (\d+)$/.exec(m))) return t('castle {n} ← {colour}', { n: r[2], colour: famWord(r[1]) });
      if (m === 'draw stack') return t('draws from the stack');
      if ((r = /^draw (\S+) (\S+)$/.exec(m))) return t('takes {colour} {building}', { colour: famWord(r[2]), building: formLower(r[1]) });
      if (m === 'banner yes') return t('plays a banner');
      if (m === 'banner no') return t('keeps banners');
      if ((r = /^sell (\w+) (\d+)$/.exec(m))) return tn('sells {n} {colour}', 'sells {n} {colour}', Number(r[2]), { colour: famWord(r[1]) });
      return m;
    },
  };
}
