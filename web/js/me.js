// me.js — "My games" (me.html): every game of the signed-in player from
// GET /api/me, whichever device they played it on: the games where it is
// their turn first, then running, then finished; each opens the game, whose
// page plays the player's seat by their session (no link needed).
//
// Invariants: names are set as text, never as HTML; a guest is sent to the
// account page's log-in, never shown an error.
import { brandSvg, clear, el } from './common.js';
import { date, displayName, ready, t, tn } from './i18n.js';

const $ = (id) => document.getElementById(id);
const root = $('me');

function statusText(g) {
  if (g.your_turn) return t('Your turn');
  if (g.status === 'over') return t('Game over');
  if (g.status === 'open') return t('Waiting for players');
  return t('Playing');
}

function gameItem(g) {
  const against = g.opponents.length ? t('against {names}', { names: g.opponents.map(displayName).join(', ') }) : t('alone');
  return el(`a.me-game${g.your_turn ? '.your-turn' : ''}`, { href: `/game.html?game=${encodeURIComponent(g.id)}`, 'data-game': g.id },
    el('span.me-title', el('b', g.title), ' ', el('span.muted', against)),
    el('span.me-state', el(`span.badge${g.your_turn ? '.badge-turn' : ''}`, statusText(g)),
      g.rated ? el('span.badge', t('Rated')) : null,
      el('span.small.muted', date(g.updated, { dateStyle: 'medium', timeStyle: 'short' }))));
}

async function main() {
  $('brand-logo').append(brandSvg());
  await ready();
  document.title = t('Tabula — my games');
  let me = null;
  try {
    // a guest asks /api/session only (a 200), never /api/me (a 401 to the console)
    const who = await (await fetch('/api/session', { headers: { Accept: 'application/json' } })).json();
    const r = who && who.signed_in ? await fetch('/api/me', { headers: { Accept: 'application/json' } }) : null;
    if (r && r.ok) me = await r.json();
  } catch { /* shown below */ }
  clear(root);
  if (!me) {
    root.append(el('h1', t('My games')),
      el('div.card', el('p', t('Log in to see your games on every device.')),
        el('div.row', el('a.button.primary', { href: '/account.html' }, t('Log in')))));
    return;
  }
  const turns = me.games.filter((g) => g.your_turn).length;
  root.append(el('h1', t('My games')),
    el('p.muted#me-summary', me.games.length
      ? tn('{n} game', '{n} games', me.games.length) + (turns ? ` · ${tn('your turn in {n}', 'your turn in {n}', turns)}` : '')
      : t('No games yet: start one in the lobby.')),
    el('nav.me-list#me-games', me.games.map(gameItem)),
    el('div.row', el('a.button', { href: '/' }, t('Start a game')), el('a.button', { href: '/account.html' }, t('Your account'))));
}

main();
