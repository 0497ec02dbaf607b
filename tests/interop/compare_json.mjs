// node compare_json.mjs EXPECTED.json ACTUAL.json
//
// Compares two canonical JSON files (README.md) and prints every difference (up to 60) with its
// batch, column and row. Exits 1 when they differ.
import fs from 'node:fs';
import { diffCanonical } from './canonical.mjs';

const [expectedPath, actualPath] = process.argv.slice(2);
if (!expectedPath || !actualPath) {
  console.error('usage: node compare_json.mjs EXPECTED.json ACTUAL.json');
  process.exit(2);
}
const diffs = diffCanonical(JSON.parse(fs.readFileSync(expectedPath, 'utf8')),
  JSON.parse(fs.readFileSync(actualPath, 'utf8')));
if (diffs.length > 0) {
  console.error(`FAIL ${actualPath} differs from ${expectedPath}:`);
  for (const d of diffs) console.error(`  ${d}`);
  process.exit(1);
}
