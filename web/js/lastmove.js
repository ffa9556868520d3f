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
// over is marked.  `enter` is non-empty for the first paint of a new position
// only, so a repaint (a hover, a click) never replays the animation; with
// `prefers-reduced-motion: reduce` the CSS plays no animation at all (the
// marks stay).

export function lastMoveTracker({ diff, fromText }) {
  let n = null, mode = null, seat = null, before = null, keys = new Set(), enter = new Set();
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
      n = ctx.n;
      mode = m;
      seat = last ? last.seat : null;
      before = ctx.before || null;
      if (m === 'live') live = { n, seat, before, keys };
    },
    has(key) { return keys.has(key); },
    keys() { return keys; },
    // Whether `key` plays its entry animation in this paint; true at most
    // once per position (the first paint after update() consumed it).
    enters(key) { return enter.has(key); },
    // The renderer calls this when a paint is done: later paints of the same
    // position show the marks without animation.
    painted() { enter = new Set(); },
  };
}
