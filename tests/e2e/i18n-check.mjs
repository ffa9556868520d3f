// i18n-check.mjs — "no English on a page rendered in Spanish" for the browser
// tests (issue 31, docs/translating.md), and "nothing overflows" for pages in
// the pseudo-language.
//
//   import { assertFits, assertNoEnglish, spanishPage } from './i18n-check.mjs';
//   const page = await spanishPage(browser, { width: 390, height: 844 });
//   await page.goto(url); ...; await assertNoEnglish(page, 'lobby');
//   (a page opened at ?lang=pseudo:) await assertFits(page, 'lobby');
//
// The English words are those of the catalogue's msgids (po/es.po: every text
// Tabula shows), less the words any Spanish msgstr uses too (they are Spanish
// as well: "no", "total", "final", a name kept as it is), less the short list
// NAMES below.  The page's text is what a player can read or hear: visible text
// nodes (SVG's included), the options of visible selects, placeholders, titles,
// aria-labels, alt texts and the document's title; names (marked
// translate="no") are left out, and further words can be allowed per call.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// Words that are names, the same in every language: the project and the
// published titles of its three games.
const NAMES = ['tabula', 'clans', 'arkadia', 'khronos'];

const WORD = /[\p{L}][\p{L}'’]*[\p{L}]|\p{L}/gu;

// (a token with a digit in it is an id, a square or a count: "rnt6iec5d9an", "k6", "3x")
function words(text) {
  return (String(text).replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, ' ')
    .replace(/[\p{L}\p{N}]*\p{N}[\p{L}\p{N}]*/gu, ' ').match(WORD) || [])
    .map((w) => w.toLowerCase().replace(/['’]s$/, ''))
    .flatMap((w) => w.split(/['’]/))
    .filter((w) => w.length >= 2);
}

// Reads a PO file into [{id, plural, strs, fuzzy}] (the header left out).
export function readPo(file) {
  const out = [];
  let e = null;
  let field = null;
  const unq = (s) => s.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
  const flush = () => { if (e && e.id) out.push(e); e = null; field = null; };
  for (const raw of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) { flush(); continue; }
    if (line.startsWith('#~')) continue;
    if (line.startsWith('#')) {
      if (e && field) flush();
      e = e || { id: null, plural: null, strs: [], fuzzy: false, comments: [] };
      if (/^#,.*\bfuzzy\b/.test(line)) e.fuzzy = true;
      e.comments.push(line);
      continue;
    }
    const m = /^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+"(.*)"$/.exec(line);
    if (m) {
      if (m[1] === 'msgid' && e && e.id !== null) flush();
      e = e || { id: null, plural: null, strs: [], fuzzy: false, comments: [] };
      const v = unq(m[3]);
      if (m[1] === 'msgid') { e.id = v; field = 'id'; }
      else if (m[1] === 'msgid_plural') { e.plural = v; field = 'plural'; }
      else if (m[1] === 'msgctxt') { e.ctx = v; field = 'ctx'; }
      else { const i = m[2] === undefined ? 0 : Number(m[2]); e.strs[i] = v; field = i; }
      continue;
    }
    const c = /^"(.*)"$/.exec(line);
    if (c && e && field !== null) {
      if (typeof field === 'number') e.strs[field] += unq(c[1]); else e[field] += unq(c[1]);
    }
  }
  flush();
  return out;
}

let cached = null;

// The set of English words a Spanish page must not show.
export function englishWords(po = path.join(ROOT, 'po', 'es.po')) {
  if (cached && cached.po === po) return cached.set;
  const entries = readPo(po);
  const spanish = new Set(NAMES);
  for (const e of entries) if (!e.fuzzy) for (const s of e.strs) for (const w of words(s || '')) spanish.add(w);
  const set = new Set();
  for (const e of entries) for (const w of words(`${e.id} ${e.plural || ''}`)) if (!spanish.has(w)) set.add(w);
  cached = { po, set };
  return set;
}

// Parts of the pages whose words the other helpers of issue 31 put into the
// catalogue on their branches: i18n-games the renderers (the board, its
// panels and the turn card's instruction, the seat's own panel, the players'
// and the result's extras) and the rules pages' text; i18n-engine the
// server's and the engine's sentences (the narrated log, the replay's step
// line, the hint, the undo's reason, the catalog's notice, the engine's
// prompt, the server's notices, in the log and as toasts).  ('title' in a
// list stands for the document's title, which the rules page's script sets.)
// Left out of the check until their branches
// are merged: then this list is emptied and the check covers whole pages.
// What a player can read on the page: [{text, where}], but for what is
// inside an element matching one of the `ignore` selectors ('title': the
// document's title).
export async function readableText(page, ignore = []) {
  return page.evaluate((skip) => {
    const out = [];
    const sel = skip.filter((x) => x !== 'title').join(',');
    const seen = (el) => {
      // (a name is marked translate="no": the same in every language)
      if (!el || el.closest('#lang-select, [translate="no"]') || (sel && el.closest(sel))) return false;
      if (el.checkVisibility) return el.checkVisibility({ checkVisibilityCSS: true, checkOpacity: false });
      return el.getClientRects().length > 0;
    };
    const label = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}`;
    if (document.title && !skip.includes('title')) out.push({ text: document.title, where: 'title' });
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!n.nodeValue.trim() || !el || el.closest('script,style,noscript,template')) continue;
      if (el.tagName === 'OPTION' ? seen(el.closest('select')) : seen(el)) out.push({ text: n.nodeValue, where: label(el) });
    }
    for (const el of document.body.querySelectorAll('[placeholder],[title],[aria-label],[alt],input[type=submit],input[type=button]')) {
      if (!seen(el)) continue;
      // (a tooltip repeating a name inside the element leaves the name out)
      const names = [...el.querySelectorAll('[translate="no"]')].map((n) => n.textContent).filter(Boolean);
      const bare = (v) => names.reduce((x, n) => x.split(n).join(' '), v);
      for (const a of ['placeholder', 'title', 'aria-label', 'alt']) if (el.getAttribute(a)) out.push({ text: bare(el.getAttribute(a)), where: `${label(el)}[${a}]` });
      if (el.tagName === 'INPUT' && el.value && /submit|button/.test(el.type)) out.push({ text: el.value, where: label(el) });
    }
    return out;
  }, ignore);
}

// Fails (throws) when the page shows a word of the English catalogue.
// `allow`: further words this page may show (a name the test typed).
// `limit`: how many findings the error lists; `ignore`: selectors of parts
// left out.
export async function assertNoEnglish(page, where, { allow = [], limit = 12, ignore = [] } = {}) {
  const english = englishWords();
  const ok = new Set(allow.map((w) => w.toLowerCase()));
  const found = [];
  for (const { text, where: el } of await readableText(page, ignore)) {
    const bad = words(text).filter((w) => english.has(w) && !ok.has(w));
    if (bad.length) found.push(`${el}: "${text.trim().slice(0, 80)}" (${[...new Set(bad)].join(', ')})`);
  }
  if (found.length) {
    const more = found.length > limit ? `\n  … and ${found.length - limit} more` : '';
    throw new Error(`${where}: English on a page in Spanish:\n  ${found.slice(0, limit).join('\n  ')}${more}`);
  }
}

// Fails (throws) when the page scrolls sideways (the document wider than the
// window) or a visible button's text is cut (wider than its box): run it on
// pages in the pseudo-language (?lang=pseudo), where every string is ~40%
// longer than its English.
export async function assertFits(page, where) {
  const bad = await page.evaluate(() => {
    const out = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth) out.push(`the page is ${doc.scrollWidth} px wide in a ${window.innerWidth} px window`);
    for (const b of document.querySelectorAll('button, a.button, input[type=submit], .tabs button')) {
      if (!b.getClientRects().length || (b.checkVisibility && !b.checkVisibility({ checkVisibilityCSS: true }))) continue;
      if (b.scrollWidth > b.clientWidth + 1) out.push(`button "${b.textContent.trim().slice(0, 40)}" is cut (${b.scrollWidth} px of text in ${b.clientWidth} px)`);
    }
    return out;
  });
  if (bad.length) throw new Error(`${where}: ${bad.join('; ')}`);
}

// A page whose browser speaks Spanish (navigator.languages, Accept-Language).
export async function spanishPage(browser, viewport = { width: 1280, height: 800 }) {
  const ctx = await browser.newContext({ locale: 'es-ES', viewport });
  return ctx.newPage();
}
