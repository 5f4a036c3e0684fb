import type { FileService } from '@xfer/core';
import type { Router } from 'express';
import { principalOf } from './authenticate';
import { sendResult } from './results';
import { decodeMkdir, decodeRename, fileDocument, fileListDocument, listingQuery, statPath } from './v010/files';

/** Files on endpoints: ls, stat, mkdir and rename under /operation/endpoint/<id>/, with the hosted documents. */
export function fileRoutes(router: Router, files: FileService): Router {

  router.get('/operation/endpoint/:xid/ls', async (req, res) => {
    const { path, options } = listingQuery(req.query);
    res.json(fileListDocument(await files.ls(principalOf(res), req.params.xid, path, options)));
  });

  router.get('/operation/endpoint/:xid/stat', async (req, res) => {
    res.json(fileDocument(await files.stat(principalOf(res), req.params.xid, statPath(req.query))));
  });

  router.post('/operation/endpoint/:xid/mkdir', async (req, res) => {
    await files.mkdir(principalOf(res), req.params.xid, await decodeMkdir(req.body));
    sendResult(req, res, 200, { DATA_TYPE: 'mkdir_result', code: 'DirectoryCreated', message: 'The directory was created successfully' });
  });

  router.post('/operation/endpoint/:xid/rename', async (req, res) => {
    const { oldPath, newPath } = await decodeRename(req.body);
    await files.rename(principalOf(res), req.params.xid, oldPath, newPath);
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'FileRenamed', message: 'File or directory renamed successfully' });
  });

  return router;
}
