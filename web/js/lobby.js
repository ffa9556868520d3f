// lobby.js — the lobby page: the catalog of games (GET /api/catalog), the
// new-game form (POST /api/games), the seat links of a created game, the list
// of games (GET /api/games) with watch and replay links, and join by link.
// Everything the server sends is shown as text (el() never parses HTML).
import { ago, apiGet, apiPost, brandSvg, clear, el, myGames, rememberGame, toast } from './common.js';

const state = { catalog: null, game: null, tab: 'live' };

const $ = (id) => document.getElementById(id);

function absolute(link) {
  return new URL(link, location.origin).href;
}

function levelLabel(l) {
  const names = { easy: 'Easy', normal: 'Normal', hard: 'Hard' };
  return `${names[l.name] || l.name}${l.available ? '' : ' (random for now)'}`;
}

function renderGameChoices() {
  const box = clear($('game-choices'));
  for (const g of state.catalog.games) {
    box.append(el('button.game-choice', {
      type: 'button', 'data-game': g.name, class: `game-choice${g === state.game ? ' selected' : ''}`,
      onclick: () => { state.game = g; renderForm(); },
    }, el('b', g.title), el('span', `${g.min_players}–${g.max_players} players`)));
  }
}

function seatRow(i, kind) {
  const levels = state.catalog.levels;
  const kindSel = el('select', { 'aria-label': `Seat ${i + 1} player`, 'data-seat-kind': i },
    el('option', { value: 'human' }, 'Person'), el('option', { value: 'ai' }, 'Computer'));
  kindSel.value = kind;
  const name = el('input', { type: 'text', placeholder: i === 0 ? 'Your name' : `Player ${i + 1}`, maxlength: 40, 'aria-label': `Seat ${i + 1} name` });
  const level = el('select', { 'aria-label': `Seat ${i + 1} level`, 'data-seat-level': i },
    levels.map((l) => el('option', { value: l.name }, levelLabel(l))));
  level.value = levels.some((l) => l.name === 'normal') ? 'normal' : levels[0].name;
  const slot = el('div');
  const sync = () => {
    clear(slot).append(kindSel.value === 'human' ? name : level);
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
    ? 'The search-based computer player is not in this build yet: computer seats play random legal moves for now.'
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
  const players = clear($('players'));
  for (let p = g.min_players; p <= g.max_players; p++) players.append(el('option', { value: p }, `${p} players`));
  players.value = String(g.default_players);
  players.onchange = renderSeats;
  const notice = $('game-notice');
  notice.hidden = !g.notice;
  notice.textContent = g.notice || '';
  const opts = clear($('options'));
  // The boards this server offers for the game, by name (docs/data-format.md):
  // a choice only when there is more than the built-in one.
  const boards = g.boards || [];
  if (boards.length > 1) {
    const sel = el('select', { id: 'board' }, boards.map((b) =>
      el('option', { value: b }, b === 'default' ? 'Built-in board' : b)));
    sel.value = boards[0];
    // the notice speaks of the built-in board only
    sel.onchange = () => { notice.hidden = !g.notice || sel.value !== 'default'; };
    opts.append(el('label.field', { title: 'The board the game is played on' }, 'Board', sel,
      el('span.small.muted', 'Boards installed on this server')));
  }
  for (const o of g.options) {
    const sel = el('select', { 'data-option': o.key }, o.values.map((v) => el('option', { value: v }, v)));
    sel.value = o.default;
    opts.append(el('label.field', { title: o.help }, o.key.replace(/[_-]/g, ' '), sel,
      o.help ? el('span.small.muted', o.help) : null));
  }
  renderSeats();
}

async function create(ev) {
  ev.preventDefault();
  const btn = $('create');
  btn.disabled = true;
  $('create-status').textContent = 'Creating…';
  try {
    const seats = [...$('seats').children].map((r, i) => {
      const s = r.seat;
      if (s.kindSel.value === 'human') {
        const nm = s.name.value.trim();
        return nm ? { kind: 'human', name: nm } : { kind: 'human' };
      }
      return { kind: 'ai', level: s.level.value };
    });
    const options = {};
    for (const sel of document.querySelectorAll('[data-option]')) options[sel.dataset.option] = sel.value;
    const body = { game: state.game.name, players: seats.length, seats, options };
    if ($('board')) body.board = $('board').value;
    const res = await apiPost('/api/games', body);
    rememberGame({
      id: res.id, game: res.game, title: state.game.title, created: new Date().toISOString(),
      seats: res.seats.filter((s) => s.link).map((s) => ({ seat: s.seat, name: s.name, link: s.link })),
    });
    showCreated(res);
    loadGames();
  } catch (e) {
    toast(`Could not create the game: ${e.message}`, 'error');
  } finally {
    btn.disabled = false;
    $('create-status').textContent = '';
  }
}

function showCreated(res) {
  const box = clear($('created'));
  box.hidden = false;
  const humans = res.seats.filter((s) => s.link);
  box.append(el('div.card-head', el('h2', 'Game created'), el('span.pill.open', res.id)));
  if (humans.length === 0) {
    box.append(el('p.small', 'Every seat is played by the computer. Watch it play:'));
  } else {
    box.append(el('p.small.muted', humans.length === 1
      ? 'Your seat link is below. Keep it: it is the key to your seat.'
      : 'Each link is the secret key to one seat. Send each friend their own link; keep yours.'));
  }
  const links = el('div.links');
  for (const s of humans) {
    const input = el('input', { type: 'text', readonly: true, value: absolute(s.link), 'aria-label': `Link for ${s.name}` });
    links.append(el('div', el('div.small', { style: 'font-weight:600;margin-bottom:4px' }, `Seat ${s.seat + 1} · ${s.name}`),
      el('div.link-row', input,
        el('button.small', { type: 'button', onclick: () => { input.select(); navigator.clipboard?.writeText(input.value); toast('Link copied'); } }, 'Copy'),
        el('a.button.small.primary', { href: s.link, 'data-play-seat': s.seat }, 'Play'))));
  }
  box.append(links);
  box.append(el('div.row', { style: 'margin-top:12px' },
    el('a.button.small', { href: res.watch }, 'Watch as a spectator')));
}

function seatChips(g) {
  return el('div.who', g.seats.map((s) => el(`span.chip${s.kind === 'ai' ? '.ai' : ''}`,
    s.kind === 'ai' ? `${s.name} · ${s.level}` : `${s.joined ? '●' : '○'} ${s.name}`)));
}

async function loadGames() {
  const box = $('games');
  try {
    let games;
    if (state.tab === 'mine') {
      renderMine(box);
      return;
    }
    games = (await apiGet(state.tab === 'over' ? '/api/games?status=over&limit=50' : '/api/games')).games;
    clear(box);
    if (!games.length) {
      box.append(el('div.empty', state.tab === 'over' ? 'No finished games yet.' : 'No games in progress. Create one!'));
      return;
    }
    const rows = games.map((g) => el('tr', { 'data-game-id': g.id },
      el('td', el('b', g.title), el('div.small.muted', `${g.players} players · ${ago(g.created)}`)),
      el('td', seatChips(g), g.winners && g.winners.length
        ? el('div.small.muted', { style: 'margin-top:4px' }, `Won by ${g.winners.map((k) => g.seats[k].name).join(' and ')}`) : null),
      el('td', el(`span.pill.${g.status}`, g.status)),
      el('td.small', `${g.decisions} moves`),
      el('td', g.status === 'over'
        ? el('a.button.small', { href: `/game.html?game=${g.id}&replay=1` }, 'Replay')
        : el('a.button.small', { href: `/game.html?game=${g.id}` }, 'Watch'))));
    box.append(el('table.games', el('thead', el('tr', el('th', 'Game'), el('th', 'Seats'), el('th', 'Status'), el('th', 'Moves'), el('th', ''))),
      el('tbody', rows)));
  } catch (e) {
    clear(box).append(el('div.empty', `Could not load the games: ${e.message}`));
  }
}

function renderMine(box) {
  const mine = myGames();
  clear(box);
  if (!mine.length) {
    box.append(el('div.empty', 'Games you create in this browser are listed here, with their seat links.'));
    return;
  }
  box.append(el('table.games', el('tbody', mine.map((g) => el('tr',
    el('td', el('b', g.title || g.game), el('div.small.muted', `${g.id} · ${ago(g.created)}`)),
    el('td', el('div.who', g.seats.map((s) => el('a.button.small', { href: s.link }, `Play as ${s.name}`)))),
    el('td', el('a.button.small', { href: `/game.html?game=${g.id}` }, 'Watch')))))));
}

function join(ev) {
  ev.preventDefault();
  const text = $('join-link').value.trim();
  try {
    const url = new URL(text, location.origin);
    const game = url.searchParams.get('game');
    if (!game) throw new Error('no game in that link');
    const token = url.searchParams.get('token');
    location.href = `/game.html?game=${encodeURIComponent(game)}${token ? `&token=${encodeURIComponent(token)}` : ''}`;
  } catch {
    if (/^[a-z0-9]{12}$/.test(text)) location.href = `/game.html?game=${text}`;
    else toast('That does not look like a game link.', 'error');
  }
}

async function main() {
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
    toast(`The server did not answer: ${e.message}`, 'error', 10000);
    return;
  }
  $('version').textContent = `v${state.catalog.version}`;
  state.game = state.catalog.games.find((g) => g.name === 'clans') || state.catalog.games[0];
  renderForm();
  loadGames();
  setInterval(() => { if (state.tab !== 'mine') loadGames(); }, 5000);
}

main();
