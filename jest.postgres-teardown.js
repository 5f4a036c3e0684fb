'use strict';
module.exports = require('./jest.postgres').teardown;
