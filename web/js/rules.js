// rules.js — the "How to play" page (rules.html?game=NAME): each game's rules
// told short, in our own words, beside the board as the game's renderer draws
// a starting position (GET /api/catalog/NAME/start and .../board).
//
// Invariants: the text is for players (no rule numbers, no file names); the
// picture is drawn by the same renderer the game page uses, read-only; an
// unknown game name gets a clear message and links to the three games.
// Words: every paragraph is one catalogue entry (msgid = the English
// paragraph), so a translation is written for its players as a whole, not
// sentence by sentence; the texts are made after the catalogue is loaded.
import { apiGet, brandSvg, clear, el } from './common.js';
import { ready, t } from './i18n.js';

const RENDERERS = { arkadia: './renderers/arkadia.js', clans: './renderers/clans.js', khronos: './renderers/khronos.js' };

const RULES = () => ({
  clans: {
    title: 'Clans',
    picture: t('A Clans game at its start, as you will see it.'),
    intro: t('Sixty territories, five clans of huts, and a secret: each player is one clan, and nobody knows which. Bring your huts together into villages that score, without showing whose huts they are.'),
    sections: [
      [t('Your turn'), [t('Pick a territory with huts and move all of them onto a neighbouring territory that also has huts. A territory never empties by itself: huts only move by joining others.'),
        t('A group of seven or more huts may only move onto a group at least as large.')]],
      [t('Villages'), [t('When huts end up on a territory with no occupied neighbour, it becomes a village, and the player who moved takes a village chip.'),
        t('If all five clans live in the new village, the clans with a single hut there are wiped out first (the battle).'),
        t('Each clan still in the village scores one point per hut in it, plus the bonus of the epoch if the terrain is favoured. On the epoch\'s hostile terrain the village is ruined instead and scores nothing.')]],
      [t('Epochs'), [t('The twelve village chips are spread over five epochs; the chart beside the board shows which terrain is favoured and which is hostile in each. The epoch moves on as the chips are taken.')]],
      [t('The end'), [t('The game ends with the twelfth village, or earlier when no move is left. Colours are revealed: your score is your clan\'s points plus one per village chip you took. Highest score wins; ties share the win.')]],
      [t('Tips'), [t('Your colour is your secret: moving your own huts too openly tells everyone who you are. The "What can I do now?" box and the Hint button help while you learn.')]],
    ],
  },
  arkadia: {
    title: 'Arkadia',
    picture: t('An Arkadia game at its start, as you will see it.'),
    intro: t('Build the town around the king\'s castle, place workers beside buildings, and earn seals of the four guilds. The castle decides what each guild\'s seals are worth; sell them at the right moment for gold.'),
    sections: [
      [t('Your turn'), [t('Do exactly one of two things: lay out a building from a card in your hand, or put workers down beside one building.'),
        t('A new building must touch a building, the castle lot or a worker. Each card shows the building\'s shape and its guild colour. After building, refill your hand from the display or the stack.'),
        t('Workers come from behind your screen, your own colour or neutral ones you collected from tent camps; all must touch the building you chose.')]],
      [t('Completing buildings'), [t('A building is complete when every square around it is taken (by workers, buildings, the lot or the board\'s edge). Every player gets one seal of its guild per own worker touching it; the player who completed it also takes the seal on it.'),
        t('For each building completed, the active player adds one piece to the castle. The guild on top of each castle square sets the value of that guild\'s seals.')]],
      [t('Banners and gold'), [t('At the end of your turn you may hang one of your four architect banners: you get two more workers and may sell any of your seals for gold at their current value.')]],
      [t('The end'), [t('When the castle\'s second floor is complete, everyone plays one last turn. Then all seals are sold at their final value. Most gold wins; ties share the win.')]],
    ],
  },
  khronos: {
    title: 'Khronos',
    picture: t('A Khronos game at its start, as you will see it.'),
    intro: t('One town across three eras: Might, Faith and Reason. What you build in an earlier era casts a shadow into the later ones. Control the right buildings when earnings come round, in turns 4 and 7.'),
    sections: [
      [t('Your turn'), [t('You have two adventurers. Moving one to another era costs 1 Ecu. On a board where an adventurer stands, play cards to act: each adventurer may use up to two cards a turn.'),
        t('On Might and Faith you build, upgrade or demolish. On Reason you put cubes on civil buildings or renovate ruins.'),
        t('Buildings come in three families (military, religious, civil, matching the card colours) and three sizes: 1×1, 2×2 and 3×3 squares. A building costs as many cards of its colour as its size; forest and mountain squares cost extra cards in smaller games.')]],
      [t('Rules of building'), [t('Only towns and cities may cover river squares. Only a civil building may join two groups of buildings. In each group, the highest military building and the highest religious building must each be unique.')]],
      [t('Shadows'), [t('A building of size 2 or 3 ripples forward: its copy appears on the later boards, destroying what it covers there. On Reason, military and religious copies arrive as ruins. When groups join and the rules of building break, the weaker side\'s buildings are reduced.')]],
      [t('Earnings'), [t('At the end of your turn in turns 4 and 7 you earn on every board where you have an adventurer: on Might and Faith from the groups whose top military (Might) or religious (Faith) building is yours; on Reason from the groups where you have the most cubes.')]],
      [t('The end'), [t('After turn 7, most Ecus wins; ties share the win. This board is our own design: the published board has not been described, so squares may differ from your copy.')]],
    ],
  },
});

const $ = (id) => document.getElementById(id);

async function main() {
  await ready();
  $('brand-logo').append(brandSvg());
  const name = new URLSearchParams(location.search).get('game') || 'clans';
  const nav = $('rules-nav');
  const all = RULES();
  for (const [k, r] of Object.entries(all))
    nav.append(el(`a.button.small${k === name ? '.primary' : ''}`, { href: `/rules.html?game=${k}` }, r.title));
  const rules = Object.hasOwn(all, name) ? all[name] : null;
  const text = clear($('rules-text'));
  if (!rules) {
    text.append(el('h1', t('No such game')), el('p', t('Choose one of the games above.')));
    return;
  }
  document.title = t('Tabula — how to play {game}', { game: rules.title });
  text.append(el('h1', t('How to play {game}', { game: rules.title })), el('p.lead', rules.intro),
    ...rules.sections.map(([h, ps]) => el('section', el('h2', h), ps.map((p) => el('p', p)))),
    el('p', el('a.button.primary#start-game', { href: `/?game=${name}` }, t('Start a game of {game}', { game: rules.title }))));
  try {
    const [board, view] = await Promise.all([apiGet(`/api/catalog/${name}/board`), apiGet(`/api/catalog/${name}/start`)]);
    const mod = await import(RENDERERS[name]);
    const r = mod.create({ boardEl: $('board'), panelsEl: $('game-panels'), board, decide: () => false, seatName: (k) => t('Player {n}', { n: k + 1 }) });
    r.update({ view, legal: null, yourTurn: false, seat: null, toMove: null, last: null, result: null, thinking: null, seats: [], replay: true, n: 0 });
    $('picture-caption').textContent = rules.picture;
  } catch (e) {
    $('picture-caption').textContent = t('The picture could not be drawn ({reason}).', { reason: e.message });
  }
}

main();
