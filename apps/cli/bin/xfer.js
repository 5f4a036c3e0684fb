#!/usr/bin/env node
'use strict';
// Built by `npm ci` (the root "prepare" script runs the build): the bundle where it is up to date
// (a faster start), else the TypeScript build's modules. A data node (`xfer node serve`) runs
// long and lean: it loads only the modules it uses, not the whole bundle (its memory is its host's).
const args = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const lean = args[0] === 'node' && args[1] === 'serve';
if (lean || !require('./bundle').command.run()) require('../dist/main.js');
