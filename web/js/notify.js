// notify.js — telling a player it is their turn when they look elsewhere:
// the tab's title and icon change ("● Your turn"), an optional short sound,
// and, when the player allowed it, the browser's notification while the page
// is hidden.  The choices (sound, notifications) are kept in localStorage.
//
// Invariants: the title and icon show "your turn" exactly while the seat has a
// decision to make; the sound and the notification fire once per turn (on the
// change from waiting to deciding), never while the player is looking at a
// replay; nothing is asked of the browser until the player asks for it.

import { t } from './i18n.js';

const KEY = { sound: 'tabula.turnSound', notify: 'tabula.turnNotify' };
const store = {
  get: (k) => { try { return localStorage.getItem(k) === 'on'; } catch { return false; } },
  set: (k, on) => { try { localStorage.setItem(k, on ? 'on' : 'off'); } catch { /* private mode */ } },
};

let baseTitle = document.title;
let mine = false;
let iconHref = null;

function iconLink() {
  return document.querySelector('link[rel="icon"]');
}

// The site's icon with a red dot in its corner, as a data: address.
function dotIcon() {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    + '<rect x="2" y="2" width="28" height="28" rx="7" fill="#2c7d77"/>'
    + '<path d="M9 10h14M16 10v13" stroke="#f4efe6" stroke-width="3.2" stroke-linecap="round"/>'
    + '<circle cx="24" cy="8" r="7" fill="#d6453d" stroke="#fff" stroke-width="2"/></svg>';
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

function beep() {
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    const ctx = new Ctx();
    const osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.type = 'sine';
    osc.frequency.setValueAtTime(660, ctx.currentTime);
    osc.frequency.setValueAtTime(880, ctx.currentTime + 0.12);
    gain.gain.setValueAtTime(0.0001, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.2, ctx.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + 0.3);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.32);
    osc.onended = () => ctx.close();
  } catch { /* no sound: the title still says it */ }
}

// The page's own title (without the turn mark), set when the game is known.
export function setBaseTitle(title) {
  baseTitle = title;
  document.title = mine ? t('● Your turn — {title}', { title: baseTitle }) : baseTitle;
}

// Called on every render: yourTurn is whether this seat must decide now.
export function turnSignal(yourTurn, what) {
  const link = iconLink();
  if (link && iconHref === null) iconHref = link.getAttribute('href');
  if (yourTurn === mine) return;
  mine = yourTurn;
  document.title = mine ? t('● Your turn — {title}', { title: baseTitle }) : baseTitle;
  if (link) link.setAttribute('href', mine ? dotIcon() : iconHref);
  if (!mine) return;
  if (store.get(KEY.sound)) beep();
  if (store.get(KEY.notify) && document.hidden && 'Notification' in window && Notification.permission === 'granted') {
    try { new Notification(t('Your turn'), { body: what || baseTitle, tag: 'tabula-turn' }); } catch { /* not allowed here */ }
  }
}

// The two switches of the "Tell me when it is my turn" box.
export function signalControls(el) {
  const sound = el('input', { type: 'checkbox', id: 'turn-sound' });
  sound.checked = store.get(KEY.sound);
  sound.addEventListener('change', () => { store.set(KEY.sound, sound.checked); if (sound.checked) beep(); });
  const notify = el('input', { type: 'checkbox', id: 'turn-notify' });
  const supported = 'Notification' in window;
  notify.checked = supported && store.get(KEY.notify) && Notification.permission === 'granted';
  notify.disabled = !supported || Notification.permission === 'denied';
  const note = el('div.small.muted#turn-notify-note');
  const explain = () => {
    note.textContent = !supported ? t('This browser cannot show notifications.')
      : Notification.permission === 'denied' ? t('Notifications are blocked for this site in the browser\'s settings.')
        : '';
  };
  notify.addEventListener('change', async () => {
    if (notify.checked && Notification.permission !== 'granted') {
      let answer = 'denied';
      try { answer = await Notification.requestPermission(); } catch { /* old browsers */ }
      notify.checked = answer === 'granted';
      notify.disabled = answer === 'denied';
    }
    store.set(KEY.notify, notify.checked);
    explain();
  });
  explain();
  return el('div.turn-signals',
    el('div.label', t('When it is my turn')),
    el('label.switch', sound, ` ${t('Play a sound')}`),
    el('label.switch', notify, ` ${t('Show a notification when this tab is hidden')}`),
    note);
}
