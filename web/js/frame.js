// frame.js — the words of a page's static frame (web/404.html, web/rules.html
// besides its own script): its data-i18n marks in the player's language and
// the language selector in its top bar (js/i18n.js; ready() runs once a page,
// whoever calls it).  Such a page works without it, in English.
import { ready } from './i18n.js';

ready();
