// common.js — small helpers shared by the lobby and the game page: the API,
// DOM building without innerHTML (every text from the server is set as text,
// never parsed as HTML), toasts, time formatting and this browser's own list
// of games it created (so a creator can find their seat links again).
// Words go through js/i18n.js: errors the server sends are shown in the
// page's language (errorText), dates and numbers by Intl.
import { date, errorText, lang, t } from './i18n.js';

// How long a request may take before the page gives up on it and says so
// (a phone losing its network can leave a request unanswered for minutes).
export const REQUEST_MS = 20000;

// fetch with the time limit; a request that fails or times out throws an
// Error whose message is in players' words.
async function request(path, init) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), REQUEST_MS);
  try {
    const res = await fetch(path, { ...init, signal: ctl.signal });
    const body = await res.json().catch(() => null);
    return { res, body };
  } catch {
    throw new Error(ctl.signal.aborted ? t('the server did not answer in time') : t('the server cannot be reached'));
  } finally {
    clearTimeout(timer);
  }
}

export async function apiGet(path) {
  const { res, body } = await request(path, { headers: { Accept: 'application/json' } });
  if (!res.ok) {
    const e = new Error(body && body.error ? errorText(body.error) : `HTTP ${res.status}`);
    e.code = body && body.error ? body.error.code : null;
    throw e;
  }
  return body;
}

export async function apiPost(path, data, method = 'POST') {
  const { res, body } = await request(path, {
    method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(data),
  });
  if (!res.ok) {
    const e = new Error(body && body.error ? errorText(body.error) : `HTTP ${res.status}`);
    e.code = body && body.error ? body.error.code : null;
    throw e;
  }
  return body;
}

// Whether the screen is a touch screen (no hover, no Shift, no right click,
// no keys): the words of an instruction follow it.
const COARSE = matchMedia('(pointer: coarse)');
export function touchScreen() {
  return COARSE.matches;
}

// An instruction in the words of this screen: the renderers write them for a
// mouse and keys ("Click", "Esc cancels"); a touch screen reads "Tap" and no
// key (its Cancel buttons do what Esc does).  Text written for a finger
// already passes through unchanged.  The text is in the page's language: each
// language's catalogue says "click" its own one way (docs/translating.md:
// Spanish "Haz clic en X" / "haz clic en X", "(o pulsa Esc)", "Esc cancela.").
const TOUCH_WORDS = {
  en: [[/\bClick\b/g, 'Tap'], [/\bclick\b/g, 'tap'], [/ \(or press Esc\)/g, ''], [/ Esc cancels\./g, '']],
  es: [[/\bHaz clic en\b/g, 'Toca'], [/\bhaz clic en\b/g, 'toca'], [/\bHaz clic\b/g, 'Toca'], [/\bhaz clic\b/g, 'toca'],
    [/\bHacer clic en\b/g, 'Tocar'], [/\bhacer clic en\b/g, 'tocar'], [/ \(o pulsa Esc\)/g, ''], [/ Esc cancela\./g, '']],
};
export function forScreen(text) {
  if (!text || !touchScreen()) return text;
  let out = text;
  // (the page's language, then English: a text no catalogue has yet is English)
  for (const [re, to] of [...(TOUCH_WORDS[lang()] || []), ...TOUCH_WORDS.en]) out = out.replace(re, to);
  return out.replace(/ \(Esc\)/g, '');
}

// A seat's name as the page shows it (js/i18n.js): the names the server gives
// seats nobody named ("Computer 2") in the page's language.
export { displayName } from './i18n.js';

// "1 card", "2 cards"; `many` when the plural is not word + s.
export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

// A name that may be long: cut with an ellipsis by the style sheet, whole in
// its tooltip.
// (translate="no": a name is the same in every language)
export function nameSpan(name, cls = 'name-cut') {
  return el(`span.${cls}`, { title: name, translate: 'no' }, name);
}

// A fresh random key (base64url, 32 characters): the request key of a new
// game, so that a repeated click or a retried request makes one game.
export function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// el('div.card#x', {attrs}, children...) — children are nodes or strings.
export function el(spec, attrs, ...children) {
  const m = spec.match(/^([a-z0-9]+)?((?:[.#][\w-]+)*)$/i);
  const node = document.createElement((m && m[1]) || 'div');
  if (m && m[2]) {
    for (const part of m[2].match(/[.#][\w-]+/g)) {
      if (part[0] === '.') node.classList.add(part.slice(1)); else node.id = part.slice(1);
    }
  }
  if (attrs && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

const SVG_NS = 'http://www.w3.org/2000/svg';
export function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export function toast(message, kind = 'info', ms = 4200) {
  let box = document.querySelector('.toast-box');
  if (!box) { box = el('div.toast-box'); document.body.append(box); }
  const t = el(`div.toast${kind === 'error' ? '.error' : ''}`, { role: 'status' }, message);
  box.append(t);
  setTimeout(() => t.remove(), ms);
}

// "just now", "5 min ago", "3 h ago", else the date, in the page's language.
export function ago(iso) {
  if (!iso) return '';
  const s = (Date.now() - Date.parse(iso)) / 1000;
  if (s < 60) return t('just now');
  if (s < 86400) {
    const [v, unit] = s < 3600 ? [Math.floor(s / 60), 'minute'] : [Math.floor(s / 3600), 'hour'];
    return new Intl.RelativeTimeFormat(lang() === 'pseudo' ? 'en' : lang(), { style: 'short', numeric: 'always' }).format(-v, unit);
  }
  return date(new Date(iso), { dateStyle: 'medium' });
}

export const brandSvg = () => {
  const g = svg('svg', { viewBox: '0 0 32 32', 'aria-hidden': 'true' },
    svg('rect', { x: 2, y: 2, width: 28, height: 28, rx: 7, fill: '#2c7d77' }),
    svg('path', { d: 'M9 10h14M16 10v13', stroke: '#f4efe6', 'stroke-width': 3.2, 'stroke-linecap': 'round' }),
    svg('circle', { cx: 23.5, cy: 22.5, r: 3, fill: '#f2c12e' }));
  return g;
};

// Games this browser created or sat down at: {id, game, title, created,
// seats:[{seat,name,link}], creator (the key that deletes it before it starts)}
const MINE = 'tabula.mygames';
export function myGames() {
  try { return JSON.parse(localStorage.getItem(MINE) || '[]'); } catch { return []; }
}
export function rememberGame(entry) {
  const list = myGames().filter((g) => g.id !== entry.id);
  list.unshift(entry);
  localStorage.setItem(MINE, JSON.stringify(list.slice(0, 50)));
}
export function forgetGame(id) {
  localStorage.setItem(MINE, JSON.stringify(myGames().filter((g) => g.id !== id)));
}
