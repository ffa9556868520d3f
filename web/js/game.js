// game.js — the game page: plays a seat (?game=ID&token=T), watches as a
// spectator (?game=ID) or replays a finished game (?game=ID&replay=1).
//
// Live play speaks the WebSocket protocol of docs/http-api.md: it shows every
// `state` the server pushes (this seat's view only), sends `decide` messages
// with the decision count it saw, shows `error` messages, and reconnects with
// back-off (the server sends the current state at once).  The board itself is
// drawn by the game's renderer (js/renderers/NAME.js); a game without one gets
// the generic renderer, which shows the view as text and the legal decisions
// as buttons.  The page never learns more than its seat's view.  A seat can
// resign (after a second click to confirm); the server's notices (someone
// resigned, was away, sat down) appear in the moves list.
//
// Confirm and undo (docs/http-api.md): with the setting "Confirm each move"
// (this browser's, in localStorage; on by default on touch screens) a chosen
// decision is staged — the board keeps the choice highlighted and the turn
// card says it in words — and sent only on Confirm; Cancel returns to
// choosing.  The turn card's Undo follows the server's rule (the state's
// can_undo / undo_why), and against the computer "Take back my last turn"
// (can_take_back) rewinds to the start of the player's previous turn.
//
// The last move: every renderer gets the position before the one shown
// (ctx.before: the previous state in live play, fetched once on opening;
// the step before in a replay or a look back) and marks what changed
// (js/lastmove.js).
import { whoAmI } from './accountlink.js';
import { apiGet, brandSvg, clear, displayName, el, forScreen, nameSpan, toast, touchScreen } from './common.js';
import { N_, andList, errorText, field, num, ready, t, tn } from './i18n.js';
import { decisionWords, renderGameLog } from './gamelog.js';
import { setBaseTitle, signalControls, turnSignal } from './notify.js';
import { PACES, createPacer, loadPace, savePace } from './pacing.js';
import { scoreGraph, sourceWords, stageTable } from './scoregraph.js';
import { whatNowPanel } from './whatnow.js';
import { mountReview } from './review.js';
import { createDeduce, setupDeduceSetting } from './deduce.js';
import { mountZoom } from './zoom.js';
import { levelWord, optionsList } from './options.js';
import { createChat, createRematch } from './social.js';

const params = new URLSearchParams(location.search);
const gameId = params.get('game');
const token = params.get('token');
// a seat of the signed-in account plays without a link (its session cookie)
let seated = !!token;
const wantReplay = params.has('replay');
const wantReview = params.has('review');
const $ = (id) => document.getElementById(id);

const RENDERERS = { arkadia: './renderers/arkadia.js', clans: './renderers/clans.js', khronos: './renderers/khronos.js' };

const S = {
  summary: null, board: null, renderer: null, seats: [], seat: null, role: 'spectator',
  log: [], current: null, ws: null, retry: 0, seq: 0, fatal: null, fatalCode: null,
  replay: null, spectators: 0, rendererModule: null, review: null, notices: [], confirmResign: false,
  look: null,          // a look back during live play: { n, r } (the position after decision n)
  openTurns: new Set(), // log turns the player unfolded
  staged: null, // a chosen decision waiting for Confirm: {move, n}
  before: null, // the position shown before the current one in live play: {n, view} (the last move is what changed)
};

// The table chat and "Play again" (js/social.js).
const wsSend = (obj) => (S.ws && S.ws.readyState === WebSocket.OPEN ? (S.ws.send(JSON.stringify(obj)), true) : false);
const chat = createChat({ gameId, token, send: wsSend });
const rematch = createRematch({ gameId, token });

// What went wrong, in plain words, for the page that cannot show the game.
// (msgids: shown through t())
const FATAL_WORDS = {
  bad_token: N_('This seat link does not open a seat of this game: it may be cut short or mistyped, or it belongs to another game. Ask the person who sent it for the link again. You can still watch the game.'),
  unknown_game: N_('There is no such game here. It may have been deleted by the person who created it, or it expired before anyone played; check the link, or start a new game from the lobby.'),
  deleted: N_('This game was deleted by the person who created it, before anyone played.'),
};

function freeSeats() {
  return S.seats.filter((s) => s.open).length;
}

// ---- the player's settings (this browser only) ----
const CONFIRM_KEY = 'tabula.confirmEachMove';
function confirmEachMove() {
  const v = localStorage.getItem(CONFIRM_KEY);
  return v === null ? touchScreen() : v === 'on';
}

function seatName(k) {
  const s = S.seats[k];
  return s ? displayName(s.name) : t('Seat {seat}', { seat: k + 1 });
}

// The deduction aid (js/deduce.js): an option of this browser, off by default.
const deduce = createDeduce({
  el, seatName,
  applies: () => !!(S.summary && S.summary.secret_roles),
  send: (obj) => (S.ws && S.ws.readyState === WebSocket.OPEN ? (S.ws.send(JSON.stringify(obj)), true) : false),
  paint: (c) => ((S.rendererModule && S.rendererModule.CLAN_COLOURS) || {})[c] || c,
});

function setConn(kind, text) {
  $('conn').className = `conn ${kind}`;
  $('conn-text').textContent = text;
}

function banner(text, kind = 'down') {
  const b = $('banner');
  b.hidden = !text;
  b.className = `banner ${kind}`;
  b.textContent = text || '';
}

// ---- what every renderer gets ----

function context() {
  if (S.look && S.look.r) {
    const r = S.look.r;
    return {
      view: r.view, legal: null, yourTurn: false, seat: S.seat, toMove: r.to_move, last: r.last,
      result: null, thinking: null, seats: S.seats, replay: true, n: r.step, look: true,
      before: S.look.prev ? S.look.prev.view : null, beforeN: S.look.prev ? S.look.prev.step : null,
    };
  }
  if (S.replay) {
    const r = S.replay.current;
    return {
      view: r ? r.view : null, legal: null, yourTurn: false, seat: null, toMove: r ? r.to_move : null,
      last: r ? r.last : null, result: r && r.step === S.replay.total ? r.result : null,
      thinking: null, seats: S.seats, replay: true, n: r ? r.step : 0,
      before: S.replay.prev ? S.replay.prev.view : null, beforeN: S.replay.prev ? S.replay.prev.step : null,
    };
  }
  const st = S.current;
  return {
    view: st ? st.view : null, legal: st && st.legal ? st.legal : null, yourTurn: !!(st && st.your_turn),
    seat: S.seat, toMove: st ? st.to_move : null, last: st ? st.last : null,
    result: st ? st.result || null : null, thinking: st ? st.thinking : null,
    prompt: st ? st.prompt : null, seats: S.seats, replay: false, n: st ? st.n : 0,
    before: S.before ? S.before.view : null, beforeN: S.before ? S.before.n : null,
  };
}

function renderAll() {
  const ctx = context();
  const live = S.current && !S.replay;
  turnSignal(!!(live && S.current.your_turn && !S.current.result), S.summary ? t('{game}: your turn', { game: S.summary.title }) : '');
  if (ctx.view && S.renderer) S.renderer.update(ctx);
  renderTurn(ctx);
  renderYou(ctx);
  deduce.render($('deduce'), ctx);
  renderPlayers(ctx);
  renderLog(ctx);
  renderResult(ctx);
  placeDock();
}

// ---- narrow screens: the dock at the bottom and the tabs ----
// Where the page is one column (phones, tablets; the width is tabula.css's)
// the turn card and the renderer's decision buttons (its actions(): confirm,
// rotate, End turn…) move into the dock fixed at the bottom of the screen
// (beside the board on a phone held sideways); the players, scores and moves
// go behind tabs.  A page that cannot show its game docks nothing.
const PHONE = matchMedia('(max-width: 1100px)');
// A phone held sideways (tabula.css's query): the dock stands beside the board.
const SIDEWAYS = matchMedia('(max-width: 1100px) and (max-height: 500px)');
// The points of each game's board a player taps (the zoom makes the smallest a finger wide).
const TAP_POINTS = { arkadia: '.arkadia-board rect.sq', clans: '.clans-board .territory', khronos: '.kh-svg .kh-sq' };
function smallestPoint() {
  const sel = S.summary && TAP_POINTS[S.summary.game];
  let least = 0;
  if (sel) {
    for (const e of $('board').querySelectorAll(sel)) {
      const r = e.getBoundingClientRect();
      const d = Math.min(r.width, r.height);
      if (d > 0 && (!least || d < least)) least = d;
    }
  }
  return least;
}

function placeDock() {
  const phone = PHONE.matches && !S.fatal; // (a page that cannot show its game has no turn to dock)
  const side = phone && SIDEWAYS.matches;
  document.body.classList.toggle('fatal', !!S.fatal);
  const dock = $('dock'), box = $('dock-actions'), turn = $('turn');
  if (phone && turn.parentNode !== dock) dock.prepend(turn);
  if (!phone && turn.parentNode === dock) $('result').after(turn);
  const acts = S.renderer && S.renderer.actions ? S.renderer.actions().filter(Boolean) : [];
  if (phone) {
    for (const n of acts) if (n.parentNode !== box) n.dockHome = n.parentNode;
    const same = box.children.length === acts.length && acts.every((n, i) => box.children[i] === n);
    if (!same) box.replaceChildren(...acts); // (nodes already docked stay put under the finger)
  } else {
    for (const n of [...box.children]) { if (n.dockHome) n.dockHome.append(n); else n.remove(); }
  }
  // the page keeps clear of the dock: above it, or beside it on a phone held sideways
  document.body.style.paddingBottom = phone && !side ? `${dock.offsetHeight + 8}px` : '';
  document.body.style.paddingRight = side ? `${dock.offsetWidth}px` : '';
  // what is scrolled into view (focus, find) stops above the dock, not under it
  document.documentElement.style.scrollPaddingBottom = phone && !side ? `${dock.offsetHeight + 8}px` : '';
  // the zoomed board's box fits between the top bar and the dock (tabula.css)
  document.documentElement.style.setProperty('--dock-height', phone && !side ? `${dock.offsetHeight}px` : '0px');
}

function showTab(name) {
  document.body.dataset.tab = name;
  for (const b of document.querySelectorAll('[data-phone-tab]')) b.setAttribute('aria-selected', String(b.dataset.phoneTab === name));
  window.scrollTo(0, 0);
  // the moves open at the newest (a replay's: at the decision shown), above the dock
  if (name === 'moves') {
    const log = $('log');
    const at = log.querySelector('.current') || log.lastElementChild;
    if (at) at.scrollIntoView({ block: at.classList.contains('current') ? 'center' : 'end' });
  }
}

function renderTurn(ctx) {
  const box = clear($('turn'));
  box.className = 'card turn-card';
  box.dataset.n = ctx.view ? String(ctx.n) : ''; // the position it speaks of (tests wait on it)
  if (S.fatal) {
    box.append(el('h3', S.fatalCode === 'bad_token' ? t('This link does not work') : t('Cannot show this game')),
      el('div.headline#fatal', S.fatal),
      el('div.row', { style: 'margin-top:10px' },
        el('a.button.small.primary#back-to-lobby', { href: '/' }, t('Back to the lobby')),
        S.fatalCode === 'bad_token' && gameId ? el('a.button.small', { href: `/game.html?game=${encodeURIComponent(gameId)}` }, t('Watch the game')) : null));
    return;
  }
  if (!ctx.view) { box.append(el('div.headline', t('Loading…'))); return; }
  if (ctx.result) {
    box.classList.add('over');
    const w = ctx.result.winners.map(seatName);
    box.append(el('h3', t('Game over')), el('div.headline', w.length > 1 ? t('Shared win: {names}', { names: andList(w) }) : t('{name} wins', { name: w[0] })));
    return;
  }
  if (ctx.look) {
    box.classList.add('looking');
    box.append(el('h3', t('Looking back')),
      el('div.headline', t('The board after decision {n} of {total}', { n: ctx.n, total: S.log.length })),
      el('div.detail', t('The game goes on meanwhile; nothing you see here is played.')),
      el('button.primary#look-return', { type: 'button', onclick: () => lookBack(null) }, t('Back to the game')));
    return;
  }
  if (!ctx.replay && freeSeats() > 0) {
    box.append(el('h3', t('Waiting for players')),
      el('div.headline', tn('{n} seat still free', '{n} seats still free', freeSeats())),
      el('div.detail', t('The game is listed in the lobby under Open tables; it starts when every seat is taken.')));
    return;
  }
  if (ctx.replay) {
    box.append(el('h3', t('Replay')), el('div.headline', ctx.toMove === null ? t('Final position') : t('{name} to move', { name: seatName(ctx.toMove) })),
      el('div.detail', touchScreen() ? t('Step through the game with the controls under the board.')
        : t('Step through the game with the controls under the board, or the arrow keys.')));
    return;
  }
  if (ctx.yourTurn && S.staged && S.staged.n === ctx.n) {
    box.classList.add('mine', 'staged');
    box.append(el('h3', t('Your turn')), el('div.headline#turn-staged', { title: formatMove(S.staged.move) }, t('Your choice:'), ' ', el('b', sayMove(S.staged.move))),
      el('div.detail', t('Confirm it, or cancel to choose again.')),
      el('div.turn-actions',
        el('button.primary#turn-confirm', { type: 'button', onclick: confirmStaged }, t('Confirm')),
        el('button#turn-cancel', { type: 'button', onclick: cancelStaged }, t('Cancel'))));
    return;
  }
  if (ctx.yourTurn) {
    box.classList.add('mine');
    const help = S.renderer && S.renderer.instruction ? S.renderer.instruction(ctx) : null;
    S.helpKey = JSON.stringify(help);
    const st = S.current || {};
    const undoShown = st.can_undo || st.undo_why;
    // (no null among the nodes: the DOM's append would print it)
    box.append(...[el('h3', t('Your turn')), el('div.headline', help ? forScreen(help.headline) : t('Choose a decision')),
      help && help.detail ? el('div.detail', forScreen(help.detail)) : null,
      // the engine's own wording only when the game has no words of its own
      !help && ctx.prompt ? el('div.engine-prompt', field(S.current || {}, 'prompt') || ctx.prompt) : null,
      undoShown || st.can_take_back ? el('div.turn-actions',
        undoShown ? el(`button#turn-undo${st.can_undo ? '' : '.unavailable'}`, {
          type: 'button', onclick: () => askUndo('undo'),
          title: st.can_undo ? t('Take back your last decision in this turn') : t('Not possible: {why}', { why: field(st, 'undo_why') }),
        }, t('↶ Undo')) : null,
        st.can_take_back ? el('button#turn-take-back', {
          type: 'button', onclick: () => askUndo('take_back'),
          title: t('Back to the start of your last turn; the computer\'s replies are taken back too'),
        }, t('Take back my last turn')) : null) : null].filter(Boolean));
    box.append(hintBox(ctx));
    if (S.whatNowOpen === undefined) S.whatNowOpen = !PHONE.matches;
    const panel = whatNowPanel(el, S.summary ? S.summary.game : '', ctx.legal, S.whatNowOpen);
    if (panel) {
      panel.addEventListener('toggle', () => { S.whatNowOpen = panel.open; placeDock(); });
      box.append(panel);
    }
    return;
  }
  const who = ctx.toMove === null ? '' : seatName(ctx.toMove);
  if (ctx.thinking !== null && ctx.thinking !== undefined) {
    box.append(el('h3', ctx.seat === null ? t('Watching') : t('Their turn')),
      el('div.headline', t('{name} is thinking', { name: who }), el('span.thinking#thinking', { 'aria-label': t('thinking') }, el('i'), el('i'), el('i'))));
  } else {
    box.append(el('h3', ctx.seat === null ? t('Watching') : t('Their turn')), el('div.headline', t('Waiting for {name}', { name: who })),
      el('div.detail', S.seats[ctx.toMove] && !S.seats[ctx.toMove].connected ? t('That player is not connected right now.') : ''));
  }
}

// The hint: the computer's choice for this position, with a one-line reason.
function hintBox(ctx) {
  const hint = S.hint && S.hint.n === ctx.n ? S.hint : null;
  if (hint) {
    return el('div.hint#hint', el('div', el('b', t('Hint:')), ' ', `${field(hint, 'said')}.`),
      hint.reason ? el('div.small.muted', field(hint, 'reason')) : null);
  }
  const waiting = S.hintWaiting === ctx.n;
  return el('div.hint-row', el('button.small#hint-button', {
    type: 'button', disabled: waiting, title: t('Ask the computer what it would do here'),
    onclick: () => {
      if (!S.ws || S.ws.readyState !== WebSocket.OPEN) { toast(t('Not connected.'), 'error'); return; }
      S.hintWaiting = ctx.n;
      S.ws.send(JSON.stringify({ type: 'hint', id: ++S.seq }));
      renderAll();
    },
  }, waiting ? t('The computer is thinking…') : t('Hint')));
}

// Resign: a second click confirms (a phone has no hover and no undo).
function resignControl(ctx) {
  const me = S.seats[ctx.seat];
  if (ctx.replay || ctx.seat === null || ctx.result || !me || me.resigned || freeSeats() > 0 || !ctx.view) return null;
  if (!S.confirmResign) {
    return el('div.row.resign', el('button.small.danger#resign', { type: 'button', onclick: () => { S.confirmResign = true; renderAll(); } }, t('Resign')));
  }
  const others = S.seats.length - 1;
  return el('div.resign', el('div.small', others === 1
    ? t('Resign? The game ends now and the other player wins.')
    : t('Resign? The computer plays your seat to the end, and you cannot win.')),
  el('div.row', { style: 'margin-top:6px' },
    el('button.small.danger#resign-yes', { type: 'button', onclick: () => {
      S.confirmResign = false;
      S.resigning = ++S.seq;
      if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify({ type: 'resign', id: S.resigning }));
      else toast(t('Not connected: nothing was sent.'), 'error');
      renderAll();
    } }, t('Yes, resign')),
    el('button.small#resign-no', { type: 'button', onclick: () => { S.confirmResign = false; renderAll(); } }, t('Keep playing'))));
}

function renderYou(ctx) {
  const box = $('you');
  renderYouPanel(ctx);
  const resign = resignControl(ctx);
  if (resign) { box.hidden = false; box.append(resign); }
}

function renderYouPanel(ctx) {
  const box = $('you');
  const node = ctx.view && S.renderer && S.renderer.youPanel ? S.renderer.youPanel(ctx) : null;
  if (!node && ctx.seat === null && !ctx.replay) {
    box.hidden = false;
    clear(box).append(el('div', el('div.label', t('You are')), el('div.value', t('a spectator')),
      el('div.small.muted', t('You see what everybody sees; secrets stay hidden.'))));
    return;
  }
  if (!node && ctx.seat !== null && !ctx.replay) {
    box.hidden = false;
    clear(box).append(el('div', el('div.label', t('You play')), el('div.value', nameSpan(seatName(ctx.seat)), ` · ${t('seat {seat}', { seat: ctx.seat + 1 })}`)));
    return;
  }
  box.hidden = !node;
  clear(box);
  if (node) box.append(node);
}

function renderPlayers(ctx) {
  const box = clear($('players'));
  S.seats.forEach((s, k) => {
    const who = k === ctx.seat ? t('You') : t('Person');
    const sub = s.open ? t('Free seat: anyone may sit here from the lobby')
      : s.kind === 'ai' ? t('Computer · {level}', { level: levelWord(s.level) }) // (its level, in the lobby's words; never the engine's agent name)
        : s.resigned ? (ctx.result ? t('{who} · resigned', { who }) : t('{who} · resigned; the computer plays', { who }))
          : s.away ? t('{who} · away; the computer plays until back', { who })
            : who;
    const extra = S.renderer && S.renderer.seatExtras && ctx.view ? S.renderer.seatExtras(ctx, k) : null;
    box.append(el(`div.player${ctx.toMove === k && !ctx.result ? '.to-move' : ''}`, { 'data-seat': k },
      ctx.replay ? el('span') : el(`span.online${s.connected || s.kind === 'ai' ? '.on' : ''}`, { title: s.connected ? t('connected') : t('not connected') }),
      el('div', { style: 'min-width:0' }, el('div.name.name-cut', { title: s.open ? '' : displayName(s.name), translate: s.open ? null : 'no' }, s.open ? t('Seat {seat}', { seat: k + 1 }) : displayName(s.name)), el('div.sub', sub)),
      el('div.right', extra)));
  });
  const notes = [...new Set(S.seats.filter((s) => s.note).map((s) => (s.note_msg ? field(s, 'note') : s.note.replace(/^level '\w+' /, 'this level '))))];
  if (notes.length) box.append(el('div.seat-note.small', { style: 'color:var(--warn);margin-top:4px' },
    t('Computer seats: {notes}.', { notes: notes.join('; ') })));
  $('spectators').textContent = S.spectators ? tn('{n} watching', '{n} watching', S.spectators) : '';
}

// A moment picked in the log or the score graph: the board after decision
// n (a replay's step, else a look back).  On a phone the board is behind its
// tab: it comes to the front, or the pick would seem to do nothing.
function pickMoment(n) {
  if (PHONE.matches && document.body.dataset.tab !== 'board') showTab('board');
  return S.replay ? replayGo(n) : lookBack(n);
}

function formatMove(m) {
  return S.renderer && S.renderer.formatMove ? S.renderer.formatMove(m) : m;
}

// A decision about to be made, as a sentence (the renderer's words; its
// short form where it has none).
function sayMove(m) {
  return (S.renderer && S.renderer.sayMove && S.renderer.sayMove(m)) || formatMove(m);
}

function renderLog(ctx) {
  // a player reading earlier decisions keeps the place while the game goes
  // on (a click lands where it was aimed); at the end, the log follows the game
  const old = $('log');
  const atEnd = old.scrollHeight - old.scrollTop - old.clientHeight < 8, kept = old.scrollTop;
  const box = clear(old);
  renderGameLog(box, S.log, {
    upto: ctx.replay ? ctx.n : null, current: ctx.replay ? ctx.n : null, open: S.openTurns,
    seatName, formatMove, onPick: pickMoment,
    // the server's notices (resigned, away, sat down) after the decision they follow
    after: (n) => (ctx.replay ? [] : S.notices.filter((x) => x.after === n)
      .map((x) => el('div.notice-entry', { 'data-notice': x.code }, x.text))), // (x.text: in the page's language)
  });
  $('move-count').textContent = num(S.log.length);
  // the log scrolls within its card; the page itself stays where the player put it
  const cur = box.querySelector('.current');
  if (cur) {
    const b = box.getBoundingClientRect(), r = cur.getBoundingClientRect();
    if (r.top < b.top) box.scrollTop -= b.top - r.top;
    else if (r.bottom > b.bottom) box.scrollTop += r.bottom - b.bottom;
  } else if (!ctx.replay) box.scrollTop = atEnd ? box.scrollHeight : kept;
}

// The finished game's scores over time (fetched once; a failed fetch is
// asked again the next time the result is drawn, not remembered as empty).
function scoreData() {
  if (!S.scores) {
    S.scores = apiGet(`/api/games/${encodeURIComponent(gameId)}/scores`).catch(() => {
      S.scores = null;
      return null;
    });
  }
  return S.scores;
}

async function renderStory(box) {
  const data = await scoreData();
  if (!data || !box.isConnected) return;
  const pick = pickMoment;
  const at = S.replay && S.replay.current ? S.replay.current.step : S.look ? S.look.n : null;
  box.append(el('h3', t('How the game went')), scoreGraph(data, seatName, pick, at),
    el('div.small.muted', forScreen(t('Click the graph to see the board at that moment.'))),
    el('h3', t('Points by stage')), stageTable(data, seatName));
}

// Where each seat's points came from (the result's "breakdown": per seat a
// list of {source, points} that adds up to the score), in rank order; sources
// that gave nothing are left out.  Nothing for results without one (games
// finished before the server sent it).
function breakdownBox(res, order) {
  const all = res.breakdown;
  if (!Array.isArray(all) || all.length !== res.scores.length) return '';
  return el('div.breakdown#breakdown', el('h3', t('Where the points came from')),
    el('div.breakdown-seats', order.map(([, k]) => {
      const parts = (all[k] || []).filter((p) => p.points !== 0);
      return el('div.breakdown-seat', { 'data-seat': k },
        el('div.breakdown-name', nameSpan(seatName(k)), k === S.seat ? ` ${t('(you)')}` : ''),
        el('table',
          el('tbody', parts.length ? parts.map((p) => el('tr', el('td', p.source_msg ? field(p, 'source') : sourceWords(p.source)), el('td.pts', num(p.points))))
            : el('tr', el('td', t('Nothing scored')), el('td.pts', num(0)))),
          el('tfoot', el('tr', el('td', t('Total')), el('td.pts', num(res.scores[k]))))));
    })));
}

function renderResult(ctx) {
  const box = $('result');
  const res = S.replay ? S.replay.result : (S.current && S.current.result) || ctx.result;
  if (!res) { box.hidden = true; return; }
  box.hidden = false;
  clear(box);
  const order = res.ranks.map((r, k) => [r, k]).sort((a, b) => a[0] - b[0]);
  const resigned = (res.resigned || []).map(seatName);
  box.append(el('h2', t('Final result')), resigned.length
    ? el('p.small#resigned-note', tn('{names} resigned.', '{names} resigned.', resigned.length, { names: andList(resigned) })) : '',
  el('table', el('tbody', order.map(([rank, k]) => {
    const extra = S.renderer && S.renderer.resultExtras ? S.renderer.resultExtras(ctx, k, S.replay ? S.replay.finalView : ctx.view) : null;
    return el(`tr${rank === 1 ? '.winner' : ''}`, { 'data-seat': k },
      el('td', rank === 1 ? el('span.trophy', `★ ${num(1)}`) : num(rank)),
      el('td', nameSpan(seatName(k)), k === S.seat ? ` ${t('(you)')}` : ''), el('td', extra),
      el('td', { style: 'text-align:right' }, tn('{n} pt', '{n} pts', res.scores[k])));
  }))), breakdownBox(res, order));
  const story = el('div.story#story');
  box.append(story);
  renderStory(story);
  if (!S.replay) {
    box.append(el('div.row', { style: 'margin-top:12px' },
      el('a.button.small.primary#open-replay', { href: `/game.html?game=${gameId}&replay=1` }, t('Watch the replay')),
      el('a.button.small#open-review', { href: `/game.html?game=${gameId}&replay=1&review=1` }, t('Review')),
      el('a.button.small', { href: '/' }, t('Back to the lobby'))));
    box.append(rematch.row(S.role === 'player', renderAll) || '');
  }
}

// ---- live play ----

function connected() {
  if (!S.ws || S.ws.readyState !== WebSocket.OPEN || !S.current) {
    toast(t('Not connected: nothing was sent.'), 'error');
    return false;
  }
  return true;
}

function sendDecision(move) {
  if (!connected()) return false;
  S.ws.send(JSON.stringify({ type: 'decide', move, id: ++S.seq, n: S.current.n }));
  return true;
}

// What the renderers call with a chosen decision.  With "Confirm each
// move" it is only staged: the renderer keeps it on the board (it counts
// as sent there) until Confirm sends it or Cancel resets the renderer.
function decide(move) {
  // a step that only opens the next choice of the same action waits for no
  // Confirm (the renderer says which: a Khronos build is confirmed once)
  if (!confirmEachMove() || (S.renderer && S.renderer.isStep && S.renderer.isStep(move))) return sendDecision(move);
  if (!S.current || !S.current.your_turn) return false;
  S.staged = { move, n: S.current.n };
  if (S.renderer && S.renderer.preview) S.renderer.preview(move);
  renderTurn(context());
  placeDock();
  const ok = $('turn-confirm');
  if (ok) ok.focus({ preventScroll: true });
  return true;
}

function confirmStaged() {
  const st = S.staged;
  if (!st) return;
  S.staged = null;
  if (!S.current || S.current.n !== st.n || !sendDecision(st.move)) {
    if (S.renderer && S.renderer.reset) S.renderer.reset();
  }
  renderTurn(context());
  placeDock();
}

function cancelStaged() {
  S.staged = null;
  if (S.renderer && S.renderer.preview) S.renderer.preview(null);
  if (S.renderer && S.renderer.reset) S.renderer.reset();
  renderTurn(context());
  placeDock();
}

function askUndo(type) {
  const st = S.current;
  if (type === 'undo' && st && !st.can_undo) {
    toast(st.undo_why ? t('Undo is not possible: {why}.', { why: field(st, 'undo_why') }) : t('Nothing to undo in this turn.'), 'error');
    return;
  }
  if (!connected()) return;
  if (S.staged) cancelStaged();
  S.ws.send(JSON.stringify({ type, id: ++S.seq, n: st.n }));
}

function onMessage(msg) {
  if (deduce.onMessage(msg)) { renderAll(); return; }
  switch (msg.type) {
    case 'welcome':
      S.seat = msg.seat;
      S.role = msg.role;
      chat.setSeat(msg.seat, msg.role);
      S.seats = msg.game.seats;
      S.log = msg.log;
      break;
    case 'notice':
      S.notices.push({ after: S.current ? S.current.n : S.log.length, code: msg.code, text: field(msg, 'text') });
      toast(field(msg, 'text'));
      refreshSeats();
      break;
    case 'state':
      if (S.staged && (!msg.your_turn || msg.n !== S.staged.n)) S.staged = null;
      // the position before this one: what the renderers mark as the last move
      if (!S.current || msg.n < S.current.n) S.before = null;
      else if (msg.n > S.current.n) S.before = { n: S.current.n, view: S.current.view };
      S.current = msg;
      if (msg.last && !S.log.some((e) => e.n === msg.last.n)) S.log.push(msg.last);
      S.log.sort((a, b) => a.n - b.n);
      if (!S.before) loadBefore(msg);
      break;
    case 'undone':
      // decisions taken back: the log forgets them; the state follows
      S.log = S.log.filter((e) => e.n <= msg.n);
      S.staged = null;
      S.before = null;
      toast(field(msg, 'said'), 'info');
      if (S.renderer && S.renderer.reset) S.renderer.reset();
      break;
    case 'hint':
      S.hint = msg;
      S.hintWaiting = null;
      break;
    case 'presence':
      for (const p of msg.seats) if (S.seats[p.seat]) { S.seats[p.seat].connected = p.connected; S.seats[p.seat].joined = p.joined; }
      S.spectators = msg.spectators;
      if (freeSeats() > 0) refreshSeats(); // someone may have sat down
      break;
    case 'error':
      if (['bad_token', 'unknown_game', 'bad_request', 'deleted'].includes(msg.code)) {
        S.fatal = FATAL_WORDS[msg.code] ? t(FATAL_WORDS[msg.code]) : errorText(msg);
        S.fatalCode = msg.code;
        banner(null); // (the turn card says it, with the way back: once is enough)
        setConn('down', t('no game'));
      } else if (msg.code === 'waiting') {
        toast(t('The game starts when every seat is taken.'), 'error');
      } else if (msg.code === 'busy' && S.resigning === msg.id) {
        // a decision was being saved as the resignation came: send it again
        setTimeout(() => { if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify({ type: 'resign', id: msg.id })); }, 300);
        return;
      } else {
        toast(errorText(msg), 'error');
      }
      S.hintWaiting = null;
      if (S.renderer && S.renderer.reset) S.renderer.reset();
      break;
    default:
      return;
  }
  renderAll();
}

// A page just opened (or rewound by an undo) has no earlier position to
// compare with: it asks for the position before the last seat's run of
// decisions, so the board marks what that whole turn changed.  When the
// seat played on while the page asked (a page opened in the middle of the
// computer's turn), that position is still where the turn began: it is
// used as long as every decision since is the same seat's (else the marks
// of the decisions the page saw arrive stand).
async function loadBefore(st) {
  if (!st.last || !st.n) return;
  const seat = st.last.seat;
  const byN = new Map(S.log.map((e) => [e.n, e]));
  let k = st.last.n;
  while (byN.has(k - 1) && byN.get(k - 1).seat === seat) k--;
  const q = token ? `?token=${encodeURIComponent(token)}` : '';
  let r;
  try { r = await apiGet(`/api/games/${encodeURIComponent(gameId)}/replay/${k - 1}${q}`); } catch { return; } // marks are a help, not a need
  if (!S.current || S.current.n < st.n || !r || !r.view) return;
  if (S.current.n === st.n) {
    if (S.before) return;
  } else {
    const now = new Map(S.log.map((e) => [e.n, e]));
    for (let j = k; j <= S.current.n; j++) if (!now.has(j) || now.get(j).seat !== seat) return;
  }
  S.before = { n: r.step, view: r.view };
  renderAll();
}

// Names and seats change as people sit down, resign or come back.
async function refreshSeats() {
  try {
    const sum = await apiGet(`/api/games/${encodeURIComponent(gameId)}`);
    S.seats = sum.seats;
    renderAll();
  } catch { /* the next message brings it */ }
}

const pacer = createPacer((msg) => onMessage(msg));

function connect() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const q = `game=${encodeURIComponent(gameId)}${token ? `&token=${encodeURIComponent(token)}` : ''}`;
  const ws = new WebSocket(`${proto}//${location.host}/ws?${q}`);
  S.ws = ws;
  setConn('', t('connecting'));
  ws.onopen = () => {
    S.retry = 0;
    deduce.reset();
    // a hint asked on the lost connection is never answered: the button comes back
    if (S.hintWaiting !== null && S.hintWaiting !== undefined) { S.hintWaiting = null; renderAll(); }
    // a decision sent on the lost connection may never have arrived: the board
    // takes choices again (the state that follows says where the game is; a
    // staged choice, never sent, stays staged)
    if (S.renderer && S.renderer.reset && !S.staged) S.renderer.reset();
    setConn('live', seated ? t('connected') : t('watching live'));
    if (!S.fatal) banner(null);
  };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    if (chat.onMessage(msg)) return; // the chat is not paced with the game
    if (rematch.onMessage(msg)) { renderAll(); return; }
    pacer.push(msg); // the computers' turns at this player's pace (js/pacing.js)
  };
  ws.onclose = () => {
    if (S.ws !== ws) return;
    setConn('down', t('disconnected'));
    if ((S.current && S.current.result) || S.fatal) return; // nothing more will happen
    const wait = Math.min(10000, 500 * 2 ** S.retry++);
    banner(t('Connection lost. Reconnecting in {s} s…', { s: Math.round(wait / 1000) }));
    setTimeout(connect, wait);
  };
}

// ---- looking back during live play ----
// Clicking a decision in the log shows the board just after it, as this seat
// saw it then (the server answers from the seat's view of that moment);
// `null`, Escape or "Back to the game" returns to the live position.
async function lookBack(n) {
  if (n === null || n === undefined || (S.current && n >= S.current.n)) {
    S.look = null;
    renderAll();
    return;
  }
  S.look = { n, r: S.look ? S.look.r : null, prev: S.look ? S.look.prev : null };
  const q = token ? `?token=${encodeURIComponent(token)}` : '';
  const at = (k) => apiGet(`/api/games/${encodeURIComponent(gameId)}/replay/${k}${q}`);
  let r, prev;
  // the position before it too: the board marks what decision n changed
  try { [r, prev] = await Promise.all([at(n), n > 0 ? at(n - 1) : null]); } catch (e) {
    if (!S.look || S.look.n !== n) return; // a later click or a return won
    toast(t('Cannot show that moment: {why}', { why: e.message }), 'error');
    S.look = null; // back to the live board (not the moment looked at before)
    renderAll();
    return;
  }
  if (!S.look || S.look.n !== n) return; // a later click or a return won
  S.look.r = r;
  S.look.prev = prev;
  renderAll();
  $('board').scrollIntoView({ block: 'nearest' });
}

// ---- replay ----

async function replayLoad(k) {
  const R = S.replay;
  if (!R.cache.has(k)) R.cache.set(k, apiGet(`/api/games/${gameId}/replay/${k}`));
  return R.cache.get(k);
}

async function replayGo(k) {
  const R = S.replay;
  k = Math.max(0, Math.min(R.total, k));
  R.want = k;
  let r, prev;
  // the position before too: the board marks what the decision just stepped over changed
  try { [r, prev] = await Promise.all([replayLoad(k), k > 0 ? replayLoad(k - 1) : null]); } catch (e) { toast(t('Replay: {why}', { why: e.message }), 'error'); return; }
  if (R.want !== k) return; // a later click won
  R.current = r;
  R.prev = prev;
  chat.setReplay(r.chat, k); // the lines said up to this position
  $('replay-slider').value = String(k);
  const last = r.last ? decisionWords(r.last, seatName, formatMove) : t('the start');
  $('replay-step').textContent = t('Decision {n} of {total} · {last}', { n: k, total: R.total, last });
  if (S.review) S.review.setPosition(k);
  renderAll();
  replayLoad(Math.min(R.total, k + 1)); // prefetch
}

async function startReplay() {
  const total = S.summary.decisions;
  const final = await apiGet(`/api/games/${gameId}/replay/${total}`);
  S.replay = { total, cache: new Map([[total, Promise.resolve(final)]]), current: null, prev: null, result: final.result, finalView: final.view, timer: null };
  S.log = S.summary.log;
  setConn('live', t('replay'));
  $('replay-bar').hidden = false;
  const slider = $('replay-slider');
  slider.max = String(total);
  slider.addEventListener('input', () => replayGo(Number(slider.value)));
  $('replay-first').onclick = () => replayGo(0);
  $('replay-prev').onclick = () => replayGo(S.replay.current.step - 1);
  $('replay-next').onclick = () => replayGo(S.replay.current.step + 1);
  $('replay-last').onclick = () => replayGo(total);
  const play = $('replay-play');
  play.onclick = () => {
    const R = S.replay;
    if (R.timer) { clearInterval(R.timer); R.timer = null; play.textContent = t('▶ Play'); return; }
    play.textContent = t('⏸ Pause');
    R.timer = setInterval(() => {
      if (R.current.step >= R.total) { clearInterval(R.timer); R.timer = null; play.textContent = t('▶ Play'); return; }
      replayGo(R.current.step + 1);
    }, 700);
  };
  document.addEventListener('keydown', (ev) => {
    // keys typed into a field or a list (the review's player picker) are theirs
    const tg = ev.target;
    if ((tg.tagName === 'INPUT' && tg.type !== 'range') || tg.tagName === 'SELECT' || tg.tagName === 'TEXTAREA' || tg.isContentEditable) return;
    const map = { ArrowLeft: -1, ArrowRight: 1 };
    if (ev.key in map) { ev.preventDefault(); replayGo(S.replay.current.step + map[ev.key]); }
    if (ev.key === 'Home') replayGo(0);
    if (ev.key === 'End') replayGo(total);
  });
  await replayGo(0);
  S.review = mountReview($('review'), {
    gameId, seats: S.seats, seatName, colourOf: seatColour, formatMove, goTo: (k) => replayGo(k),
  });
  if (wantReview) {
    S.review.start();
    $('review').scrollIntoView({ block: 'nearest' });
  }
}

// A player's colour in games where players have one (shown on the board),
// from the final position's view and the renderer's colours; else null.
function seatColour(k) {
  const v = S.replay && S.replay.finalView;
  const mod = S.rendererModule || {};
  const table = mod.SEAT_COLOUR || mod.SEAT_COLOURS;
  if (!v || !table) return null;
  const name = (Array.isArray(v.colours) && v.colours[k]) || (Array.isArray(v.seats) && v.seats[k] && v.seats[k].colour);
  return typeof name === 'string' && typeof table[name] === 'string' ? table[name] : null;
}

// ---- start ----

async function loadRenderer(name) {
  const path = RENDERERS[name];
  let mod;
  try {
    mod = await import(path || './renderers/generic.js');
  } catch (e) {
    console.error(e);
    mod = await import('./renderers/generic.js');
  }
  S.rendererModule = mod;
  return mod.create({
    boardEl: $('board'), panelsEl: $('game-panels'), board: S.board, decide, seatName,
    // a renderer calls this when its selection changed: the turn card follows
    // (only when its words change, so buttons are not rebuilt under a pointer)
    changed: () => {
      if (!S.renderer) return;
      // the renderer may have rebuilt its decision buttons: the dock shows the new ones
      const ctx = context();
      if (!S.replay && S.renderer.instruction && ctx.view && ctx.yourTurn
        && JSON.stringify(S.renderer.instruction(ctx)) !== S.helpKey) renderTurn(ctx);
      placeDock();
    },
  });
}

// The settings menu of the top bar: this browser's own choices.
function setupSettings() {
  const btn = $('settings-button'), menu = $('settings-menu'), box = $('setting-confirm');
  if (!btn || !menu || !box) return;
  box.checked = confirmEachMove();
  box.addEventListener('change', () => {
    localStorage.setItem(CONFIRM_KEY, box.checked ? 'on' : 'off');
    if (!box.checked && S.staged) cancelStaged();
  });
  setupDeduceSetting($('setting-deduce'), renderAll);
  const pace = $('setting-pace');
  if (pace) {
    pace.replaceChildren(...PACES.map(([k, words]) => el('option', { value: k }, t(words))));
    pace.value = loadPace();
    pace.addEventListener('change', () => savePace(pace.value));
  }
  const open = (yes) => { menu.hidden = !yes; btn.setAttribute('aria-expanded', String(yes)); };
  btn.addEventListener('click', (ev) => { ev.stopPropagation(); open(menu.hidden); });
  menu.addEventListener('click', (ev) => ev.stopPropagation());
  document.addEventListener('click', () => open(false));
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') open(false); });
}

async function main() {
  await ready(); // the page's language first: everything below speaks it
  $('brand-logo').append(brandSvg());
  setupSettings();
  mountZoom($('board'), { pointSize: smallestPoint }); // pinch and +/−/Fit (js/zoom.js)
  for (const b of document.querySelectorAll('[data-phone-tab]')) b.addEventListener('click', () => showTab(b.dataset.phoneTab));
  PHONE.addEventListener('change', () => renderAll());
  SIDEWAYS.addEventListener('change', () => placeDock());
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape' && S.look) lookBack(null); });
  new ResizeObserver(() => placeDock()).observe($('dock'));
  // The board's drawn scale, unzoomed (screen px per unit of its drawing, in
  // --board-px): the games' stylesheets keep the labels the moves list names
  // places by (territory numbers, squares' letters and numbers) at least 11 px.
  const boardScale = () => {
    const s = $('board').querySelector('svg[viewBox]');
    const w = s && s.viewBox.baseVal ? s.viewBox.baseVal.width : 0;
    if (w > 0 && s.clientWidth > 0) $('board').style.setProperty('--board-px', String(s.clientWidth / w));
  };
  new ResizeObserver(boardScale).observe($('board'));
  new MutationObserver(boardScale).observe($('board'), { childList: true });
  placeDock();
  if (!gameId) {
    S.fatal = t('This page needs a game: open it from the lobby.');
    renderTurn(context());
    placeDock();
    return;
  }
  try {
    S.summary = await apiGet(`/api/games/${encodeURIComponent(gameId)}`);
  } catch (e) {
    S.fatalCode = /no such game/.test(e.message) ? 'unknown_game' : null;
    S.fatal = S.fatalCode ? t(FATAL_WORDS[S.fatalCode]) : t('The server could not show this game: {why}.', { why: e.message });
    setConn('down', t('no game'));
    renderTurn(context());
    placeDock();
    return;
  }
  const sum = S.summary;
  S.seats = sum.seats;
  if (!token) {
    const me = await whoAmI();
    seated = !!me && sum.seats.some((s) => s.account && s.name === me.name);
  }
  rematch.known(sum.rematch);
  chat.tab.addEventListener('click', () => showTab('chat'));
  await chat.mount($('players-card'), $('phone-tabs'));
  $('setting-deduce-box').hidden = !sum.secret_roles || !seated || sum.status === 'over';
  // the settings are about playing a seat: a spectator, a replay or a finished game has none to offer
  $('settings-button').parentElement.hidden = !seated || sum.status === 'over';
  setBaseTitle(`Tabula — ${sum.title} ${sum.id}`); // (names: the same in every language)
  if (seated && !wantReplay && sum.status !== 'over') $('players-card').append(signalControls(el));
  // (a phone's narrow top bar leaves the game's number out: the title and the role stay whole)
  $('crumb').append(el('b', sum.title), el('span.crumb-id', ` · ${t('game {id}', { id: sum.id })}`),
    ` · ${sum.status === 'over' ? t('finished') : seated ? t('your seat') : wantReplay ? t('replay') : t('watching')}`);
  $('crumb').after(el('a.rules-link#rules-link', { href: `/rules.html?game=${sum.game}`, target: '_blank', rel: 'noopener', title: t('How to play {game}', { game: sum.title }) }, t('Rules')));
  if (sum.notice) { $('notice').hidden = false; $('notice').textContent = field(sum, 'notice'); }
  showOptions(sum); // (not awaited: the board need not wait for the catalog)
  // the board the game is played on: the built-in one, or one installed on the server, by name
  const boardUrl = sum.board && sum.board !== 'default'
    ? `/api/catalog/${sum.game}/boards/${encodeURIComponent(sum.board)}` : `/api/catalog/${sum.game}/board`;
  try { S.board = await apiGet(boardUrl); } catch { S.board = null; }
  // ?renderer=generic shows any game with the generic renderer (what a game
  // without its own renderer gets); tests use it to keep that path working.
  S.renderer = await loadRenderer(params.get('renderer') === 'generic' ? '' : sum.game);
  if (sum.status === 'broken') {
    S.fatal = t('This game cannot be shown: {why}', { why: field(sum, 'error') });
    renderTurn(context());
    placeDock();
    return;
  }
  if (wantReplay && sum.status === 'over') {
    await startReplay();
    return;
  }
  if (wantReplay) banner(t('The replay opens when the game is over; here is the game live.'), 'info');
  connect();
}

// The options the game is played with, in players' words (js/options.js).
async function showOptions(sum) {
  if (!sum.options || !Object.keys(sum.options).length) return;
  try {
    const cat = await apiGet('/api/catalog');
    const list = optionsList(el, cat.games.find((g) => g.name === sum.game), sum.options);
    if (list) $('players-card').append(list);
  } catch { /* the game plays the same without the list */ }
}

main();
