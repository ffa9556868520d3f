// lastmove.js — which parts of the board the last move changed, for every
// renderer: one tracker per board works out the marked keys (territories,
// squares, buildings… whatever the renderer names its pieces by) and says
// once per new position which of them should play their entry animation.
//
// Invariants: the marks are exactly what changed between the view before the
// last decision and the view shown (the renderer's diff), or, when the page
// has no earlier view (just opened, after an undo), what the decision's text
// names; in live play the decisions of one seat in a row add up (a player who
// looks away sees the other's whole turn), the next seat's first decision
// starts afresh; in a replay or a look back only the decision just stepped
// over is marked.  What the new position changed enters (plays its
// animation) only during the first ENTER_MS after the position arrived: a
// repaint in that time (another message, a click) draws the pieces again
// with the animation's clock set back by the time gone (--enter-delay, a
// negative animation-delay), so it goes on where it was instead of starting
// again; a repaint after it draws them still.  With `prefers-reduced-motion:
// reduce` the CSS plays no animation at all (the marks stay).

export const ENTER_MS = 600; // every entry animation is at most this long

export function lastMoveTracker({ diff, fromText }) {
  let n = null, mode = null, seat = null, before = null, keys = new Set(), enter = new Set(), enterAt = 0;
  let live = null; // the live marks, kept while the player looks back, given back unchanged on return
  return {
    // Called by the renderer's update(ctx): works out the marks for ctx.
    update(ctx) {
      const m = ctx.replay ? 'replay' : 'live';
      if (n === ctx.n && mode === m && before === (ctx.before || null)) return;
      if (m === 'live' && mode === 'replay' && live && live.n === ctx.n && live.before === (ctx.before || null)) {
        ({ n, seat, before, keys } = live);
        mode = m;
        enter = new Set();
        return;
      }
      // the same position with the position before it come later (the page
      // asked the server for it): marked now, without animation
      const late = n === ctx.n && mode === m;
      const last = ctx.last || null;
      let step;
      if (!last || !ctx.view) step = new Set();
      else if (ctx.before) step = new Set(diff(ctx.before, ctx.view, last));
      else step = new Set(fromText ? fromText(last, ctx.view) : []);
      const chain = !late && m === 'live' && mode === 'live' && last && n !== null && ctx.n === n + 1
        && ctx.beforeN === n && last.seat === seat;
      keys = chain ? new Set([...keys, ...step]) : step;
      // a new position reached by a step animates what the step changed; a
      // page opened on a position, or a jump in a replay, only marks it
      enter = !late && n !== null && ctx.before && (ctx.n === n + 1 || (m === 'live' && ctx.n > n)) ? step : new Set();
      enterAt = performance.now();
      n = ctx.n;
      mode = m;
      seat = last ? last.seat : null;
      before = ctx.before || null;
      if (m === 'live') live = { n, seat, before, keys };
    },
    has(key) { return keys.has(key); },
    keys() { return keys; },
    // Whether `key` is drawn entering (with its animation) in this paint:
    // only what the last step changed, only within ENTER_MS of its arrival.
    enters(key) { return enter.has(key) && performance.now() - enterAt < ENTER_MS; },
    // The style an entering piece carries: its animation's clock set back by
    // the time gone since the position arrived (see above).
    enterStyle() { return `--enter-delay: ${-Math.round(performance.now() - enterAt)}ms`; },
  };
}
