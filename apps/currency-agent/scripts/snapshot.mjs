#!/usr/bin/env node
// Refreshes src/rates-snapshot.ts from the live Frankfurter API (needs network access):
//   pnpm --filter currency-agent run snapshot
import { readFileSync, writeFileSync } from 'node:fs';
const base = (process.env.FRANKFURTER_URL || 'https://api.frankfurter.dev/v1').replace(/\/+$/, '');
const response = await fetch(`${base}/latest?from=EUR`, { signal: AbortSignal.timeout(10_000) });
if (!response.ok) throw new Error(`HTTP ${response.status}`);
const { date, rates } = await response.json();
const file = new URL('../src/rates-snapshot.ts', import.meta.url);
const entries = Object.entries({ ...rates, EUR: 1 })
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([code, rate]) => `${code}: ${rate}`);
const text = readFileSync(file, 'utf8')
  .replace(/date: '[^']*'/, `date: '${date}'`)
  .replace(/rates: \{[\s\S]*?\} as Record/, `rates: {\n    ${entries.join(', ')},\n  } as Record`);
writeFileSync(file, text);
console.log(`snapshot of ${date}: ${entries.length} currencies`);
