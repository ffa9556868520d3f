// zoom.js — a zoom for the board on narrow (phone, tablet) screens, one for
// every game: it wraps the board element (#board, where each renderer draws)
// and never looks inside it.
//
// Two fingers pinch the board around the point between them; one finger pans
// the zoomed board (the box's own native scrolling, so a tap that did not move
// stays a tap on the square under it); the buttons "+", "−" and "Fit" do the
// same for players who do not pinch.  The board is scaled with a CSS transform
// inside a sizer as large as the drawn board, inside a box that clips and
// scrolls: the page itself never gets wider than the screen.
//
// Invariants: the scale is 1 (no transform, no inline sizes: the layout is
// exactly the unzoomed one) whenever the screen is wide (`narrow` does not
// match) or "Fit" was chosen; the scale is in [1, MAX]; the scale lives on the
// wrapper, not in the board's content, so a renderer's repaint keeps it.
import { el } from './common.js';

const MAX = 4;
const STEP = 1.5;

export function mountZoom(board, narrow) {
  const box = el('div.zoom-box');
  const sizer = el('div.zoom-sizer');
  board.replaceWith(box);
  sizer.append(board);
  box.append(sizer);
  const btn = (id, label, text, onclick) => el(`button.zoom-button#${id}`, { type: 'button', 'aria-label': label, title: label, onclick }, text);
  const plus = btn('zoom-in', 'Zoom in on the board', '+', () => zoomAtCentre(scale * STEP));
  const minus = btn('zoom-out', 'Zoom out', '−', () => zoomAtCentre(scale / STEP));
  const fit = btn('zoom-fit', 'Fit the board to the screen', 'Fit', () => setScale(1));
  const controls = el('div.zoom-controls', { role: 'group', 'aria-label': 'Board size' }, minus, plus, fit);
  box.before(controls);

  let scale = 1;
  let base = 0; // the board's unzoomed width, px (the box's width)

  // Applies scale s (clamped), then scrolls so the board point that was at
  // (bx, by) in the box's coordinates before stays there.
  function setScale(s, bx = 0, by = 0) {
    s = Math.min(MAX, Math.max(1, s));
    if (!narrow.matches) s = 1;
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
  }
  function size() {
    if (scale === 1) return;
    sizer.style.width = `${base * scale}px`;
    sizer.style.height = `${board.offsetHeight * scale}px`;
  }
  function zoomAtCentre(s) {
    const r = box.getBoundingClientRect();
    // the middle of the part of the box on the screen
    const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
    setScale(s, r.width / 2, Math.max(0, (top + bottom) / 2 - r.top));
  }

  // the board's height follows its content (a repaint), the base width the screen's
  new ResizeObserver(size).observe(board);
  let lastWidth = 0;
  new ResizeObserver(() => {
    const w = controls.getBoundingClientRect().width; // the width the board may use
    if (w === lastWidth) return;
    lastWidth = w;
    if (scale !== 1) { const s = scale; setScale(1); setScale(s); }
  }).observe(controls);
  narrow.addEventListener('change', () => setScale(narrow.matches ? scale : 1));

  // ---- the pinch: two fingers on the box ----
  let pinch = null;
  const mid = (t) => {
    const r = box.getBoundingClientRect();
    return { x: (t[0].clientX + t[1].clientX) / 2 - r.left, y: (t[0].clientY + t[1].clientY) / 2 - r.top,
      d: Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY) };
  };
  box.addEventListener('touchstart', (ev) => {
    if (ev.touches.length !== 2 || !narrow.matches) return;
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
