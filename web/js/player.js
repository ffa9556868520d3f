// player.js — a player's profile (player.html?name=NAME, GET /api/players/NAME):
// a card per game with a rating, its history as an SVG line against the
// computer levels' ratings (dashed), and where the player stands; wins by
// game; the recent games, each opening its game or replay.
//
// Invariants: the name and everything from the server are set as text only;
// every word through i18n.js; an unknown (or deleted) player gets a clear
// message.
import { apiGet, brandSvg, clear, el, svg } from './common.js';
import { date, ready, t, tn } from './i18n.js';
import { levelName, ratingText, standingText, title } from './standing.js';

const $ = (id) => document.getElementById(id);
const W = 420;
const H = 190;
const PAD = { left: 30, right: 58, top: 10, bottom: 24 };

// The rating's history (a start at the new player's 0, then one point per
// rated game) against the computer levels' lines.
export function historyGraph(points, levels) {
  const ys = [0, ...points.map((p) => p.rating), ...levels.map((l) => l.rating)];
  let lo = Math.floor(Math.min(...ys) / 5) * 5;
  let hi = Math.ceil(Math.max(...ys) / 5) * 5;
  if (hi - lo < 10) hi = lo + 10;
  const n = Math.max(points.length, 1);
  const x = (i) => PAD.left + (i / n) * (W - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - (v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'rating-graph', role: 'img',
    'aria-label': t('Rating after each rated game') });
  const step = (hi - lo) / 5 >= 5 ? Math.ceil((hi - lo) / 5 / 5) * 5 : 5;
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    g.append(svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: 'grid' }),
      svg('text', { x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }, ratingText(v).replace(/[.,]0$/, '')));
  }
  // the levels' names, nudged apart where their lines lie close
  const placed = [];
  const labelY = (l) => {
    let v = y(l.rating);
    while (placed.some((p) => Math.abs(p - v) < 12)) v -= 1;
    if (v < PAD.top) v = PAD.top;
    placed.push(v);
    return v;
  };
  for (const l of [...levels].sort((a, b) => a.rating - b.rating)) {
    g.append(svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y(l.rating), y2: y(l.rating), class: `level level-${l.level}` }),
      svg('text', { x: W - PAD.right + 5, y: labelY(l) + 4, class: 'level-label' }, levelName(l.level)));
  }
  const pts = [[x(0), y(0)], ...points.map((p, i) => [x(i + 1), y(p.rating)])];
  g.append(svg('polyline', { points: pts.map((p) => p.map((v) => v.toFixed(1)).join(',')).join(' '), class: 'rating-line' }));
  for (const [i, p] of points.entries()) {
    g.append(svg('circle', { cx: x(i + 1), cy: y(p.rating), r: 3.5, class: p.rank === 1 ? 'won' : 'lost' },
      svg('title', {}, t('{date}: place {rank}, rating {rating}', { date: date(p.at, { dateStyle: 'medium' }), rank: p.rank, rating: ratingText(p.rating) }))));
  }
  g.append(svg('text', { x: PAD.left, y: H - 6, class: 'tick' }, t('rated games →')));
  return g;
}

function gameLink(g) {
  return g.status === 'over' ? `/game.html?game=${g.id}&replay=1` : `/game.html?game=${g.id}`;
}

function outcome(g) {
  if (g.status !== 'over') return t('playing');
  if (!g.rank) return t('finished');
  return g.rank === 1 ? t('won') : t('place {rank} of {players}', { rank: g.rank, players: g.players });
}

async function main() {
  await ready();
  $('brand-logo').append(brandSvg());
  const name = new URLSearchParams(location.search).get('name') || '';
  const out = clear($('profile'));
  let p;
  try {
    p = await apiGet(`/api/players/${encodeURIComponent(name)}`);
  } catch (e) {
    $('player-name').textContent = t('No such player');
    out.append(el('section.card', el('p', t('There is no player called “{name}”. The name may be misspelt, or the account was closed.', { name }))));
    return;
  }
  document.title = t('Tabula — {name}', { name: p.name });
  $('player-name').textContent = p.name;
  $('player-since').textContent = t('Playing since {date}', { date: date(p.since, { dateStyle: 'long' }) });
  const boards = await Promise.all(p.ratings.map((r) => apiGet(`/api/ratings/${r.game}?limit=500`).catch(() => [])));
  const grid = el('div.rating-cards');
  for (const [i, r] of p.ratings.entries()) {
    const levels = boards[i].filter((e) => e.computer);
    const hist = p.history.filter((h) => h.game === r.game);
    grid.append(el('section.card.rating-card',
      el('div.card-head', el('h2', title(r.game)),
        el('a.small', { href: `/leaderboard.html?game=${r.game}` }, t('Leaderboard'))),
      el('p.rating-big', el('b', ratingText(r.rating)), el('span.muted', ` ± ${ratingText(r.uncertainty)}`)),
      el('p.small.muted', tn('{n} rated game, {wins} won', '{n} rated games, {wins} won', r.games, { wins: r.wins })),
      el('p.standing', standingText(r.standing, false)),
      historyGraph(hist, levels)));
  }
  if (!p.ratings.length)
    grid.append(el('section.card', el('p.muted', t('No rated games yet.'))));
  out.append(grid);
  if (p.wins.length) {
    out.append(el('section.card', el('h2', t('Wins by game')),
      el('table.games', el('thead', el('tr', el('th', t('Game')), el('th.num', t('Played')), el('th.num', t('Won')))),
        el('tbody', p.wins.map((w) => el('tr', el('td', title(w.game)), el('td.num', String(w.played)), el('td.num', String(w.wins))))))));
  }
  out.append(el('section.card', el('h2', t('Recent games')),
    p.games.length
      ? el('table.games', el('thead', el('tr', el('th', t('Game')), el('th', t('Started')), el('th', t('Result')), el('th', ''))),
        el('tbody', p.games.map((g) => el('tr',
          el('td', title(g.game), g.rated ? el('span.badge', ` ${t('rated')}`) : null),
          el('td', date(g.created, { dateStyle: 'medium' })),
          el('td', outcome(g)),
          el('td', el('a.button.small', { href: gameLink(g) }, g.status === 'over' ? t('Replay') : t('Watch')))))))
      : el('p.muted', t('No games yet.'))));
}

main();
