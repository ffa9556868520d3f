// khronos.js — the Khronos renderer: the three boards (Might, Faith, Reason)
// in SVG, two over two with the controls in the fourth corner: terrain,
// printed Hamlets, buildings as tiles of their family colour with their value
// and their owner's cube, ruins and renovation cubes, populate cubes in the
// slots of the civil tiles, domains as coloured outlines, the adventurers on
// their boards; beside them the turn track, your hand, the deck, the Hold'em
// display and the tiles in stock.
//
// Deciding by clicking.  Every gesture ends in a text of the server's legal
// list (docs/notation.md); nothing is sent that is not in it, and every
// highlight is derived from it:
//   build / upgrade  pick a tile in the palette, then a highlighted board
//                    (build: its squares are chosen next) or a highlighted
//                    building (upgrade); or click a building first, then a tile
//   squares, keep    click the marked top-left square of a block (one click
//                    lays it), or click highlighted squares until they fit
//                    exactly one legal placement; tiles are 1x1, 2x2 and 3x3
//                    blocks, named by their corners ("c4-d5")
//   travel           click one of your adventurers, then a highlighted board
//   populate, renovate, downsize, demolish   click the highlighted building
//   exchange, end    select cards in your hand, then the button
//   pay              click the surcharge cards in your hand
//   Hold'em swap     select one card of your hand, then a display card
// Decisions without a gesture (none today) fall back to buttons.
// For tests the root element carries data-phase, data-n, data-mine (this seat
// may click now) and data-mode; squares, buildings and pawns carry their
// board, squares, type, owner and cubes as data attributes.
//
// The last move (js/lastmove.js): the buildings it laid or changed and the
// adventurers it moved carry the class `last-move` (a gold edge) until the
// next decision, a demolished building leaves a dashed mark; on arrival a
// tile drops in with its shadow and a ripple fading out, once.  A decision
// staged for Confirm is drawn in the preview style (`staged-preview`): the
// tile where it would go, the building or the board it acts on.
import { clear, el, forScreen, svg, touchScreen } from '../common.js';
import { t, tn } from '../i18n.js';
import { lastMoveTracker } from '../lastmove.js';

export const SEAT_COLOURS = {
  red: '#d8443c', green: '#2f9d5a', blue: '#2459c9', white: '#f4f1ea', yellow: '#f3c623',
};
const SEAT_INK = { red: '#7e1d18', green: '#16532f', blue: '#0f2d70', white: '#6b665c', yellow: '#7a6000' };
export const FAMILY = {
  military: { fill: '#e0852a', dark: '#8f4c0e', light: '#f7d3ad', letter: 'm' },
  religious: { fill: '#c13f8f', dark: '#6f1a4f', light: '#f0c3de', letter: 'r' },
  civil: { fill: '#3f7fcc', dark: '#1c4680', light: '#c5daf3', letter: 'c' },
};
// Words are made when shown (the catalogue loads before the first paint);
// sentences that must agree with a building, a colour or a count are whole
// catalogue entries.
const famName = (f) => ({ military: t('Military'), religious: t('Religious'), civil: t('Civil') })[f] || f;
// a building's family inside a sentence ("Keep · military, value 2")
const famAdj = (f) => famName(f).toLocaleLowerCase();
function famCards(f, n) {
  switch (f) {
    case 'military': return tn('{n} military card', '{n} military cards', n);
    case 'religious': return tn('{n} religious card', '{n} religious cards', n);
    default: return tn('{n} civil card', '{n} civil cards', n);
  }
}
const boardName = (b) => ({ might: t('Might'), faith: t('Faith'), reason: t('Reason') })[b] || b;
const ageTitle = (b) => ({ might: t('Age of Might'), faith: t('Age of Faith'), reason: t('Age of Reason') })[b] || b;
const theAge = (b) => ({ might: t('the Age of Might'), faith: t('the Age of Faith'), reason: t('the Age of Reason') })[b] || b;
const boardActs = (b) => (b === 'reason' ? t('populate · renovate') : t('build · upgrade · demolish'));
const boardEarn = (b) => ({
  might: t('tax: top military building takes the civil power'),
  faith: t('tithe: top religious building takes the civil power'),
  reason: t('most cubes on civil tiles take military + religious power'),
})[b] || '';
const tileName = (x) => ({
  watchtower: t('Watchtower'), keep: t('Keep'), castle: t('Castle'), chapel: t('Chapel'), monastery: t('Monastery'),
  abbey: t('Abbey'), hamlet: t('Hamlet'), town: t('Town'), city: t('City'),
})[x] || x;
const tileLower = (x) => tileName(x).toLocaleLowerCase();
const aTile = (x) => ({
  watchtower: t('a Watchtower'), keep: t('a Keep'), castle: t('a Castle'), chapel: t('a Chapel'), monastery: t('a Monastery'),
  abbey: t('an Abbey'), hamlet: t('a Hamlet'), town: t('a Town'), city: t('a City'),
})[x] || x;
const colourName = (c) => ({ red: t('Red'), green: t('Green'), blue: t('Blue'), white: t('White'), yellow: t('Yellow') })[c] || c;
const colourWord = (c) => ({ red: t('red'), green: t('green'), blue: t('blue'), white: t('white'), yellow: t('yellow') })[c] || c;
const ecusWords = (n) => tn('{n} Ecu', '{n} Ecus', n);
const cubesWords = (n) => tn('{n} cube', '{n} cubes', n);
const cardsWords = (n) => tn('{n} card', '{n} cards', n);
const CARD_FAMILY = { m: 'military', r: 'religious', c: 'civil' };
const BOARDS = ['might', 'faith', 'reason'];
const BOARD_INFO = {
  might: { roman: 'I' },
  faith: { roman: 'II' },
  reason: { roman: 'III' },
};
const DOWN = { castle: 'keep', keep: 'watchtower', abbey: 'monastery', monastery: 'chapel' };
const DOMAIN_COLOURS = ['#1b7f79', '#6d4bb3', '#8a6a12', '#2f5f9e', '#9a3d2f', '#3f7a2c', '#7a3f73', '#4d5a68'];
const TERRAIN = {
  '.': { fill: 'url(#kh-plain)' },
  f: { fill: 'url(#kh-forest)' },
  m: { fill: 'url(#kh-mountain)' },
  '~': { fill: 'url(#kh-river)' },
  '/': { fill: 'url(#kh-plain)', half: 'url(#kh-forest)' },
  '^': { fill: 'url(#kh-forest)', half: 'url(#kh-mountain)' },
};
const terrainName = (k) => ({
  '.': t('Plain'), f: t('Forest'), m: t('Mountain'), '~': t('River'),
  '/': t('Plain + forest (counts as forest)'), '^': t('Forest + mountain (counts as mountain)'),
})[k] || t('Plain');

const Q = 40; // one square
const LM = 20; // row numbers
const HB = 50; // header: title and adventurers
const TM = 16; // column letters
const PAD = 6;

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const sortCards = (s) => [...s].sort((a, b) => 'mrc'.indexOf(a) - 'mrc'.indexOf(b)).join('');

function cardWords(s) {
  const n = { m: 0, r: 0, c: 0 };
  for (const ch of s) n[ch]++;
  return ['m', 'r', 'c'].filter((f) => n[f]).map((f) => famCards(CARD_FAMILY[f], n[f])).join(', ');
}

function loadCss() {
  if (document.querySelector('link[data-khronos-css]')) return;
  document.head.append(el('link', { rel: 'stylesheet', href: '/css/khronos.css', 'data-khronos-css': true }));
}

// ---- board geometry (tb_board_json) ----

function geometry(board) {
  const b = board && board.width ? board : {
    width: 12, height: 10, terrain: Array.from({ length: 10 }, () => '.'.repeat(12)), printed_hamlets: [], tiles: [],
  };
  const W = b.width, H = b.height;
  const name = (i) => `${String.fromCharCode(97 + (i % W))}${Math.floor(i / W) + 1}`;
  const index = (s) => (Number(s.slice(1)) - 1) * W + (s.charCodeAt(0) - 97);
  // a tile's squares from its name (docs/notation.md): "c4", a block by its
  // corners "c4-d5", or any other shape's squares joined by '+'
  const cells = (at) => {
    const r = /^([a-z]\d+)-([a-z]\d+)$/.exec(at);
    if (!r) return at.split('+').map(index).sort((x, y) => x - y);
    const a = index(r[1]), z = index(r[2]), out = [];
    for (let row = Math.floor(a / W); row <= Math.floor(z / W); row++) {
      for (let col = a % W; col <= z % W; col++) out.push(row * W + col);
    }
    return out;
  };
  // ...and back: the canonical name of sorted squares
  const placeName = (cs) => {
    if (cs.length === 1) return name(cs[0]);
    const a = cs[0], z = cs[cs.length - 1];
    const w = (z % W) - (a % W) + 1, h = Math.floor(z / W) - Math.floor(a / W) + 1;
    const block = w > 0 && w * h === cs.length && cs.every((c) => c % W >= a % W && c % W <= z % W);
    return block ? `${name(a)}-${name(z)}` : cs.map(name).join('+');
  };
  const tiles = {};
  for (const t of b.tiles) tiles[t.name] = t;
  const fallback = {
    watchtower: ['military', 1, 0], keep: ['military', 2, 1], castle: ['military', 3, 2],
    chapel: ['religious', 1, 0], monastery: ['religious', 2, 1], abbey: ['religious', 3, 2],
    hamlet: ['civil', 1, 0], town: ['civil', 2, 0], city: ['civil', 3, 0],
  };
  for (const [n, [family, size, renovation]] of Object.entries(fallback)) {
    if (!tiles[n]) tiles[n] = { name: n, family, size, renovation, count: 0 };
  }
  return {
    W, H, name, index, cells, placeName, tiles,
    terrain: (i) => b.terrain[Math.floor(i / W)][i % W],
    hamlets: (b.printed_hamlets || []).map(index),
    surcharge: b.surcharge || null,
    bw: LM + W * Q + PAD, bh: HB + TM + H * Q + PAD,
    cx: (i) => LM + (i % W) * Q, cy: (i) => HB + TM + Math.floor(i / W) * Q,
  };
}

// The union of a tile's squares as one path: each square inset by `m` on
// the sides that face outside the tile, convex corners rounded, concave
// corners notched, so that stroke-below + fill-above draws a clean outline.
function tilePath(G, cells, m, r) {
  const has = new Set(cells);
  const at = (i, dc, dr) => {
    const c = (i % G.W) + dc, rw = Math.floor(i / G.W) + dr;
    return c >= 0 && c < G.W && rw >= 0 && rw < G.H && has.has(rw * G.W + c);
  };
  const f = (x) => Number(x.toFixed(2));
  let d = '';
  for (const i of cells) {
    const X = G.cx(i), Y = G.cy(i);
    const n = at(i, 0, -1), s = at(i, 0, 1), w = at(i, -1, 0), e = at(i, 1, 0);
    const L = X + (w ? 0 : m), R = X + Q - (e ? 0 : m), T = Y + (n ? 0 : m), B = Y + Q - (s ? 0 : m);
    const corners = [
      { p: [L, T], a: [0, -1], b: [1, 0], s1: n, s2: w, diag: at(i, -1, -1) },
      { p: [R, T], a: [1, 0], b: [0, 1], s1: n, s2: e, diag: at(i, 1, -1) },
      { p: [R, B], a: [0, 1], b: [-1, 0], s1: s, s2: e, diag: at(i, 1, 1) },
      { p: [L, B], a: [-1, 0], b: [0, -1], s1: s, s2: w, diag: at(i, -1, 1) },
    ];
    const parts = corners.map((c) => {
      const [px, py] = c.p;
      if (!c.s1 && !c.s2) {
        return { entry: [px - c.a[0] * r, py - c.a[1] * r], exit: [px + c.b[0] * r, py + c.b[1] * r], arc: true };
      }
      if (c.s1 && c.s2 && !c.diag && m > 0) {
        const en = [px - c.a[0] * m, py - c.a[1] * m];
        return { entry: en, mid: [en[0] + c.b[0] * m, en[1] + c.b[1] * m], exit: [px + c.b[0] * m, py + c.b[1] * m] };
      }
      return { entry: [px, py], exit: [px, py] };
    });
    d += `M${f(parts[0].exit[0])} ${f(parts[0].exit[1])}`;
    for (let k = 1; k <= 4; k++) {
      const c = parts[k % 4];
      d += `L${f(c.entry[0])} ${f(c.entry[1])}`;
      if (c.arc) d += `A${r} ${r} 0 0 1 ${f(c.exit[0])} ${f(c.exit[1])}`;
      else if (c.mid) d += `L${f(c.mid[0])} ${f(c.mid[1])}L${f(c.exit[0])} ${f(c.exit[1])}`;
    }
    d += 'Z';
  }
  return d;
}

// ---- pieces ----

const ICONS = {
  military: 'M-7 8V-3H-8V-9H-4.6V-6.2H-1.7V-9H1.7V-6.2H4.6V-9H8V-3H7V8H2V3.5A2 2 0 0 0 -2 3.5V8Z',
  religious: 'M-7 8V-2L0 -7.5L7 -2V8H2.2V3A2.2 2.2 0 0 0 -2.2 3V8ZM-1 -7.5V-13H1V-7.5ZM-3 -11.2H3V-9.4H-3Z',
  civil: 'M-8 8V-1.5L0 -8.5L5 -4.1V-8H7.5V-1.9L8 -1.5V8H2.3V2.5H-2.3V8Z',
};

function icon(family, x, y, scale, fill, opacity = 1) {
  return svg('path', { d: ICONS[family], transform: `translate(${x} ${y}) scale(${scale})`, fill, opacity, class: 'kh-icon' });
}

// A player's cube, seen from above at an angle, centred on (x, y).
function cube(x, y, colour, s = 6, extra = '') {
  const fill = SEAT_COLOURS[colour] || '#999';
  const ink = SEAT_INK[colour] || '#333';
  return svg('g', { class: `kh-cube ${extra}`.trim(), transform: `translate(${x} ${y})`, 'data-colour': colour },
    svg('path', { d: `M${-s} ${-s * 0.45}L0 ${-s}L${s} ${-s * 0.45}L${s} ${s * 0.55}L0 ${s}L${-s} ${s * 0.55}Z`, fill, stroke: ink, 'stroke-width': 1, 'stroke-linejoin': 'round' }),
    svg('path', { d: `M${-s} ${-s * 0.45}L0 ${-s}L${s} ${-s * 0.45}L0 ${s * 0.1}Z`, fill: '#fff', opacity: 0.35 }),
    svg('path', { d: `M0 ${s * 0.1}L${s} ${-s * 0.45}L${s} ${s * 0.55}L0 ${s}Z`, fill: '#000', opacity: 0.18 }),
    svg('path', { d: `M0 ${s * 0.1}V${s}`, stroke: ink, 'stroke-width': 0.8, opacity: 0.6 }));
}

const MEEPLE = 'M0 -11C2.7 -11 4.2 -9.2 4.2 -7.1C4.2 -5.8 3.6 -4.8 2.8 -4.2L8.4 -2.3C10 -1.7 10.3 0.6 8.9 1.5L4.3 3.1L7.4 9.3C7.9 10.3 7.3 11 6.4 11H1.9L0 7.3L-1.9 11H-6.4C-7.3 11 -7.9 10.3 -7.4 9.3L-4.3 3.1L-8.9 1.5C-10.3 0.6 -10 -1.7 -8.4 -2.3L-2.8 -4.2C-3.6 -4.8 -4.2 -5.8 -4.2 -7.1C-4.2 -9.2 -2.7 -11 0 -11Z';

function defs() {
  const pattern = (id, size, ...kids) => svg('pattern', { id, width: size, height: size, patternUnits: 'userSpaceOnUse' }, ...kids);
  return svg('svg', { width: 0, height: 0, style: 'position:absolute', 'aria-hidden': 'true' }, svg('defs', {},
    pattern('kh-plain', 40, svg('rect', { width: 40, height: 40, fill: '#dfe3b3' }),
      svg('path', { d: 'M7 11l1.2-3M9 11l-.6-2.8M27 30l1.2-3M29 30l-.6-2.8M30 9l1-2.5', stroke: '#b9bf85', 'stroke-width': 1.1, 'stroke-linecap': 'round' })),
    pattern('kh-forest', 40, svg('rect', { width: 40, height: 40, fill: '#86ad6b' }),
      svg('path', { d: 'M10 5l5 9h-10zM29 18l5 9h-10zM12 25l4 7.5h-8z', fill: '#4f7f3d' }),
      svg('path', { d: 'M10 14v2.4M29 27v2.4M12 32.5v2', stroke: '#5b3f1f', 'stroke-width': 1.3 })),
    pattern('kh-mountain', 40, svg('rect', { width: 40, height: 40, fill: '#c2b6a0' }),
      svg('path', { d: 'M3 17l7-10 7 10M22 34l8-12 8 12', fill: 'none', stroke: '#857a66', 'stroke-width': 1.7, 'stroke-linejoin': 'round' }),
      svg('path', { d: 'M8 10l2-3 2 3M28 25l2-3 2 3', fill: 'none', stroke: '#f7f3ea', 'stroke-width': 1.3 })),
    svg('pattern', { id: 'kh-river', width: 40, height: 20, patternUnits: 'userSpaceOnUse' },
      svg('rect', { width: 40, height: 20, fill: '#86bcd8' }),
      svg('path', { d: 'M0 10q5-4 10 0t10 0t10 0t10 0', fill: 'none', stroke: '#a9d2e6', 'stroke-width': 1.4 })),
    svg('pattern', { id: 'kh-ruin', width: 7, height: 7, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      svg('rect', { width: 7, height: 7, fill: '#a59d90' }),
      svg('path', { d: 'M0 0V7', stroke: '#8d8578', 'stroke-width': 2.6 })),
    svg('filter', { id: 'kh-lift', x: '-20%', y: '-20%', width: '140%', height: '140%' },
      svg('feDropShadow', { dx: 0, dy: 1.3, stdDeviation: 1.1, 'flood-opacity': 0.35 })),
    svg('linearGradient', { id: 'kh-sheen', x1: 0, y1: 0, x2: 0, y2: 1 },
      svg('stop', { offset: '0%', 'stop-color': '#fff', 'stop-opacity': 0.28 }),
      svg('stop', { offset: '55%', 'stop-color': '#fff', 'stop-opacity': 0 }),
      svg('stop', { offset: '100%', 'stop-color': '#000', 'stop-opacity': 0.12 }))));
}

// ---- the legal decisions, parsed ----

function parseLegal(legal) {
  const L = {
    any: !!(legal && legal.length), swap: [], exchange: new Set(), travel: [], build: [], upgrade: [], demolish: [],
    populate: [], renovate: [], squares: [], pay: [], downsize: [], end: new Set(), other: [],
  };
  for (const m of legal || []) {
    let r;
    if ((r = /^swap ([mrc]) for ([mrc])$/.exec(m))) L.swap.push({ give: r[1], take: r[2], move: m });
    else if ((r = /^exchange ([mrc]+)$/.exec(m))) L.exchange.add(r[1]);
    else if ((r = /^travel (might|faith|reason) (might|faith|reason)(?: (\d+))?$/.exec(m))) {
      L.travel.push({ from: r[1], to: r[2], n: r[3] === undefined ? null : Number(r[3]), move: m });
    } else if ((r = /^build (might|faith|reason) ([a-z]+)$/.exec(m))) L.build.push({ board: r[1], type: r[2], move: m });
    else if ((r = /^upgrade (might|faith|reason) ([a-z]\d+) ([a-z]+)$/.exec(m))) L.upgrade.push({ board: r[1], sq: r[2], type: r[3], move: m });
    else if ((r = /^demolish (might|faith|reason) ([a-z]\d+)$/.exec(m))) L.demolish.push({ board: r[1], sq: r[2], move: m });
    else if ((r = /^populate ([a-z]\d+)$/.exec(m))) L.populate.push({ board: 'reason', sq: r[1], move: m });
    else if ((r = /^renovate ([a-z]\d+)$/.exec(m))) L.renovate.push({ board: 'reason', sq: r[1], move: m });
    else if ((r = /^pay ([mrc]+)$/.exec(m))) L.pay.push({ cards: r[1], move: m });
    else if ((r = /^downsize (might|faith|reason) ([a-z]\d+)$/.exec(m))) L.downsize.push({ board: r[1], sq: r[2], move: m });
    else if (m === 'end') L.end.add('');
    else if ((r = /^end discard ([mrc]+)$/.exec(m))) L.end.add(r[1]);
    else if (/^[a-z]\d+(-[a-z]\d+|(\+[a-z]\d+)*)$/.test(m)) L.squares.push({ move: m });
    else L.other.push(m);
  }
  return L;
}

// ---- the renderer ----

export function create({ boardEl, panelsEl, board, decide, seatName, changed }) {
  loadCss();
  const G = geometry(board);
  const nameOf = (k) => (seatName ? seatName(k) : t('Player {n}', { n: k + 1 }));

  // ---- static structure ----
  const root = el('div.kh-root');
  const grid = el('div.kh-grid');
  root.append(defs(), grid);
  boardEl.append(root);

  const B = {}; // board -> {wrap, svg, layers..., hit: Map sq -> rect}
  for (const b of BOARDS) {
    const info = BOARD_INFO[b];
    const s = svg('svg', { viewBox: `0 0 ${G.bw} ${G.bh}`, class: 'kh-svg', role: 'img', 'aria-label': t('{age} board', { age: ageTitle(b) }) });
    const header = svg('g', { class: 'kh-header' });
    header.append(
      svg('rect', { class: 'kh-header-hit', x: 0, y: 0, width: G.bw, height: HB, fill: 'transparent' }),
      svg('text', { class: 'kh-roman', x: LM + 28, y: 25, 'text-anchor': 'end' }, info.roman),
      svg('text', { class: 'kh-title', x: LM + 36, y: 25 }, ageTitle(b)),
      svg('text', { class: 'kh-sub', x: LM + 36, y: 41 }, boardActs(b)));
    const coords = svg('g', { class: 'kh-coords' });
    for (let c = 0; c < G.W; c++) coords.append(svg('text', { x: LM + c * Q + Q / 2, y: HB + TM - 4, 'text-anchor': 'middle' }, String.fromCharCode(97 + c)));
    for (let r = 0; r < G.H; r++) coords.append(svg('text', { x: LM - 5, y: HB + TM + r * Q + Q / 2 + 4, 'text-anchor': 'end' }, String(r + 1)));
    const terrain = svg('g', { class: 'kh-terrain' });
    for (let i = 0; i < G.W * G.H; i++) {
      const ter = TERRAIN[G.terrain(i)] || TERRAIN['.'];
      const x = G.cx(i), y = G.cy(i);
      terrain.append(svg('rect', { x, y, width: Q, height: Q, fill: ter.fill }));
      if (ter.half) terrain.append(svg('path', { d: `M${x + Q} ${y}L${x + Q} ${y + Q}L${x} ${y + Q}Z`, fill: ter.half }));
    }
    terrain.append(svg('rect', { class: 'kh-grid-frame', x: LM, y: HB + TM, width: G.W * Q, height: G.H * Q }));
    const lines = [];
    for (let c = 1; c < G.W; c++) lines.push(`M${LM + c * Q} ${HB + TM}v${G.H * Q}`);
    for (let r = 1; r < G.H; r++) lines.push(`M${LM} ${HB + TM + r * Q}h${G.W * Q}`);
    terrain.append(svg('path', { class: 'kh-gridlines', d: lines.join('') }));
    const domains = svg('g', { class: 'kh-domains' });
    const buildings = svg('g', { class: 'kh-buildings' });
    const overlay = svg('g', { class: 'kh-overlay' });
    const ghost = svg('g', { class: 'kh-ghost' });
    const hitLayer = svg('g', { class: 'kh-hits' });
    const pawns = svg('g', { class: 'kh-pawns' });
    const hit = new Map();
    for (let i = 0; i < G.W * G.H; i++) {
      const r = svg('rect', { class: 'kh-sq', x: G.cx(i), y: G.cy(i), width: Q, height: Q, 'data-board': b, 'data-sq': G.name(i) },
        svg('title', { text: `${boardName(b)} ${G.name(i)} · ${terrainName(G.terrain(i))}` }));
      hit.set(i, r);
      hitLayer.append(r);
    }
    s.append(terrain, coords, header, domains, buildings, overlay, ghost, hitLayer, pawns);
    const wrap = el('div.kh-board', { 'data-board': b }, s);
    s.addEventListener('click', (ev) => onBoardClick(b, ev));
    s.addEventListener('mouseover', (ev) => {
      const t = ev.target.closest && ev.target.closest('[data-sq]');
      const sq = t ? G.index(t.getAttribute('data-sq')) : null;
      if (hover.board !== b || hover.sq !== sq) { hover = { board: b, sq }; paintGhost(); }
    });
    s.addEventListener('mouseleave', () => { hover = { board: null, sq: null }; paintGhost(); });
    B[b] = { wrap, svg: s, header, domains, buildings, overlay, ghost, hit, pawns };
  }
  const controls = el('div.kh-controls');
  let actSec = null; // the hint and the buttons (End turn …): the page docks them at the bottom on phones
  // The hand and the buildings: in the controls on wide screens (the drawer
  // is then invisible to layout); docked at the bottom on phones, behind a
  // toggle, so they are in reach without scrolling past the three boards.
  const drawer = el('div.kh-drawer');
  let drawerOpen = null; // null: not chosen by the player (open when cards must be clicked)
  grid.append(B.might.wrap, B.faith.wrap, B.reason.wrap, controls);

  // panels below the board: scoring and legend
  const scoreCard = el('div.card.kh-score-card');
  const legendCard = el('div.card.kh-legend-card');
  panelsEl.append(scoreCard, legendCard);

  // ---- interaction state ----
  let ctx = null, L = parseLegal(null), sent = false;
  let mode = null; // {kind:'type',type} | {kind:'building',board,sq} | {kind:'travel',from} | {kind:'travelN',from,to} | {kind:'demolish'}
  let sel = []; // squares chosen (indices) in the squares / keep phases
  let handSel = []; // indices into the hand
  let hover = { board: null, sq: null };
  let prevN = -1;
  let staged = null; // a decision waiting for the player's Confirm (game.js), drawn on the boards
  // What a move changed, as keys: buildingKey() of a building laid or
  // changed, `gone|BOARD|AT` of one removed, `pawn|SEAT|BOARD` of an
  // adventurer arrived on a board.
  const rawBuildings = (v) => BOARDS.flatMap((b) => (v.boards[b] || []).map((x) => ({ ...x, board: b })));
  function changedKeys(before, view) {
    const old = new Set(rawBuildings(before).map(buildingKey));
    const now = rawBuildings(view);
    const out = now.map(buildingKey).filter((k) => !old.has(k));
    for (const x of rawBuildings(before)) {
      const cells = G.cells(x.at);
      if (!now.some((y) => y.board === x.board && G.cells(y.at).some((c) => cells.includes(c)))) out.push(`gone|${x.board}|${x.at}`);
    }
    (view.pawns || []).forEach((list, k) => {
      const was = [...((before.pawns || [])[k] || [])];
      for (const b of list) {
        const i = was.indexOf(b);
        if (i >= 0) was.splice(i, 1); else out.push(`pawn|${k}|${b}`);
      }
    });
    return out;
  }
  // Without the position before: the building the decision's text names.
  function namedKeys(last, view) {
    const m = last.move;
    let r, board = null, sq = null;
    if ((r = /^(?:upgrade|downsize) (might|faith|reason) ([a-z]\d+)/.exec(m))) { board = r[1]; sq = r[2]; }
    else if ((r = /^(?:populate|renovate) ([a-z]\d+)$/.exec(m))) { board = 'reason'; sq = r[1]; }
    else if ((r = /^travel (?:might|faith|reason) (might|faith|reason)/.exec(m))) return [`pawn|${last.seat}|${r[1]}`];
    else if (/^[a-z]\d+(-[a-z]\d+|(\+[a-z]\d+)*)$/.test(m)) sq = m.split(/[-+]/)[0];
    if (sq === null) return [];
    const c = G.index(sq);
    const x = rawBuildings(view).find((y) => (board === null || y.board === board) && G.cells(y.at).includes(c));
    return x ? [buildingKey(x)] : [];
  }
  const lastMove = lastMoveTracker({ diff: changedKeys, fromText: namedKeys });
  let layout = null; // per board: {list: buildings, occ: Map square -> building, domains}

  function send(move) {
    if (sent || !ctx || !ctx.yourTurn) return false;
    if (!ctx.legal || !ctx.legal.includes(move)) return false;
    if (decide(move)) {
      sent = true;
      mode = null; sel = []; handSel = [];
      drawerOpen = null; // a decision made: the drawer goes back to opening itself when cards are needed
      paint();
      return true;
    }
    return false;
  }

  const myTurn = () => !!(ctx && ctx.yourTurn && !sent && !ctx.replay);
  const phase = () => (ctx && ctx.view ? ctx.view.phase : null);
  const hand = () => (ctx && ctx.view && typeof ctx.view.hand === 'string' ? ctx.view.hand : null);
  const selectedCards = () => { const h = hand() || ''; return sortCards(handSel.map((i) => h[i]).join('')); };

  // ---- the boards' contents ----

  function buildLayout(v) {
    const out = {};
    for (const b of BOARDS) {
      const list = (v.boards[b] || []).map((x) => ({ ...x, board: b, cells: G.cells(x.at) }));
      const covered = new Set(list.flatMap((x) => x.cells));
      for (const h of G.hamlets) {
        if (!covered.has(h)) list.push({ type: 'hamlet', at: G.name(h), printed: true, implied: true, board: b, cells: [h] });
      }
      const occ = new Map();
      for (const x of list) for (const c of x.cells) occ.set(c, x);
      // domains: connected groups of buildings (orthogonal adjacency)
      const parent = new Map(list.map((x) => [x, x]));
      const find = (x) => { while (parent.get(x) !== x) x = parent.get(x); return x; };
      for (const x of list) {
        for (const c of x.cells) {
          const col = c % G.W;
          for (const n of [c - G.W, c + G.W, col > 0 ? c - 1 : -1, col < G.W - 1 ? c + 1 : -1]) {
            const y = n >= 0 ? occ.get(n) : null;
            if (y && y !== x) parent.set(find(x), find(y));
          }
        }
      }
      const groups = new Map();
      for (const x of list) {
        const r = find(x);
        if (!groups.has(r)) groups.set(r, []);
        groups.get(r).push(x);
      }
      const domains = [];
      for (const members of groups.values()) {
        const cells = members.flatMap((x) => x.cells);
        const key = Math.min(...cells);
        const power = { military: 0, religious: 0, civil: 0 };
        for (const x of members) {
          const t = G.tiles[x.type];
          if (!t) continue;
          if (!(x.ruin)) power[t.family] += t.size;
        }
        const d = { key, name: G.name(key), members, cells, power };
        domains.push(d);
        for (const x of members) x.domain = d;
      }
      out[b] = { list, occ, domains };
    }
    return out;
  }

  function buildingKey(x) {
    return [x.board, x.at, x.type, x.owner ?? '', x.ruin ? 'R' : '', x.renovation ?? '', (x.cubes || []).join('.')].join('|');
  }

  function describe(x) {
    const tile = G.tiles[x.type];
    const parts = [t('{tile} · {family}, value {n}', { tile: tileName(x.type), family: famAdj(tile.family), n: tile.size })];
    if (x.printed) parts.push(t('printed Hamlet'));
    if (x.owner !== undefined && x.owner !== null) parts.push(t('{player}’s ({colour} cube)', { player: nameOf(x.owner), colour: colourWord(ctx.view.colours[x.owner]) }));
    if (x.ruin) parts.push(t('ruin: renovate with {cards}', { cards: famCards(tile.family, tile.renovation) }));
    if (x.renovation !== undefined && x.renovation !== null) parts.push(t('half renovated by {player}', { player: nameOf(x.renovation) }));
    if (x.board === 'reason' && tile.family === 'civil') {
      const cubes = x.cubes || [];
      const filled = t('{n}/{size} cubes', { n: cubes.length, size: tile.size });
      parts.push(cubes.length ? `${filled} (${cubes.map((k) => colourWord(ctx.view.colours[k])).join(', ')})` : filled);
    }
    const d = x.domain;
    if (d && d.members.length > 1) parts.push(t('domain {name}: military {m}, religious {r}, civil {c}', { name: d.name, m: d.power.military, r: d.power.religious, c: d.power.civil }));
    return `${boardName(x.board)} ${x.at} · ${parts.join(' · ')}`;
  }

  // Where a tile's emblem and cubes go: the square with most neighbours in the tile.
  function spots(cells) {
    const has = new Set(cells);
    const deg = (c) => [c - G.W, c + G.W, c - 1, c + 1].filter((n) => has.has(n) && (Math.abs((n % G.W) - (c % G.W)) <= 1)).length;
    const main = cells.slice().sort((a, b) => deg(b) - deg(a) || a - b)[0];
    const others = cells.filter((c) => c !== main);
    return { main, others };
  }

  function drawBuilding(x, v) {
    const t = G.tiles[x.type];
    const fam = FAMILY[t.family];
    const entering = lastMove.enters(buildingKey(x));
    const g = svg('g', {
      style: entering ? lastMove.enterStyle() : null,
      class: `kh-bld fam-${t.family}${x.ruin ? ' ruin' : ''}${x.printed ? ' printed' : ''}${lastMove.has(buildingKey(x)) ? ` last-move${entering ? ' last-move-enter' : ''}` : ''}`,
      'data-board': x.board, 'data-at': x.at, 'data-cells': x.cells.map(G.name).join(' '), 'data-type': x.type,
      'data-owner': x.owner ?? '', 'data-cubes': (x.cubes || []).join(','), 'data-ruin': x.ruin ? '1' : '',
      'data-renovation': x.renovation ?? '',
    });
    const d = tilePath(G, x.cells, 3.5, 6);
    const fill = x.ruin ? 'url(#kh-ruin)' : x.printed ? fam.light : fam.fill;
    const stroke = x.ruin ? fam.fill : fam.dark;
    g.append(svg('title', { text: describe(x) }),
      svg('path', { d, fill: 'rgba(40, 28, 10, .28)', transform: 'translate(0.8 1.8)', class: 'kh-tile-shadow' }),
      svg('path', { d, fill: 'none', stroke, 'stroke-width': x.printed ? 3 : 3.4, class: 'kh-tile-edge', 'stroke-dasharray': x.ruin ? '5 3' : null }),
      svg('path', { d, fill, class: 'kh-tile-body' }));
    if (!x.ruin && !x.printed) g.append(svg('path', { d, fill: 'url(#kh-sheen)', 'pointer-events': 'none' }));
    // a tile just laid: a ripple spreads from it and fades (once, on arrival)
    if (entering) g.append(svg('path', { d, class: 'kh-ripple', stroke: fam.dark }));
    const { main, others } = spots(x.cells);
    const mx = G.cx(main) + Q / 2, my = G.cy(main) + Q / 2;
    const iconFill = x.ruin ? fam.dark : x.printed ? fam.fill : '#fffdf7';
    g.append(icon(t.family, mx + 1.5, my - 1, 1.05, iconFill, x.ruin ? 0.55 : 1));
    // the value (size, cost, Ecus) in the lower left corner
    g.append(svg('g', { class: 'kh-value', transform: `translate(${G.cx(main) + 10} ${G.cy(main) + Q - 10})` },
      svg('circle', { r: 6.2, fill: x.ruin ? '#f1ece2' : '#fffdf7', stroke: fam.dark, 'stroke-width': 1 }),
      svg('text', { y: 3.3, 'text-anchor': 'middle', fill: fam.dark }, String(t.size))));
    // cubes: the owner's, a renovation marker, or populate slots
    const free = others.length ? others : [main];
    const slotAt = (k) => {
      const c = free[k % free.length];
      const inMain = c === main;
      return inMain ? [G.cx(c) + Q - 10, G.cy(c) + Q - 10] : [G.cx(c) + Q / 2, G.cy(c) + Q / 2];
    };
    if (x.owner !== undefined && x.owner !== null) {
      const [px, py] = slotAt(0);
      g.append(svg('circle', { cx: px, cy: py, r: 8.5, class: 'kh-socket' }), cube(px, py, v.colours[x.owner], 6, 'owner'));
    }
    if (x.ruin) {
      const [px, py] = slotAt(0);
      if (x.renovation !== undefined && x.renovation !== null) {
        g.append(svg('circle', { cx: px, cy: py, r: 8.5, class: 'kh-socket' }), cube(px, py, v.colours[x.renovation], 6, 'renovation'));
      } else {
        // the renovation cost: N cards of the family
        g.append(svg('g', { class: 'kh-ruin-cost', transform: `translate(${px} ${py})` },
          Array.from({ length: t.renovation }, (_, k) => svg('rect', {
            x: -6 + k * 5 - (t.renovation - 1) * 2.5, y: -7 + k * 1.5, width: 9, height: 12.5, rx: 1.6,
            fill: fam.fill, stroke: '#fffdf7', 'stroke-width': 1.2,
          }))));
      }
    }
    if (x.board === 'reason' && t.family === 'civil') {
      const cubes = x.cubes || [];
      // the tile's capacity as sockets, filled by the cubes on it
      const n = t.size;
      const cells = free;
      for (let k = 0; k < n; k++) {
        let px, py;
        if (n === 1) { px = G.cx(main) + Q - 10; py = G.cy(main) + Q - 10; } else {
          const c = cells[Math.floor((k * cells.length) / n)];
          const same = Array.from({ length: n }, (_, j) => j).filter((j) => cells[Math.floor((j * cells.length) / n)] === c);
          const pos = same.indexOf(k);
          px = G.cx(c) + Q / 2 + (same.length > 1 ? (pos - (same.length - 1) / 2) * 15 : 0);
          py = G.cy(c) + Q / 2 + (c === main ? 10 : 0);
        }
        g.append(svg('circle', { cx: px, cy: py, r: 7.5, class: 'kh-socket' }));
        if (k < cubes.length) g.append(cube(px, py, v.colours[cubes[k]], 5.6, 'populate'));
      }
    }
    return g;
  }

  function domainOutline(b, d) {
    const has = new Set(d.cells);
    const segs = [];
    for (const c of d.cells) {
      const x = G.cx(c), y = G.cy(c), col = c % G.W;
      if (!has.has(c - G.W)) segs.push(`M${x} ${y}h${Q}`);
      if (!has.has(c + G.W)) segs.push(`M${x} ${y + Q}h${Q}`);
      if (col === 0 || !has.has(c - 1)) segs.push(`M${x} ${y}v${Q}`);
      if (col === G.W - 1 || !has.has(c + 1)) segs.push(`M${x + Q} ${y}v${Q}`);
    }
    const colour = DOMAIN_COLOURS[d.key % DOMAIN_COLOURS.length];
    const g = svg('g', { class: 'kh-domain', 'data-board': b, 'data-domain': d.name, 'data-size': d.members.length });
    for (const c of d.cells) g.append(svg('rect', { x: G.cx(c), y: G.cy(c), width: Q, height: Q, fill: colour, opacity: 0.16 }));
    g.append(svg('path', { d: segs.join(''), stroke: colour, 'stroke-width': 3.2, 'stroke-linecap': 'square', fill: 'none' }));
    return g;
  }

  function paintPawns(b, v) {
    const g = clear(B[b].pawns);
    let x = G.bw - PAD - 30;
    const y = 27;
    const cur = v.current;
    const items = [];
    v.pawns.forEach((pw, k) => {
      const here = pw.map((bb, i) => [bb, i]).filter(([bb]) => bb === b);
      if (here.length) items.push([k, here.map(([, i]) => i)]);
    });
    const travelFrom = new Set(myTurn() && phase() === 'action' ? L.travel.map((t) => t.from) : []);
    for (let j = items.length - 1; j >= 0; j--) {
      const [k, idx] = items[j];
      const colour = v.colours[k];
      const mine = ctx.seat === k;
      for (let q = idx.length - 1; q >= 0; q--) {
        const legal = mine && travelFrom.has(b);
        const selected = mode && (mode.kind === 'travel' || mode.kind === 'travelN') && mode.from === b && mine;
        const p = svg('g', {
          class: `kh-pawn${legal ? ' legal' : ''}${selected ? ' selected' : ''}${k === cur && v.phase !== 'over' ? ' current' : ''}${lastMove.has(`pawn|${k}|${b}`) ? ' last-move' : ''}`,
          'data-seat': k, 'data-board': b, transform: `translate(${x} ${y})`,
        }, svg('title', { text: legal ? t('{player}’s adventurer on {board} — click to travel (1 Ecu)', { player: nameOf(k), board: boardName(b) })
          : t('{player}’s adventurer on {board}', { player: nameOf(k), board: boardName(b) }) }),
        svg('circle', { r: 15, class: 'kh-pawn-ring' }),
        svg('path', { d: MEEPLE, fill: SEAT_COLOURS[colour], stroke: SEAT_INK[colour], 'stroke-width': 1.3, 'stroke-linejoin': 'round' }));
        g.append(p);
        x -= 24;
      }
      // the current player's cards still to play from this board
      if (k === cur && v.phase !== 'over' && v.left) {
        const both = idx.length === 2;
        const n = both ? v.left[0] + v.left[1] - v.pool : v.left[idx[0]];
        g.append(svg('g', { class: 'kh-left-badge', transform: `translate(${x + 24 * idx.length + 19} ${y - 8})`, 'data-board': b },
          svg('title', { text: tn('{player} may still play {n} card on {board} this turn', '{player} may still play {n} cards on {board} this turn', n, { player: nameOf(k), board: boardName(b) }) }),
          svg('rect', { x: -7, y: -7, width: 14, height: 14, rx: 3 }),
          svg('text', { y: 4, 'text-anchor': 'middle' }, String(n))));
      }
      x -= 10;
    }
  }

  // ---- highlights derived from the legal list ----

  function placements() {
    return L.squares.map((p) => ({ cells: G.cells(p.move), move: p.move }));
  }
  function candidates() {
    const chosen = new Set(sel);
    return placements().filter((p) => [...chosen].every((c) => p.cells.includes(c)));
  }
  // squares present in every placement (an upgrade's old footprint) start
  // chosen; with a single placement nothing is chosen: one click confirms it
  function baseSelection() {
    const ps = placements();
    if (ps.length < 2) return [];
    return ps[0].cells.filter((c) => ps.every((p) => p.cells.includes(c)));
  }

  function buildingActions(b, x) {
    // every legal text naming this building (by any of its squares)
    const names = new Set(x.cells.map(G.name));
    const hitOn = (list) => list.filter((a) => a.board === b && names.has(a.sq));
    return {
      upgrade: hitOn(L.upgrade), demolish: hitOn(L.demolish), populate: hitOn(L.populate),
      renovate: hitOn(L.renovate), downsize: hitOn(L.downsize),
    };
  }

  // an outline around a building: a dark halo under a bright dashed line
  function highlight(cells, cls) {
    const d = tilePath(G, cells, 1.5, 7);
    return [svg('path', { d, class: `kh-hl-under ${cls}` }), svg('path', { d, class: `kh-hl ${cls}` })];
  }

  function paintBoards() {
    const v = ctx.view;
    const ph = phase();
    const mine = myTurn();
    for (const b of BOARDS) {
      const { list, domains } = layout[b];
      const bb = B[b];
      clear(bb.domains);
      for (const d of domains) if (d.members.length > 1) bb.domains.append(domainOutline(b, d));
      clear(bb.buildings);
      for (const x of list) bb.buildings.append(drawBuilding(x, v));
      for (const key of lastMove.keys()) {
        const [kind, kb, at] = key.split('|');
        if (kind === 'gone' && kb === b) {
          bb.buildings.append(svg('path', { class: 'kh-gone last-move', 'data-at': at, d: tilePath(G, G.cells(at), 3.5, 6) }));
        }
      }
      paintPawns(b, v);
      clear(bb.overlay);
      // squares: reset
      for (const [i, r] of bb.hit) r.setAttribute('class', 'kh-sq');
      const wrapCls = [];
      if (mine && ph === 'action') {
        if (mode && mode.kind === 'travel' && L.travel.some((t) => t.from === mode.from && t.to === b)) wrapCls.push('legal-dest');
        if (mode && mode.kind === 'type' && L.build.some((t) => t.board === b && t.type === mode.type)) wrapCls.push('legal-build');
        for (const x of list) {
          const a = buildingActions(b, x);
          let cls = null;
          if (!mode) {
            if (a.populate.length) cls = 'act-populate';
            else if (a.renovate.length) cls = 'act-renovate';
            else if (a.upgrade.length || a.demolish.length) cls = 'act-building';
          } else if (mode.kind === 'type') {
            if (a.upgrade.some((u) => u.type === mode.type)) cls = 'act-upgrade';
          } else if (mode.kind === 'demolish') {
            if (a.demolish.length) cls = 'act-demolish';
          } else if (mode.kind === 'building') {
            if (x.cells.includes(G.index(mode.sq)) && mode.board === b) cls = 'act-selected';
            else if (a.upgrade.length || a.demolish.length) cls = 'act-building';
          }
          if (cls) {
            for (const c of x.cells) bb.hit.get(c).classList.add('legal', cls);
            bb.overlay.append(...highlight(x.cells, cls));
          }
        }
        if (wrapCls.includes('legal-build')) {
          for (const [i, r] of bb.hit) if (!layout[b].occ.has(i)) r.classList.add('act-build');
        }
      }
      if (mine && ph === 'pick') {
        for (const x of list) {
          if (buildingActions(b, x).downsize.length) {
            for (const c of x.cells) bb.hit.get(c).classList.add('legal', 'act-pick');
            bb.overlay.append(...highlight(x.cells, 'act-pick'));
          }
        }
      }
      if (mine && (ph === 'squares' || ph === 'keep') && v.pending && v.pending.board === b) {
        const cands = candidates();
        const open = new Set(cands.flatMap((p) => p.cells));
        for (const c of sel) bb.hit.get(c).classList.add('sel');
        for (const c of open) if (!sel.includes(c)) bb.hit.get(c).classList.add('legal', 'cand');
        // the top-left squares of the placements: one click there lays the tile
        for (const p of cands) bb.hit.get(p.cells[0]).classList.add('anchor');
        if (ph === 'keep') {
          const target = layout[b].occ.get(G.index(v.pending.target));
          if (target) bb.overlay.append(...highlight(target.cells, 'act-keep'));
        }
        for (const c of sel) {
          bb.overlay.append(svg('rect', { x: G.cx(c) + 2, y: G.cy(c) + 2, width: Q - 4, height: Q - 4, rx: 6, class: 'kh-sel-mark' }));
        }
        for (const c of open) {
          if (!sel.includes(c)) bb.overlay.append(svg('rect', { x: G.cx(c) + 3, y: G.cy(c) + 3, width: Q - 6, height: Q - 6, rx: 6, class: 'kh-cand-mark' }));
        }
        for (const p of cands) {
          if (p.cells.length > 1) bb.overlay.append(svg('circle', { cx: G.cx(p.cells[0]) + Q / 2, cy: G.cy(p.cells[0]) + Q / 2, r: Q / 6, class: 'kh-anchor-mark' }));
        }
      }
      bb.wrap.className = ['kh-board', ...wrapCls].join(' ');
      bb.wrap.classList.toggle('has-pawn', v.seat !== undefined && ctx.seat !== null && v.pawns[ctx.seat] && v.pawns[ctx.seat].includes(b));
    }
    paintGhost();
  }

  // The decision staged for Confirm, where it would act on the boards.
  function paintStaged() {
    const v = ctx.view;
    const m = staged;
    if (!m) return;
    let r;
    const pend = v.pending;
    const on = (b, sq) => layout[b] && layout[b].occ.get(G.index(sq));
    if (/^[a-z]\d+(-[a-z]\d+|(\+[a-z]\d+)*)$/.test(m) && pend && layout[pend.board]) {
      let type = pend.type;
      if (v.phase === 'keep') { const tg = on(pend.board, pend.target); type = tg ? DOWN[tg.type] : null; }
      if (type && G.tiles[type]) B[pend.board].ghost.append(ghostTile(G.cells(m), type, 'staged-preview'));
    } else if ((r = /^(?:upgrade|demolish|downsize) (might|faith|reason) ([a-z]\d+)/.exec(m)) || (r = /^(?:populate|renovate) ()([a-z]\d+)$/.exec(m))) {
      const b = r[1] || 'reason';
      const x = on(b, r[2]);
      if (x) B[b].ghost.append(svg('g', { class: 'staged-preview', 'data-at': x.at }, ...highlight(x.cells, 'staged')));
    } else if ((r = /^build (might|faith|reason) /.exec(m)) || (r = /^travel (?:might|faith|reason) (might|faith|reason)/.exec(m))) {
      B[r[1]].ghost.append(svg('rect', { class: 'staged-preview staged-board', x: LM - 3, y: HB + TM - 3, width: G.W * Q + 6, height: G.H * Q + 6, rx: 6 }));
    }
  }

  function paintGhost() {
    if (!ctx || !layout) return;
    const v = ctx.view;
    for (const b of BOARDS) clear(B[b].ghost);
    paintStaged();
    const ph = phase();
    const pend = v.pending;
    if (ph === 'pay' && pend && pend.at) {
      const cells = G.cells(pend.at);
      B[pend.board].ghost.append(ghostTile(cells, pend.type, 'waiting'));
      return;
    }
    if (!myTurn() || (ph !== 'squares' && ph !== 'keep') || !pend) return;
    const b = pend.board;
    let type = pend.type;
    if (ph === 'keep') {
      const target = layout[b].occ.get(G.index(pend.target));
      type = target ? DOWN[target.type] : null;
    }
    if (!type) return;
    let cands = candidates();
    if (hover.board === b && hover.sq !== null) {
      const at = cands.filter((p) => p.cells[0] === hover.sq);
      const more = cands.filter((p) => p.cells.includes(hover.sq));
      if (at.length === 1) cands = at;
      else if (more.length && !sel.includes(hover.sq)) cands = more;
    }
    if (cands.length === 1) B[b].ghost.append(ghostTile(cands[0].cells, type, 'preview'));
  }

  function ghostTile(cells, type, cls) {
    const t = G.tiles[type];
    const fam = FAMILY[t.family];
    const d = tilePath(G, cells, 3.5, 6);
    const { main } = spots(cells);
    return svg('g', { class: `kh-ghost-tile ${cls}`, 'data-at': G.placeName(cells) },
      svg('path', { d, fill: fam.fill, opacity: 0.55, stroke: fam.dark, 'stroke-width': 2.2, 'stroke-dasharray': '6 4' }),
      icon(t.family, G.cx(main) + Q / 2, G.cy(main) + Q / 2 + 1, 1.15, '#fffdf7', 0.85));
  }

  // ---- clicks on the boards ----

  function onBoardClick(b, ev) {
    if (!myTurn()) return;
    const v = ctx.view;
    const ph = phase();
    const pawnEl = ev.target.closest && ev.target.closest('.kh-pawn');
    const sqEl = ev.target.closest && ev.target.closest('[data-sq]');
    const sq = sqEl ? G.index(sqEl.getAttribute('data-sq')) : null;
    const x = sq !== null ? layout[b].occ.get(sq) : null;

    if (ph === 'squares' || ph === 'keep') {
      if (!v.pending || v.pending.board !== b || sq === null) return;
      chooseSquare(sq);
      return;
    }
    if (ph === 'pick') {
      if (!x) return;
      const a = buildingActions(b, x).downsize;
      if (a.length) send(a[0].move);
      return;
    }
    if (ph !== 'action') return;

    // travel: a pawn of mine, then a board
    if (pawnEl && Number(pawnEl.getAttribute('data-seat')) === ctx.seat && L.travel.some((t) => t.from === b)) {
      mode = mode && mode.kind === 'travel' && mode.from === b ? null : { kind: 'travel', from: b };
      paint();
      return;
    }
    if (mode && mode.kind === 'travel') {
      const opts = L.travel.filter((t) => t.from === mode.from && t.to === b);
      if (!opts.length) { mode = null; paint(); return; }
      if (opts.length === 1) { send(opts[0].move); return; }
      mode = { kind: 'travelN', from: mode.from, to: b };
      paint();
      return;
    }
    if (mode && mode.kind === 'type') {
      if (x) {
        const up = buildingActions(b, x).upgrade.find((u) => u.type === mode.type);
        if (up) { send(up.move); return; }
      }
      const bl = L.build.find((t) => t.board === b && t.type === mode.type);
      if (bl && !x) {
        pendingSquare = { board: b, sq };
        send(bl.move);
        return;
      }
      if (x) { selectBuilding(b, x); return; }
      mode = null;
      paint();
      return;
    }
    if (mode && mode.kind === 'demolish') {
      const dm = x ? buildingActions(b, x).demolish : [];
      if (dm.length) { send(dm[0].move); return; }
      mode = null;
      paint();
      return;
    }
    if (x) {
      const a = buildingActions(b, x);
      if (a.populate.length) { send(a.populate[0].move); return; }
      if (a.renovate.length) { send(a.renovate[0].move); return; }
      if (mode && mode.kind === 'building' && mode.board === b && x.cells.includes(G.index(mode.sq))) { mode = null; paint(); return; }
      if (a.upgrade.length || a.demolish.length) { selectBuilding(b, x); return; }
    }
    if (mode) { mode = null; paint(); }
  }

  function selectBuilding(b, x) {
    const a = buildingActions(b, x);
    if (!a.upgrade.length && !a.demolish.length) return;
    mode = { kind: 'building', board: b, sq: G.name(x.cells[0]) };
    paint();
  }

  let pendingSquare = null; // the square clicked to build: chosen first when its placements arrive

  function chooseSquare(sq) {
    // a click on the top-left square of exactly one placement lays it
    const anchored = candidates().filter((p) => p.cells[0] === sq);
    if (anchored.length === 1) { send(anchored[0].move); return; }
    if (sel.includes(sq)) {
      if (!baseSelection().includes(sq)) sel = sel.filter((c) => c !== sq);
      paint();
      return;
    }
    let next = [...sel, sq];
    let cands = placements().filter((p) => next.every((c) => p.cells.includes(c)));
    if (!cands.length) {
      // start again from the fixed squares with this one
      next = [...baseSelection(), sq].filter((c, i, a) => a.indexOf(c) === i);
      cands = placements().filter((p) => next.every((c) => p.cells.includes(c)));
      if (!cands.length) return;
    }
    sel = next;
    // the chosen squares fit exactly one placement: lay it
    if (cands.length === 1) { send(cands[0].move); return; }
    paint();
  }

  // ---- the controls beside the boards ----

  function cardEl(letter, { selected = false, legal = false, onclick = null, cls = '', attrs = {} } = {}) {
    const fam = CARD_FAMILY[letter];
    return el(`button.kh-card.kh-card-${letter}${selected ? '.selected' : ''}${legal ? '.legal' : ''}${cls}`, {
      type: 'button', 'data-card': letter, title: famCards(fam, 1).replace(/^1\s*/, ''), onclick, disabled: onclick ? null : true, ...attrs,
    }, svg('svg', { viewBox: '-12 -14 24 26', class: 'kh-card-icon' }, svg('path', { d: ICONS[fam], fill: '#fffdf7' })),
    el('span', famName(fam)));
  }

  function tileButton(type) {
    const tile = G.tiles[type];
    const fam = FAMILY[tile.family];
    const v = ctx.view;
    const mine = myTurn() && phase() === 'action';
    let legal = false, title = t('{tile} — {family}, size and value {n}', { tile: tileName(type), family: famAdj(tile.family), n: tile.size });
    if (mine) {
      if (mode && mode.kind === 'building') {
        legal = L.upgrade.some((u) => u.board === mode.board && u.type === type && sameBuilding(mode.board, mode.sq, u.sq));
      } else {
        legal = L.build.some((b) => b.type === type) || L.upgrade.some((u) => u.type === type);
      }
    }
    if (mine && !legal && !(mode && mode.kind === 'building')) title += ` — ${t('not now: {why}', { why: whyNot(type) })}`;
    const active = mode && mode.kind === 'type' && mode.type === type;
    // the tile's square shape: size x size cells
    const side = 8, off = (36 - tile.size * side) / 2;
    const mini = svg('svg', { viewBox: '0 0 36 36', class: 'kh-tile-mini' },
      Array.from({ length: tile.size * tile.size }, (_, k) => svg('rect', {
        x: off + (k % tile.size) * side, y: off + Math.floor(k / tile.size) * side, width: side, height: side, rx: 1.5, fill: fam.fill, stroke: fam.dark, 'stroke-width': 1,
      })), icon(tile.family, 18, 18.5, 0.55, '#fffdf7'));
    const stock = v.stock ? v.stock[type] : null;
    return el(`button.kh-tile.fam-${tile.family}${legal ? '.legal' : ''}${active ? '.active' : ''}`, {
      type: 'button', 'data-type': type, title, disabled: legal || active ? null : true,
      onclick: () => onTileClick(type),
    }, mini, el('span.kh-tile-text', el('span.kh-tile-name', tileName(type)),
      el('span.kh-tile-stock', { title: t('tiles left in stock') }, stock === null ? '' : `${cardsWords(tile.size)} · ×${stock}`)));
  }

  // why a tile of the palette cannot be built or upgraded to now, in a
  // player's words (the engine's refusals say the same, khronos_explain.c)
  function whyNot(type) {
    const tile = G.tiles[type];
    const v = ctx.view;
    const fam = FAMILY[tile.family];
    const colour = { military: t('orange'), religious: t('fuchsia'), civil: t('blue') }[tile.family];
    const have = [...(hand() || '')].filter((c) => c === fam.letter).length;
    const mine = (v.pawns && ctx.seat !== null && v.pawns[ctx.seat]) || [];
    if (v.stock && v.stock[type] === 0) return t('no {tile} tile is left in the stock', { tile: tileName(type) });
    if (!mine.includes('might') && !mine.includes('faith')) return t('your adventurers stand on neither Might nor Faith');
    if (have < tile.size) {
      const args = { tile: aTile(type), cards: famCards(tile.family, tile.size), colour, have };
      return tile.size > 1 ? tn('{tile} needs {cards} ({colour}; one less per size to grow a smaller building into it); you have {have}',
        '{tile} needs {cards} ({colour}; one less per size to grow a smaller building into it); you have {have}', have, args)
        : tn('{tile} needs {cards} ({colour}); you have {have}', '{tile} needs {cards} ({colour}); you have {have}', have, args);
    }
    return t('there is no place for {tile} now: it needs free squares off the river (Towns and Cities may cover it), may join no two domains, must not equal its domain’s highest building, and the forest or mountain surcharge must be affordable by the cards your adventurers may still play', { tile: aTile(type) });
  }

  function sameBuilding(b, sqA, sqB) {
    const x = layout[b].occ.get(G.index(sqA));
    return !!x && x.cells.includes(G.index(sqB));
  }

  function onTileClick(type) {
    if (!myTurn() || phase() !== 'action') return;
    if (mode && mode.kind === 'building') {
      const up = L.upgrade.find((u) => u.board === mode.board && u.type === type && sameBuilding(mode.board, mode.sq, u.sq));
      if (up) { send(up.move); return; }
    }
    if (mode && mode.kind === 'type' && mode.type === type) { mode = null; paint(); return; }
    mode = { kind: 'type', type };
    drawerOpen = null; // on a phone the drawer closes: the glowing boards are where to tap next
    // only one place to put it and no upgrade: go straight on
    paint();
  }

  function onCardClick(i) {
    if (!myTurn()) return;
    const ph = phase();
    const h = hand();
    if (ph === 'pay') {
      handSel = handSel.includes(i) ? handSel.filter((k) => k !== i) : [...handSel, i];
      const cards = selectedCards();
      const opt = L.pay.find((p) => p.cards === cards);
      if (opt) { send(opt.move); return; }
      // keep only selections that can still grow into an option
      const fits = (s) => L.pay.some((p) => { const rest = [...p.cards]; return [...s].every((c) => { const j = rest.indexOf(c); if (j < 0) return false; rest.splice(j, 1); return true; }); });
      if (!fits(cards)) handSel = [i].filter(() => fits(h[i]));
      paint();
      return;
    }
    handSel = handSel.includes(i) ? handSel.filter((k) => k !== i) : [...handSel, i];
    paint();
  }

  function onDisplayClick(letter) {
    if (!myTurn()) return;
    const h = hand();
    if (handSel.length !== 1) return;
    const give = h[handSel[0]];
    const s = L.swap.find((x) => x.give === give && x.take === letter);
    if (s) send(s.move);
  }

  function paintControls() {
    const v = ctx.view;
    const mine = myTurn();
    const ph = phase();
    clear(controls);

    // turn track
    const track = el('div.kh-track', { 'aria-label': t('turn track') });
    for (let turn = 1; turn <= 7; turn++) {
      const earn = turn === 4 || turn === 7;
      track.append(el(`div.kh-turn${turn === v.turn ? '.now' : ''}${turn < v.turn ? '.past' : ''}${earn ? '.earn' : ''}`, {
        'data-turn': turn, title: earn ? t('Turn {n}: earnings at the end of each player’s turn', { n: turn }) : t('Turn {n}', { n: turn }),
      }, el('b', String(turn)), earn ? el('i.kh-coin', { title: t('earnings') }) : null));
    }
    const turnText = v.phase === 'over' ? t('Game over') : ctx.seat === v.current ? t('Turn {n} of 7 · your turn', { n: v.turn })
      : t('Turn {n} of 7 · {player} ({colour}) plays', { n: v.turn, player: nameOf(v.current), colour: colourWord(v.colours[v.current]) });
    controls.append(el('div.kh-section', el('div.kh-section-head', el('h3', t('Turn track')), el('span.small.muted#kh-turn-text', turnText)), track));

    // cards: hand, deck, discards, display
    const cardsSec = el('div.kh-section.kh-cards-sec');
    const h = hand();
    const handBox = el('div.kh-hand#kh-hand');
    if (h !== null) {
      const payable = ph === 'pay' && mine ? new Set(L.pay.flatMap((p) => [...p.cards])) : null;
      [...h].forEach((letter, i) => {
        const clickable = mine && (ph === 'pay' ? payable.has(letter)
          : ph === 'action' && (L.exchange.size > 0 || L.end.size > 1 || L.swap.length > 0));
        handBox.append(cardEl(letter, {
          selected: handSel.includes(i), legal: ph === 'pay' && clickable,
          onclick: clickable ? () => onCardClick(i) : null, attrs: { 'data-index': i },
        }));
      });
      if (!h.length) handBox.append(el('span.small.muted', t('no cards')));
    } else {
      handBox.append(el('span.small.muted.kh-hidden-hands', ctx.seat === null ? t('Hands are secret: each player sees only their own.') : ''));
    }
    const counts = { m: 0, r: 0, c: 0 };
    for (const ch of v.discard || '') counts[ch]++;
    const pile = el('div.kh-pile', { title: tn('{n} card in the deck', '{n} cards in the deck', v.deck_size) },
      el('div.kh-deck#kh-deck', el('span', String(v.deck_size))), el('div.small.muted', t('deck')));
    const disc = el('div.kh-discard', { title: t('the discards (face up)') },
      ['m', 'r', 'c'].map((f) => el(`span.kh-disc.kh-card-${f}`, String(counts[f]))), el('div.small.muted', t('discards')));
    cardsSec.append(el('div.kh-section-head', el('h3', h !== null ? t('Your cards') : t('Cards')),
      el('span.small.muted', h !== null ? tn('{n} in hand', '{n} in hand', h.length) : '')),
    el('div.kh-cards-row', handBox, el('div.kh-piles', pile, disc)));
    if (v.holdem) {
      const disp = el('div.kh-display#kh-display');
      const give = handSel.length === 1 && h ? h[handSel[0]] : null;
      for (const letter of v.display || '') {
        const can = mine && give && L.swap.some((s) => s.give === give && s.take === letter);
        disp.append(cardEl(letter, { legal: can, onclick: can ? () => onDisplayClick(letter) : null, cls: '.small' }));
      }
      if (!(v.display || '').length) disp.append(el('span.small.muted', t('empty')));
      cardsSec.append(el('div.kh-holdem', el('span.kh-label', t('Hold’em display')), disp,
        mine && L.swap.length ? el('span.small.muted', t('Select one card of yours, then a display card to swap.')) : null));
    }

    // tiles: one column per family, sizes 1-3 downwards
    const pal = el('div.kh-palette#kh-palette');
    for (const fam of ['military', 'religious', 'civil']) {
      const types = Object.values(G.tiles).filter((t) => t.family === fam).sort((a, b) => a.size - b.size);
      pal.append(el(`div.kh-pal-col.fam-${fam}`, el('span.kh-pal-fam', famName(fam)), types.map((x) => tileButton(x.name))));
    }
    const palSec = el('div.kh-section', el('div.kh-section-head', el('h3', t('Buildings')),
      el('span.small.muted', mine && ph === 'action' ? t('pick one to build or upgrade') : t('cost · tiles in stock'))), pal);
    const open = drawerOpen === null ? mine && (ph === 'pay' || !!(mode && mode.kind === 'building')) : drawerOpen;
    clear(drawer).className = `kh-drawer${open ? ' open' : ''}`;
    drawer.append(el('button.kh-drawer-toggle#kh-drawer-toggle', {
      type: 'button', 'aria-expanded': String(open),
      onclick: () => { drawerOpen = !open; paint(); },
    }, h !== null ? t('Your cards ({n}) and buildings', { n: h.length }) : t('Cards and buildings'), el('span.kh-drawer-arrow', open ? '▾' : '▴')),
    el('div.kh-drawer-body', cardsSec, palSec));
    controls.append(drawer);

    // actions
    const acts = el('div.kh-actions#kh-actions');
    if (mine && ph === 'action') {
      const cards = selectedCards();
      if (L.exchange.size) {
        const ok = cards && L.exchange.has(cards);
        acts.append(el('button.small#kh-exchange', {
          type: 'button', disabled: ok ? null : true, title: t('Discard the selected cards and draw back to four (2 Ecus, before any action)'),
          onclick: () => send(`exchange ${cards}`),
        }, cards ? t('Exchange {cards} · 2 Ecus', { cards }) : t('Exchange · 2 Ecus')));
      }
      if (L.demolish.length) {
        acts.append(el(`button.small#kh-demolish${mode && mode.kind === 'demolish' ? '.active' : ''}`, {
          type: 'button', title: t('Demolish a size-1 building: 1 Ecu and 1 card of its colour'),
          onclick: () => { mode = mode && mode.kind === 'demolish' ? null : { kind: 'demolish' }; paint(); },
        }, t('Demolish…')));
      }
      if (mode && mode.kind === 'building') {
        const x = layout[mode.board].occ.get(G.index(mode.sq));
        const dm = x ? buildingActions(mode.board, x).demolish : [];
        if (dm.length) {
          acts.append(el('button.small#kh-demolish-this', { type: 'button', onclick: () => send(dm[0].move) },
            t('Demolish this {tile} · 1 Ecu + 1 card', { tile: tileName(x.type) })));
        }
      }
      if (mode && mode.kind === 'travelN') {
        const opts = L.travel.filter((t) => t.from === mode.from && t.to === mode.to);
        acts.append(el('div.kh-choice', el('span.small', t('Cards the adventurer takes to {board}:', { board: boardName(mode.to) })),
          opts.map((o) => el('button.small.kh-travel-n', { type: 'button', 'data-move': o.move, onclick: () => send(o.move) }, String(o.n)))));
      }
      if (L.end.size) {
        const ok = L.end.has(cards);
        acts.append(el('button.small.primary#kh-end', {
          type: 'button', disabled: ok ? null : true,
          title: cards ? t('End your turn, discard the selected cards and draw up to four') : t('End your turn and draw up to four'),
          onclick: () => send(cards ? `end discard ${cards}` : 'end'),
        }, cards ? t('End turn · discard {cards}', { cards }) : t('End turn')));
      }
      if (mode) acts.append(el('button.small.ghost#kh-cancel', { type: 'button', onclick: () => { mode = null; paint(); } }, forScreen(t('Cancel (Esc)'))));
      if (handSel.length) acts.append(el('button.small.ghost', { type: 'button', onclick: () => { handSel = []; paint(); } }, t('Clear cards')));
    }
    if (mine && ph === 'pay') {
      acts.append(el('div.kh-choice', el('span.small', t('Pay with:')), L.pay.map((p) => el('button.small.kh-pay', {
        type: 'button', 'data-move': p.move, onclick: () => send(p.move),
      }, [...p.cards].map((c) => el(`i.kh-chip.kh-card-${c}`, c))))));
    }
    if (mine && (ph === 'squares' || ph === 'keep') && sel.length > baseSelection().length) {
      acts.append(el('button.small.ghost', { type: 'button', onclick: () => { sel = baseSelection(); paint(); } }, t('Clear squares')));
    }
    if (mine && L.other.length) {
      acts.append(el('div.kh-choice', el('span.small', t('Other decisions:')),
        L.other.map((m) => el('button.small.legal-move', { type: 'button', 'data-move': m, onclick: () => send(m) }, m))));
    }
    const hint = forScreen(hintText());
    actSec = null;
    if (acts.childNodes.length || hint) {
      actSec = el('div.kh-section.kh-act-sec', hint ? el('div.kh-hint#kh-hint', hint) : null, acts);
      controls.append(actSec);
    }
  }

  function hintText() {
    if (!ctx || ctx.replay) return null;
    const v = ctx.view;
    if (!myTurn()) return null;
    const ph = phase();
    if (ph === 'action') {
      if (!mode) return null;
      if (mode.kind === 'type') return t('{tile}: click a glowing board to build it, or an outlined building to upgrade it.', { tile: tileName(mode.type) });
      if (mode.kind === 'building') {
        return cap(L.demolish.length ? t('{building}: choose a tile below to upgrade it, or demolish it.', { building: layoutName(mode) })
          : t('{building}: choose a tile below to upgrade it.', { building: layoutName(mode) }));
      }
      if (mode.kind === 'travel') return t('Adventurer on {board}: click the board to travel to (1 Ecu).', { board: boardName(mode.from) });
      if (mode.kind === 'travelN') return t('Both adventurers played cards together: how many may the traveller still play?');
      if (mode.kind === 'demolish') return t('Click an outlined size-1 building to demolish it (1 Ecu + 1 card of its colour).');
    }
    if (ph === 'pay') return tn('Click {n} card of your hand to pay the terrain surcharge.', 'Click {n} cards of your hand to pay the terrain surcharge.', v.pending.extra);
    return null;
  }

  function layoutName(m) {
    const x = layout[m.board].occ.get(G.index(m.sq));
    return x ? t('{tile} on {board} {square}', { tile: tileLower(x.type), board: boardName(m.board), square: x.at }) : m.sq;
  }

  // ---- panels ----

  function paintScore() {
    const v = ctx.view;
    clear(scoreCard);
    scoreCard.append(el('div.card-head', el('h3', t('Earnings')), el('span.small.muted', t('turns 4 and 7, on every board where you have an adventurer'))));
    const rows = el('div.kh-earn-rows');
    for (const b of BOARDS) {
      rows.append(el('div.kh-earn', el('span.kh-earn-board', `${BOARD_INFO[b].roman} ${boardName(b)}`), el('span.small', boardEarn(b))));
    }
    scoreCard.append(rows);
    const last = v.last_earnings || [];
    scoreCard.append(el('div.kh-last', el('span.small.muted', t('Last earnings:')),
      v.colours.map((c, k) => el('span.kh-last-item', { 'data-seat': k }, el('i.kh-swatch', { style: `background:${SEAT_COLOURS[c]}` }), `${nameOf(k)} `, el('b', `+${last[k] || 0}`)))));
  }

  function paintLegend() {
    clear(legendCard);
    const v = ctx.view;
    const sw = (fill, half) => svg('svg', { viewBox: '0 0 40 40', class: 'kh-legend-sq' },
      svg('rect', { width: 40, height: 40, fill }), half ? svg('path', { d: 'M40 0L40 40L0 40Z', fill: half }) : null);
    const terr = el('div.kh-legend-grid', Object.entries(TERRAIN).map(([k, x]) => el('span.kh-legend-item', sw(x.fill, x.half), terrainName(k))));
    const fam = el('div.kh-legend-grid', Object.entries(FAMILY).map(([f, x]) => el('span.kh-legend-item',
      el('i.kh-fam-swatch', { style: `background:${x.fill}` }), `${famName(f)} (${x.letter})`)));
    const sur = G.surcharge ? ['forest', 'mountain'].map((k) => {
      const n = G.surcharge[k] ? G.surcharge[k][String(v.players)] : 0;
      if (k === 'forest') return n ? tn('Forest under a new tile costs {n} more card of any colour', 'Forest under a new tile costs {n} more cards of any colour', n) : t('Forest costs nothing extra');
      return n ? tn('Mountain under a new tile costs {n} more card of any colour', 'Mountain under a new tile costs {n} more cards of any colour', n) : t('Mountain costs nothing extra');
    }).join('; ') : '';
    legendCard.append(el('div.card-head', el('h3', t('Legend')), touchScreen() ? null : el('span.small.muted', t('hover a square or tile for details'))), terr, fam,
      el('p.small.muted.kh-legend-note', t('A tile’s number is its size, its cost in cards and its value. Cubes mark owners (Might, Faith), populations (in the slots of civil tiles on Reason) and half-renovated ruins; the cards on a ruin are its renovation cost. Coloured outlines group buildings into domains. Only Towns and Cities may cover a river.')),
      sur ? el('p.small.kh-legend-note#kh-surcharge', t('With {n} players: {surcharges}.', { n: v.players, surcharges: sur })) : null);
  }

  function paint() {
    if (!ctx || !ctx.view) return;
    root.dataset.phase = ctx.view.phase;
    root.dataset.n = String(ctx.n);
    root.dataset.mine = myTurn() ? '1' : '0';
    root.dataset.mode = mode ? mode.kind : '';
    paintBoards();
    paintControls();
    paintScore();
    if (!legendCard.firstChild) paintLegend();
    if (changed) changed(); // the turn card follows every selection (game.js redraws it when its words change)
  }

  document.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Escape') return;
    if (mode || handSel.length) { mode = null; handSel = []; paint(); }
  });

  return {
    // What the page keeps in reach at the bottom of a narrow screen.
    // Once the game is over (or in a replay) the drawer has nothing to choose:
    // it stays in the page below the board instead of taking a row of the dock.
    actions() {
      const done = !ctx || ctx.replay || (ctx.view && ctx.view.phase === 'over');
      return [done ? null : drawer, actSec].filter(Boolean);
    },
    update(next) {
      const n = next.n;
      const newPosition = !ctx || n !== prevN || !!next.replay !== !!ctx.replay;
      ctx = next;
      if (newPosition || !next.yourTurn) {
        sent = false; mode = null; handSel = []; staged = null;
      }
      L = parseLegal(next.yourTurn && !next.replay ? next.legal : null);
      layout = buildLayout(next.view);
      lastMove.update(next);
      prevN = n;
      const ph = next.view.phase;
      if (newPosition) {
        sel = [];
        if (next.yourTurn && (ph === 'squares' || ph === 'keep')) {
          sel = baseSelection();
          if (pendingSquare && next.view.pending && pendingSquare.board === next.view.pending.board && pendingSquare.sq !== null) {
            const s = pendingSquare.sq;
            if (!sel.includes(s) && placements().some((p) => p.cells.includes(s))) sel = [...sel, s];
          }
          // the square clicked to build fits only one placement: lay it
          const fit = placements().filter((p) => sel.every((c) => p.cells.includes(c)));
          pendingSquare = null;
          if (fit.length === 1 && sel.length > baseSelection().length) {
            paint();
            send(fit[0].move);
            return;
          }
        } else {
          pendingSquare = null;
        }
      }
      paint();
    },
    reset() { sent = false; staged = null; if (ctx) paint(); },
    preview(move) { staged = move; if (ctx && layout) paintGhost(); },
    instruction(c) {
      const v = c.view;
      const ph = v.phase;
      const p = v.pending || {};
      if (ph === 'squares') {
        const tile = G.tiles[p.type];
        const block = tile && tile.size > 1 ? ` ${t('({n} × {n} squares)', { n: tile.size })}` : '';
        const up = p.target ? ` ${t('(upgrading {square})', { square: p.target })}` : '';
        return {
          headline: t('Place the {tile} on {board}', { tile: tileName(p.type), board: boardName(p.board) }),
          detail: t('Click the marked top-left square of the block it will cover{block}{upgrading}, or click squares it should cover until only one place fits; the dashed preview shows where.', { block, upgrading: up }),
        };
      }
      if (ph === 'pay') {
        return {
          headline: t('Pay the terrain surcharge'),
          detail: tn('The {tile} covers forest or mountain: pay {n} more card of any colour. Click it in your hand (or a choice among the buttons).',
            'The {tile} covers forest or mountain: pay {n} more cards of any colour. Click them in your hand (or a choice among the buttons).', p.extra, { tile: tileLower(p.type) }),
        };
      }
      if (ph === 'pick') {
        return {
          headline: t('Choose the building to downsize on {board}', { board: boardName(p.board) }),
          detail: t('Your action joined or split a domain and two top buildings of one family tie. Click the outlined building that loses a size (a size-1 building is destroyed).'),
        };
      }
      if (ph === 'keep') {
        const x = layout && layout[p.board] ? layout[p.board].occ.get(G.index(p.target)) : null;
        const small = x ? DOWN[x.type] : null;
        const several = !!(x && G.tiles[small] && G.tiles[small].size > 1);
        return {
          headline: x ? t('Your {tile} on {board} is downsized', { tile: tileName(x.type), board: boardName(p.board) }) : t('Your building on {board} is downsized', { board: boardName(p.board) }),
          detail: small ? (several ? t('It becomes {tile}. Click the highlighted squares it keeps.', { tile: aTile(small) }) : t('It becomes {tile}. Click the highlighted square it keeps.', { tile: aTile(small) }))
            : t('It becomes a smaller tile. Click the highlighted square it keeps.'),
        };
      }
      if (mode && mode.kind === 'type') {
        return { headline: t('Build or upgrade to {tile}', { tile: aTile(mode.type) }), detail: t('Click a glowing board to build it there (its squares come next), or an outlined building to upgrade it. Esc cancels.') };
      }
      if (mode && mode.kind === 'building') {
        return { headline: t('The {building}', { building: layoutName(mode) }), detail: t('Choose a highlighted tile among the Buildings to upgrade it to, or demolish it when the button offers it. Click it again to cancel.') };
      }
      if (mode && (mode.kind === 'travel' || mode.kind === 'travelN')) {
        return { headline: t('Travel from {board}', { board: boardName(mode.from) }), detail: t('Click the glowing board the adventurer travels to (1 Ecu). Esc cancels.') };
      }
      if (mode && mode.kind === 'demolish') {
        return { headline: t('Demolish a small building'), detail: t('Click an outlined Watchtower, Chapel or Hamlet (not a printed one): 1 Ecu and 1 card of its colour.') };
      }
      const can = [];
      if (L.build.length || L.upgrade.length) can.push(t('pick a tile among the Buildings, then a board or a building'));
      if (L.travel.length) can.push(t('click one of your adventurers to travel (1 Ecu)'));
      if (L.populate.length || L.renovate.length) can.push(t('on Reason click a civil tile to populate it or a ruin to renovate it'));
      if (L.exchange.size && !v.acted) can.push(t('select cards and Exchange (2 Ecus)'));
      const words = [can.length ? `${cap(can.join('; '))}.` : t('Nothing more to do.'), t('End your turn when done (select cards first to discard them).')];
      if (v.turn === 4 || v.turn === 7) words.push(t('Your earnings come when you end this turn.'));
      if (v.ripple) words.push(t('A {tile} shadow still waits to be laid on {board}.', { tile: tileLower(v.ripple.type), board: boardName(v.ripple.board) }));
      return {
        headline: t('Act on the boards where your adventurers stand'),
        detail: words.join(' '),
      };
    },
    youPanel(c) {
      const v = c.view;
      if (c.seat === null || c.seat === undefined || c.replay) return null;
      const k = c.seat;
      const colour = v.colours[k];
      const [p0, p1] = v.pawns[k];
      const where = p0 === p1 ? t('both adventurers on {board}', { board: boardName(p0) }) : t('adventurers on {a} and {b}', { a: boardName(p0), b: boardName(p1) });
      let left = null;
      if (v.current === k && v.phase !== 'over' && v.left) {
        left = p0 === p1 ? tn('{n} card to play on {board} this turn', '{n} cards to play on {board} this turn', v.left[0] + v.left[1] - v.pool, { board: boardName(p0) })
          : t('cards to play this turn: {a} {na}, {b} {nb}', { a: boardName(p0), na: v.left[0], b: boardName(p1), nb: v.left[1] });
      }
      return el('div.kh-you', { style: 'display:flex;align-items:center;gap:14px' },
        el('span.swatch', { style: `background:${SEAT_COLOURS[colour]}` },
          svg('svg', { viewBox: '-12 -12 24 24', width: 28, height: 28 }, svg('path', { d: MEEPLE, fill: colour === 'white' || colour === 'yellow' ? '#3b3327' : '#fff', opacity: 0.9 }))),
        el('div', el('div.label', t('You play')), el('div.value#kh-you-colour', colourName(colour)),
          el('div.small.muted', `${ecusWords(v.ecus[k])} · ${cubesWords(v.cubes[k])} · ${where}`),
          left ? el('div.small#kh-cards-left', left) : null));
    },
    seatExtras(c, k) {
      const v = c.view;
      const colour = v.colours[k];
      return [
        v.first === k ? el('span.kh-first', { title: t('the first player of every game turn') }, t('1st')) : null,
        el('i.kh-swatch.kh-seat-colour', { title: colourName(colour), style: `background:${SEAT_COLOURS[colour]}` }),
        el('span.kh-stat', { title: ecusWords(v.ecus[k]), 'data-stat': 'ecus' }, el('i.kh-coin'), String(v.ecus[k])),
        el('span.kh-stat', { title: tn('{n} cube left', '{n} cubes left', v.cubes[k]), 'data-stat': 'cubes' }, el('i.kh-cube-icon', { style: `background:${SEAT_COLOURS[colour]}` }), String(v.cubes[k])),
        el('span.kh-stat', { title: tn('{n} card in hand', '{n} cards in hand', v.hand_sizes[k]), 'data-stat': 'cards' }, el('i.kh-card-icon-s'), String(v.hand_sizes[k])),
      ];
    },
    resultExtras(c, k, finalView) {
      const v = finalView || c.view;
      if (!v || !v.colours) return null;
      return [el('i.kh-swatch', { style: `background:${SEAT_COLOURS[v.colours[k]]}` }), ` ${colourName(v.colours[k])}`];
    },
    // The decision as a sentence for the player about to make it (the
    // Confirm line); null for a decision it has no words for.
    sayMove(m) {
      const v = ctx && ctx.view;
      const age = theAge;
      const fam = (c) => famCards(CARD_FAMILY[c] || c, 1).replace(/^1\s*/, '');
      let r;
      if ((r = /^build (\w+) (\w+)$/.exec(m))) return t('Build {tile} on {age}.', { tile: aTile(r[2]), age: age(r[1]) });
      if ((r = /^upgrade (\w+) (\w+) (\w+)$/.exec(m))) return t('Upgrade the highlighted building on {age} to {tile}.', { age: age(r[1]), tile: aTile(r[3]) });
      if ((r = /^travel (\w+) (\w+)/.exec(m))) return t('Send an adventurer from {from} to {to}.', { from: age(r[1]), to: age(r[2]) });
      if ((r = /^demolish (\w+) /.exec(m))) return t('Demolish the highlighted building on {age}.', { age: age(r[1]) });
      if ((r = /^downsize (\w+) /.exec(m))) return t('Make the highlighted building on {age} smaller.', { age: age(r[1]) });
      if (/^populate /.test(m)) return t('Put one of your cubes on the highlighted civil building of the Age of Reason.');
      if (/^renovate /.test(m)) return t('Renovate the highlighted ruin of the Age of Reason.');
      if ((r = /^swap (\w) for (\w)$/.exec(m))) return t('Swap your {mine} for the {theirs} on display.', { mine: fam(r[1]), theirs: fam(r[2]) });
      if ((r = /^exchange (\w+)$/.exec(m))) return t('Pay 2 Ecus to exchange {cards}.', { cards: cardWords(r[1]) });
      if ((r = /^pay (\w+)$/.exec(m))) return t('Pay the terrain surcharge with {cards}.', { cards: cardWords(r[1]) });
      if ((r = /^end discard (\w+)$/.exec(m))) return t('End your turn, discarding {cards}.', { cards: cardWords(r[1]) });
      if (m === 'end') return t('End your turn.');
      if (/^[a-z]\d+(-[a-z]\d+|(\+[a-z]\d+)*)$/.test(m) && v && v.pending) {
        if (v.phase === 'keep') return t('Keep the highlighted part of the building on {age}.', { age: age(v.pending.board) });
        return v.pending.type ? t('Put the {tile} on the highlighted squares of {age}.', { tile: tileName(v.pending.type), age: age(v.pending.board) })
          : t('Put the building on the highlighted squares of {age}.', { age: age(v.pending.board) });
      }
      return null;
    },
    // Decisions that only open the next choice of the same action (the kind
    // of building, before its squares; the surcharge cards, after them): sent
    // at once even with "Confirm each move", so a build takes one Confirm.
    isStep(m) {
      return /^(build|upgrade|pay) /.test(m);
    },
    formatMove(m) {
      let r;
      if ((r = /^build (\w+) (\w+)$/.exec(m))) return t('build {tile} · {board}', { tile: tileName(r[2]), board: boardName(r[1]) });
      if ((r = /^upgrade (\w+) (\w+) (\w+)$/.exec(m))) return t('upgrade {square} → {tile} · {board}', { square: r[2], tile: tileName(r[3]), board: boardName(r[1]) });
      if ((r = /^travel (\w+) (\w+)(?: (\d+))?$/.exec(m))) {
        return r[3] ? t('travel {from} → {to} ({n})', { from: boardName(r[1]), to: boardName(r[2]), n: r[3] }) : t('travel {from} → {to}', { from: boardName(r[1]), to: boardName(r[2]) });
      }
      if ((r = /^demolish (\w+) (\w+)$/.exec(m))) return t('demolish {square} · {board}', { square: r[2], board: boardName(r[1]) });
      if ((r = /^downsize (\w+) (\w+)$/.exec(m))) return t('downsize {square} · {board}', { square: r[2], board: boardName(r[1]) });
      if ((r = /^populate (\w+)$/.exec(m))) return t('populate {square} · Reason', { square: r[1] });
      if ((r = /^renovate (\w+)$/.exec(m))) return t('renovate {square} · Reason', { square: r[1] });
      if ((r = /^end discard (\w+)$/.exec(m))) return t('end turn, discard {cards}', { cards: r[1] });
      if (m === 'end') return t('end turn');
      if ((r = /^swap (\w) for (\w)$/.exec(m))) return t('swap {mine} for {theirs}', { mine: r[1], theirs: r[2] });
      if ((r = /^exchange (\w+)$/.exec(m))) return t('exchange {cards}', { cards: r[1] });
      if ((r = /^pay (\w+)$/.exec(m))) return t('pay {cards}', { cards: r[1] });
      if (/^[a-z]\d+(\+[a-z]\d+)*$/.test(m)) return t('on {squares}', { squares: m });
      return m;
    },
  };
}

export { cardWords, tilePath, parseLegal };
