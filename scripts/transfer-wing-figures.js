#!/usr/bin/env node
'use strict';
/**
 * The figures issue 59 ("transfers get a room of their own") is done by, read from the sources
 * with the TypeScript compiler's parser: `node scripts/transfer-wing-figures.js [checkout]`.
 * Production files only (no *.spec.ts, no test kits).
 */
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const ts = require('typescript');

const ROOT = process.argv[2] ?? join(__dirname, '..');

function sourcesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test' || entry.name === 'testing' ? [] : sourcesUnder(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const parse = (file) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
const linesOf = (file) => readFileSync(file, 'utf8').split('\n').length;
const count = (files, pattern) => files.reduce((sum, file) => sum + (readFileSync(file, 'utf8').match(pattern)?.length ?? 0), 0);

function walk(node, visit) {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

const wing = [...sourcesUnder(join(ROOT, 'packages/core/src/task')), ...sourcesUnder(join(ROOT, 'packages/core/src/transfer'))];
const core = sourcesUnder(join(ROOT, 'packages/core/src'));
const runtime = sourcesUnder(join(ROOT, 'packages/runtime/src'));
const allFiles = (dir) => {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? (entry.name === 'node_modules' || entry.name === 'dist' ? [] : allFiles(join(dir, entry.name))) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
};

let longest = { lines: 0, where: '' };
let requestParameters = 0;
const errorClasses = [];
for (const file of wing) {
  const source = parse(file);
  walk(source, (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > longest.lines) longest = { lines: end - start + 1, where: `${relative(ROOT, file)}:${start + 1}` };
    }
    if (ts.isParameter(node) && node.type && node.type.getText(source) === 'TransferRequest') requestParameters++;
    if (ts.isClassDeclaration(node) && node.heritageClauses?.some((h) => h.types.some((t) => t.expression.getText(source) === 'Error'))) errorClasses.push(node.name?.getText(source) ?? '(anonymous)');
  });
}

const storagePort = join(ROOT, 'packages/core/src/storage/Storage.ts');
let optionalMembers = 0;
walk(parse(storagePort), (node) => {
  if (ts.isInterfaceDeclaration(node) && node.name.text === 'Storage') optionalMembers = node.members.filter((m) => m.questionToken !== undefined).length;
});
let withoutFeatures = 0;
// test kits included (core's fake is held to the contract too), specs aside
for (const file of ['packages', 'apps'].flatMap((top) => allFiles(join(ROOT, top))).filter((f) => !f.endsWith('.spec.ts') && !f.endsWith('.d.ts'))) {
  walk(parse(file), (node) => {
    if (!ts.isClassDeclaration(node) || !node.heritageClauses?.some((h) => h.token === ts.SyntaxKind.ImplementsKeyword && h.types.some((t) => t.expression.getText() === 'Storage'))) return;
    if (!node.members.some((m) => m.name?.getText() === 'features')) withoutFeatures++;
  });
}

const production = ['packages', 'apps'].flatMap((top) => (existsSync(join(ROOT, top)) ? readdirSync(join(ROOT, top)).flatMap((name) => sourcesUnder(join(ROOT, top, name, 'src'))) : []));
const outsideWing = production.filter((f) => !wing.includes(f));
const outsideCore = production.filter((f) => !f.startsWith(join(ROOT, 'packages/core/')));
const largest = wing.map((file) => ({ file, lines: linesOf(file) })).sort((a, b) => b.lines - a.lines)[0];
const runner = join(ROOT, 'packages/core/src/task/TaskRunner.ts');
const figures = [
  ['TaskRunner.ts lines', existsSync(runner) ? linesOf(runner) : 0, '<= 150'],
  [`largest production file in core/task + core/transfer (${largest ? relative(ROOT, largest.file) : '-'})`, largest?.lines ?? 0, '<= 250'],
  [`longest function there (${longest.where})`, longest.lines, '<= 50'],
  ['`request: TransferRequest` parameters', requestParameters, '0'],
  [`exception classes for control flow (${errorClasses.join(', ') || 'none'})`, errorClasses.length, '0'],
  ['files in core/transfer importing ../task/', sourcesUnder(join(ROOT, 'packages/core/src/transfer')).filter((f) => /from '\.\.\/task\//.test(readFileSync(f, 'utf8'))).length, '0'],
  ['task-repository calls in packages/runtime', count(runtime, /repositories\.tasks\./g), '0'],
  ['PER_USER in packages/runtime', count(runtime, /\bPER_USER\b/g), '0'],
  ['optional methods on the Storage port', optionalMembers, '0'],
  ['Storage implementations without features', withoutFeatures, '0'],
  ['files naming describeStorageContract', ['packages', 'apps'].flatMap((top) => allFiles(join(ROOT, top))).filter((f) => readFileSync(f, 'utf8').includes('describeStorageContract')).length, '>= 3'],
  ['`stopping` in core/task', count(sourcesUnder(join(ROOT, 'packages/core/src/task')), /\bstopping\b/g), '0'],
  ["hosted wire words in core (orderby, 'DATA', TaskRequestNames)", count(core, /\borderby\b|'DATA'|\bTaskRequestNames\b/g), '0'],
  // issue 69: storages copy, core decides
  ['production files outside core/transfer + core/task naming the skip list', outsideWing.filter((f) => /skippedSourceFailures|skipSourceFailures|SKIPPABLE_SOURCE_FAILURES|ALWAYS_SKIPPED|skipSourceCodes/.test(readFileSync(f, 'utf8'))).length, '<= 1'],
  ['places outside core applying the stop rule (halts, stoppedAt, skip codes)', count(outsideCore, /\bhalts\b|\bstoppedAt\b|skipSourceCodes\.includes/g), '0'],
  ['codesOf / failureOfCode', count(outsideCore, /\bcodesOf\b|\bfailureOfCode\b/g), '0'],
  ['apps/node/src/copy/pull.ts lines', existsSync(join(ROOT, 'apps/node/src/copy/pull.ts')) ? linesOf(join(ROOT, 'apps/node/src/copy/pull.ts')) : 0, '<= 150'],
];
const width = Math.max(...figures.map(([name]) => name.length));
for (const [name, value, target] of figures) console.log(`${name.padEnd(width)}  ${String(value).padStart(4)}  (target ${target})`);
