'use strict';
// The ceiling: a bare Express 5 route answering a small JSON document, measured in the same run.
const express = require('express');
const app = express();
app.get('/baseline', (_req, res) => {
  res.json({ DATA_TYPE: 'result', code: 'OK', message: 'A small JSON document', request_id: 'abcdefghi' });
});
app.get('/healthz', (_req, res) => res.json({ status: 'ok' }));
app.listen(Number(process.env.PORT), '127.0.0.1');
