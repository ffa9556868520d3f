// pacing.test.mjs — how a page plays out the computers' turns
// (web/js/pacing.js), on a clock of the test's own: with the default pace a
// computer's turn of any number of decisions plays out in about 2 s and a
// turn of one decision shows at once; 'fast' shows each as it comes; 'step
// by step' keeps 700 ms between a computer's decisions; messages are shown
// in order, all of them, and a page opening, a person's decision or an
// undo never waits; the chosen pace is kept in (a stand-in for) localStorage.
import { assert, assertEq, runner } from '../server/lib.mjs';
import { PACES, PACE_KEY, STEP_MS, TURN_MS, createPacer, loadPace, savePace } from '../../web/js/pacing.js';

// A clock the test moves by hand.
function fakeClock() {
  let t = 0;
  const timers = [];
  return {
    now: () => t,
    later: (fn, ms) => { timers.push({ at: t + ms, fn }); },
    // moves time on to `to`, firing the timers due on the way, in order
    advance(to) {
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        if (!timers.length || timers[0].at > to) break;
        const next = timers.shift();
        t = Math.max(t, next.at);
        next.fn();
      }
      t = Math.max(t, to);
    },
  };
}

// A game: seat 0 a person, seat 1 a computer.  state(n, seat, by, toMove)
// is the message of decision n made by `seat`.
const state = (n, seat, by, toMove, extra = {}) => ({ type: 'state', n, to_move: toMove, last: { n, seat, by }, ...extra });

// Plays: the page opens at decision 10 (the person to move), the person
// decides, then the computer makes `count` decisions, sent `every` ms apart;
// returns when each was shown.
function computerTurn(pace, count, every = 5) {
  const clock = fakeClock();
  const shown = [];
  const p = createPacer((m) => shown.push({ n: m.n ?? m.type, at: clock.now() }), { pace: () => pace, now: clock.now, later: clock.later });
  p.push({ type: 'welcome' });
  p.push(state(10, 1, 'ai', 0));
  p.push(state(11, 0, 'human', 1));
  for (let i = 1; i <= count; i++) {
    clock.advance(700 + i * every); // the server's pause, then the computer's decisions
    p.push(state(11 + i, 1, 'ai', i < count ? 1 : 0));
  }
  clock.advance(60000);
  return { shown, pacer: p };
}

const t = runner('pacing of the computers\' turns');

t.test('the default: a turn of many decisions plays out in about 2 s, one of one decision at once', async () => {
  for (const count of [2, 5, 12, 40]) {
    const { shown } = computerTurn('turn', count);
    assertEq(shown.map((s) => s.n), ['welcome', 10, 11, ...Array.from({ length: count }, (_, i) => 12 + i)], 'every message, in order');
    assertEq(shown.slice(0, 3).map((s) => s.at), [0, 0, 0], 'the page opening and the person\'s decision at once');
    const turn = shown.slice(3);
    const arrived = 700 + count * 5; // the turn's last decision came then
    const span = turn[turn.length - 1].at - turn[0].at;
    assert(turn[0].at === arrived, `the turn starts as soon as it is all there (${turn[0].at} ms, ${count} decisions)`);
    assert(span >= TURN_MS * 0.45 && span <= TURN_MS * 1.05, `a turn of ${count} decisions plays out in about 2 s (${span} ms)`);
    for (let i = 1; i < turn.length; i++) assert(turn[i].at >= turn[i - 1].at, 'never out of order');
  }
  const one = computerTurn('turn', 1).shown;
  assertEq(one[3].at, 705, 'a turn of one decision shows as it comes');
});

t.test('a slow computer: after 2 s the page shows what it has and goes on as the rest comes', async () => {
  const { shown } = computerTurn('turn', 6, 900);
  const turn = shown.slice(3);
  assertEq(turn.length, 6, 'every decision shown');
  assert(turn[0].at <= 1600 + TURN_MS, `the first decision waited at most 2 s (${turn[0].at} ms)`);
  assert(turn[5].at - (700 + 6 * 900) <= TURN_MS, `the last soon after it came (${turn[5].at} ms)`);
});

t.test('fast: each decision as it comes; step by step: 700 ms apart', async () => {
  const fast = computerTurn('fast', 8).shown.slice(3);
  assertEq(fast.map((s) => s.at), Array.from({ length: 8 }, (_, i) => 700 + (i + 1) * 5), 'fast: at once');
  const step = computerTurn('step', 8).shown.slice(3);
  for (let i = 1; i < step.length; i++) assertEq(step[i].at - step[i - 1].at, STEP_MS, 'step by step: 700 ms between decisions');
  assertEq(step[0].at, 705, 'the first at once');
});

t.test('an undo, an error or a new connection in the middle waits only for what came before it', async () => {
  const clock = fakeClock();
  const shown = [];
  const p = createPacer((m) => shown.push({ m: m.type === 'state' ? m.n : m.type, at: clock.now() }), { pace: () => 'turn', now: clock.now, later: clock.later });
  p.push({ type: 'welcome' });
  p.push(state(3, 1, 'ai', 1)); // the page opens in the middle of the computer's turn: at once
  assertEq(shown.map((s) => s.m), ['welcome', 3], 'the first position at once, even a computer\'s');
  p.push(state(4, 1, 'ai', 1));
  assertEq(p.waiting, 1, 'the turn goes on: its decision waits');
  clock.advance(100);
  p.push(state(5, 1, 'ai', 0)); // the turn ends
  p.push({ type: 'error', code: 'not_your_turn' });
  clock.advance(5000);
  assertEq(shown.map((s) => s.m), ['welcome', 3, 4, 5, 'error'], 'in the order they came');
  assert(shown[2].at === 100 && shown[3].at > 100 && shown[4].at === shown[3].at, 'the turn played out, then the error at once');
  p.push({ type: 'error', code: 'busy' });
  assertEq(shown[shown.length - 1].at, clock.now(), 'with nothing before it, an error at once');
  p.push({ type: 'undone', n: 2 });
  p.push(state(2, 0, 'human', 1));
  assertEq(shown.slice(-2).map((s) => s.m), ['undone', 2], 'an undo and the position it leaves at once');
  p.push({ type: 'welcome' });
  p.push(state(3, 1, 'ai', 1));
  assertEq(shown[shown.length - 1].m, 3, 'a new connection\'s first state at once');
});

t.test('the chosen pace is kept in this browser; the default is about 2 s a turn', async () => {
  const store = new Map();
  const storage = { getItem: (k) => (store.has(k) ? store.get(k) : null), setItem: (k, v) => store.set(k, String(v)) };
  assertEq(loadPace(storage), 'turn', 'the default');
  savePace('step', storage);
  assertEq([store.get(PACE_KEY), loadPace(storage)], ['step', 'step'], 'kept');
  savePace('warp', storage);
  assertEq(loadPace(storage), 'step', 'a pace that does not exist changes nothing');
  store.set(PACE_KEY, 'nonsense');
  assertEq(loadPace(storage), 'turn', 'a bad stored value reads as the default');
  const broken = { getItem: () => { throw new Error('private mode'); }, setItem: () => { throw new Error('private mode'); } };
  assertEq(loadPace(broken), 'turn', 'no storage: the default');
  savePace('fast', broken); // and no throw
  assertEq(PACES.map(([k]) => k), ['turn', 'fast', 'step'], 'the three paces');
  assert(PACES.every(([, words]) => words && !/_/.test(words)), 'named in words');
});

await t.run().then((failed) => process.exit(failed ? 1 : 0));
