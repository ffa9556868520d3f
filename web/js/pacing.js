// pacing.js — how a page plays out the computers' turns.  The server pauses
// once before a computer's turn (`tabula serve --ai-delay-ms`) and then sends
// the turn's decisions as fast as the computer makes them; the page shows
// them at its player's pace, chosen in the settings and kept in this
// browser (localStorage):
//   turn — a computer's whole turn plays out in about TURN_MS, however many
//          decisions it has (the page waits for the turn's last decision,
//          up to TURN_MS, then shows them spread over that time; a turn of
//          one decision shows at once);
//   fast — every decision as soon as it arrives;
//   step — step by step, STEP_MS between a computer's decisions.
//
// Invariants: messages are shown in the order they came, every one of them,
// none twice; only a live computer decision (a state one decision on from
// the one before it) ever waits, so a page opening, a person's own decision,
// an undo or an error is shown at once (after what came before it).
import { N_ } from './i18n.js';

export const PACE_KEY = 'tabula.computerPace';
export const TURN_MS = 2000;
export const STEP_MS = 700;
export const PACES = [
  ['turn', N_('About 2 seconds a turn')], // (msgids: the settings show them through t())
  ['fast', N_('Fast')],
  ['step', N_('Step by step')],
];
const NAMES = PACES.map(([k]) => k);

export function loadPace(storage = globalThis.localStorage) {
  try {
    const v = storage.getItem(PACE_KEY);
    return NAMES.includes(v) ? v : 'turn';
  } catch { return 'turn'; }
}

export function savePace(pace, storage = globalThis.localStorage) {
  if (!NAMES.includes(pace)) return;
  try { storage.setItem(PACE_KEY, pace); } catch { /* private mode: this page only */ }
}

// Does the computer that made this decision still have the turn after it?
function goesOn(msg) {
  return !msg.result && msg.to_move === msg.last.seat;
}

// A pacer: push(msg) each message as it comes; show(msg) is called for each
// in order, when its time comes.  pace() says the player's pace now; now()
// and later(fn, ms) are the clock (tests pass their own).
export function createPacer(show, { pace = () => loadPace(), now = () => Date.now(), later = (fn, ms) => setTimeout(fn, ms) } = {}) {
  const queue = []; // {msg, at, paced}
  let lastN = null; // the decision count of the last state message pushed
  let turn = null; // the computer turn being shown: {seat, gap, next}
  let lastStep = -Infinity; // when the last paced decision was shown (step by step)
  let due = Infinity; // when the earliest timer set fires

  const wait = (ms) => {
    const at = now() + Math.max(0, ms);
    if (at >= due) return;
    due = at;
    later(() => { if (due === at) due = Infinity; pump(); }, Math.max(0, ms));
  };

  // The computer turn at the head of the queue: its decisions there, and
  // whether the last of them ends it.
  const run = () => {
    const seat = queue[0].msg.last.seat;
    let k = 0;
    while (k < queue.length && queue[k].paced && queue[k].msg.last.seat === seat) {
      if (!goesOn(queue[k].msg)) return { count: k + 1, done: true };
      k++;
    }
    return { count: k, done: false };
  };

  function pump() {
    while (queue.length) {
      const head = queue[0];
      const t = now();
      if (head.paced) {
        const p = pace();
        if (p === 'step') {
          if (t < lastStep + STEP_MS) { wait(lastStep + STEP_MS - t); return; }
          lastStep = t;
        } else if (p === 'turn') {
          if (!turn || turn.seat !== head.msg.last.seat) {
            const r = run();
            if (!r.done && t < head.at + TURN_MS) { wait(head.at + TURN_MS - t); return; }
            turn = { seat: head.msg.last.seat, gap: TURN_MS / Math.max(1, r.count), next: t };
          }
          if (t < turn.next) { wait(turn.next - t); return; }
          turn.next = t + turn.gap;
        }
        if (!goesOn(head.msg)) turn = null;
      } else {
        turn = null;
      }
      queue.shift();
      show(head.msg);
    }
  }

  return {
    push(msg) {
      let paced = false;
      if (msg && msg.type === 'state') {
        paced = lastN !== null && msg.n === lastN + 1 && Boolean(msg.last) && msg.last.by === 'ai' && msg.last.n === msg.n;
        lastN = msg.n;
      } else if (msg && msg.type === 'welcome') {
        lastN = null; // a new connection: its first state is where the page starts
      }
      queue.push({ msg, at: now(), paced });
      pump();
    },
    // how many messages wait to be shown
    get waiting() { return queue.length; },
  };
}
