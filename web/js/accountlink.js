// accountlink.js — the account's place in every page's top bar: "Log in"
// for a guest, the player's name (a link to "My games") when signed in; and
// the language kept with the account: the account's choice is adopted by
// this browser, and a language picked here is saved to the account.
//
// Invariants: the name is set as text, never parsed as HTML; a page that
// cannot reach /api/me still works (the link just says "Log in"); nothing
// here blocks the page's own module.
import { adoptLang, onSetLang, t } from './i18n.js';

export const session = { name: null, lang: '', loaded: null };

// Seat links this browser opened (a friend's link, not only the games it
// created, which common.js keeps): {game, token}, the latest first, at most
// 50.  Signing up or logging in hands them to the account (account.js).
const OPENED = 'tabula.seatlinks';
export function openedSeats() {
  try { return JSON.parse(localStorage.getItem(OPENED) || '[]'); } catch { return []; }
}
function rememberSeat() {
  const q = new URLSearchParams(location.search);
  const game = q.get('game'), token = q.get('token');
  if (!/\/game\.html$/.test(location.pathname) || !game || !token) return;
  try {
    const list = openedSeats().filter((s) => s.game !== game || s.token !== token);
    list.unshift({ game, token });
    localStorage.setItem(OPENED, JSON.stringify(list.slice(0, 50)));
  } catch { /* no storage: nothing to keep */ }
}

// GET /api/session once per page: {name, lang, ...} or null for a guest
// (a guest's answer is a 200 too: no error on every page a guest opens).
export function whoAmI() {
  if (!session.loaded) {
    session.loaded = fetch('/api/session', { headers: { Accept: 'application/json' } })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null)
      .then((me) => {
        const who = me && me.signed_in ? me : null;
        session.name = who ? who.name : null;
        session.lang = who ? who.lang : '';
        return who;
      });
  }
  return session.loaded;
}

function put(link, me) {
  link.textContent = '';
  if (me) {
    link.href = '/me.html';
    link.title = t('My games');
    const name = document.createElement('span');
    name.className = 'account-name';
    name.textContent = me.name;
    link.append(name);
  } else {
    link.href = '/account.html';
    link.title = '';
    link.textContent = t('Log in');
  }
}

async function start() {
  rememberSeat();
  const bar = document.querySelector('header.topbar');
  if (!bar || document.getElementById('account-link')) return;
  const link = document.createElement('a');
  link.id = 'account-link';
  link.className = 'account-link';
  link.href = '/account.html';
  const me = await whoAmI();
  put(link, me);
  bar.append(link);
  // The page's own module loads its language (i18n.js ready(), which then
  // adds the language selector): this link never loads it itself, so a page
  // that speaks only English stays as it is; once the selector is there the
  // link goes before it, in the page's language, and the account's language
  // is adopted.
  const languageReady = () => {
    const sel = document.getElementById('lang-select');
    if (!sel) return false;
    sel.before(link);
    put(link, me);
    if (me && me.lang) adoptLang(me.lang);
    return true;
  };
  if (!languageReady()) {
    const watch = new MutationObserver(() => { if (languageReady()) watch.disconnect(); });
    watch.observe(bar, { childList: true, subtree: true });
  }
  onSetLang((code) => {
    if (!session.name) return;
    fetch('/api/me/lang', {
      method: 'PUT', keepalive: true, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ lang: code }),
    }).catch(() => {});
  });
}

if (globalThis.document) start();
