// account.js — the account page (account.html): sign up or log in (the seats
// of the links this browser holds become the account's), then, signed in:
// "My games", the language, turn e-mails (email.js), a new password, log out,
// delete the account.
//
// Invariants: every text from the server (a name) is set as text, never as
// HTML; a server refusal is shown by its code in the page's language, never
// the server's English message; a password field is cleared once sent.
import { openedSeats } from './accountlink.js';
import { brandSvg, clear, el, myGames, toast } from './common.js';
import { emailCard } from './email.js';
import { languages, lang, ready, setLang, t } from './i18n.js';

const $ = (id) => document.getElementById(id);
const root = $('account');

// The refusals a player can meet here, by code.
const WHY = {
  bad_login: () => t('Wrong name or password.'),
  name_taken: () => t('That name is taken: choose another.'),
  bad_name: () => t('A name has 1 to 32 characters, with no space at either end.'),
  bad_password: () => t('A password has at least 8 characters.'),
  wrong_password: () => t('That is not your password.'),
  too_many_attempts: (r) => t('Too many failed attempts: try again in {n} seconds.', { n: r.retry || 60 }),
  foreign_origin: () => t('This page may not change your account.'),
  not_signed_in: () => t('You are not logged in any more.'),
};

async function call(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method, headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, status: 0, why: t('The server cannot be reached.') };
  }
  const json = await res.json().catch(() => null);
  if (res.ok) return { ok: true, status: res.status, json };
  const code = json && json.error ? json.error.code : '';
  const retry = Number(res.headers.get('Retry-After')) || 0;
  return { ok: false, status: res.status, code, why: (WHY[code] || (() => t('Something went wrong; nothing changed. Try again.')))({ retry }) };
}

// The seats of the links this browser holds (the games it created, the
// seat links it opened): {game, token} for each.
function claims() {
  const out = [...openedSeats()];
  for (const g of myGames()) {
    for (const s of g.seats || []) {
      try {
        const token = new URL(s.link, location.href).searchParams.get('token');
        if (token) out.push({ game: g.id, token });
      } catch { /* not a link */ }
    }
  }
  return out.slice(0, 100);
}

function field(label, input) {
  return el('label.field', label, input);
}

function passwordInput(id, autocomplete) {
  return el('input', { type: 'password', id, autocomplete, required: true });
}

function errorLine(id) {
  return el('p.small.error-text', { id, role: 'alert', hidden: true });
}

function showError(node, text) {
  node.textContent = text;
  node.hidden = !text;
}

// ---- a guest: sign up or log in ----

function guestView() {
  const signupName = el('input', { type: 'text', id: 'signup-name', autocomplete: 'username', maxlength: 32, required: true });
  const signupPw = passwordInput('signup-password', 'new-password');
  const signupErr = errorLine('signup-error');
  const loginName = el('input', { type: 'text', id: 'login-name', autocomplete: 'username', required: true });
  const loginPw = passwordInput('login-password', 'current-password');
  const loginErr = errorLine('login-error');
  const held = claims().length;
  const keep = held ? el('p.small.muted', t('The games this browser holds links for become your account\'s.')) : null;

  const signup = el('form.card.form-grid#signup-form', { autocomplete: 'on' },
    el('h2', t('Create an account')),
    el('p.small.muted', t('With an account your games follow you to every device, and your seat opens without its link.')),
    field(t('Name'), signupName),
    field(t('Password (8 characters or more)'), signupPw),
    keep,
    signupErr,
    el('div.row', el('button.primary#signup', { type: 'submit' }, t('Sign up'))));
  const login = el('form.card.form-grid#login-form', { autocomplete: 'on' },
    el('h2', t('Log in')),
    field(t('Name'), loginName),
    field(t('Password'), loginPw),
    loginErr,
    el('div.row', el('button.primary#login', { type: 'submit' }, t('Log in'))));

  const go = async (ev, path, name, pw, err) => {
    ev.preventDefault();
    const r = await call('POST', path, { name: name.value.trim(), password: pw.value, claim: claims() });
    pw.value = '';
    if (!r.ok) { showError(err, r.why); return; }
    location.href = '/me.html';
  };
  signup.addEventListener('submit', (ev) => go(ev, '/api/accounts', signupName, signupPw, signupErr));
  login.addEventListener('submit', (ev) => go(ev, '/api/session', loginName, loginPw, loginErr));
  clear(root);
  root.append(el('h1', t('Your account')),
    el('p', t('Playing by link as a guest works without an account.')),
    el('div.account-grid', signup, login));
}

// ---- signed in ----

function signedInView(me) {
  const langSel = el('select#account-lang', { 'aria-label': t('Language') },
    languages().map((l) => el('option', { value: l.code, selected: l.code === lang() }, l.name)));
  langSel.addEventListener('change', async () => {
    await call('PUT', '/api/me/lang', { lang: langSel.value });
    setLang(langSel.value);
  });

  const oldPw = passwordInput('old-password', 'current-password');
  const newPw = passwordInput('new-password', 'new-password');
  const pwErr = errorLine('password-error');
  const pwForm = el('form.card.form-grid#password-form',
    el('h2', t('Change the password')),
    el('p.small.muted', t('Your other devices will have to log in again.')),
    field(t('Current password'), oldPw),
    field(t('New password (8 characters or more)'), newPw),
    pwErr,
    el('div.row', el('button#change-password', { type: 'submit' }, t('Change the password'))));
  pwForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const r = await call('POST', '/api/me/password', { old: oldPw.value, new: newPw.value });
    oldPw.value = '';
    newPw.value = '';
    showError(pwErr, r.ok ? '' : r.why);
    if (r.ok) toast(t('Your password is changed.'));
  });

  const delPw = passwordInput('delete-password', 'current-password');
  const delErr = errorLine('delete-error');
  const delForm = el('form.card.form-grid.danger-zone#delete-form',
    el('h2', t('Delete the account')),
    el('p.small.muted', t('Your past games stay, with "a former player" in your seat; nothing else of your account is kept.')),
    field(t('Your password'), delPw),
    delErr,
    el('div.row', el('button.danger#delete-account', { type: 'submit' }, t('Delete my account'))));
  delForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!confirm(t('Delete your account for good?'))) return;
    const r = await call('DELETE', '/api/me', { password: delPw.value });
    delPw.value = '';
    if (!r.ok) { showError(delErr, r.why); return; }
    location.href = '/';
  });

  const logout = el('button#logout', { type: 'button' }, t('Log out'));
  logout.addEventListener('click', async () => {
    await call('DELETE', '/api/session');
    location.href = '/account.html';
  });

  clear(root);
  root.append(
    el('h1', t('Your account')),
    el('div.card.form-grid',
      el('p', t('Logged in as'), ' ', el('b#account-name', me.name)),
      el('div.row', el('a.button.primary#my-games', { href: '/me.html' }, t('My games')), logout),
      el('label.field', t('Language'), langSel)),
    el('div.account-grid', emailCard(), pwForm, delForm));
}

async function main() {
  $('brand-logo').append(brandSvg());
  await ready();
  document.title = t('Tabula — your account');
  const r = await call('GET', '/api/session');
  if (r.ok && r.json && r.json.signed_in) signedInView(r.json); else guestView();
}

main();
