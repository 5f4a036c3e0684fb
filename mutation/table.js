'use strict';
// Prints the README's mutation table from the last Stryker run (reports/mutation/mutation.json).
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '..');
const report = JSON.parse(readFileSync(join(root, 'reports/mutation/mutation.json'), 'utf8'));
const KILLED = new Set(['Killed', 'Timeout']);
const COUNTED = (status) => !['CompileError', 'RuntimeError', 'Ignored'].includes(status);
const percent = (part, whole) => `${((100 * part) / whole).toFixed(1)}%`;

const rows = Object.entries(report.files)
  .map(([file, { mutants }]) => {
    const count = (test) => mutants.filter((m) => test(m.status)).length;
    return {
      file: relative(join(root, 'packages/core/src'), join(root, file)).replace(/\\/g, '/'),
      killed: count((s) => KILLED.has(s)),
      survived: count((s) => s === 'Survived'),
      unreached: count((s) => s === 'NoCoverage'),
      counted: count(COUNTED),
    };
  })
  .filter((row) => row.counted > 0)
  .sort((a, b) => a.file.localeCompare(b.file, 'en', { sensitivity: 'base' }));

const total = rows.reduce((sum, row) => ({ killed: sum.killed + row.killed, survived: sum.survived + row.survived, unreached: sum.unreached + row.unreached, counted: sum.counted + row.counted }), { killed: 0, survived: 0, unreached: 0, counted: 0 });
const lines = ['| file | score | killed + timed out | survived | not reached |', '|---|---|---|---|---|'];
for (const row of rows) lines.push(`| ${row.file} | ${percent(row.killed, row.counted)} | ${row.killed} | ${row.survived} | ${row.unreached} |`);
lines.push(`| **all** | **${percent(total.killed, total.counted)}** | ${total.killed} | ${total.survived} | ${total.unreached} |`);
const below = rows.filter((row) => row.killed / row.counted < 0.95).map((row) => `${row.file} ${percent(row.killed, row.counted)}`);
console.log(lines.join('\n'));
console.error(`${rows.length} files, ${total.counted} mutants; below 95%: ${below.length === 0 ? 'none' : below.join(', ')}`);
