'use strict';
// `@xfer/helper-pages/settings`: the settings without the web app (see src/settings.ts).
module.exports = require('./dist/settings');
