'use strict';
// `@xfer/console/registration`: the console's client registration without its web app (see src/registration.ts).
module.exports = require('./dist/registration');
