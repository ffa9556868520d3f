// i18n.js — every word the browser shows, in the player's language
// (docs/translating.md).  The catalogues are GNU gettext PO files (po/LANG.po,
// served at /i18n/LANG.po; /i18n/LINGUAS lists the languages): msgid is the
// English text with named placeholders in braces ("Start a game of {game}"),
// plurals carry msgid_plural and the count in {n}.
//
//   await ready()            load the page's catalogue, translate the HTML's
//                            marked words, add the language selector
//   t(msgid, args)           the msgid in the page's language, {name}s filled
//   tn(one, other, n, args)  the plural form for n ({n} is n unless args say)
//   say(msg)                 an engine/server message {"msg", "args"} (args may
//                            nest such messages; {"msg", "plural", "args"} is
//                            a plural with its count in args.n), or a string
//   field(obj, 'said')       say(obj.said_msg) when the server sent it, else obj.said
//   N_(msgid)                marks a constant for the catalogue (t() it later)
//   lang(), setLang(code), languages(), num(n), date(d, options)
//
// HTML: an element with `data-i18n` shows t(its text) (or t(the attribute's
// value) when given); `data-i18n-attr="placeholder aria-label title"` translates
// those attributes.  Numbers in arguments are formatted by Intl.NumberFormat.
//
// The language: ?lang=CODE in the address (kept for this tab, sessionStorage),
// else the player's choice (localStorage 'tabula.lang', set by the selector),
// else the first of navigator.languages that Tabula speaks, else English.
// "pseudo" is a made-up language for layout checks: every English string ~40%
// longer with accented letters, made at run time.
//
// Invariants: English is the fallback for anything missing (no catalogue, no
// entry, an empty or fuzzy msgstr, a plural form missing); a placeholder with
// no argument stays as written; nothing here throws for bad input, and under
// node (no fetch of the page, no document) every function answers English.

const STORE = 'tabula.lang';
const SESSION = 'tabula.lang.session';
export const PSEUDO = 'pseudo';

let current = 'en';
let catalogue = new Map(); // msgid -> [msgstr, ...]
let pluralOf = (n) => (n === 1 ? 0 : 1);
let spoken = ['en'];
let loading = null;
const listeners = [];

// ---- the PO file ----

function unquote(s) {
  // a PO string's body: C escapes \n \t \" \\ (others kept as the character)
  return s.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}

// Entries of a PO text: [{ctx, id, plural, strs: [..], fuzzy}], the header too.
export function parsePo(text) {
  const entries = [];
  let e = null;
  let field = null;
  const flush = () => { if (e && e.id !== null) entries.push(e); e = null; field = null; };
  for (const raw of String(text).split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') { flush(); continue; }
    if (line.startsWith('#~')) continue; // obsolete entries
    if (line.startsWith('#')) {
      if (e && e.id !== null && field) flush();
      if (!e) e = { ctx: null, id: null, plural: null, strs: [], fuzzy: false };
      if (line.startsWith('#,') && /\bfuzzy\b/.test(line)) e.fuzzy = true;
      continue;
    }
    const m = /^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+"(.*)"$/.exec(line);
    if (m) {
      if (m[1] === 'msgctxt' || (m[1] === 'msgid' && e && e.id !== null)) flush();
      if (!e) e = { ctx: null, id: null, plural: null, strs: [], fuzzy: false };
      const v = unquote(m[3]);
      if (m[1] === 'msgctxt') { e.ctx = v; field = ['ctx']; }
      else if (m[1] === 'msgid') { e.id = v; field = ['id']; }
      else if (m[1] === 'msgid_plural') { e.plural = v; field = ['plural']; }
      else { const i = m[2] === undefined ? 0 : Number(m[2]); e.strs[i] = v; field = ['strs', i]; }
      continue;
    }
    const cont = /^"(.*)"$/.exec(line);
    if (cont && e && field) {
      const v = unquote(cont[1]);
      if (field[0] === 'strs') e.strs[field[1]] += v; else e[field[0]] += v;
    }
  }
  flush();
  return entries;
}

// The plural rule of a Plural-Forms header ("nplurals=2; plural=(n != 1);"),
// read by a small parser of C expressions (no eval: the pages' CSP forbids it).
export function pluralRule(header) {
  const m = /plural\s*=\s*([^;]+)/.exec(header || '');
  if (!m) return null;
  const TOKEN = /\d+|n|&&|\|\||[=!<>]=|[-+*/%<>!?:()]/g;
  if (m[1].replace(TOKEN, '').trim()) return null; // not an expression of n
  const tokens = m[1].match(TOKEN) || [];
  let i = 0;
  const peek = () => tokens[i];
  const take = (t) => { if (tokens[i] !== t) throw new Error(`expected ${t}`); i++; };
  const bin = (next, ops) => () => {
    let left = next();
    while (ops[peek()]) { const f = ops[tokens[i++]]; const l = left; const r = next(); left = (n) => f(l(n), r(n)); }
    return left;
  };
  const primary = () => {
    const t = tokens[i++];
    if (t === 'n') return (n) => n;
    if (t === '(') { const e = ternary(); take(')'); return e; }
    if (t === '!') { const e = primary(); return (n) => (e(n) ? 0 : 1); }
    if (t === '-') { const e = primary(); return (n) => -e(n); }
    if (/^\d+$/.test(t || '')) { const v = Number(t); return () => v; }
    throw new Error(`unexpected ${t}`);
  };
  const b = (f) => (x, y) => (f(x, y) ? 1 : 0);
  const mul = bin(primary, { '*': (x, y) => x * y, '/': (x, y) => (y ? Math.trunc(x / y) : 0), '%': (x, y) => (y ? x % y : 0) });
  const add = bin(mul, { '+': (x, y) => x + y, '-': (x, y) => x - y });
  const rel = bin(add, { '<': b((x, y) => x < y), '>': b((x, y) => x > y), '<=': b((x, y) => x <= y), '>=': b((x, y) => x >= y) });
  const eq = bin(rel, { '==': b((x, y) => x === y), '!=': b((x, y) => x !== y) });
  const and = bin(eq, { '&&': b((x, y) => x && y) });
  const or = bin(and, { '||': b((x, y) => x || y) });
  function ternary() {
    const c = or();
    if (peek() !== '?') return c;
    i++;
    const a = ternary(); take(':'); const z = ternary();
    return (n) => (c(n) ? a(n) : z(n));
  }
  try {
    const f = ternary();
    if (i !== tokens.length) return null;
    return (n) => Number(f(n)) | 0;
  } catch {
    return null;
  }
}

// Makes `text` (a PO file) the catalogue of language `code`.
export function useCatalogue(code, text) {
  const entries = parsePo(text || '');
  catalogue = new Map();
  pluralOf = (n) => (n === 1 ? 0 : 1);
  for (const e of entries) {
    if (e.id === '' && e.ctx === null) {
      const rule = pluralRule(e.strs[0]);
      if (rule) pluralOf = rule;
      continue;
    }
    if (e.fuzzy || e.ctx !== null) continue;
    if (e.strs.some((s) => s)) catalogue.set(e.id, e.strs);
  }
  current = code;
}

// ---- the pseudo-language ----

const ACCENT = { a: 'á', e: 'é', i: 'í', o: 'ö', u: 'ü', A: 'Á', E: 'É', I: 'Í', O: 'Ö', U: 'Ü',
  c: 'ç', n: 'ñ', s: 'š', y: 'ý', z: 'ž', C: 'Ç', N: 'Ñ', S: 'Š', Y: 'Ý', Z: 'Ž' };

// English made ~40% longer and accented; {placeholders} kept as they are.
export function pseudo(text) {
  const s = String(text);
  if (!/\p{L}/u.test(s.replace(/\{[^}]*\}/g, ''))) return s;
  let out = '';
  for (const part of s.split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/)) {
    if (part.startsWith('{')) { out += part; continue; }
    for (const ch of part) out += /[aeiouAEIOU]/.test(ch) ? ACCENT[ch] + ACCENT[ch.toLowerCase()] : (ACCENT[ch] || ch);
  }
  const letters = s.replace(/\{[^}]*\}/g, '').length;
  const want = Math.ceil(letters * 1.4) + 2;
  const have = out.replace(/\{[^}]*\}/g, '').length + 2;
  return `[${out}${have < want ? '·'.repeat(want - have) : ''}]`;
}

// ---- words ----

function locale() {
  return current === PSEUDO ? 'en' : current;
}

export function num(n, options) {
  try { return new Intl.NumberFormat(locale(), options).format(n); } catch { return String(n); }
}

export function date(d, options) {
  try { return new Intl.DateTimeFormat(locale(), options).format(d instanceof Date ? d : new Date(d)); } catch { return String(d); }
}

function isMessage(v) {
  return v !== null && typeof v === 'object' && typeof v.msg === 'string';
}

// A seat's name as the page shows it: the names the server gives seats
// nobody named ("Computer 2", "Player 3") in the page's language; a name a
// person chose is theirs, as written.
export function displayName(name) {
  const m = /^(Computer|Player) (\d+)$/.exec(name || '');
  if (!m) return name;
  return m[1] === 'Computer' ? t('Computer {n}', { n: Number(m[2]) }) : t('Player {n}', { n: Number(m[2]) });
}

// An argument of a message: a nested message in the page's language, a
// number written the language's way, a name as it is (a seat's default name
// translated).
function value(v) {
  if (isMessage(v)) return say(v);
  if (typeof v === 'number') return num(v);
  return v === null || v === undefined ? '' : displayName(String(v));
}

// The template with each {name} replaced by its argument ("{{" and "}}" stand
// for braces); a name with no argument stays as written.
function fill(template, args) {
  return template.replace(/\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (all, name) => {
    if (!name) return all[0];
    return args && Object.prototype.hasOwnProperty.call(args, name) ? value(args[name]) : all;
  });
}

const NAMES = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

// A translation naming a placeholder its English does not have is broken: the
// English is shown instead.
function sound(translation, ...english) {
  const known = new Set(english.flatMap((e) => [...e.matchAll(NAMES)].map((m) => m[1])));
  return [...translation.matchAll(NAMES)].every((m) => known.has(m[1]));
}

function lookup(msgid, index) {
  if (current === PSEUDO) return null;
  const strs = catalogue.get(msgid);
  const s = strs && strs[index];
  return s || null;
}

// Marks a constant text as a catalogue msgid without translating it (a table
// of labels shown later through t(label)).
export const N_ = (msgid) => msgid;

export function t(msgid, args) {
  const id = String(msgid ?? '');
  const found = lookup(id, 0);
  const s = found && sound(found, id) ? found : current === PSEUDO ? pseudo(id) : id;
  return fill(s, args);
}

export function tn(msgid, msgidPlural, n, args) {
  const all = { n, ...(args || {}) };
  const english = n === 1 ? msgid : msgidPlural;
  if (current === PSEUDO) return fill(pseudo(english), all);
  const strs = catalogue.get(msgid);
  const s = strs && strs.length > 1 ? strs[pluralOf(Number(n))] : null;
  return fill(s && sound(s, msgid, msgidPlural) ? s : english, all);
}

export function say(msg) {
  if (msg === null || msg === undefined) return '';
  if (typeof msg === 'string') return t(msg);
  if (!isMessage(msg)) return String(msg);
  const args = msg.args && typeof msg.args === 'object' ? msg.args : {};
  if (typeof msg.plural === 'string') return tn(msg.msg, msg.plural, Number(args.n), args);
  return t(msg.msg, args);
}

// The field F of a server answer in the page's language: say(F_msg) when the
// server sent it, else t(F) (a constant of the engine is a msgid; any other
// English stays as it is).
export function field(obj, name) {
  if (!obj) return '';
  const m = obj[`${name}_msg`];
  if (isMessage(m)) return say(m);
  const v = obj[name];
  return typeof v === 'string' ? t(v) : v ?? '';
}

// "A", "A and B", "A, B and C" (items already in the page's language).
export function andList(items) {
  const list = items.map(String);
  if (list.length < 2) return list.join('');
  return t('{list} and {last}', { list: list.slice(0, -1).join(', '), last: list[list.length - 1] });
}

// An error the server sent ({code, message, msg} of docs/http-api.md, or a
// WebSocket "error" message) in the page's language: say(msg) when present,
// else the English message.
export function errorText(err) {
  if (!err) return '';
  if (isMessage(err.msg)) return say(err.msg);
  return typeof err.message === 'string' ? t(err.message) : '';
}

// ---- the language ----

export function lang() {
  return current;
}

// [{code, name}] of the languages Tabula speaks, each named in itself.
export function languages() {
  return spoken.map((code) => ({ code, name: nameOf(code) }));
}

function nameOf(code) {
  if (code === PSEUDO) return 'Pseudo';
  try {
    const n = new Intl.DisplayNames([code], { type: 'language' }).of(code);
    return n.charAt(0).toLocaleUpperCase(code) + n.slice(1);
  } catch {
    return code;
  }
}

function storage(kind) {
  try { return globalThis[kind] || null; } catch { return null; }
}

// The language the page should speak, from the address, this tab, the
// player's choice and the browser's languages.
function wanted() {
  const ok = (c) => c && (c === PSEUDO || spoken.includes(c));
  const match = (c) => {
    if (!c) return null;
    const code = String(c).toLowerCase();
    if (code === PSEUDO || code === 'xx-pseudo') return PSEUDO;
    if (spoken.includes(code)) return code;
    const base = code.split(/[-_]/)[0];
    return spoken.includes(base) ? base : null;
  };
  try {
    const q = new URLSearchParams(globalThis.location?.search || '').get('lang');
    if (match(q)) { storage('sessionStorage')?.setItem(SESSION, match(q)); return match(q); }
  } catch { /* no address */ }
  const session = storage('sessionStorage')?.getItem(SESSION);
  if (ok(session)) return session;
  const chosen = storage('localStorage')?.getItem(STORE);
  if (ok(chosen)) return chosen;
  for (const c of globalThis.navigator?.languages || []) {
    const m = match(c);
    if (m && m !== PSEUDO) return m;
  }
  return 'en';
}

async function fetchText(url) {
  const r = await fetch(url, { cache: 'no-cache' });
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return r.text();
}

// Loads the language's catalogue (once per page) and translates the page.
export function ready() {
  if (loading) return loading;
  loading = (async () => {
    if (typeof fetch !== 'function' || !globalThis.document) return current;
    try {
      const list = await fetchText('/i18n/LINGUAS');
      // one code a line; "# ..." is a comment
      spoken = ['en', ...list.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter((c) => /^[A-Za-z_@]+$/.test(c) && c !== 'en')];
    } catch { /* English only */ }
    const code = wanted();
    if (code !== 'en' && code !== PSEUDO) {
      try { useCatalogue(code, await fetchText(`/i18n/${code}.po`)); } catch { current = 'en'; }
    } else {
      current = code;
    }
    document.documentElement.lang = current === PSEUDO ? 'en' : current;
    translatePage(document);
    addSelector(document);
    document.documentElement.classList.remove('i18n-wait');
    return current;
  })();
  return loading;
}

// Translates the marked elements under root (data-i18n, data-i18n-attr).
export function translatePage(root) {
  if (!root?.querySelectorAll) return;
  for (const el of root.querySelectorAll('[data-i18n]')) {
    let id = el.getAttribute('data-i18n');
    if (!id) { id = el.textContent.replace(/\s+/g, ' ').trim(); el.setAttribute('data-i18n', id); }
    el.textContent = t(id);
  }
  for (const el of root.querySelectorAll('[data-i18n-attr]')) {
    for (const a of el.getAttribute('data-i18n-attr').split(/\s+/).filter(Boolean)) {
      const keep = `data-i18n-${a}`;
      if (!el.hasAttribute(keep) && el.hasAttribute(a)) el.setAttribute(keep, el.getAttribute(a));
      if (el.hasAttribute(keep)) el.setAttribute(a, t(el.getAttribute(keep)));
    }
  }
}

// The player picks a language: remembered in this browser (and, through the
// listeners, in the account), then the page is shown again in it.
export function setLang(code, { reload = true } = {}) {
  const c = String(code);
  if (c !== PSEUDO && !spoken.includes(c)) return false;
  storage('sessionStorage')?.removeItem(SESSION);
  storage('localStorage')?.setItem(STORE, c);
  for (const f of listeners) { try { f(c); } catch { /* a listener's failure is its own */ } }
  if (reload && globalThis.location) {
    const u = new URL(globalThis.location.href);
    u.searchParams.delete('lang');
    globalThis.location.replace(u.href);
  }
  return true;
}

// Called with the code whenever the player picks a language (e.g. to PUT it
// to /api/me/lang when signed in).
export function onSetLang(f) {
  listeners.push(f);
}

// The account's language (GET /api/me's "lang"): adopted when this browser has
// no choice of its own for this tab; the page is shown again in it.
export function adoptLang(code) {
  if (!code || code === current || !spoken.includes(code)) return false;
  if (storage('sessionStorage')?.getItem(SESSION)) return false;
  if (storage('localStorage')?.getItem(STORE) === code) return false;
  storage('localStorage')?.setItem(STORE, code);
  globalThis.location?.reload();
  return true;
}

// The selector in the page's header: "English", "Español", ...; put in the
// first shown element marked data-lang-select (a page whose top bar is full on
// a phone offers one below it), else at the end of header.topbar.
function addSelector(doc) {
  if (doc.getElementById('lang-select') || spoken.length < 2) return;
  const shown = [...doc.querySelectorAll('[data-lang-select]')].find((e) => e.getClientRects().length > 0);
  const host = shown || doc.querySelector('header.topbar');
  if (!host) return;
  const sel = doc.createElement('select');
  sel.id = 'lang-select';
  sel.className = 'lang-select';
  sel.setAttribute('aria-label', t('Language'));
  const list = current === PSEUDO ? [...spoken, PSEUDO] : spoken;
  // a phone's narrow top bar shows the language's code ("ES"), whole names elsewhere
  const narrow = globalThis.matchMedia ? globalThis.matchMedia('(max-width: 600px), (max-width: 1100px) and (max-height: 500px)') : null;
  const label = () => {
    for (const o of sel.options) o.textContent = narrow && narrow.matches ? o.value.slice(0, 2).toUpperCase() : nameOf(o.value);
  };
  for (const code of list) {
    const o = doc.createElement('option');
    o.value = code;
    o.lang = code === PSEUDO ? 'en' : code;
    if (code === current) o.selected = true;
    sel.append(o);
  }
  label();
  narrow?.addEventListener?.('change', label);
  sel.title = t('Language');
  sel.addEventListener('change', () => setLang(sel.value));
  host.append(sel);
}
