// deduce.js — the deduction aid of the game page (docs/ai.md, "Clans colour
// inference"): for learning players, an option of this browser ("Show my
// deduction", off by default, kept in localStorage) that shows the player,
// for their own seat only, each other player's most likely secret colours
// with their chances ("Green is probably Anna: 71%").  The server works it
// out from this seat's view and the public history (the WebSocket request
// `deduce`, answered by a `deduction` message; docs/http-api.md); the page
// asks again after every decision.  The option is offered only in games
// whose summary says `secret_roles`.
//
// Invariants: it asks only when the option is on, the page holds a seat of
// a live game, and the game has secret colours (`secret_roles`; a server
// that answers `no_secret_roles` anyway is not asked again); at most one request per
// position; the panel shows nothing to spectators, in replays, while looking
// back, or once the game is over (every colour is shown then); the words
// (chances, names, colours) are the server's and the seats', never rule ids,
// shown in the page's language (colours are catalogue msgids; chances are
// written by Intl from the number).
import { num, t } from './i18n.js';

// A chance in words: "71%", never "0%" or "100%" for what is only unlikely
// or likely ("under 1%", "over 99%").
function chanceWords(p) {
  const pct = (v) => num(v, { style: 'percent', maximumFractionDigits: 0 });
  if (p < 0.005) return t('under {pct}', { pct: pct(0.01) });
  if (p > 0.995) return t('over {pct}', { pct: pct(0.99) });
  return pct(p);
}

const KEY = 'tabula.showDeduction';

export function deductionWanted() {
  return localStorage.getItem(KEY) === 'on';
}

// The aid of one page.  send(obj) sends a WebSocket message (false when not
// connected); seatName(k) names a seat; applies() says whether the game has
// secret colours; paint(colour) gives a colour name's CSS colour (the
// renderer's palette).
export function createDeduce({ el, send, seatName, applies: gameHasRoles = () => true, paint = (c) => c }) {
  const D = { asked: null, ids: new Set(), latest: null, unsupported: false, unavailable: false, seq: 0 };
  const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  const swatch = (c) => el('span.deduce-swatch', { style: `background:${paint(c)}`, 'aria-hidden': 'true' });

  // Whether the panel applies to this page now.
  function applies(ctx) {
    return deductionWanted() && gameHasRoles() && !D.unsupported && ctx.view && !ctx.replay && !ctx.look && !ctx.result
      && ctx.seat !== null && ctx.seat !== undefined;
  }

  // Asks for the deduction of the position shown, once per position.
  function ask(ctx) {
    if (!applies(ctx) || D.asked === ctx.n) return;
    const id = `deduce-${++D.seq}`;
    if (send({ type: 'deduce', id }) === false) return;
    D.asked = ctx.n;
    D.unavailable = false;
    D.ids.add(id);
    // (answers carry no id, so the ids of answered requests are dropped
    // oldest first: a refusal comes long before 16 more positions)
    if (D.ids.size > 16) D.ids.delete(D.ids.values().next().value);
  }

  // A server message; true when it was the aid's (the page shows nothing else for it).
  function onMessage(msg) {
    if (msg.type === 'deduction') {
      D.latest = msg;
      D.unavailable = false;
      return true;
    }
    // (a deduction that could not be worked out is said to every connection
    // of the seat, without an id)
    if (msg.type === 'error' && (D.ids.has(msg.id) || msg.code === 'no_deduction')) {
      D.ids.delete(msg.id);
      if (msg.code === 'no_secret_roles' || msg.code === 'not_a_player') D.unsupported = true;
      else D.unavailable = true; // busy, or not available now: asked again at the next position
      return true;
    }
    return false;
  }

  // One other seat's line: its most likely colour when it is likely, else
  // that nothing is clear yet, then the other possibilities.
  function seatLine(o) {
    const name = o.name || seatName(o.seat);
    const [top, ...rest] = o.chances;
    const likely = top && top.chance >= 0.5;
    const others = (likely ? rest : o.chances)
      .map((c) => el('span.deduce-chance', swatch(c.colour), ` ${t(c.colour)} ${chanceWords(c.chance)}`));
    const sep = (nodes) => nodes.flatMap((n, i) => (i ? [', ', n] : [n]));
    return el('li.deduce-seat', { 'data-seat': o.seat },
      likely
        ? el('div', swatch(top.colour), ' ', el('b', t('{colour} is probably {name}: {chance}', { colour: cap(t(top.colour)), name, chance: chanceWords(top.chance) })))
        : el('div', el('b', t('{name}: no clear sign yet', { name }))),
      others.length ? el('div.small.muted', likely ? `${t('otherwise')} ` : '', ...sep(others)) : null);
  }

  // Fills `box` (the card) for the position of ctx, or hides it.
  function render(box, ctx) {
    box.replaceChildren();
    box.hidden = !applies(ctx);
    if (box.hidden) return;
    ask(ctx);
    box.append(el('div.card-head', el('h3', t('Your deduction')),
      el('span.small.muted', t('a guess from play, not a certainty'))));
    const d = D.latest && D.latest.seat === ctx.seat ? D.latest : null;
    if (D.unavailable && (!d || d.n !== ctx.n)) {
      box.append(el('div.small.muted#deduce-waiting', t('No deduction is available for this position; it is tried again after the next decision.')));
      return;
    }
    if (!d) {
      box.append(el('div.small.muted#deduce-waiting', t('Working it out…')));
      return;
    }
    box.dataset.n = String(d.n);
    box.append(el('div.small', t('You are {colour}.', { colour: t(d.colour) })));
    if (d.decisions === 0) {
      box.append(el('div.small.muted', t('Nobody has played yet, so every other colour is equally likely.')));
      return;
    }
    box.append(el('ul.deduce-list#deduce-list', ...d.others.map(seatLine)));
    if (d.n !== ctx.n) box.append(el('div.small.muted', t('Updating…')));
  }

  // A new connection: a request in flight may be lost, so ask again.
  function reset() {
    D.asked = null;
    D.ids.clear();
  }

  return { render, onMessage, reset };
}

// The settings menu's checkbox for the option; `changed` runs after a change.
export function setupDeduceSetting(box, changed) {
  if (!box) return;
  box.checked = deductionWanted();
  box.addEventListener('change', () => {
    localStorage.setItem(KEY, box.checked ? 'on' : 'off');
    changed();
  });
}
