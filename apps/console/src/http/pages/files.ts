import type { Request } from 'express';
import { ApiError, type Json } from '../api';
import { listed, submitted, text, type EndpointPage, type Errors, type PageGroup } from './kit';

/** The API's refusal of a folder that exists: said beside the name typed. */
const MKDIR_EXISTS = 'ExternalError.MkdirFailed.Exists';

/**
 * A call of a file operation, where the API's 404 `NotFound` names a path (a folder gone, a name
 * mistyped), not a page: said on the page like any other refusal.
 */
async function fileCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'NotFound') throw new ApiError(400, error.code, error.message);
    throw error;
  }
}

/** Entries on one page of the Files tab. */
const PAGE_SIZE = 100;

/** The folder a page shows: the `path` asked for (the API's `/~/`, the home, when none). */
const askedPath = (req: Request): string => {
  const path = typeof req.query.path === 'string' ? req.query.path : '';
  return path === '' ? '/~/' : path;
};
const askedOffset = (req: Request): number => {
  const offset = Number(req.query.offset);
  return Number.isSafeInteger(offset) && offset > 0 ? offset : 0;
};

const withSlash = (path: string) => (path.endsWith('/') ? path : `${path}/`);
const parentOf = (dir: string): string | null => (dir === '/' ? null : dir.replace(/[^/]+\/$/, ''));
const folderOf = (path: string): string => path.replace(/\/+$/, '').replace(/[^/]*$/, '') || '/';
const filesHref = (ep: Json, path: string, offset = 0) => `/endpoints/${String(ep.id)}/files?path=${encodeURIComponent(path)}${offset > 0 ? `&offset=${offset}` : ''}`;

/** The folders of `dir` from the root, each with its own path, for the crumbs above a listing. */
function crumbsOf(dir: string): { name: string; path: string }[] {
  const crumbs = [{ name: '/', path: '/' }];
  let path = '/';
  for (const name of dir.split('/').filter((part) => part !== '')) {
    path += `${name}/`;
    crumbs.push({ name, path });
  }
  return crumbs;
}

/** A size as people read it. */
function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** One folder's page: its entries (folders first, by name), the way up, pages of PAGE_SIZE, the forms. */
async function showFolder(page: EndpointPage, asked: string, offset: number, values: Record<string, unknown>, errors: Errors, status?: number) {
  const id = String(page.ep.id);
  const { items: listing, error } = await listed<Json | null>(() => fileCall(() => page.api.transfer('GET', `/operation/endpoint/${id}/ls`, undefined, { path: asked, offset, limit: PAGE_SIZE, orderby: 'type ASC,name ASC' })), null);
  const dir = listing ? String(listing.path) : asked;
  const entries = ((listing?.DATA ?? []) as Json[]).map((entry) => {
    const name = String(entry.name);
    const isDir = entry.type === 'dir';
    return {
      name,
      isDir,
      href: isDir ? `/console${filesHref(page.ep, `${dir}${name}/`)}` : null,
      renameHref: `/console/endpoints/${id}/files/rename?path=${encodeURIComponent(dir)}&name=${encodeURIComponent(name)}`,
      transferHref: `/console/endpoints/${id}/files/transfer?path=${encodeURIComponent(dir)}&name=${encodeURIComponent(name)}`,
      size: isDir ? '' : sizeText(Number(entry.size ?? 0)),
      lastModified: String(entry.last_modified ?? ''),
      type: String(entry.type),
      permissions: String(entry.permissions ?? ''),
    };
  });
  const total = Number(listing?.total ?? 0);
  const up = listing ? parentOf(dir) : null;
  page.show(
    'files.njk',
    {
      heading: 'Files',
      dir,
      listing: listing !== null,
      error,
      entries,
      crumbs: listing ? crumbsOf(dir) : [],
      upHref: up === null ? null : `/console${filesHref(page.ep, up)}`,
      range: total === 0 ? null : { from: offset + 1, to: offset + entries.length, total },
      previousHref: offset > 0 ? `/console${filesHref(page.ep, dir, Math.max(0, offset - PAGE_SIZE))}` : null,
      nextHref: offset + entries.length < total ? `/console${filesHref(page.ep, dir, offset + PAGE_SIZE)}` : null,
      values,
      errors,
    },
    status,
  );
}

/** A name typed for a new folder or a rename: one path component, or what to say beside its field. */
function nameError(name: string): string | null {
  if (name === '') return 'Give a name.';
  if (name.includes('/')) return 'A name cannot contain /.';
  if (name === '.' || name === '..') return `'${name}' is not a name.`;
  return null;
}

/**
 * An endpoint's Files tab: list a folder of its storage, open folders, make a folder, rename (or
 * move) an entry. The API decides who may do what (its refusals shown as they come).
 */
export const filePages: PageGroup = (router, { endpointPage, form }) => {
  router.get('/endpoints/:id/files', endpointPage('files', (page, req) => showFolder(page, askedPath(req), askedOffset(req), {}, {})));

  router.post(
    '/endpoints/:id/files/mkdir',
    ...form,
    endpointPage('files', async (page, req) => {
      const body = req.body as Record<string, unknown>;
      const dir = withSlash(text(body.path) || '/~/');
      const name = text(body.name);
      const again = (errors: Errors) => showFolder(page, dir, 0, body, errors, 400);
      const invalid = nameError(name);
      if (invalid) return again({ name: invalid });
      await submitted(
        async () => {
          try {
            await fileCall(() => page.api.transfer('POST', `/operation/endpoint/${String(page.ep.id)}/mkdir`, { DATA_TYPE: 'mkdir', path: `${dir}${name}/` }));
          } catch (error) {
            if (error instanceof ApiError && error.code === MKDIR_EXISTS) return again({ name: `A file or folder named '${name}' is already here.` });
            throw error;
          }
          page.redirect(filesHref(page.ep, dir), `Folder '${name}' made.`);
        },
        again,
        { path: 'name' },
      );
    }),
  );

  const showRename = (page: EndpointPage, dir: string, name: string, values: Record<string, unknown>, errors: Errors, status?: number) =>
    page.show('file-rename.njk', { heading: 'Rename', dir, name, backHref: `/console${filesHref(page.ep, dir)}`, values, errors }, status);

  const SYNC_OPTIONS = [
    { value: '', label: 'Copy everything' },
    { value: 'exists', label: 'Skip files that exist at the destination' },
    { value: 'size', label: 'Skip files of the same size' },
    { value: 'mtime', label: 'Skip files not newer than the destination\'s' },
    { value: 'checksum', label: 'Skip files with the same checksum' },
  ];
  const showTransfer = (page: EndpointPage, dir: string, name: string, values: Record<string, unknown>, errors: Errors, status?: number) =>
    page.show('file-transfer.njk', { heading: 'Transfer', dir, name, backHref: `/console${filesHref(page.ep, dir)}`, syncOptions: SYNC_OPTIONS, values, errors }, status);

  router.get(
    '/endpoints/:id/files/transfer',
    endpointPage('files', async (page, req) => {
      const dir = withSlash(askedPath(req));
      const name = typeof req.query.name === 'string' ? req.query.name : '';
      if (nameError(name)) return page.redirect(filesHref(page.ep, dir));
      showTransfer(page, dir, name, { destination_endpoint: String(page.ep.id), destination_path: `${dir}${name}`, sync_level: '', verify_checksum: true }, {});
    }),
  );

  router.post(
    '/endpoints/:id/files/transfer',
    ...form,
    endpointPage('files', async (page, req) => {
      const body = req.body as Record<string, unknown>;
      const dir = withSlash(text(body.path) || '/~/');
      const name = text(body.name);
      if (nameError(name)) return page.redirect(filesHref(page.ep, dir));
      const again = (errors: Errors) => showTransfer(page, dir, name, body, errors, 400);
      const destination = text(body.destination_endpoint);
      const destinationPath = text(body.destination_path);
      if (destination === '') return again({ destination_endpoint: 'Give the id of the endpoint to transfer to.' });
      if (destinationPath === '') return again({ destination_path: 'Give the path to transfer to.' });
      const sync = text(body.sync_level);
      const submitTransfer = async (): Promise<void> => {
        const submission = await page.api.transfer('GET', '/submission_id');
        const answer = await page.api.transfer('POST', '/transfer', {
          DATA_TYPE: 'transfer',
          submission_id: submission.value,
          source_endpoint: page.ep.id,
          destination_endpoint: destination,
          ...(text(body.label) !== '' && { label: text(body.label) }),
          ...(sync !== '' && { sync_level: sync }),
          verify_checksum: body.verify_checksum === 'true',
          DATA: [{ DATA_TYPE: 'transfer_item', source_path: `${dir}${name}`, destination_path: destinationPath }],
        });
        page.redirect(`/activity/${String(answer.task_id)}`, 'Transfer submitted.');
      };
      await submitted(
        () =>
          submitTransfer().catch((error: unknown) => {
            // an endpoint that is not there (or not for this person) is the form's to say, not a missing page
            if (error instanceof ApiError && error.status === 404) return again({ destination_endpoint: error.message });
            throw error;
          }),
        again,
        { destination_endpoint: 'destination_endpoint', source_endpoint: '_form', DATA: 'destination_path', endpoint: 'destination_endpoint' },
      );
    }),
  );

  router.get(
    '/endpoints/:id/files/rename',
    endpointPage('files', async (page, req) => {
      const dir = withSlash(askedPath(req));
      const name = typeof req.query.name === 'string' ? req.query.name : '';
      if (nameError(name)) return page.redirect(filesHref(page.ep, dir));
      showRename(page, dir, name, { new_path: `${dir}${name}` }, {});
    }),
  );

  router.post(
    '/endpoints/:id/files/rename',
    ...form,
    endpointPage('files', async (page, req) => {
      const body = req.body as Record<string, unknown>;
      const dir = withSlash(text(body.path) || '/~/');
      const name = text(body.name);
      const newPath = text(body.new_path);
      if (nameError(name)) return page.redirect(filesHref(page.ep, dir));
      const again = (errors: Errors) => showRename(page, dir, name, body, errors, 400);
      if (newPath === '') return again({ new_path: 'Give the new path (a new name in the same folder, or a path in another).' });
      await submitted(
        async () => {
          await fileCall(() => page.api.transfer('POST', `/operation/endpoint/${String(page.ep.id)}/rename`, { DATA_TYPE: 'rename', old_path: `${dir}${name}`, new_path: newPath.startsWith('/') ? newPath : `${dir}${newPath}` }));
          const target = newPath.startsWith('/') ? folderOf(newPath) : dir;
          page.redirect(filesHref(page.ep, withSlash(target)), `Renamed '${name}'.`);
        },
        again,
        { old_path: 'new_path', path: 'new_path' },
      );
    }),
  );
};
