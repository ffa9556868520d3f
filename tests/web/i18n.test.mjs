// i18n.test.mjs — the words and their catalogues (issue 31, docs/translating.md):
// web/js/i18n.js (PO reading, plural rules, placeholders, nested messages,
// English as the fallback, the pseudo-language), and the catalogues
// themselves: every language of po/LINGUAS has po/LANG.po with a plural rule;
// every msgid the browser asks for (t(), tn(), N_() in web/js, data-i18n in
// web/*.html) is in every catalogue; every entry is used (by the browser or
// by a C source marking it N_() / NP_() / _()); a translation's placeholders
// are its English's; no entry is fuzzy, empty or there twice.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assert, assertEq, runner } from '../server/lib.mjs';
import * as i18n from '../../web/js/i18n.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const t = runner('i18n: words and catalogues');

function files(dir, re) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p, re));
    else if (re.test(e.name)) out.push(p);
  }
  return out;
}

const rel = (p) => path.relative(ROOT, p);

// ---- what the sources ask for ----

// A JS string literal at s[i] ('...', "...", `...` without ${}): [value, end] or null.
function jsLiteral(s, i) {
  const q = s[i];
  if (q !== '\'' && q !== '"' && q !== '`') return null;
  let v = '';
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') {
      const n = s[++j];
      v += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'u' ? String.fromCharCode(parseInt(s.slice(j + 1, j + 5), 16)) : n;
      if (n === 'u') j += 4;
      continue;
    }
    if (q === '`' && c === '$' && s[j + 1] === '{') return null;
    if (c === q) return [v, j + 1];
    v += c;
  }
  return null;
}

// msgids of t('...'), tn('...', '...'), N_('...') calls in a JS text.
export function jsMsgids(text) {
  const out = [];
  const re = /(?<![\w$.])(tn|t|N_)\(\s*/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const a = jsLiteral(text, re.lastIndex);
    if (!a) continue;
    if (m[1] !== 'tn') { out.push({ id: a[0] }); continue; }
    const rest = /^\s*,\s*/.exec(text.slice(a[1]));
    const b = rest && jsLiteral(text, a[1] + rest[0].length);
    out.push({ id: a[0], plural: b ? b[0] : null });
  }
  return out;
}

const entities = (s) => s.replace(/&nbsp;/g, '\u00a0').replace(/&lt;/g, '<').replace(/&gt;/g, '>')
  .replace(/&quot;/g, '"').replace(/&#39;/g, '\'').replace(/&amp;/g, '&');

// msgids of an HTML text: data-i18n elements' text (or value) and the
// attributes data-i18n-attr names.
export function htmlMsgids(text) {
  const out = [];
  const tag = /<([a-zA-Z][\w-]*)((?:\s+[\w:-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/g;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    const attrs = {};
    for (const a of m[2].matchAll(/([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) attrs[a[1]] = entities(a[2] ?? a[3] ?? a[4] ?? '');
    if ('data-i18n' in attrs) {
      let id = attrs['data-i18n'];
      if (!id) {
        const end = text.indexOf(`</${m[1]}>`, tag.lastIndex);
        id = entities(text.slice(tag.lastIndex, end)).replace(/\s+/g, ' ').trim();
        if (/</.test(id)) throw new Error(`data-i18n on <${m[1]}> holding markup: ${id.slice(0, 60)}`);
      }
      out.push({ id });
    }
    for (const a of (attrs['data-i18n-attr'] || '').split(/\s+/).filter(Boolean)) if (attrs[a]) out.push({ id: attrs[a] });
  }
  return out;
}

// C string literals concatenated: "a" "b" from s at i: [value, end] or null.
function cLiterals(s, i) {
  let v = '';
  let j = i;
  let any = false;
  for (;;) {
    const m = /^\s*"((?:\\.|[^"\\])*)"/.exec(s.slice(j));
    if (!m) break;
    v += m[1].replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, c) => (c === 'n' ? '\n' : c === 't' ? '\t' : c[0] === 'x' && c.length === 3 ? String.fromCharCode(parseInt(c.slice(1), 16)) : c));
    j += m[0].length;
    any = true;
  }
  return any ? [v, j] : null;
}

// msgids a C text marks for the catalogue: N_("..."), _("..."), NP_("...", "...").
export function cMsgids(text) {
  const out = [];
  const re = /(?<![\w])(NP_|N_|_)\(/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const a = cLiterals(text, re.lastIndex);
    if (!a) continue;
    if (m[1] !== 'NP_') { out.push({ id: a[0] }); continue; }
    const comma = /^\s*,/.exec(text.slice(a[1]));
    const b = comma && cLiterals(text, a[1] + comma[0].length);
    out.push({ id: a[0], plural: b ? b[0] : null });
  }
  return out;
}

function browserMsgids() {
  const out = [];
  for (const f of files(path.join(ROOT, 'web'), /\.(js|html)$/)) {
    const text = fs.readFileSync(f, 'utf8');
    for (const e of f.endsWith('.js') ? jsMsgids(text) : htmlMsgids(text)) out.push({ ...e, where: rel(f) });
  }
  return out;
}

function cSourceMsgids() {
  const out = [];
  for (const f of files(path.join(ROOT, 'src'), /\.[ch]$/)) {
    for (const e of cMsgids(fs.readFileSync(f, 'utf8'))) out.push({ ...e, where: rel(f) });
  }
  return out;
}

function linguas() {
  return fs.readFileSync(path.join(ROOT, 'po', 'LINGUAS'), 'utf8').split('\n')
    .map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
}

function catalogue(code) {
  const text = fs.readFileSync(path.join(ROOT, 'po', `${code}.po`), 'utf8');
  return { text, entries: i18n.parsePo(text) };
}

const placeholders = (s) => new Set([...String(s).matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]));

// ---- i18n.js ----

const ES = `msgid ""
msgstr ""
"Language: es\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

msgid "Join"
msgstr "Unirse"

#, fuzzy
msgid "Finished"
msgstr "Terminadas"

msgid "{n} game"
msgid_plural "{n} games"
msgstr[0] "{n} partida"
msgstr[1] "{n} partidas"

msgid "Seat {seat} of {game}"
msgstr "Puesto {seat} "
"de {game}"

msgid "Red"
msgstr "Rojo"

msgid "Broken {x}"
msgstr "Roto {y}"

msgid "Not yet"
msgstr ""
`;

t.test('t, tn and say speak the catalogue, English for whatever it lacks', () => {
  i18n.useCatalogue('en', '');
  assertEq(i18n.t('Join'), 'Join', 'English before any catalogue');
  i18n.useCatalogue('es', ES);
  assertEq(i18n.lang(), 'es', 'the language');
  assertEq(i18n.t('Join'), 'Unirse', 'a plain entry');
  assertEq(i18n.t('Finished'), 'Finished', 'a fuzzy entry is not used');
  assertEq(i18n.t('Not yet'), 'Not yet', 'an empty msgstr is English');
  assertEq(i18n.t('Nowhere'), 'Nowhere', 'a missing entry is English');
  assertEq(i18n.t('Broken {x}', { x: 1 }), 'Broken 1', 'a translation with a foreign placeholder is English');
  assertEq(i18n.t('Seat {seat} of {game}', { seat: 2, game: 'Clans' }), 'Puesto 2 de Clans', 'placeholders, continued strings');
  assertEq(i18n.t('Seat {seat} of {game}', { seat: 2 }), 'Puesto 2 de {game}', 'a missing argument stays');
  assertEq(i18n.tn('{n} game', '{n} games', 1), '1 partida', 'singular');
  assertEq(i18n.tn('{n} game', '{n} games', 0), '0 partidas', 'plural of 0');
  assertEq(i18n.tn('{n} game', '{n} games', 1500000), `${new Intl.NumberFormat('es').format(1500000)} partidas`, 'numbers by Intl');
  assertEq(i18n.say({ msg: 'Seat {seat} of {game}', args: { seat: 3, game: { msg: 'Red' } } }), 'Puesto 3 de Rojo', 'nested message');
  assertEq(i18n.say({ msg: '{n} game', plural: '{n} games', args: { n: 4 } }), '4 partidas', 'plural message');
  assertEq(i18n.say({ msg: '{{literal}} {a}', args: { a: 'x' } }), '{literal} x', 'braces doubled stand for braces');
  assertEq(i18n.say('Join'), 'Unirse', 'a string is a msgid');
  assertEq(i18n.say(null), '', 'nothing');
  assertEq(i18n.field({ said: 'Red', said_msg: { msg: 'Join' } }, 'said'), 'Unirse', 'F_msg first');
  assertEq(i18n.field({ said: 'plays' }, 'said'), 'plays', 'else the English F');
  i18n.useCatalogue('en', '');
  assertEq(i18n.tn('{n} game', '{n} games', 1), '1 game', 'English singular');
  assertEq(i18n.tn('{n} game', '{n} games', 2), '2 games', 'English plural');
});

t.test('plural rules are read from Plural-Forms without eval', () => {
  const pl = i18n.pluralRule('nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);');
  assertEq([1, 2, 4, 5, 12, 22, 25, 0].map(pl), [0, 1, 1, 2, 2, 1, 2, 2], 'Polish');
  assertEq([0, 1, 2].map(i18n.pluralRule('nplurals=2; plural=(n > 1);')), [0, 0, 1], 'French');
  assertEq(i18n.pluralRule('nplurals=1; plural=0;')(7), 0, 'one form');
  assertEq(i18n.pluralRule('nplurals=2; plural=(n != 1'), null, 'unclosed');
  assertEq(i18n.pluralRule('nplurals=2; plural=alert(1);'), null, 'not an expression of n');
});

t.test('the pseudo-language is ~40% longer, accented, placeholders kept', () => {
  i18n.useCatalogue(i18n.PSEUDO, '');
  for (const s of ['Create game', 'Start a game of {game}', 'OK', 'What can I do now?']) {
    const p = i18n.t(s, {});
    const bare = s.replace(/\{\w+\}/g, '');
    assert(p.replace(/\{\w+\}/g, '').length >= Math.round(bare.length * 1.35), `${p} is longer than ${s}`);
    assert(/[áéíöü]/.test(p), `${p} has accents`);
    assertEq([...placeholders(p)], [...placeholders(s)], `${p} keeps its placeholders`);
  }
  assertEq(i18n.t('{head}{tail}', { head: 'a', tail: 'b' }), 'ab', 'no words, nothing to stretch');
  assertEq(i18n.tn('{n} game', '{n} games', 2).startsWith('[2 '), true, 'plurals too');
  i18n.useCatalogue('en', '');
});

t.test('extraction finds the msgids of JS, HTML and C', () => {
  assertEq(jsMsgids(`t('Join'); tn("{n} game", '{n} games', k); x.t('no'); N_(\`Red\`); t(label); t(\`a\${b}\`)`),
    [{ id: 'Join' }, { id: '{n} game', plural: '{n} games' }, { id: 'Red' }], 'JS');
  assertEq(htmlMsgids('<h1 data-i18n>Play a\n  game</h1><input data-i18n-attr="placeholder title" placeholder="Paste &amp; go" title="Link"><b data-i18n="Tip">x</b>'),
    [{ id: 'Play a game' }, { id: 'Paste & go' }, { id: 'Link' }, { id: 'Tip' }], 'HTML');
  assertEq(cMsgids('tb__msg(N_("; founds a " "village"), x); NP_("{n} hut", "{n} huts"); _("Hi\\n"); NN_("no")'),
    [{ id: '; founds a village' }, { id: '{n} hut', plural: '{n} huts' }, { id: 'Hi\n' }], 'C');
});

// ---- the catalogues ----

t.test('every language of po/LINGUAS has its catalogue with a plural rule', () => {
  const langs = linguas();
  assert(langs.includes('es'), 'Spanish is listed');
  for (const code of langs) {
    assert(fs.existsSync(path.join(ROOT, 'po', `${code}.po`)), `po/${code}.po exists`);
    const head = catalogue(code).entries.find((e) => e.id === '');
    assert(head && i18n.pluralRule(head.strs[0]), `po/${code}.po has a Plural-Forms header`);
  }
});

t.test('every msgid the browser asks for is in every catalogue', () => {
  const wanted = browserMsgids();
  assert(wanted.length > 0, 'the browser asks for words');
  const problems = [];
  for (const code of linguas()) {
    const have = new Map(catalogue(code).entries.map((e) => [e.id, e]));
    for (const w of wanted) {
      const e = have.get(w.id);
      if (!e) problems.push(`po/${code}.po lacks "${w.id}" (${w.where})`);
      else if (w.plural && e.plural !== w.plural) problems.push(`po/${code}.po: "${w.id}" wants msgid_plural "${w.plural}" (${w.where})`);
    }
  }
  assert(!problems.length, `\n  ${[...new Set(problems)].join('\n  ')}`);
});

t.test('every catalogue entry is used, whole, once, with its placeholders', () => {
  const used = new Set([...browserMsgids(), ...cSourceMsgids()].map((e) => e.id));
  const problems = [];
  for (const code of linguas()) {
    const { text, entries } = catalogue(code);
    if (/^#,.*\bfuzzy\b/m.test(text)) problems.push(`po/${code}.po has fuzzy entries`);
    const seen = new Set();
    for (const e of entries) {
      if (e.id === '') continue;
      const name = `po/${code}.po "${e.id.slice(0, 60)}"`;
      if (seen.has(e.id)) problems.push(`${name} is there twice`);
      seen.add(e.id);
      if (!used.has(e.id)) problems.push(`${name} is used nowhere in web/ or src/`);
      const forms = e.plural ? e.strs : [e.strs[0]];
      if (!forms.length || forms.some((s) => !s)) problems.push(`${name} has an empty msgstr`);
      const english = new Set([...placeholders(e.id), ...placeholders(e.plural || '')]);
      for (const s of forms.filter(Boolean)) {
        const mine = placeholders(s);
        for (const p of mine) if (!english.has(p)) problems.push(`${name}: {${p}} is not in the English`);
        for (const p of english) if (!mine.has(p) && !(e.plural && p === 'n')) problems.push(`${name}: "${s}" lacks {${p}}`);
      }
    }
  }
  assert(!problems.length, `\n  ${problems.join('\n  ')}`);
});

process.exit(await t.run());
