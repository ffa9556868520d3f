// email.js — the "Turn e-mails" card of the account page (account.js puts it
// in): the account's address (confirmed by the link e-mailed to it) and
// whether Tabula e-mails when a slow game waits on the player's turn
// (GET/PUT /api/me/email, docs/http-api.md).  A server without a relay
// (no --smtp) says so and offers nothing.
//
// Invariants: the address from the server is set as a value or text, never
// as HTML; a refusal is shown by its code in the page's language; nothing
// changes on the page until the server said it changed.
import { el } from './common.js';
import { t } from './i18n.js';

const WHY = {
  bad_email: () => t('That is not an e-mail address.'),
  no_mail: () => t('This server sends no e-mail.'),
  too_soon: () => t('A confirmation e-mail went out a moment ago: wait half a minute.'),
  mail_busy: () => t('Many e-mails are going out just now: try again in a minute.'),
  not_signed_in: () => t('Your session has ended: log in again to change your e-mail settings.'),
};

async function call(method, body) {
  try {
    const res = await fetch('/api/me/email', {
      method, headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json().catch(() => null);
    if (res.ok && json) return { ok: true, json };
    const code = json && json.error ? json.error.code : '';
    return { ok: false, why: (WHY[code] || (() => t('The e-mail settings could not be changed; nothing changed. Try again.')))() };
  } catch {
    return { ok: false, why: t('The server does not answer: the e-mail settings are as they were.') };
  }
}

// What the address is now, in words.
function stateWords(s) {
  if (!s.email) return t('No address yet.');
  if (s.pending) return t('We sent a link to {email}: open it to confirm the address.', { email: s.email });
  if (s.confirmed) return t('{email} is confirmed.', { email: s.email });
  return '';
}

// The card (filled in once the server answered).
export function emailCard() {
  const card = el('form.card.form-grid#email-form', el('h2', t('Turn e-mails')));
  (async () => {
    const r = await call('GET');
    if (!r.ok) { card.append(el('p.small.error-text', { role: 'alert' }, r.why)); return; }
    if (!r.json.sending) {
      card.append(el('p.small.muted#email-off', t('This server sends no e-mail.')));
      return;
    }
    const address = el('input#email-address', { type: 'email', autocomplete: 'email', maxlength: 254, value: r.json.email });
    const status = el('p.small#email-state', { role: 'status' });
    const err = el('p.small.error-text#email-error', { role: 'alert', hidden: true });
    const wanted = el('input#turn-emails', { type: 'checkbox', checked: r.json.turn_emails });
    const show = (s) => {
      status.textContent = stateWords(s);
      wanted.checked = s.turn_emails;
      err.hidden = true;
    };
    const fail = (why) => { err.textContent = why; err.hidden = false; };
    show(r.json);
    card.append(
      el('p.small.muted', t('When a slow game waits on your turn and you do not have it open, Tabula tells you by e-mail.')),
      el('label.field', t('E-mail address'), address),
      status,
      el('label.check', wanted, ' ', t('E-mail me when it is my turn')),
      err,
      el('div.row', el('button#save-email', { type: 'submit' }, t('Save the address'))));
    card.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const a = await call('PUT', { email: address.value.trim() });
      if (a.ok) show(a.json); else fail(a.why);
    });
    wanted.addEventListener('change', async () => {
      const a = await call('PUT', { turn_emails: wanted.checked });
      if (a.ok) show(a.json); else { wanted.checked = !wanted.checked; fail(a.why); }
    });
  })();
  return card;
}
