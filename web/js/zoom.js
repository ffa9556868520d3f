// zoom.js — a zoom for the board on every screen, one for every game: it
// wraps the board element (#board, where each renderer draws) and never looks
// inside it (it asks the page where the top bar and the docked turn cover the
// screen, to zoom on what the player sees, and, through `pointSize`, how big
// the smallest point of the board a player taps is drawn).
//
// Two fingers pinch the board around the point between them; one finger pans
// the zoomed board (the box's own native scrolling, so a tap that did not move
// stays a tap on the square under it); the buttons "+", "−" and "Fit" do the
// same for players who do not pinch.  On a touch screen the first "+" goes at
// once to where every point of the board to tap is a finger wide (44 px), so
// one tap makes any square playable; further steps multiply by STEP.  The board is scaled with a CSS transform
// inside a sizer as large as the drawn board, inside a box that clips and
// scrolls: the page itself never gets wider than the screen.
//
// Invariants: the scale is 1 (no transform, no inline sizes: the layout is
// exactly the unzoomed one) until the player zooms and after "Fit"; the scale
// is in [1, MAX]; the scale lives on the wrapper, not in the board's content,
// so a renderer's repaint keeps it.
import { el } from './common.js';
import { t } from './i18n.js';

const MAX = 6;
const STEP = 1.5;
const FINGER = 44; // px: the least size of a point to tap on a touch screen
const coarse = matchMedia('(pointer: coarse)');

// pointSize(): the drawn size (px, at the present scale) of the smallest
// point of the board a player taps, or 0 when the board has none.
export function mountZoom(board, { pointSize = () => 0 } = {}) {
  const box = el('div.zoom-box');
  const sizer = el('div.zoom-sizer');
  board.replaceWith(box);
  sizer.append(board);
  box.append(sizer);
  const btn = (id, label, text, onclick) => el(`button.zoom-button#${id}`, { type: 'button', 'aria-label': label, title: label, onclick }, text);
  const plus = btn('zoom-in', t('Zoom in on the board'), '+', () => zoomAtCentre(stepUp()));
  const minus = btn('zoom-out', t('Zoom out'), '−', () => zoomAtCentre(scale / STEP));
  const fit = btn('zoom-fit', t('Fit the board to the screen'), t('Fit'), () => setScale(1));
  const controls = el('div.zoom-controls', { role: 'group', 'aria-label': t('Board size') }, minus, plus, fit);
  box.before(controls);

  let scale = 1;
  let base = 0; // the board's unzoomed width, px (the box's width)

  // Applies scale s (clamped), then scrolls so the board point that was at
  // (bx, by) in the box's coordinates before stays there.
  function setScale(s, bx = 0, by = 0) {
    s = Math.min(MAX, Math.max(1, s));
    const old = scale;
    const ox = (box.scrollLeft + bx) / old, oy = (box.scrollTop + by) / old;
    scale = s;
    if (s === 1) {
      board.style.transform = board.style.width = sizer.style.width = sizer.style.height = '';
      box.classList.remove('zoomed');
    } else {
      if (old === 1 || !base) base = box.getBoundingClientRect().width;
      box.classList.add('zoomed');
      board.style.width = `${base}px`;
      board.style.transform = `scale(${s})`;
      size();
      box.scrollLeft = ox * s - bx;
      box.scrollTop = oy * s - by;
    }
    box.dataset.zoom = String(Math.round(s * 100) / 100); // (tests read it)
    minus.disabled = fit.disabled = s === 1;
    plus.disabled = s >= MAX;
    settled();
  }
  // The next scale up: STEP times this one, or on a touch screen at least
  // the one that makes the smallest point a finger wide.
  function stepUp() {
    const next = scale * STEP;
    const p = coarse.matches ? pointSize() : 0;
    return p > 0 && p * next / scale < FINGER ? Math.ceil(FINGER / p * scale * 100) / 100 : next;
  }
  function size() {
    if (scale === 1) return;
    sizer.style.width = `${base * scale}px`;
    sizer.style.height = `${board.offsetHeight * scale}px`;
  }
  // The middle of the part of the box the player sees, in the box's
  // coordinates: on the screen, below the top bar and above the docked turn
  // (both stay over the page); the box's part on the screen when they hide it all.
  function seenCentre() {
    const r = box.getBoundingClientRect();
    let top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
    const bar = document.querySelector('.topbar'), dock = document.getElementById('dock');
    const barBottom = bar ? bar.getBoundingClientRect().bottom : 0;
    // (a dock beside the board, on a phone held sideways, hides none of it)
    const dr = dock ? dock.getBoundingClientRect() : null;
    const dockTop = dr && getComputedStyle(dock).position === 'fixed' && dr.left <= r.left ? dr.top : innerHeight;
    if (Math.min(bottom, dockTop) > Math.max(top, barBottom)) {
      top = Math.max(top, barBottom);
      bottom = Math.min(bottom, dockTop);
    }
    return { x: r.width / 2, y: Math.max(0, (top + bottom) / 2 - r.top) };
  }
  // The board point in the middle of what the player sees, as fractions of
  // the drawn board; and showing such a point there.
  function lookedAt() {
    const c = seenCentre();
    return { fx: (box.scrollLeft + c.x) / sizer.offsetWidth, fy: (box.scrollTop + c.y) / sizer.offsetHeight };
  }
  function show(p) {
    const d = seenCentre();
    box.scrollLeft = p.fx * sizer.offsetWidth - d.x;
    box.scrollTop = p.fy * sizer.offsetHeight - d.y;
    settled();
  }
  // The point the player looks at is kept as he pans (the box's scrolling)
  // and zooms, so that a new width (the phone turned) brings it back even
  // after the browser clamped the box's scrolling to a new size: a scroll
  // while the box's size differs from the one last settled is that clamping,
  // and a scroll to where this code last put it is its own.
  let looked = null, settledAt = null;
  function settled() {
    looked = lookedAt();
    settledAt = { w: box.clientWidth, h: box.clientHeight, left: box.scrollLeft, top: box.scrollTop };
  }
  box.addEventListener('scroll', () => {
    const at = settledAt;
    if (!at || box.clientWidth !== at.w || box.clientHeight !== at.h) return;
    if (box.scrollLeft === at.left && box.scrollTop === at.top) return;
    looked = lookedAt();
  }, { passive: true });
  // Runs change() (a new scale) keeping the board point the player looked at
  // in the middle of what he sees.
  function keepCentre(change) {
    const p = lookedAt();
    change();
    show(p);
  }
  function zoomAtCentre(s) {
    keepCentre(() => setScale(s));
  }

  // the board's height follows its content (a repaint), the base width the screen's
  new ResizeObserver(size).observe(board);
  let lastWidth = 0;
  new ResizeObserver(() => {
    const w = controls.getBoundingClientRect().width; // the width the board may use
    if (w === lastWidth) return;
    lastWidth = w;
    if (scale === 1) return;
    // a new width (the phone turned): the board is drawn to it at the same
    // zoom, the point looked at in the middle
    const s = scale, p = looked;
    setScale(1);
    setScale(s);
    if (p) {
      show(p);
      looked = p; // (not where the new size let it go: turned back, it returns)
    }
  }).observe(controls);

  // ---- the pinch: two fingers on the box ----
  let pinch = null;
  const mid = (t) => {
    const r = box.getBoundingClientRect();
    return { x: (t[0].clientX + t[1].clientX) / 2 - r.left, y: (t[0].clientY + t[1].clientY) / 2 - r.top,
      d: Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY) };
  };
  box.addEventListener('touchstart', (ev) => {
    if (ev.touches.length !== 2) return;
    const m = mid(ev.touches);
    pinch = { d: Math.max(m.d, 1), s: scale };
    ev.preventDefault();
  }, { passive: false });
  box.addEventListener('touchmove', (ev) => {
    if (!pinch || ev.touches.length !== 2) return;
    ev.preventDefault();
    const m = mid(ev.touches);
    setScale(pinch.s * (m.d / pinch.d), m.x, m.y);
  }, { passive: false });
  const end = (ev) => { if (pinch && ev.touches.length < 2) pinch = null; };
  box.addEventListener('touchend', end);
  box.addEventListener('touchcancel', end);

  setScale(1);
  return { get scale() { return scale; }, setScale, fit: () => setScale(1) };
}
