// scoregraph.test.mjs — the result's score graph's axes (web/js/scoregraph.js),
// as plain functions: the value axis counts up in distinct whole-number ticks
// from 0 to at least the highest score (0 | 1 after a 0–0 game, never
// "0 | 1 | 1"); every stage gets room under the graph, at least 30 px, however
// few decisions it had (a five-epoch Clans game whose last epochs are short
// still names all five), the positions map onto the width in order and a
// click maps back to the position; a stage's short name fits that room.
import { assert, assertEq, runner } from '../server/lib.mjs';

globalThis.matchMedia = () => ({ matches: false, addEventListener() {} }); // (common.js asks at load)
const { graphSpans, shortStage, stageAxis, yTicks } = await import('../../web/js/scoregraph.js');

const t = runner('score graph axes');

t.test('the value axis: distinct whole numbers from 0, up to at least the highest score', async () => {
  assertEq(yTicks(0), [0, 1], 'nobody scored');
  assertEq(yTicks(1), [0, 1], 'one point');
  assertEq(yTicks(37), [0, 10, 20, 30, 40], 'a Clans game');
  for (let max = 0; max <= 2000; max++) {
    const ticks = yTicks(max);
    assert(ticks[0] === 0 && ticks[ticks.length - 1] >= max, `from 0 to at least ${max}: ${ticks}`);
    assert(ticks.length >= 2 && ticks.length <= 5, `two to five ticks for ${max}: ${ticks}`);
    assert(ticks.every((v, i) => Number.isInteger(v) && (i === 0 || v > ticks[i - 1])), `whole and counting up for ${max}: ${ticks}`);
  }
});

t.test('every stage has room under the graph, the positions in order, a click finds its position', async () => {
  // a five-epoch game: 90 decisions in Epoch I, 7, 2, 1 and none in Epoch V (a
  // village of it founded by the last decision)
  const spans = [['Epoch I', 0], ['Epoch II', 90], ['Epoch III', 97], ['Epoch IV', 99], ['Epoch V', 100]].map(([name, from]) => ({ name, from }));
  for (const [left, right] of [[30, 330], [40, 630], [24, 160]]) {
    const a = stageAxis(spans, 100, left, right);
    const min = Math.min(30, (right - left) / spans.length);
    assert(a.widths.every((w) => w >= min - 1e-9), `every stage at least ${min} px wide (${a.widths.map(Math.round)})`);
    assert(Math.abs(a.widths.reduce((s, w) => s + w, 0) - (right - left)) < 1e-6, 'the stages fill the width');
    assertEq([a.x(0), a.x(100)], [left, right], 'from the start at the left to the end at the right');
    for (let k = 1; k <= 100; k++) assert(a.x(k) >= a.x(k - 1), `in order at ${k}`);
    for (let k = 0; k <= 100; k++) assertEq(a.at(a.x(k) + 0.01), k, `a click at position ${k} finds it`);
    spans.forEach((sp, i) => assert(shortStage(sp.name).length * 7 <= a.widths[i] - 4, `${sp.name}'s short name fits its room`));
  }
  assertEq(['Epoch IV', 'Turn 4 of 7', 'Castle floor 2'].map(shortStage), ['IV', '4', '2'], 'short names');
  // a game of no decision (resigned at once): one stage, everything at the left
  const none = stageAxis([{ name: 'Epoch I', from: 0 }], 0, 30, 330);
  assertEq([none.x(0), none.at(200)], [30, 0], 'no decision');
});

t.test('the stages under the graph are the story\'s, a last stage of no decision included', async () => {
  const data = { stages: ['Epoch I', 'Epoch I', 'Epoch II', 'Epoch V'], by_stage: [
    { stage: 'Epoch I', from: 0, to: 2 }, { stage: 'Epoch II', from: 2, to: 3 }, { stage: 'Epoch V', from: 3, to: 3 }] };
  assertEq(graphSpans(data).map((s) => s.name), ['Epoch I', 'Epoch II', 'Epoch V'], 'from the story');
  const khronos = { stages: ['Turn 1 of 7'], by_stage: [{ stage: 'At the start', from: 0, to: 0 }, { stage: 'Turn 1 of 7', from: 0, to: 0 }] };
  assertEq(graphSpans(khronos).map((s) => s.name), ['Turn 1 of 7'], '"At the start" is no stage of the graph');
  assertEq(graphSpans({ stages: ['Epoch I', 'Epoch II', 'Epoch II'] }).map((s) => s.name), ['Epoch I', 'Epoch II'], 'without a story: the positions\' stages');
});

await t.run().then((failed) => process.exit(failed ? 1 : 0));
