// scoregraph.js — the result's story in numbers: every seat's score over the
// game as lines (with the stages — epochs, turns, castle floors — marked), and
// the points each seat made in each stage with the sources they came from.
// Data: GET /api/games/ID/scores (the library's tb_record_story_json).
//
// Invariants: the graph, the table and the result's breakdown read one story
// computed by the server, so a stage's points are the sum of its sources and
// every source's stages add up to its line in "Where the points came from";
// the graph is drawn at the size it is shown (its labels stay 12 px, however
// wide the screen), every stage gets a label under it (its short name when
// the whole one does not fit), and the value axis has distinct whole-number
// ticks from 0 up; seats are named, never numbered from 0.
import { el, nameSpan } from './common.js';
import { N_, num, t, tn } from './i18n.js';

// The story's stage names and score sources are the engine's English
// ("Epoch II", "Turn 4 of 7", "Castle floor 2"; "Epoch I villages", "Turn 4
// earnings, Age of Might"): shown in the page's language through these
// catalogue msgids, by their shape (a *_msg twin from the server, when there
// is one, comes first).
const STAGES = [
  [/^Epoch ([IVX]+)$/, (m) => t('Epoch {epoch}', { epoch: m[1] })],
  [/^Turn (\d+) of (\d+)$/, (m) => t('Turn {n} of {total}', { n: Number(m[1]), total: Number(m[2]) })],
  [/^Castle floor (\d+)$/, (m) => t('Castle floor {n}', { n: Number(m[1]) })],
];
const AGES = { Might: N_('Age of Might'), Faith: N_('Age of Faith'), Reason: N_('Age of Reason') };
const SOURCES = [
  [/^Epoch ([IVX]+) villages$/, (m) => t('Epoch {epoch} villages', { epoch: m[1] })],
  [/^Turn (\d+) earnings, Age of (\w+)$/, (m) => t('Turn {n} earnings, {age}', { n: Number(m[1]), age: AGES[m[2]] ? t(AGES[m[2]]) : m[2] })],
  [/^(\w[\w ]*) seals? at the end \((\d+) × (\d+)\)$/, (m) => tn('{family} seal at the end ({n} × {value})', '{family} seals at the end ({n} × {value})',
    Number(m[2]), { family: t(m[1].toLowerCase()), value: Number(m[3]) })],
  [/^Villages$/, () => t('Villages')],
  [/^Earnings, Age of (\w+)$/, (m) => t('Earnings, {age}', { age: AGES[m[1]] ? t(AGES[m[1]]) : m[1] })],
];
// (the sources each game names as they are: msgids for the catalogue)
N_('At the start'); N_('Terrain bonuses'); N_('Chips'); N_('Gold from sales during play'); N_('Starting Ecus');
N_('Construction bonuses'); N_('Travel, exchanges and demolitions');

function byShape(table, text) {
  for (const [re, say] of table) {
    const m = re.exec(text);
    if (m) return say(m);
  }
  return t(text);
}
export const stageWords = (name) => byShape(STAGES, String(name || ''));
export const sourceWords = (source) => byShape(SOURCES, String(source || ''));

const SVGNS = 'http://www.w3.org/2000/svg';
const FONT = 12; // px: the labels' size (CSS .score-graph text), on every screen
const CHAR_W = 7; // the widest a label's letter may be at that size
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

// A stage's short name, for under a stage too narrow for the whole one:
// "Epoch IV" → "IV", "Turn 4 of 7" → "4", "Castle floor 2" → "2".
export function shortStage(name) {
  return name.replace(/ of \d+$/, '').split(' ').pop();
}

// The value axis: whole numbers from 0 in steps of 1, 2 or 5 times a power
// of ten, at most five ticks, the top at or above `max` (0 … 1 when nobody
// scored).  Returns the tick values, increasing and distinct.
export function yTicks(max) {
  const top = Math.max(1, Math.ceil(max));
  let step = 1;
  for (let p = 1; ; p *= 10) {
    const s = [1, 2, 5].map((m) => m * p).find((v) => Math.ceil(top / v) <= 4);
    if (s) { step = s; break; }
  }
  const ticks = [];
  for (let v = 0; v < top + step; v += step) ticks.push(v);
  return ticks;
}

// The x axis: each stage gets room in proportion to its decisions, but at
// least `min` px, so a short last epoch still has its label.  Returns
// {x(k), at(px)} for positions k in 0 … total over [left, right].
export function stageAxis(spans, total, left, right, min = 30) {
  const width = right - left;
  const lens = spans.map((sp, i) => (i + 1 < spans.length ? spans[i + 1].from : total) - sp.from);
  const floor = Math.min(min, width / Math.max(1, spans.length));
  let w = lens.map(() => 0);
  let fixed = lens.map(() => false);
  for (let round = 0; round < spans.length + 1; round++) {
    const free = width - fixed.reduce((a, f) => a + (f ? floor : 0), 0);
    const share = lens.reduce((a, l, i) => a + (fixed[i] ? 0 : l), 0);
    w = lens.map((l, i) => (fixed[i] ? floor : share ? (free * l) / share : free / lens.filter((_, j) => !fixed[j]).length));
    const more = w.map((v, i) => fixed[i] || v < floor);
    if (more.every((f, i) => f === fixed[i])) break;
    fixed = more;
  }
  const starts = [];
  w.reduce((a, v, i) => { starts[i] = a; return a + v; }, left);
  const x = (k) => {
    if (k >= total && total > 0) return right; // the end, past a last stage of no decision
    let i = spans.length - 1;
    while (i > 0 && k < spans[i].from) i--;
    return lens[i] > 0 ? starts[i] + (w[i] * Math.min(lens[i], k - spans[i].from)) / lens[i] : starts[i];
  };
  const at = (px) => {
    let i = 0;
    while (i + 1 < spans.length && px >= starts[i + 1]) i++;
    const k = spans[i].from + Math.round(((px - starts[i]) / (w[i] || 1)) * lens[i]);
    return Math.max(0, Math.min(total, k));
  };
  return { x, at, starts, widths: w };
}

// The stages under the graph: the story's (a last stage only the final
// position is in gets its place when a source names it), else the stages
// of the positions.
export function graphSpans(data) {
  const entries = (data.by_stage || []).filter((e, i) => !(i === 0 && e.stage === 'At the start'));
  return entries.length ? entries.map((e) => ({ name: e.stage, from: e.from, to: e.to })) : stageSpans(data.stages);
}

// Points made in each stage, per seat, with their sources: the story's
// entries (the first "At the start" when seats began with points).
export function pointsByStage(data) {
  return (data.by_stage || []).map((e) => ({ name: e.stage, points: e.points, parts: e.parts }));
}

// The graph: onPick(step) when the player clicks a position; `at` marks the
// position shown on the board (or null).  It is drawn again at its new size
// when its box changes width.
export function scoreGraph(data, seatName, onPick, at = null) {
  const legend = el('div.score-legend', [...Array(data.players).keys()].map((p) =>
    el('span', el('i', { style: `background:${SEAT_COLOURS[p % SEAT_COLOURS.length]}` }), seatName(p))));
  const box = el('div.score-graph-box', legend);
  let drawn = 0;
  const draw = (width) => {
    const W = Math.max(240, Math.round(width));
    if (W === drawn) return;
    drawn = W;
    const g = drawGraph(data, seatName, W, at, (k) => { at = k; if (onPick) onPick(k); }, Boolean(onPick));
    const old = box.querySelector('svg.score-graph');
    if (old) old.replaceWith(g); else box.prepend(g);
  };
  draw(640);
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(() => { if (box.clientWidth > 0) draw(box.clientWidth); }).observe(box);
  }
  return box;
}

function drawGraph(data, seatName, W, at, pick, clickable) {
  const H = W < 480 ? 200 : 240;
  const total = Math.max(0, data.scores.length - 1);
  const ticks = yTicks(Math.max(0, ...data.scores.flat()));
  const top = ticks[ticks.length - 1];
  const L = 10 + CHAR_W * String(top).length, R = 10, T = 12, B = 26;
  const spans = graphSpans(data);
  const axis = stageAxis(spans, total, L, W - R);
  const x = axis.x;
  const y = (v) => T + (1 - v / top) * (H - T - B);
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: 'score-graph', role: 'img',
    'aria-label': t('Scores over the game'), 'data-width': W });
  for (const v of ticks) {
    g.append(svg('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }),
      svg('text', { x: L - 5, y: y(v) + 4, class: 'axis', 'text-anchor': 'end' }, document.createTextNode(num(v))));
  }
  // every stage's name under its part of the graph: the whole name where it
  // fits, else its short name (the whole one in its tooltip)
  spans.forEach((sp, i) => {
    const left = axis.starts[i], room = axis.widths[i];
    if (sp.from > 0) g.append(svg('line', { x1: left, x2: left, y1: T, y2: H - B, class: 'stage-line' }));
    const whole = stageWords(sp.name);
    const name = whole.length * CHAR_W <= room - 4 ? whole : shortStage(sp.name);
    g.append(svg('text', { x: left + room / 2, y: H - 8, class: 'stage-name', 'text-anchor': 'middle', 'data-stage': sp.name },
      document.createTextNode(name), svg('title', {}, document.createTextNode(whole))));
  });
  for (let p = 0; p < data.players; p++) {
    const pts = data.scores.map((row, k) => `${x(k).toFixed(1)},${y(row[p]).toFixed(1)}`).join(' ');
    g.append(svg('polyline', { points: pts, class: 'seat-line', 'data-seat': p, stroke: SEAT_COLOURS[p % SEAT_COLOURS.length] },
      svg('title', {}, document.createTextNode(`${seatName(p)}: ${num(data.scores[data.scores.length - 1][p])}`))));
  }
  const marker = svg('line', { x1: x(at || 0), x2: x(at || 0), y1: T, y2: H - B, class: 'pick-line', visibility: at === null ? 'hidden' : 'visible' });
  g.append(marker);
  if (clickable) {
    g.classList.add('clickable');
    g.addEventListener('click', (ev) => {
      const box = g.getBoundingClientRect();
      const k = axis.at(((ev.clientX - box.left) / box.width) * W);
      marker.setAttribute('x1', x(k));
      marker.setAttribute('x2', x(k));
      marker.setAttribute('visibility', 'visible');
      pick(k);
    });
  }
  return g;
}

// A source's name under its stage, without the stage's own name ("Epoch I
// villages" under Epoch I: "Villages").
function partName(source, stage) {
  const head = stage.replace(/ of \d+$/, '');
  const rest = source.startsWith(`${head} `) || source.startsWith(`${head},`) ? source.slice(head.length + 1).trim() : source;
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

// The table of points per stage: a row per stage, a column per seat, the
// totals last (a phone's width holds every seat; stages, however many, add
// rows, never columns).  Under each stage, a smaller row per source of its
// points (the result's breakdown, stage by stage).  With five seats or more
// a phone puts each stage's name on a line of its own above its points (the
// `many-seats` class), so the seats' columns get the whole width.
export function stageTable(data, seatName) {
  const rows = pointsByStage(data);
  const seats = [...Array(data.players).keys()];
  const final = data.scores[data.scores.length - 1];
  const many = data.players >= 5;
  const body = [];
  for (const r of rows) {
    body.push(el('tr.stage', el('th', stageWords(r.name)), seats.map((p) => el('td', { 'data-col-seat': p }, num(r.points[p])))));
    const sources = [];
    for (const p of seats) for (const part of (r.parts && r.parts[p]) || []) if (!sources.includes(part.source)) sources.push(part.source);
    for (const source of sources) {
      body.push(el('tr.part', el('th', sourceWords(partName(source, r.name))), seats.map((p) => {
        const part = ((r.parts && r.parts[p]) || []).find((q) => q.source === source);
        return el('td', { 'data-part-seat': p }, part ? num(part.points) : '');
      })));
    }
  }
  return el('div.stage-table-wrap', el(many ? 'table.stage-table.many-seats' : 'table.stage-table',
    { style: `--seats:${data.players}` },
    el('thead', el('tr', el('th', ''), seats.map((p) => el('th', { 'data-col-seat': p }, nameSpan(seatName(p)))))),
    el('tbody', body),
    el('tfoot', el('tr', el('th', t('Total')), seats.map((p) => el('td.total', { 'data-col-seat': p }, num(final[p])))))));
}
