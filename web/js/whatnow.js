// whatnow.js — "What can I do now?": the kinds of decision the rules allow
// this seat at this moment, each explained in one sentence of players' words
// (how many of each is counted, for tests, but not shown: "270 ways" tells a
// player nothing).  Built
// from the legal decisions the server sends (their notation's first word, or
// its shape: "12-17" is a hut move, "c4-d5" a choice of squares), so it is
// always exactly what the rules allow.
//
// Invariants: every legal decision falls in exactly one kind; the counts add
// up to the number of legal decisions; a notation no phrase knows is shown
// by its first word, never dropped.  The phrases are catalogue msgids: the
// panel shows them in the page's language.
import { N_, t } from './i18n.js';

export const PHRASES = {
  clans: {
    move: N_('Move all huts of a territory onto a neighbouring territory that has huts; a group of seven or more may only join one at least as large.'),
    village: N_('Several villages are founded at once: choose which one is founded first, as it may score differently.'),
  },
  arkadia: {
    lot: N_('Place the castle building lot on the board; the town will grow around it.'),
    build: N_('Choose a card from your hand to build its building, in the card\'s shape and colour.'),
    workers: N_('Choose a building (or the castle lot) to put workers down beside it.'),
    squares: N_('Choose where the building goes: squares next to a building, the castle lot or a worker.'),
    own: N_('Put one of your own workers on a free square next to the chosen building.'),
    neutral: N_('Put a neutral worker from your tent camps on a free square next to the chosen building.'),
    stop: N_('Stop putting workers down and end this part of your turn.'),
    castle: N_('Add pieces of a guild\'s colour to the castle; the colour on top sets what that guild\'s seals are worth.'),
    draw: N_('Take a card from the display, or draw the top card of the stack, to refill your hand.'),
    banner: N_('Hang an architect banner for two more workers and the right to sell seals, or keep your banners.'),
    sell: N_('Sell some of your seals of one guild for gold at their current value.'),
  },
  khronos: {
    swap: N_('Swap one of your cards for one of the face-up cards beside the deck.'),
    exchange: N_('Pay 2 Ecus to discard cards of your choice and draw back up to four.'),
    travel: N_('Move one of your adventurers to another era for 1 Ecu.'),
    build: N_('Build a new building on the board where your adventurer stands, paying cards of its colour.'),
    upgrade: N_('Replace a building with a bigger one of its family, paying the difference in cards (Ecus as a bonus on Might and Faith).'),
    demolish: N_('Remove a small building for 1 Ecu and one card of its colour.'),
    populate: N_('Put one of your cubes on a civil building of the Age of Reason.'),
    renovate: N_('Pay cards to restore a ruin of the Age of Reason, in one go or over several turns.'),
    squares: N_('Choose the squares the new building covers on the board.'),
    pay: N_('Choose which cards pay the extra cost of forest or mountain squares.'),
    downsize: N_('Choose which building is made smaller so that the rules of building hold again.'),
    end: N_('End your turn: discard any cards you do not want, then draw back up to four.'),
  },
};

// The kind of one decision's notation.
export function kindOf(move) {
  const first = move.split(' ')[0];
  if (/^\d+-\d+$/.test(first)) return 'move';
  if (/^[a-z]\d+(-[a-z]\d+)*$/.test(first)) return 'squares';
  return first;
}

// [{kind, words, count}] in the order the kinds first appear.
export function whatNow(game, legal) {
  const phrases = PHRASES[game] || {};
  const kinds = new Map();
  for (const m of legal || []) {
    const k = kindOf(m);
    if (!kinds.has(k)) kinds.set(k, { kind: k, words: phrases[k] || k, count: 0 });
    kinds.get(k).count++;
  }
  return [...kinds.values()];
}

// The panel: a folding list under the turn card's headline.
export function whatNowPanel(el, game, legal, open) {
  const kinds = whatNow(game, legal);
  if (!kinds.length) return null;
  const box = el('details.what-now', open ? { open: true } : {},
    el('summary', t('What can I do now?')),
    el('ul', kinds.map((k) => el('li', { 'data-kind': k.kind }, t(k.words)))));
  return box;
}
