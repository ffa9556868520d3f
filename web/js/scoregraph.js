// scoregraph.js — the result's story in numbers: every seat's score over the
// game as lines (with the stages — epochs, turns, castle floors — marked), and
// the points each seat made in each stage.  Data: GET /api/games/ID/scores.
//
// Invariants: the graph and the table read the same rows; a stage's points
// are the score at its last position minus the score where it began, so each
// row of the table adds up to the final score; seats are named, never numbered
// from 0.
import { el, nameSpan } from './common.js';

const SVGNS = 'http://www.w3.org/2000/svg';
// the widest a stage name's letter may be (11 px type), to see whether it fits
const STAGE_CHAR_W = 7;
export const SEAT_COLOURS = ['#2c7d77', '#c8553d', '#5b6bb5', '#d19a1c', '#8a4f9e'];

function svg(tag, attrs, ...kids) {
  const n = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
  for (const k of kids) if (k) n.append(k);
  return n;
}

// The stages in order with the decisions made in them: [{name, from, to}]
// (decision k, from position k to k + 1, belongs to the stage of position k,
// so the final position opens no stage of its own).
export function stageSpans(stages) {
  const spans = [];
  stages.slice(0, Math.max(1, stages.length - 1)).forEach((name, k) => {
    const last = spans[spans.length - 1];
    if (last && last.name === name) last.to = k;
    else spans.push({ name, from: k, to: k });
  });
  return spans;
}

// Points made in each stage, per seat: the score when the next stage began
// (or at the end) minus the score when this one began.
export function pointsByStage(data) {
  const spans = stageSpans(data.stages);
  return spans.map((sp, i) => {
    const end = i + 1 < spans.length ? spans[i + 1].from : data.scores.length - 1;
    return { name: sp.name, points: data.scores[end].map((v, p) => v - data.scores[sp.from][p]) };
  });
}

// The graph: onPick(step) when the player clicks a position; `at` marks the
// position shown on the board (or null).
export function scoreGraph(data, seatName, onPick, at = null) {
  const W = 640, H = 240, L = 36, R = 10, T = 14, B = 26;
  const total = Math.max(1, data.scores.length - 1);
  const max = Math.max(1, ...data.scores.flat());
  const x = (k) => L + (k / total) * (W - L - R);
  const y = (v) => T + (1 - v / max) * (H - T - B);
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'score-graph', role: 'img', 'aria-label': 'Scores over the game' });
  for (const frac of [0, 0.5, 1]) {
    const v = Math.round(max * frac);
    g.append(svg('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }),
      svg('text', { x: L - 6, y: y(v) + 4, class: 'axis', 'text-anchor': 'end' }, document.createTextNode(String(v))));
  }
  // a stage's name under its part of the graph, only where it fits (short
  // stages of a long game would write their names over each other)
  const spans = stageSpans(data.stages);
  spans.forEach((sp, i) => {
    if (sp.from > 0) g.append(svg('line', { x1: x(sp.from), x2: x(sp.from), y1: T, y2: H - B, class: 'stage-line' }));
    const room = (i + 1 < spans.length ? x(spans[i + 1].from) : W - R) - x(sp.from) - 6;
    if (sp.name.length * STAGE_CHAR_W <= room) {
      g.append(svg('text', { x: x(sp.from) + 3, y: H - 8, class: 'stage-name' }, document.createTextNode(sp.name)));
    }
  });
  for (let p = 0; p < data.players; p++) {
    const pts = data.scores.map((row, k) => `${x(k).toFixed(1)},${y(row[p]).toFixed(1)}`).join(' ');
    g.append(svg('polyline', { points: pts, class: 'seat-line', 'data-seat': p, stroke: SEAT_COLOURS[p % SEAT_COLOURS.length] },
      svg('title', {}, document.createTextNode(`${seatName(p)}: ${data.scores[data.scores.length - 1][p]}`))));
  }
  const marker = svg('line', { x1: x(at || 0), x2: x(at || 0), y1: T, y2: H - B, class: 'pick-line', visibility: at === null ? 'hidden' : 'visible' });
  g.append(marker);
  if (onPick) {
    g.classList.add('clickable');
    g.addEventListener('click', (ev) => {
      const box = g.getBoundingClientRect();
      const px = ((ev.clientX - box.left) / box.width) * W;
      const k = Math.max(0, Math.min(total, Math.round(((px - L) / (W - L - R)) * total)));
      marker.setAttribute('x1', x(k));
      marker.setAttribute('x2', x(k));
      marker.setAttribute('visibility', 'visible');
      onPick(k);
    });
  }
  const legend = el('div.score-legend', [...Array(data.players).keys()].map((p) =>
    el('span', el('i', { style: `background:${SEAT_COLOURS[p % SEAT_COLOURS.length]}` }), seatName(p))));
  return el('div.score-graph-box', g, legend);
}

// The table of points per stage: a row per stage, a column per seat, the
// totals last (a phone's width holds every seat; stages, however many, add
// rows, never columns).  With five seats or more a phone puts each stage's
// name on a line of its own above its points (the `many-seats` class), so
// the seats' columns get the whole width.
export function stageTable(data, seatName) {
  const rows = pointsByStage(data);
  const seats = [...Array(data.players).keys()];
  const final = data.scores[data.scores.length - 1];
  const many = data.players >= 5;
  return el('div.stage-table-wrap', el(many ? 'table.stage-table.many-seats' : 'table.stage-table',
    { style: `--seats:${data.players}` },
    el('thead', el('tr', el('th', ''), seats.map((p) => el('th', { 'data-col-seat': p }, nameSpan(seatName(p)))))),
    el('tbody', rows.map((r) => el('tr', el('th', r.name), seats.map((p) => el('td', { 'data-col-seat': p }, String(r.points[p])))))),
    el('tfoot', el('tr', el('th', 'Total'), seats.map((p) => el('td.total', { 'data-col-seat': p }, String(final[p])))))));
}
