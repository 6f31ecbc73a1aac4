// Section 9's goals over several full runs: each comparison's ratio in every run, and their median.
// One run's ratio is good to a fifth or so on a shared machine; issue #30 asks for the median of
// at least five runs on one machine.
//
//   node bench/run.mjs --only versions --as-shipped --json run1.json   (five times, say)
//   node bench/runs-median.mjs run1.json run2.json run3.json run4.json run5.json
import { readFileSync } from 'node:fs';
import { median } from './median.mjs';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node bench/runs-median.mjs <section 9 results (--json)>...');
  process.exit(2);
}
const runs = files.map((file) => {
  const results = JSON.parse(readFileSync(file, 'utf8'));
  if (!results.versions?.pairs) {
    console.error(`${file} holds no section 9 results (bench/run.mjs --only versions --json)`);
    process.exit(2);
  }
  return results;
});
const machines = new Set(runs.map(({ machine }) => `${machine.cpus} CPUs, ${machine.cpuModel}, Node ${machine.node}`));
if (machines.size > 1) console.warn(`warning: these runs come from more than one machine (${[...machines].join('; ')})`);

const ratio = (value) => `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)}×`;

/** A comparison's ratio in each run, then their median. */
function row(label, ratioOf) {
  const ratios = runs.map(ratioOf);
  console.log(`| ${label} | ${ratios.map(ratio).join(', ')} | **${ratio(median(ratios))}** |`);
}

console.log(`${runs.length} runs on ${[...machines].join('; ')} (${runs.map(({ machine }) => machine.date).join(', ')})\n`);
console.log('| comparison | each run | median |');
console.log('|---|---|---:|');
const { names } = runs[0].versions;
for (const [i, { ours, sdk }] of runs[0].versions.pairs.entries()) {
  const pairOf = (run) => run.versions.pairs[i];
  row(`${names[ours]} vs ${names[sdk]}, request/response`, (run) => pairOf(run).send);
  row(`${names[ours]} vs ${names[sdk]}, 100-chunk streams`, (run) => pairOf(run).streams100);
  row(`${names[ours]} vs ${names[sdk]}, 10,000-chunk stream`, (run) => pairOf(run).stream10k);
}
for (const ours of ['ours01', 'ours03', 'ours10', 'ours10rest', 'sdk03']) {
  row(`${names[ours]} vs bare Express, request/response`, (run) => run.versions.send[ours].ratio);
}
