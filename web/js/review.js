// review.js — the review of a finished game on the replay page
// (docs/http-api.md, "/api/games/{id}/review"): a button that asks the
// server for it, a progress bar while the server computes it (polled; play
// never waits on it), then a graph of every player's estimated chance of
// winning over the game — one line per player in its colour, clickable to
// show the board at that position through the replay view — and the chosen
// player's mistakes and blunders with the decision the computer preferred.
//
// Invariants: the panel only reads the API (a review exists only for games
// that are over); every text from the server is set as text; positions are
// counted as the replay counts them (position k: after k decisions), and
// decisions from 1 as the move list shows them.
import { apiGet, apiPost, clear, el, forScreen, svg } from './common.js';
import { errorText, field, num, t, tn } from './i18n.js';
import { SEAT_COLOURS } from './scoregraph.js';

const POLL_MS = 600;
// Lines for games whose players have no colours of their own (Clans hides
// them): the result's score graph's, so a player's line has one colour on the page.
const PALETTE = SEAT_COLOURS;
// The graph is drawn at the width it is shown (its labels keep their CSS size
// on a phone too), again when that width changes.
const PAD_L = 44, PAD_R = 10, PAD_T = 12, PAD_B = 24;

const pct = (v) => num(v, { style: 'percent', maximumFractionDigits: 0 });

// mountReview(box, {gameId, seats, seatName, colourOf, formatMove, goTo})
// colourOf(k): the player's colour (CSS) or null; goTo(k): show position k.
export function mountReview(box, opts) {
  // gen: which asking the answers belong to (start() begins a new one: an
  // answer to an older request is dropped, and at most one poll is pending)
  const R = { review: null, chosen: defaultSeat(opts.seats), position: 0, timer: null, graph: null, gen: 0 };

  function defaultSeat(seats) {
    const human = seats.findIndex((s) => s.kind === 'human');
    return human >= 0 ? human : 0;
  }

  function colour(k) {
    return opts.colourOf(k) || PALETTE[k % PALETTE.length];
  }

  function showIntro(message) {
    // The same intro already showing stays (its button too): the first
    // poll answers "none" just after the page drew it, and a button
    // replaced under the pointer would swallow the click.
    const shown = box.querySelector('#review-start');
    if (shown && !shown.disabled && box.dataset.intro === (message || '')) return;
    box.dataset.intro = message || '';
    clear(box).append(
      el('div.card-head', el('h3', t('Review'))),
      el('p.small.muted', t('The computer looks at every decision again, from what that player knew at the time, and estimates each player\'s chance of winning: where the game turned, and which moves cost the most.')),
      ...(message ? [el('p.small.review-error', message)] : []), // append() would print a null
      el('button.primary#review-start', { type: 'button', onclick: start }, t('Review this game')));
  }

  function showProgress(st) {
    const total = st.total || 0, done = st.done || 0;
    clear(box).append(
      el('div.card-head', el('h3', t('Review'))),
      el('div.review-progress',
        el('progress#review-progress', { max: String(total || 1), value: String(done) }),
        el('span.small.muted#review-progress-text', st.status === 'queued' || !total
          ? t('Waiting for the computer…')
          : t('Looking at decision {n} of {total}…', { n: done, total }))));
  }

  async function poll() {
    R.timer = null;
    const gen = R.gen;
    let st;
    try { st = await apiGet(`/api/games/${opts.gameId}/review`); } catch (e) {
      if (gen === R.gen) showIntro(t('The review could not be loaded: {why}', { why: e.message }));
      return;
    }
    if (gen === R.gen) handle(st);
  }

  function handle(st) {
    clearTimeout(R.timer);
    R.timer = null;
    if (st.status === 'done') { R.review = st.review; showReview(); return; }
    if (st.status === 'none') { showIntro(null); return; }
    if (st.status === 'failed') { showIntro(st.msg ? errorText(st) : field(st, 'message')); return; }
    showProgress(st);
    R.timer = setTimeout(poll, POLL_MS);
  }

  async function start() {
    const b = box.querySelector('#review-start');
    if (b) b.disabled = true;
    const gen = ++R.gen; // (a poll under way answers from before the start)
    clearTimeout(R.timer);
    R.timer = null;
    let st;
    try { st = await apiPost(`/api/games/${opts.gameId}/review`, {}); } catch (e) {
      if (gen === R.gen) showIntro(t('The review could not start: {why}', { why: e.message }));
      return;
    }
    if (gen === R.gen) handle(st);
  }

  // Player k's line: k's own chance of winning at each of k's decisions, as
  // the computer judged it from what k knew then (never from another
  // player's knowledge: in a game of secrets those guesses differ, and a
  // line mixing them zig-zags as the turn passes), held from the start to
  // k's first decision, and the result at the end.  [[position, chance]].
  function seatLine(k) {
    const rv = R.review, n = rv.entries.length;
    const own = rv.entries.filter((e) => e.seat === k).map((e) => [e.index, e.win_rates[k]]);
    const end = rv.final && rv.final.length ? rv.final[k] : own.length ? own[own.length - 1][1] : 1 / rv.players.length;
    const pts = own.length && own[0][0] === 0 ? own : [[0, own.length ? own[0][1] : end], ...own];
    if (pts[pts.length - 1][0] < n) pts.push([n, end]);
    return pts;
  }

  function drawGraph(width) {
    const W = Math.max(240, Math.round(width)), H = W < 480 ? 200 : 220;
    R.graphWidth = W;
    const rv = R.review, n = rv.entries.length;
    const x = (k) => PAD_L + (n ? (k / n) * (W - PAD_L - PAD_R) : 0);
    const y = (v) => PAD_T + (1 - v) * (H - PAD_T - PAD_B);
    const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'review-graph', role: 'img',
      'aria-label': t('Chance of winning of every player over the game; click to see the board there') });
    for (const v of [0, 0.25, 0.5, 0.75, 1]) {
      g.append(svg('line', { x1: PAD_L, x2: W - PAD_R, y1: y(v), y2: y(v), class: v === 0.5 ? 'grid mid' : 'grid' }),
        svg('text', { x: PAD_L - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, pct(v)));
    }
    g.append(svg('text', { x: W - PAD_R, y: H - 6, 'text-anchor': 'end', class: 'axis' }, t('decision {n}', { n })),
      svg('text', { x: PAD_L, y: H - 6, class: 'axis' }, t('start')));
    const players = rv.players.length;
    for (let k = 0; k < players; k++) {
      const pts = seatLine(k).map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
      g.append(svg('polyline', { points: pts.join(' '), class: 'casing' }),
        svg('polyline', { points: pts.join(' '), class: 'line', stroke: colour(k), 'data-seat': k }));
    }
    // The chosen player's marked decisions, as dots on its line.
    for (const e of rv.entries) {
      if (!e.mark || e.seat !== R.chosen) continue;
      g.append(svg('circle', { cx: x(e.index), cy: y(e.win_rates[e.seat]), r: e.mark === 'blunder' ? 5 : 4,
        class: `mark ${e.mark}`, fill: colour(e.seat) }));
    }
    const cursor = svg('line', { x1: x(R.position), x2: x(R.position), y1: PAD_T, y2: H - PAD_B, class: 'cursor' });
    g.append(cursor);
    const hit = svg('rect', { x: PAD_L, y: 0, width: W - PAD_L - PAD_R, height: H, class: 'hit' });
    hit.addEventListener('click', (ev) => {
      // the click in the graph's own units (right however the picture is fitted in its box)
      const pt = g.createSVGPoint();
      pt.x = ev.clientX;
      pt.y = ev.clientY;
      const sx = pt.matrixTransform(g.getScreenCTM().inverse()).x;
      const k = Math.max(0, Math.min(n, Math.round(((sx - PAD_L) / (W - PAD_L - PAD_R)) * n)));
      opts.goTo(k);
    });
    g.append(hit);
    R.graph = { svg: g, cursor, x };
    return g;
  }

  function moveText(m) {
    return opts.formatMove ? opts.formatMove(m) : m;
  }

  // A decision in players' words (the log's narration, from the server),
  // its notation in the tooltip; reviews stored before the words came
  // show the short notation.
  function said(words, m) {
    return words ? el('span.said', { title: moveText(m), 'data-move': m }, words)
      : el('span.mv', { 'data-move': m }, moveText(m));
  }

  function mistakeList() {
    const rv = R.review;
    const marked = rv.entries.filter((e) => e.seat === R.chosen && e.mark);
    if (!marked.length) {
      return el('p.small.muted#review-mistakes', t('No mistakes found for {name}: no decision lost more than {pct} of a win by the computer\'s estimate.', { name: opts.seatName(R.chosen), pct: pct(rv.mistake) }));
    }
    return el('ol.review-mistakes#review-mistakes', marked.map((e) => el(`li.${e.mark}`,
      el('button.link', { type: 'button', 'data-position': e.index, onclick: () => opts.goTo(e.index) },
        el('b', t('Decision {n}', { n: e.index + 1 })), ' · ', el('span.tag', e.mark === 'blunder' ? t('Blunder') : t('Mistake'))),
      el('div.small', t('Played:'), ' ', said(field(e, 'played_said'), e.played), ` (${pct(e.before)} → ${pct(e.after)})`),
      el('div.small.muted', t('The computer preferred:'), ' ', said(field(e, 'best_said'), e.best), ` (${pct(e.best_value)})`))));
  }

  function showReview() {
    const rv = R.review;
    if (!rv.entries.length) { // a game resigned before its first decision
      clear(box).append(el('div.card-head', el('h3', t('Review'))),
        el('p.muted#review-empty', t('The game ended before anyone made a decision, so there is nothing to review.')));
      return;
    }
    const picker = el('select#review-seat', { 'aria-label': t('Whose decisions') },
      rv.players.map((p, k) => el('option', { value: String(k), ...(k === R.chosen ? { selected: true } : {}) }, opts.seatName(k))));
    picker.addEventListener('change', () => { R.chosen = Number(picker.value); showReview(); });
    const count = (k, mark) => rv.entries.filter((e) => e.seat === k && e.mark === mark).length;
    clear(box).append(
      el('div.card-head', el('h3', t('Review')), el('span.small.muted', tn('{n} simulation per decision', '{n} simulations per decision', Number(rv.iterations)))),
      el('div.review-legend', rv.players.map((p, k) => el('span.item', { 'data-seat': k },
        el('i.swatch', { style: `background:${colour(k)}` }), opts.seatName(k),
        el('span.muted', ` · ${tn('{n} mistake', '{n} mistakes', count(k, 'mistake'))}, ${tn('{n} blunder', '{n} blunders', count(k, 'blunder'))}`)))),
      graphWrap(),
      el('p.small.muted#review-caption', forScreen(t('Each line is one player\'s chance of winning as the computer estimates it at that player\'s own decisions, from what that player knew then; the last point is the result. Click the graph to see the board there.'))),
      el('div.row.review-pick', el('label.small', { for: 'review-seat' }, t('Mistakes of'), ' '), picker),
      mistakeList());
    setPosition(R.position);
  }

  function graphWrap() {
    const wrap = el('div.review-graph-wrap', drawGraph(640));
    if (typeof ResizeObserver === 'function') {
      const ro = new ResizeObserver(() => {
        if (!wrap.isConnected) { ro.disconnect(); return; } // (a new review drawn)
        const w = Math.round(wrap.clientWidth);
        if (!w || Math.max(240, w) === R.graphWidth) return;
        wrap.replaceChildren(drawGraph(w));
        setPosition(R.position);
      });
      ro.observe(wrap);
    }
    return wrap;
  }

  function setPosition(k) {
    R.position = k;
    if (!R.graph) return;
    const xk = R.graph.x(k);
    R.graph.cursor.setAttribute('x1', xk);
    R.graph.cursor.setAttribute('x2', xk);
    R.graph.svg.dataset.position = String(k);
  }

  box.hidden = false;
  showIntro(null);
  poll(); // a review already stored (or under way) shows at once
  return {
    setPosition,
    start,
  };
}
