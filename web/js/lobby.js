// lobby.js — the lobby page: the catalog of games (GET /api/catalog), the
// new-game form (POST /api/games, with a request key so a second click makes
// no second game), the seat links of a created game, open tables (games with
// a free seat anyone can take: POST /api/games/ID/seats), the list of games
// (GET /api/games) with watch and replay links, the games made here (delete
// before they start: DELETE /api/games/ID), and join by link.
// Everything the server sends is shown as text (el() never parses HTML).
import {
  ago, apiGet, apiPost, brandSvg, clear, displayName, el, forgetGame, myGames, nameSpan, randomKey,
  rememberGame, toast,
} from './common.js';
import { N_, andList, field, ready, t, tn } from './i18n.js';
import { chosenOptions, levelLabel, levelWord, optionLabel, optionsLine, valueLabel } from './options.js';

// requestKey: the key of the next new game; lastKey/lastAt: the key of the game
// just created and when, so the second click of a double click that arrives
// after the first one's answer asks for that same game again (the server
// answers with it), never for a second one.
const DOUBLE_CLICK_MS = 1500;
const state = { catalog: null, game: null, tab: 'live', requestKey: randomKey(), lastKey: null, lastAt: 0, busy: false };

const $ = (id) => document.getElementById(id);

function absolute(link) {
  return new URL(link, location.origin).href;
}

function levelChoice(l) {
  return l.available ? levelLabel(l.name) : t('{level} (random for now)', { level: levelLabel(l.name) });
}

function renderGameChoices() {
  const box = clear($('game-choices'));
  for (const g of state.catalog.games) {
    box.append(el('button.game-choice', {
      type: 'button', 'data-game': g.name, class: `game-choice${g === state.game ? ' selected' : ''}`,
      onclick: () => { state.game = g; renderForm(); },
    }, el('b', g.title), el('span', t('{min}–{max} players', { min: g.min_players, max: g.max_players }))));
  }
}

function seatRow(i, kind) {
  const levels = state.catalog.levels;
  const kindSel = el('select', { 'aria-label': t('Seat {seat} player', { seat: i + 1 }), 'data-seat-kind': i },
    el('option', { value: 'human' }, t('Person')), el('option', { value: 'ai' }, t('Computer')),
    i > 0 ? el('option', { value: 'open' }, t('Open seat (anyone)')) : null);
  kindSel.value = kind;
  const name = el('input', { type: 'text', placeholder: i === 0 ? t('Your name') : t('Player {n}', { n: i + 1 }), maxlength: 40, 'aria-label': t('Seat {seat} name', { seat: i + 1 }) });
  const level = el('select', { 'aria-label': t('Seat {seat} level', { seat: i + 1 }), 'data-seat-level': i },
    levels.map((l) => el('option', { value: l.name }, levelChoice(l))));
  level.value = levels.some((l) => l.name === 'normal') ? 'normal' : levels[0].name;
  const slot = el('div');
  const openNote = el('span.small.muted', t('Listed in Open tables: anyone may sit here.'));
  const sync = () => {
    clear(slot).append(kindSel.value === 'human' ? name : kindSel.value === 'open' ? openNote : level);
    updateLevelNote();
  };
  kindSel.addEventListener('change', sync);
  level.addEventListener('change', updateLevelNote);
  const row = el('div.seat-row', el('span.num', String(i + 1)), kindSel, slot);
  row.seat = { kindSel, name, level };
  sync();
  return row;
}

function updateLevelNote() {
  const rows = [...$('seats').children];
  const missing = rows.filter((r) => r.seat.kindSel.value === 'ai')
    .map((r) => state.catalog.levels.find((l) => l.name === r.seat.level.value))
    .filter((l) => l && !l.available);
  const note = $('level-note');
  note.hidden = missing.length === 0;
  note.textContent = missing.length
    ? t('The search-based computer player is not in this build yet: computer seats play random legal moves for now.')
    : '';
}

function renderSeats() {
  const n = Number($('players').value);
  const box = $('seats');
  const old = [...box.children].map((r) => r.seat.kindSel.value);
  clear(box);
  for (let i = 0; i < n; i++) box.append(seatRow(i, old[i] || (i === 0 ? 'human' : 'ai')));
  updateLevelNote();
}

function renderForm() {
  const g = state.game;
  renderGameChoices();
  // "How to play" speaks of the game chosen
  $('lobby-rules').href = `/rules.html?game=${encodeURIComponent(g.name)}`;
  for (const id of ['lobby-leaderboard', 'lobby-leaderboard-phone']) if ($(id)) $(id).href = `/leaderboard.html?game=${encodeURIComponent(g.name)}`;
  $('lobby-rules').title = t('How to play {game}', { game: g.title });
  const players = clear($('players'));
  for (let p = g.min_players; p <= g.max_players; p++) players.append(el('option', { value: p }, tn('{n} player', '{n} players', p)));
  players.value = String(g.default_players);
  players.onchange = renderSeats;
  const notice = $('game-notice');
  notice.hidden = !g.notice;
  notice.textContent = g.notice ? field(g, 'notice') : '';
  const opts = clear($('options'));
  // The boards this server offers for the game, by name (docs/data-format.md):
  // a choice only when there is more than the built-in one.
  const boards = g.boards || [];
  if (boards.length > 1) {
    const sel = el('select', { id: 'board' }, boards.map((b) =>
      el('option', { value: b }, b === 'default' ? t('Built-in board') : b)));
    sel.value = boards[0];
    // the notice speaks of the built-in board only
    sel.onchange = () => { notice.hidden = !g.notice || sel.value !== 'default'; };
    opts.append(el('label.field', { title: t('The board the game is played on') }, t('Board'), sel,
      el('span.small.muted', t('Boards installed on this server'))));
  }
  for (const o of g.options) {
    const sel = el('select', { 'data-option': o.key }, o.values.map((v) => el('option', { value: v }, valueLabel(o, v))));
    sel.value = o.default;
    opts.append(el('label.field', { title: o.help ? t(o.help) : null }, optionLabel(o), sel,
      o.help ? el('span.small.muted', t(o.help)) : null));
  }
  renderSeats();
}

async function create(ev) {
  ev.preventDefault();
  if (state.busy) return; // one request at a time; the key makes a retry harmless
  const btn = $('create');
  state.busy = true;
  btn.disabled = true;
  $('create-status').textContent = t('Creating…');
  try {
    const seats = [...$('seats').children].map((r) => {
      const s = r.seat;
      if (s.kindSel.value === 'open') return { kind: 'human', open: true };
      if (s.kindSel.value === 'human') {
        const nm = s.name.value.trim();
        return nm ? { kind: 'human', name: nm } : { kind: 'human' };
      }
      return { kind: 'ai', level: s.level.value };
    });
    const options = {};
    for (const sel of document.querySelectorAll('[data-option]')) options[sel.dataset.option] = sel.value;
    const again = state.lastKey && Date.now() - state.lastAt < DOUBLE_CLICK_MS;
    const body = { game: state.game.name, players: seats.length, seats, options, request_key: again ? state.lastKey : state.requestKey };
    if ($('board')) body.board = $('board').value;
    const res = await apiPost('/api/games', body);
    rememberGame({
      id: res.id, game: res.game, title: state.game.title, created: new Date().toISOString(),
      seats: res.seats.filter((s) => s.link).map((s) => ({ seat: s.seat, name: s.name, link: s.link })),
      creator: res.creator_token,
    });
    if (!again) {
      state.lastKey = state.requestKey;
      state.requestKey = randomKey(); // the next game is another game
    }
    state.lastAt = Date.now();
    showCreated(res);
    loadGames();
  } catch (e) {
    toast(t('Could not create the game: {why}', { why: e.message }), 'error');
  } finally {
    state.busy = false;
    btn.disabled = false;
    $('create-status').textContent = '';
  }
}

function showCreated(res) {
  const box = clear($('created'));
  box.hidden = false;
  const humans = res.seats.filter((s) => s.link);
  const free = res.seats.filter((s) => s.open).length;
  box.append(el('div.card-head', el('h2', t('Game created')), el('span.pill.open', res.id)));
  if (free) {
    box.append(el('p.small', tn('{n} open seat listed in Open tables: the game starts when every seat is taken.',
      '{n} open seats listed in Open tables: the game starts when every seat is taken.', free)));
  }
  if (humans.length === 0 && free) {
    // every person's seat is open
  } else if (humans.length === 0) {
    box.append(el('p.small', t('Every seat is played by the computer. Watch it play:')));
  } else {
    box.append(el('p.small.muted', humans.length === 1
      ? t('Your seat link is below. Keep it: it is the key to your seat.')
      : t('Each link is the secret key to one seat. Send each friend their own link; keep yours.')));
  }
  const links = el('div.links');
  for (const s of humans) {
    const input = el('input', { type: 'text', readonly: true, value: absolute(s.link), 'aria-label': t('Link for {name}', { name: displayName(s.name) }) });
    links.append(el('div', el('div.small.name-line', { style: 'font-weight:600;margin-bottom:4px' }, `${t('Seat {seat}', { seat: s.seat + 1 })} · `, nameSpan(displayName(s.name))),
      el('div.link-row', input,
        el('button.small', { type: 'button', onclick: () => { input.select(); navigator.clipboard?.writeText(input.value); toast(t('Link copied')); } }, t('Copy')),
        el('a.button.small.primary', { href: s.link, 'data-play-seat': s.seat }, t('Play')))));
  }
  box.append(links);
  box.append(el('div.row', { style: 'margin-top:12px' },
    el('a.button.small', { href: res.watch }, t('Watch as a spectator'))));
}

function seatChips(g) {
  return el('div.who', g.seats.map((s) => {
    if (s.open) return el('span.chip.free', t('Seat {seat} · free', { seat: s.seat + 1 }));
    const label = s.kind === 'ai' ? `${displayName(s.name)} · ${levelWord(s.level)}` : `${s.joined ? '●' : '○'} ${displayName(s.name)}`;
    const who = s.kind === 'ai' ? [el('span', { translate: 'no' }, displayName(s.name)), ` · ${levelWord(s.level)}`]
      : [`${s.joined ? '●' : '○'} `, el('span', { translate: 'no' }, displayName(s.name))];
    return el(`span.chip${s.kind === 'ai' ? '.ai' : ''}`, { title: label }, ...who, s.resigned ? ` · ${t('resigned')}` : '');
  }));
}

const STATUS_WORDS = { open: N_('waiting'), running: N_('playing'), over: N_('finished'), broken: N_('broken') };
const statusWord = (s) => (STATUS_WORDS[s] ? t(STATUS_WORDS[s]) : s);

// The options a listed game is played with, in words (each one's sentence
// in the tooltip).
function optionsText(g) {
  const game = state.catalog.games.find((x) => x.name === g.game);
  const chosen = chosenOptions(game, g.options);
  return el('div.small.muted.options-line', { title: chosen.map((o) => `${o.label}: ${o.help}`).join('\n') },
    optionsLine(game, g.options));
}

// An open table: who sits, the free seats, and a name to sit down with.
function openTableRow(g) {
  const name = el('input', { type: 'text', maxlength: 40, placeholder: t('Your name'), 'aria-label': t('Your name for {game} {id}', { game: g.title, id: g.id }) });
  const free = g.seats.filter((s) => s.open);
  const sit = async (seat, btn) => {
    const nm = name.value.trim();
    if (!nm) { toast(t('Say your name first: the other players see it.'), 'error'); name.focus(); return; }
    btn.disabled = true;
    try {
      const res = await apiPost(`/api/games/${g.id}/seats`, { seat, name: nm });
      rememberGame({ id: g.id, game: g.game, title: g.title, created: g.created, seats: [{ seat: res.seat, name: res.name, link: res.link }] });
      location.href = res.link;
    } catch (e) {
      toast(e.code === 'seat_taken' ? t('Too late: {why}', { why: e.message }) : t('Could not take the seat: {why}', { why: e.message }), 'error', 7000);
      btn.disabled = false;
      loadGames();
    }
  };
  return el('tr', { 'data-game-id': g.id, 'data-open-table': '' },
    el('td', el('b', g.title), el('div.small.muted', `${tn('{n} player', '{n} players', g.players)} · ${ago(g.created)}`),
      optionsText(g)),
    el('td', seatChips(g), el('div.small.muted', { style: 'margin-top:4px' }, tn('{n} free seat', '{n} free seats', free.length))),
    el('td', el('div.sit', name, free.map((s) => el('button.small.primary', {
      type: 'button', 'data-take-seat': s.seat, onclick: (ev) => sit(s.seat, ev.currentTarget),
    }, t('Sit at seat {seat}', { seat: s.seat + 1 }))))));
}

// Shows `content` in `box` unless what the box was last given is the same:
// the lists are drawn again every few seconds, and drawing the same list
// anew would replace the button under a pointer (a click pressed on the old
// one and released on the new one is lost) and empty a name being typed.
// (Compared with what was drawn, not with the page as it is now: the page
// changes what it shows, a button disabled while it waits for the server.)
const drawn = new WeakMap();
function show(box, ...content) {
  const next = el('div', ...content);
  if (drawn.get(box) === next.innerHTML && box.firstChild) return;
  drawn.set(box, next.innerHTML);
  clear(box).append(...next.childNodes);
}

async function loadOpenTables() {
  const box = $('open-tables');
  if (box.querySelector('.sit input:focus')) return; // someone is typing their name
  try {
    const games = (await apiGet('/api/games?status=open&limit=100')).games.filter((g) => g.free_seats > 0);
    if (!games.length) {
      show(box, el('div.empty', t('No table is waiting for players. Create a game with an open seat and it is listed here.')));
      return;
    }
    show(box, el('table.games.open-tables', el('thead', el('tr', el('th', t('Game')), el('th', t('Seats')), el('th', t('Sit down')))),
      el('tbody', games.map(openTableRow))));
  } catch (e) {
    show(box, el('div.empty', t('Could not load the open tables: {why}', { why: e.message })));
  }
}

async function loadGames() {
  loadOpenTables();
  const box = $('games');
  try {
    let games;
    if (state.tab === 'mine') {
      await renderMine(box);
      return;
    }
    games = (await apiGet(state.tab === 'over' ? '/api/games?status=over&limit=50' : '/api/games')).games;
    if (!games.length) {
      show(box, el('div.empty', state.tab === 'over' ? t('No finished games yet.') : t('No games in progress. Create one!')));
      return;
    }
    const rows = games.map((g) => el('tr', { 'data-game-id': g.id },
      el('td', el('b', g.title), el('div.small.muted', `${tn('{n} player', '{n} players', g.players)} · ${ago(g.created)}`)),
      el('td', seatChips(g), g.winners && g.winners.length
        ? el('div.small.muted.name-line', { style: 'margin-top:4px' }, t('Won by'), ' ', nameSpan(andList(g.winners.map((k) => displayName(g.seats[k].name))))) : null),
      el('td', el(`span.pill.${g.status}`, statusWord(g.status))),
      el('td.small', tn('{n} move', '{n} moves', g.decisions)),
      el('td', g.status === 'over'
        ? el('a.button.small', { href: `/game.html?game=${g.id}&replay=1` }, t('Replay'))
        : el('a.button.small', { href: `/game.html?game=${g.id}` }, t('Watch')))));
    show(box, el('table.games', el('thead', el('tr', el('th', t('Game')), el('th', t('Seats')), el('th', t('Status')), el('th', t('Moves')), el('th', ''))),
      el('tbody', rows)));
  } catch (e) {
    show(box, el('div.empty', t('Could not load the games: {why}', { why: e.message })));
  }
}

// Delete takes two clicks (nothing brings a deleted game back): the first
// asks, for a few seconds; the second deletes.
const DELETE_ASK_MS = 5000;

async function deleteGame(g, btn) {
  if (btn.dataset.asking !== 'yes') {
    btn.dataset.asking = 'yes';
    btn.textContent = t('Really delete?');
    setTimeout(() => { if (btn.dataset.asking === 'yes') { delete btn.dataset.asking; btn.textContent = t('Delete'); } }, DELETE_ASK_MS);
    return;
  }
  delete btn.dataset.asking;
  btn.disabled = true;
  try {
    await apiPost(`/api/games/${g.id}`, { token: g.creator }, 'DELETE');
    forgetGame(g.id);
    toast(t('The game is deleted.'));
  } catch (e) {
    if (e.code === 'unknown_game') forgetGame(g.id);
    toast(e.code === 'unknown_game' ? t('That game is gone already.') : t('Not deleted: {why}', { why: e.message }), 'error', 7000);
  }
  loadGames();
}

// The games made (or sat down at) in this browser, as the server sees them
// now: finished ones offer their replay, never a seat to play.
async function renderMine(box) {
  const mine = myGames();
  let known = new Map();
  try {
    known = new Map((await apiGet('/api/games?status=all&limit=500')).games.map((g) => [g.id, g]));
  } catch { /* shown without their status */ }
  drawn.delete(box); // (the other tabs' lists, drawn in this box, are gone)
  clear(box);
  if (!mine.length) {
    box.append(el('div.empty', t('Games you create in this browser are listed here, with their seat links.')));
    return;
  }
  box.append(el('table.games', el('tbody', mine.map((g) => {
    const now = known.get(g.id);
    const over = now && now.status === 'over';
    const gone = known.size > 0 && !now;
    const actions = over
      ? [el('a.button.small', { href: `/game.html?game=${g.id}&replay=1` }, t('Replay'))]
      : gone ? [el('span.small.muted', t('Deleted or expired'))]
        : [...g.seats.map((s) => el('a.button.small.name-button', { href: s.link, title: t('Play as {name}', { name: displayName(s.name) }) }, t('Play as'), ' ', nameSpan(displayName(s.name)))),
          el('a.button.small', { href: `/game.html?game=${g.id}` }, t('Watch')),
          g.creator && now && now.decisions === 0
            ? el('button.small.danger', { type: 'button', 'data-delete': g.id, onclick: (ev) => deleteGame(g, ev.currentTarget) }, t('Delete'))
            : null];
    return el('tr', { 'data-game-id': g.id },
      el('td', el('b', g.title || g.game), el('div.small.muted', `${g.id} · ${ago(g.created)}`),
        now ? el('div.small.muted', `${statusWord(now.status)} · ${tn('{n} move', '{n} moves', now.decisions)}`) : null),
      el('td', el('div.who', actions)));
  }))));
}

function join(ev) {
  ev.preventDefault();
  const text = $('join-link').value.trim();
  try {
    const url = new URL(text, location.origin);
    const game = url.searchParams.get('game');
    if (!game) throw new Error('no game');
    const token = url.searchParams.get('token');
    location.href = `/game.html?game=${encodeURIComponent(game)}${token ? `&token=${encodeURIComponent(token)}` : ''}`;
  } catch {
    if (/^[a-z0-9]{12}$/.test(text)) location.href = `/game.html?game=${text}`;
    else toast(t('That does not look like a game link.'), 'error');
  }
}

async function main() {
  await ready(); // the page's language first: everything below speaks it
  $('brand-logo').append(brandSvg());
  $('create-form').addEventListener('submit', create);
  $('join-form').addEventListener('submit', join);
  for (const b of document.querySelectorAll('[data-tab]')) {
    b.addEventListener('click', () => {
      state.tab = b.dataset.tab;
      document.querySelectorAll('[data-tab]').forEach((x) => x.classList.toggle('active', x === b));
      loadGames();
    });
  }
  try {
    state.catalog = await apiGet('/api/catalog');
  } catch (e) {
    toast(t('The server did not answer: {why}', { why: e.message }), 'error', 10000);
    return;
  }
  $('version').textContent = `v${state.catalog.version}`; // (a version number: the same in every language)
  // a link may name the game to start (the rules pages' "Start a game")
  const asked = new URLSearchParams(location.search).get('game');
  state.game = state.catalog.games.find((g) => g.name === asked)
    || state.catalog.games.find((g) => g.name === 'clans') || state.catalog.games[0];
  renderForm();
  loadGames();
  // Open tables change as people sit down; the other lists every few seconds.
  setInterval(() => { if (state.tab !== 'mine') loadGames(); else loadOpenTables(); }, 5000);
}

main();
