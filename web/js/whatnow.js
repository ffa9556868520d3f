// whatnow.js — "What can I do now?": the kinds of decision the rules allow
// this seat at this moment, in players' words, with how many of each.  Built
// from the legal decisions the server sends (their notation's first word, or
// its shape: "12-17" is a hut move, "c4-d5" a choice of squares), so it is
// always exactly what the rules allow.
//
// Invariants: every legal decision falls in exactly one kind; the counts add
// up to the number of legal decisions; a notation no phrase knows is shown
// by its first word, never dropped.

export const PHRASES = {
  clans: {
    move: 'Move all huts of a territory onto a neighbouring one',
    village: 'Choose which village is founded next',
  },
  arkadia: {
    lot: 'Place the castle building lot',
    build: 'Lay out a card from your hand to build',
    workers: 'Send workers next to a building or the castle lot',
    squares: 'Choose the squares of the building you lay out',
    own: 'Put one of your own workers down',
    neutral: 'Put a neutral worker down',
    stop: 'Stop putting workers down',
    castle: 'Add pieces to the castle',
    draw: 'Draw a card from the display or the stack',
    banner: 'Use an architect banner, or not',
    sell: 'Sell seals for gold',
  },
  khronos: {
    swap: 'Swap a card for the one on display',
    exchange: 'Exchange cards with the deck',
    travel: 'Send an adventurer to another era',
    build: 'Build a new building',
    upgrade: 'Upgrade a building to a bigger one',
    demolish: 'Demolish a building',
    populate: 'Put a cube on a civil building',
    renovate: 'Renovate a ruin',
    squares: 'Choose the squares of the building',
    pay: 'Choose the surcharge cards to pay',
    downsize: 'Choose the building that is downsized',
    end: 'End your turn',
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
    el('summary', 'What can I do now?'),
    el('ul', kinds.map((k) => el('li', { 'data-kind': k.kind }, k.words,
      k.count > 1 ? el('span.muted', ` — ${k.count} ways`) : null))));
  return box;
}
