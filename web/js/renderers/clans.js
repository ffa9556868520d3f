// clans.js — the Clans renderer: the stylised map (js/clans-geometry.js) in
// SVG with terrain, rivers, lakes and fords, huts per colour, villages with
// their epoch, ruins, the last move; beside it the five score tracks, the
// epoch chart, chips and (for its owner only) the secret colour.
//
// Deciding by clicking: on your turn the territories that can move are
// outlined; click one, its legal destinations are highlighted, click one of
// them to send "A-B".  When one move founds several villages whose order
// matters, the waiting villages pulse: click the one to found next
// ("village T").  Only decisions in the server's legal list can be sent.
// The last move (js/lastmove.js): every territory it changed glows (class
// `last-move`) until the next decision; the moved huts slide in from where
// they came and the glow pulses once.  A staged decision (Confirm each
// move) is drawn in the preview style: both territories and a gold arrow.
// Everything shown comes from the seat's view; nothing is guessed.
import { buildClansMap } from '../clans-geometry.js';
import { clear, el, svg } from '../common.js';
import { t, tn } from '../i18n.js';
import { lastMoveTracker } from '../lastmove.js';

export const CLAN_COLOURS = {
  red: '#d8443c', blue: '#2f6fd6', green: '#2f9d5a', yellow: '#f3c623', black: '#2a2a2e',
};
const ORDER = ['red', 'blue', 'green', 'yellow', 'black'];
const TERRAIN = {
  forest: { base: '#3e7b3d', ink: '#2c5e2d' },
  mountain: { base: '#bdb8ab', ink: '#8c8679' },
  steppe: { base: '#dcb45f', ink: '#b98f3a' },
  grassland: { base: '#a9d06d', ink: '#86b34e' },
};
// Words are made when shown (the catalogue loads before the first paint).
const terrainName = (k) => ({ forest: t('Forest'), mountain: t('Mountain'), steppe: t('Steppe'), grassland: t('Grassland') })[k] || k;
const clanName = (c) => ({ red: t('Red'), blue: t('Blue'), green: t('Green'), yellow: t('Yellow'), black: t('Black') })[c] || c;
function hutsWords(c, n) {
  switch (c) {
    case 'red': return tn('{n} red hut', '{n} red huts', n);
    case 'blue': return tn('{n} blue hut', '{n} blue huts', n);
    case 'green': return tn('{n} green hut', '{n} green huts', n);
    case 'yellow': return tn('{n} yellow hut', '{n} yellow huts', n);
    case 'black': return tn('{n} black hut', '{n} black huts', n);
    default: return `${n} ${c}`;
  }
}
const ROMAN = ['', 'I', 'II', 'III', 'IV', 'V'];

// What a move changed: the territories whose huts, village or ruin differ.
function territoryKey(t) {
  return `${ORDER.map((c) => t.huts[c] || 0).join(',')}|${t.village || 0}|${t.ruin ? 1 : 0}`;
}
function changedTerritories(before, view) {
  const old = new Map((before.territories || []).map((t) => [t.id, territoryKey(t)]));
  return view.territories.filter((t) => old.get(t.id) !== territoryKey(t)).map((t) => t.id);
}
// Without the position before: the territories the decision's text names.
function namedTerritories(last, view) {
  const vl = /^village (\d+)$/.exec(last.move);
  if (vl) return [Number(vl[1])];
  const mv = view.last_move && /^(\d+)-(\d+)$/.exec(view.last_move);
  return mv && view.last_move === last.move ? [Number(mv[1]), Number(mv[2])] : [];
}

function loadCss() {
  if (document.querySelector('link[data-clans-css]')) return;
  document.head.append(el('link', { rel: 'stylesheet', href: '/css/clans.css', 'data-clans-css': true }));
}

function defs() {
  const d = svg('defs');
  const pattern = (id, base, ink, draw) => svg('pattern', { id, width: 28, height: 28, patternUnits: 'userSpaceOnUse' },
    svg('rect', { width: 28, height: 28, fill: base }), draw(ink));
  d.append(
    pattern('t-forest', TERRAIN.forest.base, TERRAIN.forest.ink, (ink) => [
      svg('path', { d: 'M7 4 L11 12 L3 12 Z M21 17 L25 25 L17 25 Z', fill: ink }),
      svg('path', { d: 'M7 12 v2 M21 25 v2', stroke: '#5b3f1f', 'stroke-width': 1.4 })]),
    pattern('t-mountain', TERRAIN.mountain.base, TERRAIN.mountain.ink, (ink) =>
      svg('path', { d: 'M2 12 L7 5 L12 12 M15 25 L20 17 L25 25', fill: 'none', stroke: ink, 'stroke-width': 1.6, 'stroke-linejoin': 'round' })),
    pattern('t-steppe', TERRAIN.steppe.base, TERRAIN.steppe.ink, (ink) => [
      svg('circle', { cx: 6, cy: 7, r: 1.3, fill: ink }), svg('circle', { cx: 20, cy: 12, r: 1.3, fill: ink }),
      svg('circle', { cx: 11, cy: 22, r: 1.3, fill: ink }), svg('path', { d: 'M18 24 h6 M2 16 h5', stroke: ink, 'stroke-width': 1.2 })]),
    pattern('t-grassland', TERRAIN.grassland.base, TERRAIN.grassland.ink, (ink) =>
      svg('path', { d: 'M5 10 l1 -5 M8 10 l-1 -4 M19 23 l1 -5 M22 23 l-1 -4 M13 17 l0.5 -3', stroke: ink, 'stroke-width': 1.4, 'stroke-linecap': 'round' })),
    svg('pattern', { id: 'water', width: 40, height: 18, patternUnits: 'userSpaceOnUse' },
      svg('rect', { width: 40, height: 18, fill: '#8cc0d6' }),
      svg('path', { d: 'M0 9 q5 -4 10 0 t10 0 t10 0 t10 0', fill: 'none', stroke: '#7bb3cb', 'stroke-width': 1.3 })),
    svg('pattern', { id: 'ruin-hatch', width: 8, height: 8, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      svg('rect', { width: 8, height: 8, fill: 'rgba(90, 80, 70, .35)' }),
      svg('path', { d: 'M0 0 V8', stroke: 'rgba(60, 50, 40, .45)', 'stroke-width': 3 })),
    svg('filter', { id: 'lift', x: '-20%', y: '-20%', width: '140%', height: '140%' },
      svg('feDropShadow', { dx: 0, dy: 1.2, stdDeviation: 1.2, 'flood-opacity': .35 })),
    svg('marker', { id: 'arrowhead', viewBox: '0 0 10 10', refX: 6, refY: 5, markerWidth: 4.5, markerHeight: 4.5, orient: 'auto-start-reverse' },
      svg('path', { d: 'M0 0 L10 5 L0 10 z', fill: '#1d2b2a' })),
    svg('marker', { id: 'arrowhead-preview', viewBox: '0 0 10 10', refX: 6, refY: 5, markerWidth: 4.5, markerHeight: 4.5, orient: 'auto-start-reverse' },
      svg('path', { d: 'M0 0 L10 5 L0 10 z', fill: '#a67c00' })),
  );
  return d;
}

const pts = (poly) => poly.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(' ');

// A hut: a little house, 20 wide, with its count inside.
function hut(x, y, colour, count) {
  const fill = CLAN_COLOURS[colour];
  return svg('g', { transform: `translate(${x} ${y})`, class: `hut hut-${colour}`, filter: 'url(#lift)' },
    svg('path', { d: 'M-10 8 V-2 L0 -11 L10 -2 V8 Z', fill, stroke: 'rgba(0,0,0,.55)', 'stroke-width': 1.2, 'stroke-linejoin': 'round' }),
    svg('text', { class: 'hut-count', x: 0, y: 5.5, 'text-anchor': 'middle', fill: colour === 'yellow' ? '#3b2f00' : '#fff' }, String(count)));
}

function hutSpots(n) {
  const row = (k, y) => Array.from({ length: k }, (_, i) => [(i - (k - 1) / 2) * 23, y]);
  if (n <= 3) return row(n, 0);
  if (n === 4) return [...row(2, -11), ...row(2, 11)];
  return [...row(3, -11), ...row(2, 11)];
}

function arrowPath(a, b) {
  const mx = (a[0] + b[0]) / 2, my = (a[1] + b[1]) / 2;
  const dx = b[0] - a[0], dy = b[1] - a[1], len = Math.hypot(dx, dy) || 1;
  const bend = Math.min(40, len * 0.22);
  const cx = mx - (dy / len) * bend, cy = my + (dx / len) * bend;
  // stop short of the destination's centre so the head does not cover huts
  const ex = b[0] - (b[0] - cx) * (22 / Math.hypot(b[0] - cx, b[1] - cy));
  const ey = b[1] - (b[1] - cy) * (22 / Math.hypot(b[0] - cx, b[1] - cy));
  const sx = a[0] + (cx - a[0]) * (16 / Math.hypot(cx - a[0], cy - a[1]));
  const sy = a[1] + (cy - a[1]) * (16 / Math.hypot(cx - a[0], cy - a[1]));
  return `M${sx.toFixed(1)} ${sy.toFixed(1)} Q${cx.toFixed(1)} ${cy.toFixed(1)} ${ex.toFixed(1)} ${ey.toFixed(1)}`;
}

export function create({ boardEl, panelsEl, board, decide, changed }) {
  loadCss();
  const map = buildClansMap(board);
  const epochsData = board.epochs;
  // Frame the land: the bounding box of every territory plus a rim of water.
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const c of map.cells.values()) {
    for (const [x, y] of c.poly) { x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y); }
  }
  const rim = 16;
  x0 -= rim; y0 -= rim; x1 += rim; y1 += rim;
  const root = svg('svg', { viewBox: `${x0} ${y0} ${x1 - x0} ${y1 - y0}`, class: 'clans-board', role: 'img', 'aria-label': t('Clans board') });
  root.append(defs(), svg('rect', { x: x0, y: y0, width: x1 - x0, height: y1 - y0, fill: 'url(#water)', rx: 12 }));
  const cellsLayer = svg('g'), riverLayer = svg('g'), hlLayer = svg('g'), pieceLayer = svg('g'), arrowLayer = svg('g');
  const lastLayer = svg('g', { class: 'last-layer' });
  root.append(cellsLayer, riverLayer, lastLayer, hlLayer, arrowLayer, pieceLayer);

  const T = new Map(); // id -> {group, cell, hl, pieces, centre, terrain}
  for (const c of map.cells.values()) {
    const cell = svg('polygon', { class: 'cell', points: pts(c.poly), fill: `url(#t-${c.terrain})` });
    const title = svg('title');
    const group = svg('g', { class: 'territory', 'data-id': c.id }, cell, title);
    group.addEventListener('click', () => onClick(c.id));
    group.addEventListener('mouseenter', () => onHover(c.id));
    group.addEventListener('mouseleave', () => onHover(null));
    cellsLayer.append(group);
    const hl = svg('polygon', { class: 'hl', points: pts(c.poly), 'data-id': c.id });
    hlLayer.append(hl);
    const pieces = svg('g', { 'data-id': c.id });
    pieceLayer.append(pieces);
    T.set(c.id, { group, cell, title, hl, pieces, centre: c.centre, terrain: c.terrain, region: c.region });
  }
  for (const b of map.borders.filter((x) => x.river)) {
    riverLayer.append(svg('line', { class: 'river', x1: b.from[0], y1: b.from[1], x2: b.to[0], y2: b.to[1] }),
      svg('line', { class: 'river-shine', x1: b.from[0], y1: b.from[1], x2: b.to[0], y2: b.to[1] }));
  }
  for (const f of map.fords) {
    riverLayer.append(svg('line', { class: 'ford-base', x1: f.from[0], y1: f.from[1], x2: f.to[0], y2: f.to[1] }),
      svg('line', { class: 'ford', x1: f.from[0], y1: f.from[1], x2: f.to[0], y2: f.to[1] }));
  }
  boardEl.append(root);

  // side panels
  const tracksCard = el('div.card', el('div.card-head', el('h3', t('Score tracks')), el('span.small.muted', t('every clan scores'))), el('div.tracks'));
  const epochCard = el('div.card', el('div.card-head', el('h3', t('Epochs')), el('span.small.muted#chips-left')), el('div.epochs'));
  panelsEl.append(tracksCard, epochCard);

  let ctx = null, moves = [], villages = [], selected = null, hover = null, sent = false;
  let staged = null; // a decision waiting for the player's Confirm (game.js), shown on the board
  const lastMove = lastMoveTracker({ diff: changedTerritories, fromText: namedTerritories });

  function parseLegal(legal) {
    moves = [];
    villages = [];
    for (const m of legal || []) {
      const mv = /^(\d+)-(\d+)$/.exec(m);
      if (mv) moves.push([Number(mv[1]), Number(mv[2])]);
      const vl = /^village (\d+)$/.exec(m);
      if (vl) villages.push(Number(vl[1]));
    }
  }

  const sources = () => new Set(moves.map((m) => m[0]));
  const targets = (s) => new Set(moves.filter((m) => m[0] === s).map((m) => m[1]));

  function onClick(id) {
    if (!ctx || !ctx.yourTurn || sent) return;
    if (villages.length) {
      if (villages.includes(id) && decide(`village ${id}`)) sent = true;
      paint();
      return;
    }
    if (selected !== null && targets(selected).has(id)) {
      if (decide(`${selected}-${id}`)) sent = true;
      paint();
      return;
    }
    selected = selected === id || !sources().has(id) ? null : id;
    paint();
    if (changed) changed(); // the turn card says what the selection means
  }

  function onHover(id) {
    hover = id;
    paintArrows();
  }

  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && selected !== null && !sent) { selected = null; paint(); if (changed) changed(); }
  });

  function paintArrows() {
    clear(arrowLayer);
    if (!ctx) return;
    const lm = ctx.view.last_move && /^(\d+)-(\d+)$/.exec(ctx.view.last_move);
    if (lm) {
      const a = T.get(Number(lm[1])).centre, b = T.get(Number(lm[2])).centre;
      arrowLayer.append(svg('g', { class: 'arrow last' },
        svg('path', { class: 'halo', d: arrowPath(a, b) }),
        svg('path', { class: 'line', d: arrowPath(a, b), 'marker-end': 'url(#arrowhead)' })));
    }
    for (const t of T.values()) t.hl.classList.remove('hover-dst', 'staged');
    const st = staged && /^(\d+)-(\d+)$/.exec(staged);
    const sv = staged && /^village (\d+)$/.exec(staged);
    if (sv) T.get(Number(sv[1])).hl.classList.add('staged');
    if (st) {
      const a = T.get(Number(st[1])).centre, b = T.get(Number(st[2])).centre;
      T.get(Number(st[1])).hl.classList.add('staged');
      T.get(Number(st[2])).hl.classList.add('staged');
      arrowLayer.append(svg('g', { class: 'arrow preview staged' },
        svg('path', { class: 'halo', d: arrowPath(a, b) }),
        svg('path', { class: 'line', d: arrowPath(a, b), 'marker-end': 'url(#arrowhead-preview)' })));
    } else if (selected !== null && hover !== null && targets(selected).has(hover)) {
      const a = T.get(selected).centre, b = T.get(hover).centre;
      T.get(hover).hl.classList.add('hover-dst');
      arrowLayer.append(svg('g', { class: 'arrow preview' },
        svg('path', { class: 'halo', d: arrowPath(a, b) }),
        svg('path', { class: 'line', d: arrowPath(a, b), 'marker-end': 'url(#arrowhead-preview)' })));
    }
  }

  // A view territory is {id, huts, village?: epoch, ruin?: true}; terrain and
  // region are static board data (tb_board_json), kept in T.
  function paintTerritory(ter, info) {
    const e = T.get(ter.id);
    const huts = ORDER.filter((c) => ter.huts[c]).map((c) => [c, ter.huts[c]]);
    const size = huts.reduce((n, [, k]) => n + k, 0);
    const epoch = ter.village || null;
    e.cell.classList.toggle('empty', size === 0 && !ter.village);
    const parts = [t('Territory {id} · {terrain}', { id: ter.id, terrain: terrainName(e.terrain) })];
    if (ter.village) parts.push(ter.ruin ? t('ruined village (epoch {epoch})', { epoch: ROMAN[epoch] }) : t('village of epoch {epoch}', { epoch: ROMAN[epoch] }));
    parts.push(huts.length ? huts.map(([c, n]) => hutsWords(c, n)).join(', ') : t('no huts'));
    if (size >= 7) parts.push(t('{n} huts: they move only onto a group at least as large', { n: size }));
    e.title.textContent = parts.join(' · ');
    const g = clear(e.pieces);
    const [cx, cy] = e.centre;
    if (ter.ruin) {
      g.append(svg('polygon', { points: e.cell.getAttribute('points'), fill: 'url(#ruin-hatch)', 'pointer-events': 'none' }),
        svg('g', { transform: `translate(${cx} ${cy})`, class: 'badge' },
          svg('path', { d: 'M-11 8 h22 M-8 8 V-4 l3 -3 v15 M2 8 V-6 h5 V0 l-2 3 v5', fill: 'none', stroke: '#4a4338', 'stroke-width': 2.4, 'stroke-linecap': 'round', 'stroke-linejoin': 'round' }),
          svg('text', { class: 'ruin-text', x: 0, y: 22, 'text-anchor': 'middle' }, t('RUIN'))));
    }
    const spots = hutSpots(huts.length);
    const hutG = svg('g', { class: 'huts' });
    huts.forEach(([c, n], i) => hutG.append(hut(cx + spots[i][0], cy + 6 + spots[i][1], c, n)));
    // the huts just moved here slide in from where they came
    if (info.slideFrom !== null && info.slideTo === ter.id && lastMove.enters(ter.id)) {
      const [fx, fy] = T.get(info.slideFrom).centre;
      hutG.classList.add('last-move-enter');
      hutG.style.setProperty('--dx', `${(fx - cx).toFixed(1)}px`);
      hutG.style.setProperty('--dy', `${(fy - cy).toFixed(1)}px`);
      hutG.style.cssText += lastMove.enterStyle();
    }
    g.append(hutG);
    const label = String(ter.id);
    const w = 10 + label.length * 7;
    const ly = cy - (huts.length > 3 ? 38 : 27);
    g.append(svg('g', { class: 'label' },
      svg('rect', { x: cx - w / 2, y: ly - 9, width: w, height: 17, rx: 8.5 }),
      svg('text', { x: cx, y: ly + 3.5, 'text-anchor': 'middle' }, label)));
    if (ter.village && !ter.ruin) {
      g.append(svg('g', { class: 'badge', transform: `translate(${cx + w / 2 + 12} ${ly})` },
        svg('circle', { r: 10, fill: '#e4bb3c' }),
        svg('text', { x: 0, y: 4, 'text-anchor': 'middle' }, ROMAN[epoch])));
    }
    e.hl.setAttribute('class', 'hl');
    if (ter.village && !ter.ruin) e.hl.classList.add('village');
    if (info.from === ter.id) e.hl.classList.add('from');
  }

  function paint() {
    if (!ctx) return;
    const v = ctx.view;
    const lm = v.last_move && /^(\d+)-(\d+)$/.exec(v.last_move);
    const from = lm ? Number(lm[1]) : null;
    // the huts slide only when the decision shown is that move itself
    const moved = lm && ctx.last && ctx.last.move === v.last_move;
    const slide = { slideFrom: moved ? from : null, slideTo: moved ? Number(lm[2]) : null };
    for (const t of v.territories) paintTerritory(t, { from, ...slide });
    clear(lastLayer);
    for (const [id, e] of T) {
      const marked = lastMove.has(id);
      e.group.classList.toggle('last-move', marked);
      if (!marked) continue;
      // a new node each time: an animation plays when its node appears
      const enter = lastMove.enters(id);
      lastLayer.append(svg('polygon', { class: `last-glow${enter ? ' last-move-enter' : ''}`, style: enter ? lastMove.enterStyle() : null, points: e.cell.getAttribute('points'), 'data-id': id }));
    }
    const mine = ctx.yourTurn && !sent;
    const srcs = mine ? sources() : new Set();
    const dsts = mine && selected !== null ? targets(selected) : new Set();
    for (const [id, e] of T) {
      const hl = e.hl;
      let clickable = false;
      if (mine && villages.length) {
        if (villages.includes(id)) { hl.classList.add('choice'); clickable = true; }
      } else if (mine && selected !== null) {
        if (id === selected) { hl.classList.add('selected'); clickable = true; }
        else if (dsts.has(id)) { hl.classList.add('dst'); clickable = true; }
        else if (srcs.has(id)) clickable = true;
      } else if (srcs.has(id)) {
        hl.classList.add('src');
        clickable = true;
      }
      e.group.classList.toggle('clickable', clickable);
      e.group.classList.toggle('legal-source', mine && !villages.length && srcs.has(id));
      e.group.classList.toggle('legal-target', dsts.has(id));
      e.group.classList.toggle('legal-village', mine && villages.includes(id));
      e.group.classList.toggle('is-selected', selected === id);
      const dim = mine && selected !== null && id !== selected && !dsts.has(id);
      e.group.classList.toggle('dimmed', dim);
      e.pieces.classList.toggle('dimmed', dim);
    }
    paintArrows();
    paintPanels();
  }

  function paintPanels() {
    const v = ctx.view;
    const tracks = tracksCard.querySelector('.tracks');
    clear(tracks);
    const top = Math.max(30, ...Object.values(v.tracks)) + 4;
    for (const c of ORDER) {
      tracks.append(el(`div.track${v.your_colour === c ? '.mine' : ''}`, { 'data-colour': c },
        el('span.name', el('span.clan-swatch', { style: `background:${CLAN_COLOURS[c]}` }), ' ', clanName(c)),
        el('span.bar', el('i', { style: `width:${(100 * v.tracks[c]) / top}%;background:${CLAN_COLOURS[c]}` })),
        el('span.val', String(v.tracks[c]))));
    }
    const epochs = epochCard.querySelector('.epochs');
    clear(epochs);
    epochsData.forEach((ep, i) => {
      const left = v.chips_left[i];
      const tag = (terrain, text) => el('span.terrain-tag', el('s', { style: `background:${TERRAIN[terrain].base}` }), text);
      epochs.append(el(`div.epoch${v.epoch === ep.epoch ? '.now' : ''}`, { 'data-epoch': ep.epoch },
        el('span.roman', ROMAN[ep.epoch]),
        el('span.chips', Array.from({ length: ep.chips }, (_, k) => el(`i${k < ep.chips - left ? '.taken' : ''}`))),
        ep.favourable === 'all' ? el('span', t('every terrain +{n}', { n: ep.bonus })) : tag(ep.favourable, t('{terrain} +{n}', { terrain: terrainName(ep.favourable), n: ep.bonus })),
        ep.hostile ? tag(ep.hostile, t('{terrain}: ruined', { terrain: terrainName(ep.hostile) })) : el('span.muted', t('no ruins'))));
    });
    epochCard.querySelector('#chips-left').textContent = v.epoch ? t('next village: epoch {epoch}', { epoch: ROMAN[v.epoch] }) : t('all chips taken');
  }

  return {
    update(next) {
      const prevN = ctx ? ctx.n : -1;
      ctx = next;
      if (next.n !== prevN || !next.yourTurn) { selected = null; sent = false; staged = null; }
      parseLegal(next.yourTurn ? next.legal : null);
      lastMove.update(next);
      paint();
    },
    reset() { sent = false; selected = null; staged = null; if (ctx) { paint(); paintArrows(); } },
    preview(move) { staged = move; if (ctx) paintArrows(); },
    instruction(c) {
      const v = c.view;
      if (v.phase === 'village') {
        return {
          headline: t('Choose the next village'),
          detail: t('Your move founded several villages at once. Click the pulsing territory to found next: it takes the next chip (epoch {epoch}).', { epoch: ROMAN[v.epoch] || '–' }),
        };
      }
      if (selected !== null) {
        // (worded for a finger by forScreen where it is shown)
        return { headline: t('Move the huts of {id} onto…', { id: selected }), detail: t('Click a highlighted neighbour. Click the territory again (or press Esc) to choose another.') };
      }
      return { headline: t('Move a group of huts'), detail: t('Click a highlighted territory to pick up all its huts, then a neighbouring territory to move them onto.') };
    },
    youPanel(c) {
      const colour = c.view.your_colour;
      if (!colour || c.replay) return null;
      return el('div.you-card', { style: 'display:flex;align-items:center;gap:14px' },
        el('span.swatch', { style: `background:${CLAN_COLOURS[colour]}` },
          el('span', { style: 'font-size:22px;filter:drop-shadow(0 1px 0 rgba(0,0,0,.3))' }, '⌂')),
        el('div', el('div.label', t('Your secret clan')), el('div.value#your-colour', clanName(colour)),
          el('div.small.muted', t('Only you can see this. Score it, hide it.'))));
    },
    seatExtras(c, k) {
      const colour = c.view.colours[k];
      return [colour ? el('span.clan-swatch', { title: clanName(colour), style: `background:${CLAN_COLOURS[colour]}` }) : null,
        el('span.chips-count', { title: t('village chips') }, el('i'), String(c.view.chips[k]))];
    },
    resultExtras(c, k, finalView) {
      const v = finalView || c.view;
      const colour = v && v.colours ? v.colours[k] : null;
      return colour ? [el('span.clan-swatch', { style: `background:${CLAN_COLOURS[colour]}` }), ` ${clanName(colour)}`] : null;
    },
    // The decision as a sentence for the player about to make it (the
    // Confirm line); null for a decision it has no words for.
    sayMove(m) {
      const mv = /^(\d+)-(\d+)$/.exec(m);
      if (mv) return t('Move the huts of territory {from} onto territory {to}.', { from: mv[1], to: mv[2] });
      const vl = /^village (\d+)$/.exec(m);
      return vl ? t('Found the village at {id} first.', { id: vl[1] }) : null;
    },
    formatMove(m) {
      const mv = /^(\d+)-(\d+)$/.exec(m);
      if (mv) return `${mv[1]} → ${mv[2]}`;
      const vl = /^village (\d+)$/.exec(m);
      return vl ? t('village at {id}', { id: vl[1] }) : m;
    },
  };
}
