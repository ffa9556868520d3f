// whatnow.test.mjs TABULA — the "What can I do now?" panel's words
// (web/js/whatnow.js) against the engine: in random games of every title,
// every legal decision at every position falls into a kind the panel has
// players' words for (no notation shown raw), and the counts add up.
import path from 'node:path';
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { assert, assertEq, runner } from '../server/lib.mjs';
import { PHRASES, kindOf, whatNow, whatNowPanel } from '../../web/js/whatnow.js';

const tabula = path.resolve(process.argv[2] || 'build/tabula');

// A `tabula engine` session: send(line) → the answer's lines.
function engine() {
  const p = spawn(tabula, ['engine'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const rl = readline.createInterface({ input: p.stdout });
  const waiting = [];
  let lines = [];
  rl.on('line', (line) => {
    if (line === '' && lines.length) { waiting.shift()(lines); lines = []; } else if (line !== '') lines.push(line);
  });
  return {
    send: (cmd) => new Promise((resolve) => { waiting.push(resolve); p.stdin.write(`${cmd}\n`); }),
    close: () => { p.stdin.end(); },
  };
}

const t = runner('what can I do now');
for (const [game, players] of [['clans', 4], ['arkadia', 3], ['khronos', 3]]) {
  t.test(`${game}: every legal decision has players' words`, async () => {
    const e = engine();
    const seen = new Set();
    try {
      for (let g = 1; g <= 3; g++) {
        assertEq((await e.send(`new ${game} players=${players} seed=${g}`))[0], '=', 'new game');
        for (let d = 0; d < 400; d++) {
          const ans = await e.send('legal');
          assert(ans[0].startsWith('='), `legal answers (${ans[0]})`);
          const legal = [ans[0].replace(/^= ?/, ''), ...ans.slice(1)].filter(Boolean);
          if (!legal.length) break; // over
          const kinds = whatNow(game, legal);
          assertEq(kinds.reduce((a, k) => a + k.count, 0), legal.length, 'the counts add up');
          for (const k of kinds) {
            assert(PHRASES[game][k.kind], `${game}: no words for '${k.kind}' (e.g. ${legal.find((m) => kindOf(m) === k.kind)})`);
            // one sentence that explains, never a count or a bare heading
            assert(/^[A-Z][^]*[a-z)]\.$/.test(k.words) && k.words.split(' ').length >= 7, `${game} '${k.kind}': one explaining sentence (${k.words})`);
            seen.add(k.kind);
          }
          await e.send('genmove');
        }
      }
    } finally {
      e.close(); // (a failed check must not leave the engine holding the test open)
    }
    assert(seen.size >= 2, `several kinds met (${[...seen].join(', ')})`);
  });
}
t.test('the panel explains each kind in a sentence and counts no ways', async () => {
  // el(name, [attributes], children…) as common.js has it, building plain objects
  const tag = (name, ...rest) => ({ name, kids: rest.filter((x) => typeof x === 'string' || Array.isArray(x) || (x && x.kids)).flat() });
  const words = (n) => (typeof n === 'string' ? n : n && n.kids ? n.kids.map(words).join('') : '');
  const legal = ['build m keep', 'build m town', 'build f chapel', 'travel m f', 'end'];
  const panel = whatNowPanel(tag, 'khronos', legal, true);
  const text = words(panel);
  assert(!/\d+ ways|—/.test(text), `no counting of ways: ${text}`);
  assert(text.includes(PHRASES.khronos.build) && text.includes(PHRASES.khronos.end), `each kind explained: ${text}`);
});
await t.run();
