// social.js — the game page's table chat and "Play again" (docs/http-api.md).
//
// The chat: a "Chat" card beside the board on a desktop, a "Chat" tab beside
// Board / Players / Moves on a phone, with an unread count on the tab and the
// card.  Lines come as `chat` messages (and `chat_log` on joining); a player
// writes with Enter (Shift+Enter: a new line) or Send; spectators read only.
// The limits are the server's (500 characters, a few lines per seconds): a
// refusal shows under the field in the page's language, the text kept.  A
// player can mute another seat for themselves: its lines are hidden (kept in
// this browser, localStorage, per game and seat), with a way to unmute.  In a
// replay the lines said up to the position shown are listed, each with the
// decision it followed.
//
// "Play again": the result card of a finished game offers it to a player
// (POST /api/games/{id}/rematch with the seat's key; the answer is their own
// link to the new game) and shows the new game when someone made it (the
// `rematch` message carries this connection's own link).
//
// Invariants: every name and line is put in the page as text (textContent
// through el()), never as markup, so HTML in a chat line or a name is shown
// as those characters and runs nothing; nothing here learns another person's
// seat key.
import { el } from './common.js';
import { N_, date, ready, t, tn } from './i18n.js';

const ERRORS = {
  too_long: N_('That line is too long: at most {n} characters.'),
  slow_down: N_('Not so fast: wait a few seconds, then send it again.'),
  empty: N_('Write something first.'),
  bad_text: N_('That line holds characters that cannot be sent.'),
  spectator: N_('Only the players of this game write in its chat.'),
  bad_message: N_('That line could not be sent.'),
  store_failed: N_('The line could not be saved; try again.'),
  internal: N_('The line could not be sent; try again.'),
  elsewhere: N_('This game moved to another server: open it again to chat.'),
  broken: N_('This game cannot go on, so its chat is closed.'),
};

export function createChat({ gameId, token, send, onChange = () => {} }) {
  const C = {
    lines: [], seat: null, role: 'spectator', replayStep: null, unread: 0, max: 500,
    seq: 0, pending: new Map(), error: '', built: false,
  };
  const muteKey = `tabula.chat.muted.${gameId}`;
  const muted = new Set((() => { try { return JSON.parse(localStorage.getItem(muteKey) || '[]'); } catch { return []; } })());
  const saveMuted = () => { try { localStorage.setItem(muteKey, JSON.stringify([...muted])); } catch { /* private mode: for this page only */ } };

  // ---- the card and the phone's tab ----
  const list = el('div.chat-lines#chat-lines', { role: 'log', 'aria-live': 'polite' });
  const mutedBox = el('div.chat-muted.small#chat-muted');
  const input = el('textarea#chat-input', { rows: '2', maxlength: '2000', 'aria-label': 'Message' });
  const count = el('span.chat-count.small.muted#chat-count');
  const error = el('div.chat-error.small#chat-error', { role: 'alert' });
  const sendBtn = el('button.primary.small#chat-send', { type: 'submit' });
  const form = el('form.chat-form#chat-form', input, el('div.chat-send-row', count, sendBtn), error);
  const note = el('p.small.muted#chat-note');
  const badge = el('span.chat-unread#chat-unread', { hidden: true });
  const title = el('h3');
  const card = el('div.card.chat-card#chat-card', el('div.card-head', title, badge), mutedBox, list, note, form);
  const tabBadge = el('span.chat-unread#chat-tab-unread', { hidden: true });
  const tabLabel = el('span');
  const tab = el('button#chat-tab', { type: 'button', role: 'tab', 'data-phone-tab': 'chat', 'aria-selected': 'false' }, tabLabel, tabBadge);

  function words() {
    title.textContent = t('Chat');
    tabLabel.textContent = t('Chat');
    input.placeholder = t('Say something to the table');
    input.setAttribute('aria-label', t('Message'));
    sendBtn.textContent = t('Send');
  }

  function visible() {
    if (!card.isConnected || card.offsetParent === null) return false;
    const r = list.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  }

  function markRead() {
    if (C.unread && visible()) { C.unread = 0; paintBadge(); }
  }

  function paintBadge() {
    for (const b of [badge, tabBadge]) {
      b.hidden = !C.unread;
      b.textContent = C.unread ? String(C.unread) : '';
      b.setAttribute('aria-label', tn('{n} unread line', '{n} unread lines', C.unread));
    }
  }

  function lineNode(m) {
    const mine = C.seat !== null && m.seat === C.seat && C.role === 'player';
    const when = m.at ? date(new Date(m.at), { hour: '2-digit', minute: '2-digit' }) : '';
    const node = el(`div.chat-line${mine ? '.mine' : ''}`, { 'data-seat': String(m.seat), 'data-n': String(m.n) },
      el('div.chat-meta.small',
        el('b.chat-name', m.name),
        el('span.muted', C.replayStep !== null
          ? ` · ${t('after decision {n}', { n: m.decisions })}` : when ? ` · ${when}` : ''),
        !mine && C.replayStep === null
          ? el('button.ghost.small.chat-mute', {
            type: 'button', title: t('Hide the lines of {name}', { name: m.name }),
            'aria-label': t('Hide the lines of {name}', { name: m.name }),
            onclick: () => { muted.add(m.seat); saveMuted(); render(); },
          }, t('Mute')) : null),
      el('div.chat-text', m.text));
    return node;
  }

  function render() {
    if (!C.built) return;
    words();
    const shown = C.lines.filter((m) => (C.replayStep === null || m.decisions <= C.replayStep));
    const hidden = shown.filter((m) => muted.has(m.seat));
    const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.replaceChildren(...shown.filter((m) => !muted.has(m.seat)).map(lineNode));
    if (!list.children.length) list.append(el('p.small.muted.chat-empty', C.replayStep !== null ? t('Nobody had written yet.') : t('Nobody has written yet.')));
    if (atEnd || C.forceEnd) list.scrollTop = list.scrollHeight;
    C.forceEnd = false;
    // the muted seats: their names and a way back
    const names = new Map();
    for (const m of C.lines) if (muted.has(m.seat)) names.set(m.seat, m.name);
    for (const s of muted) if (!names.has(s)) names.set(s, t('Seat {n}', { n: s + 1 }));
    mutedBox.replaceChildren(...[...names].map(([seat, name]) => el('div.chat-muted-row',
      el('span', tn('{name} is muted ({n} line hidden)', '{name} is muted ({n} lines hidden)',
        hidden.filter((m) => m.seat === seat).length, { name })),
      el('button.ghost.small.chat-unmute', { type: 'button', onclick: () => { muted.delete(seat); saveMuted(); C.forceEnd = true; render(); } }, t('Unmute')))));
    mutedBox.hidden = !names.size;
    const writes = C.role === 'player' && C.replayStep === null;
    form.hidden = !writes;
    note.hidden = writes;
    note.textContent = C.replayStep !== null ? t('What the players said, up to this position.')
      : t('Only the players write here.');
    const n = [...input.value].length;
    count.textContent = n > C.max - 50 ? `${n}/${C.max}` : '';
    count.classList.toggle('over', n > C.max);
    error.textContent = C.error;
    error.hidden = !C.error;
    paintBadge();
  }

  function submit(ev) {
    if (ev) ev.preventDefault();
    const text = input.value;
    if (!text.trim()) { C.error = t(ERRORS.empty); render(); return; }
    if ([...text].length > C.max) { C.error = t(ERRORS.too_long, { n: C.max }); render(); return; }
    const id = `chat-${++C.seq}`;
    if (!send({ type: 'chat', text, id })) { C.error = t('Not connected: nothing was sent.'); render(); return; }
    C.pending.set(id, text);
    input.value = '';
    C.error = '';
    C.forceEnd = true;
    render();
  }

  form.addEventListener('submit', submit);
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) submit(ev);
  });
  input.addEventListener('input', () => { if (C.error) C.error = ''; render(); });

  return {
    // Puts the card after `after` (the players' card) and the tab in the phone's tabs.
    async mount(after, tabs) {
      await ready();
      after.after(card);
      if (tabs) tabs.append(tab);
      C.built = true;
      new IntersectionObserver(() => markRead()).observe(list);
      new MutationObserver(() => markRead()).observe(document.body, { attributes: true, attributeFilter: ['data-tab'] });
      render();
    },
    tab,
    setSeat(seat, role) { C.seat = seat; C.role = role; render(); },
    // A live message: true when it was the chat's.
    onMessage(msg) {
      if (msg.type === 'chat_log') {
        C.lines = msg.lines || [];
        if (msg.max_chars) C.max = msg.max_chars;
        list.dataset.live = 'yes'; // the lines so far are in: new ones come one by one
        C.forceEnd = true;
        render();
        return true;
      }
      if (msg.type === 'chat') {
        if (C.lines.some((m) => m.n === msg.n)) return true;
        C.lines.push(msg);
        const mine = C.role === 'player' && msg.seat === C.seat;
        if (mine) { C.pending.clear(); C.forceEnd = true; }
        render();
        if (!mine && !muted.has(msg.seat) && !visible()) { C.unread++; paintBadge(); onChange(); }
        return true;
      }
      if (msg.type === 'error' && typeof msg.id === 'string' && msg.id.startsWith('chat-')) {
        const text = C.pending.get(msg.id);
        C.pending.delete(msg.id);
        if (text !== undefined && !input.value) input.value = text; // nothing lost
        C.error = t(ERRORS[msg.code] || ERRORS.internal, { n: C.max });
        render();
        return true;
      }
      return false;
    },
    // A replay: every line of the game, shown up to decision `step`.
    setReplay(lines, step) {
      if (lines) C.lines = lines;
      C.replayStep = step;
      render();
    },
  };
}

// ---- "Play again" ----

export function createRematch({ gameId, token }) {
  const R = { id: null, link: null, busy: false, error: '' };
  return {
    known(id) { if (id && !R.id) R.id = id; },
    // The `rematch` message: the new game, with this connection's own link.
    onMessage(msg) {
      if (msg.type !== 'rematch') return false;
      R.id = msg.id;
      R.link = msg.link;
      return true;
    },
    // The row the result card shows (null: nothing to offer).
    row(isPlayer, rerender) {
      const ask = async () => {
        R.busy = true;
        R.error = '';
        rerender();
        try {
          const res = await fetch(`/api/games/${encodeURIComponent(gameId)}/rematch`, {
            method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(token ? { token } : {}), // an account's seat: its session
          });
          const body = await res.json().catch(() => null);
          if (!res.ok || !body || !body.link) throw new Error(body && body.error ? body.error.code : String(res.status));
          R.id = body.id;
          R.link = body.link;
          location.href = body.link;
        } catch (e) {
          R.error = e.message === 'not_over' ? t('The game is not over yet.')
            : t('The new game could not be made; try again.');
          R.busy = false;
          rerender();
        }
      };
      if (isPlayer) {
        // made already: the sentence says so; the link is this page's own (offered over
        // the WebSocket), else the button asks the server for it
        return el('div.rematch-row#rematch',
          R.id ? el('p.small', t('A new game with the same table is ready.')) : null,
          R.link ? el('a.button.small.primary#play-again', { href: R.link }, t('Play again'))
            : el('button.small.primary#play-again', { type: 'button', disabled: R.busy, onclick: ask }, t('Play again')),
          R.error ? el('span.small.chat-error', { role: 'alert' }, R.error) : null);
      }
      if (R.id) {
        return el('div.rematch-row#rematch', el('p.small', t('The players started a new game.')),
          el('a.button.small#watch-rematch', { href: R.link || `/game.html?game=${encodeURIComponent(R.id)}` }, t('Watch the new game')));
      }
      return null;
    },
  };
}
