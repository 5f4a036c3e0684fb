'use strict';
// The stack's floor for one authenticated read's worth of work (issue 58): bare Express 5, one
// prepared better-sqlite3 read from an in-memory table holding exactly the document xfer answered
// (DOCUMENT), and res.json(JSON.parse(doc)). No authentication, no roles, no logs.
const express = require('express');
const Database = require('better-sqlite3');

const db = new Database(':memory:');
db.exec('CREATE TABLE e (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
db.prepare('INSERT INTO e (id, doc) VALUES (?, ?)').run('endpoint-1', process.env.DOCUMENT);
const read = db.prepare('SELECT doc FROM e WHERE id = ?');

const app = express();
app.get('/e/:id', (req, res) => {
  const row = read.get(req.params.id);
  if (!row) return res.status(404).json({ code: 'EndpointNotFound' });
  res.json(JSON.parse(row.doc));
});
app.get('/healthz', (_req, res) => res.json({ status: 'ok' }));
app.listen(Number(process.env.PORT), '127.0.0.1');
