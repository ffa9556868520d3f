// leaderboard.js — the leaderboard page (leaderboard.html?game=NAME): the
// ratings of one game (GET /api/ratings/NAME), people and the computer levels
// together, best first, each person with where they stand against the levels;
// the signed-in player's own row marked and their standing said first.
//
// Invariants: names are set as text only (el(), never innerHTML); every word
// through i18n.js; an unknown game gets a clear message and the games' links.
import { apiGet, brandSvg, clear, el } from './common.js';
import { ready, t } from './i18n.js';
import { GAMES, computerName, ratingText, standingText, title } from './standing.js';

const $ = (id) => document.getElementById(id);

async function me() {
  try {
    const r = await fetch('/api/me', { headers: { Accept: 'application/json' } });
    return r.ok ? (await r.json()).name || null : null;
  } catch {
    return null;
  }
}

function row(e, place, you) {
  const who = e.computer
    ? el('span.computer-name', computerName(e.level))
    : el('a.player-link', { href: `/player.html?name=${encodeURIComponent(e.name)}` }, e.name);
  const cell = el('td.who-cell', who);
  if (!e.computer && e.standing) cell.append(el('div.small.muted', standingText(e.standing, false)));
  return el(`tr${e.computer ? '.computer' : ''}${you ? '.you' : ''}`,
    el('td.place', String(place)),
    cell,
    el('td.num', el('b', ratingText(e.rating)), el('span.small.muted', ` ± ${ratingText(e.uncertainty)}`)),
    el('td.num', String(e.games)));
}

async function main() {
  await ready();
  $('brand-logo').append(brandSvg());
  const game = new URLSearchParams(location.search).get('game') || 'clans';
  const nav = $('board-nav');
  for (const g of GAMES)
    nav.append(el(`a.button.small${g === game ? '.primary' : ''}`, { href: `/leaderboard.html?game=${g}` }, title(g)));
  const board = clear($('board'));
  if (!GAMES.includes(game)) {
    $('board-title').textContent = t('No such game');
    board.append(el('p', t('Choose one of the games above.')));
    return;
  }
  document.title = t('Tabula — {game} leaderboard', { game: title(game) });
  $('board-title').textContent = t('{game} leaderboard', { game: title(game) });
  $('board-note').textContent = t('Rated games move these numbers. The rating is a careful estimate: skill minus three times its uncertainty, so it rises as your games make it surer. The computer levels are rated on the same scale and never change.');
  let list;
  let you;
  try {
    [list, you] = await Promise.all([apiGet(`/api/ratings/${game}?limit=200`), me()]);
  } catch (e) {
    board.append(el('p.error', t('The leaderboard could not be loaded: {why}', { why: e.message })));
    return;
  }
  const people = list.filter((e) => !e.computer);
  const mine = you ? people.find((e) => e.name === you) : null;
  if (mine && mine.standing) {
    $('your-standing').hidden = false;
    $('your-standing').textContent = standingText(mine.standing, true);
  }
  const table = el('table.games.leaderboard',
    el('thead', el('tr', el('th', t('Place')), el('th', t('Player')), el('th.num', t('Rating')), el('th.num', t('Games')))),
    el('tbody', list.map((e, i) => row(e, i + 1, mine && e === mine))));
  board.append(table);
  if (!people.length)
    board.append(el('p.muted', t('Nobody has played a rated game of {game} yet. Sign in and start a rated game against a computer level to appear here.', { game: title(game) })));
}

main();
