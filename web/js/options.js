// options.js — a game's options in players' words, wherever they are shown
// (the lobby's form and lists, the game page, the replay): the option's
// name, the chosen value's name and one sentence of what it changes, all
// from the catalog (GET /api/catalog: label, value_labels, help).
//
// Invariants: the keys and values (what the server reads and records keep)
// are never shown to a player; an option the catalog does not know (a game
// made by a newer server) is left out rather than shown raw; a game whose
// options are all at their defaults is played by the standard rules.  The
// catalog's words are the engine's constant English, each a catalogue msgid:
// they are shown through t() (web/js/i18n.js) in the page's language.
import { N_, t } from './i18n.js';

// The computer's levels (the catalog's "levels"), in players' words: as a
// choice ("Easy") and within a line ("Computer · easy").
const LEVELS = { easy: N_('Easy'), normal: N_('Normal'), hard: N_('Hard') };
const LEVEL_WORDS = { easy: N_('easy'), normal: N_('normal'), hard: N_('hard') };
export function levelLabel(name) {
  return LEVELS[name] ? t(LEVELS[name]) : name;
}
export function levelWord(name) {
  return LEVEL_WORDS[name] ? t(LEVEL_WORDS[name]) : name;
}

// The catalog entry of one option: its player's name and its values' names.
export function optionLabel(spec) {
  return spec.label ? t(spec.label) : spec.key;
}

export function valueLabel(spec, value) {
  const i = (spec.values || []).indexOf(value);
  return i >= 0 && spec.value_labels && spec.value_labels[i] ? t(spec.value_labels[i]) : value;
}

// The options of a game that differ from the rules' defaults, as
// [{key, label, value, help}] in the catalog's order.  `game` is the
// catalog's game, `chosen` the game's {KEY: VALUE}.
export function chosenOptions(game, chosen) {
  const out = [];
  for (const spec of (game && game.options) || []) {
    const v = chosen ? chosen[spec.key] : undefined;
    if (v === undefined || v === spec.default) continue;
    out.push({ key: spec.key, label: optionLabel(spec), value: valueLabel(spec, v), help: spec.help ? t(spec.help) : '' });
  }
  return out;
}

// One line for a list of games: "Mirrored buildings: Allowed · …", or
// "Standard rules".
export function optionsLine(game, chosen) {
  const o = chosenOptions(game, chosen);
  return o.length ? o.map((x) => t('{label}: {value}', { label: x.label, value: x.value })).join(' · ') : t('Standard rules');
}

// The game page's list (play, watch, replay): each option the game is
// played with, its name and value, and its sentence beneath; null when the
// game is played by the standard rules.
export function optionsList(el, game, chosen) {
  const o = chosenOptions(game, chosen);
  if (!o.length) return null;
  return el('div.game-options#game-options', el('div.small', el('b', t('Played with'))),
    el('ul', o.map((x) => el('li', { 'data-option': x.key }, el('span', `${x.label}: `, el('b', x.value)),
      x.help ? el('div.small.muted', x.help) : null))));
}
