#!/usr/bin/env node
'use strict';
// Built by `npm ci` (the root "prepare" script runs the build): the bundle where it is up to date
// (a faster start), else the TypeScript build's modules.
if (!require('./bundle').command.run()) require('../dist/main.js');
