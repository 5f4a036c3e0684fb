'use strict';
// The floor of this stack: bare Express 5, one prepared read of an endpoint row, and the same endpoint
// document xfer answers (DOCUMENT), in its own process. No authentication, no roles: what one indexed
// read and the document cost, so each scenario can be read against what the stack itself needs.
const express = require('express');

const document = JSON.parse(process.env.DOCUMENT);
const url = process.env.DATABASE_URL;
let read;
if (url.startsWith('sqlite:')) {
  const Database = require('better-sqlite3');
  const db = new Database(url.slice('sqlite:'.length), { readonly: true });
  const statement = db.prepare('SELECT * FROM endpoints WHERE id = ?');
  read = async (id) => statement.get(id);
} else {
  const { Pool } = require('pg');
  const pool = new Pool({ connectionString: url, max: 10 });
  read = async (id) => (await pool.query({ name: 'floor', text: 'SELECT * FROM endpoints WHERE id = $1', values: [id] })).rows[0];
}

const app = express();
app.get('/floor/:id', async (req, res) => {
  const row = await read(req.params.id);
  if (!row) return res.status(404).json({ code: 'EndpointNotFound' });
  res.json({ ...document, display_name: row.display_name });
});
app.get('/healthz', (_req, res) => res.json({ status: 'ok' }));
app.listen(Number(process.env.PORT), '127.0.0.1');
