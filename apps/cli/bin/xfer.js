#!/usr/bin/env node
'use strict';
// Built by `npm ci` (the root "prepare" script runs the TypeScript build).
require('../dist/main.js');
