// errorpage.js — the script of the server's own pages (web/404.html): their
// marked words in the player's language and the language selector; nothing
// else (such a page works without it, in English).
import { ready } from './i18n.js';

ready();
