'use strict';
module.exports = require('./jest.global-setup').teardown;
