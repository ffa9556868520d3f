// gamelog.js — the game page's log: every decision in players' words (the
// server's `said`), grouped into turns (a seat's run of decisions) under the
// stage they were made in ("Epoch II", "Turn 3 of 7"), each turn folded to one
// line until it is opened.  Clicking a decision shows the board as it was
// just after it (the caller's `onPick`).
//
// Invariants: every decision is one `.entry` element with data-n = its number
// (folded or not), in order, so a decision can always be found by its number;
// the turn holding the marked (`current`) decision is unfolded; the words
// are the only text shown (the notation, for players who know it, is in the
// entry's tooltip, and its raw form in data-move).
import { el } from './common.js';
import { field, t } from './i18n.js';
import { stageWords } from './scoregraph.js';

// Turns: runs of consecutive decisions by one seat; a stage heading wherever
// the stage changes between turns.
export function groupTurns(log) {
  const turns = [];
  for (const e of log) {
    const last = turns[turns.length - 1];
    if (last && last.seat === e.seat) last.entries.push(e);
    else turns.push({ seat: e.seat, stage: e.stage || '', entries: [e] });
  }
  return turns;
}

// One short line for a folded turn: its first decision's words and how many
// more there are.
function turnSummary(turn, words) {
  const first = words(turn.entries[0]);
  const more = turn.entries.length - 1;
  return more ? t('{first} … and {n} more', { first, n: more }) : first;
}

// Draws the log into `box`.  opts: { upto (decisions shown as made; later
// ones faded, for the replay), current (decision marked), open (Set of turn
// keys the player unfolded), seatName(k), formatMove(m), onPick(n), after(n)
// (nodes shown after decision n, e.g. the server's notices; n = 0: first) }.
// A decision in players' words: the server's `said`, else the seat's name
// and the renderer's short form of the move (the log and the replay's
// step line say it the same way).
export function decisionWords(e, seatName, formatMove) {
  return field(e, 'said') || t('{name} plays {move}', { name: seatName(e.seat), move: formatMove(e.move) });
}

export function renderGameLog(box, log, opts) {
  const words = (e) => decisionWords(e, opts.seatName, opts.formatMove);
  const after = opts.after || (() => []);
  box.append(...after(0));
  let stage = null;
  for (const turn of groupTurns(log)) {
    if (turn.stage && turn.stage !== stage) {
      const first = turn.entries[0];
      box.append(el('div.stage', first.stage_msg ? field(first, 'stage') : stageWords(turn.stage)));
      stage = turn.stage;
    }
    const key = `${turn.entries[0].n}`;
    const holdsCurrent = turn.entries.some((e) => e.n === opts.current);
    const single = turn.entries.length === 1;
    const open = single || holdsCurrent || opts.open.has(key);
    const group = el(`div.turn${open ? '.open' : ''}`, { 'data-seat': turn.seat, 'data-first': key });
    if (!single) {
      const head = el('button.turn-head', {
        type: 'button', 'aria-expanded': String(open),
        title: open ? t('Fold this turn') : t('Show every decision of this turn'),
        onclick: () => {
          if (opts.open.has(key)) opts.open.delete(key); else opts.open.add(key);
          const now = !group.classList.contains('open');
          group.classList.toggle('open', now);
          head.setAttribute('aria-expanded', String(now));
        },
      }, el('span.fold', { 'aria-hidden': 'true' }, '▸'), el('span.turn-text', turnSummary(turn, words)));
      group.append(head);
    }
    const body = el('div.turn-body');
    for (const e of turn.entries) {
      const faded = opts.upto !== null && e.n > opts.upto;
      const row = el(`div.entry${e.n === opts.current ? '.current' : ''}${faded ? '.later' : ''}`,
        { 'data-n': e.n, 'data-move': e.move, role: 'button', tabindex: '0',
          title: t('{move} — show the board just after this decision', { move: opts.formatMove(e.move) }) },
        el('span.n', `${e.n}.`),
        el('span.words', words(e)),
        e.by === 'ai' ? el('span.ai-tag', { title: t('decided by the computer') }, t('AI')) : el('span'));
      row.addEventListener('click', () => opts.onPick(e.n));
      row.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); opts.onPick(e.n); } });
      body.append(row, ...after(e.n));
    }
    group.append(body);
    box.append(group);
  }
}
