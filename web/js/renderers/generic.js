// generic.js — the renderer for a game that has no renderer of its own yet:
// the legal decisions as buttons (in the server's canonical order) and the
// seat's view shown readably as nested key/value lists.  It needs nothing
// but the protocol, so a newly registered game is playable at once.
import { clear, el } from '../common.js';
import { t, tn } from '../i18n.js';

function valueNode(v, depth) {
  if (v === null) return el('span.v.muted', '—');
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== 'object')) return el('span.v', v.map((x) => (x === null ? '—' : String(x))).join(', '));
    return el('details', { open: depth < 1 }, el('summary', tn('{n} item', '{n} items', v.length)),
      v.map((x, i) => el('div', el('span.k', `${i}: `), valueNode(x, depth + 1))));
  }
  if (typeof v === 'object') {
    const keys = Object.keys(v);
    return el('details', { open: depth < 1 }, el('summary', keys.length ? keys.slice(0, 4).join(', ') + (keys.length > 4 ? '…' : '') : '{}'),
      keys.map((k) => el('div', el('span.k', `${k}: `), valueNode(v[k], depth + 1))));
  }
  return el('span.v', String(v));
}

export function create({ boardEl, decide }) {
  const root = el('div.generic');
  boardEl.append(root);
  let sent = false;
  return {
    update(ctx) {
      sent = false;
      clear(root);
      if (ctx.yourTurn && ctx.legal) {
        root.append(el('div', el('h3', t('Your decisions')),
          el('div.legal', ctx.legal.map((m) => el('button.legal-move', {
            type: 'button', 'data-move': m,
            onclick: () => { if (!sent && decide(m)) sent = true; },
          }, m)))));
      }
      root.append(el('div', el('h3', t('What you see')), el('div.kv', valueNode(ctx.view, 0))));
    },
    instruction(ctx) {
      return { headline: t('Choose one of the decisions'), detail: ctx.prompt || '' };
    },
    reset() { sent = false; },
  };
}
