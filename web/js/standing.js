// standing.js — what the leaderboard and the profile pages share: the games'
// titles, a computer level's name, and the sentence saying where a player
// stands against the computer levels (GET /api/ratings and /api/players give
// {"level", "as": "about" | "above" | "below"}; docs/ratings.md).
//
// Invariants: every word goes through i18n.js; names are never parsed as HTML.
import { num, t } from './i18n.js';

export const GAMES = ['clans', 'arkadia', 'khronos'];
export const TITLES = { clans: 'Clans', arkadia: 'Arkadia', khronos: 'Khronos' };

export function title(game) {
  return TITLES[game] || game;
}

export function levelName(level) {
  return { easy: t('easy'), normal: t('normal'), hard: t('hard') }[level] || level;
}

// "Computer (normal)"
export function computerName(level) {
  return t('Computer ({level})', { level: levelName(level) });
}

// A sentence about `who` (you: true for the reader's own rating).
export function standingText(standing, you) {
  if (!standing) return '';
  const level = levelName(standing.level);
  if (standing.as === 'about') {
    return you ? t('You play about as well as the {level} computer.', { level })
      : t('Plays about as well as the {level} computer.', { level });
  }
  if (standing.as === 'above') {
    return you ? t('You play better than the {level} computer.', { level })
      : t('Plays better than the {level} computer.', { level });
  }
  return you ? t('You do not yet play as well as the {level} computer.', { level })
    : t('Does not yet play as well as the {level} computer.', { level });
}

// 23.4 in the page's language
export function ratingText(x) {
  return num(x, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}
