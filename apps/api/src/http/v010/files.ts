import { BadRequestError, octal, type FileEntry, type Listing, type ListingOptions } from '@xfer/core';
import { firstValue as first } from '@xfer/server-kit';
import { IsOptional, IsString } from 'class-validator';
import { parseListingFilter, parseListingOrder } from './listing';
import { flag, integer } from './paging';
import { checkDataType } from './requests';
import { parseBody } from './validation';

/** A query value that may come once or repeated (the SDK sends one `filter` per list item). */
function texts(name: string, value: unknown): string | string[] | undefined {
  if (value === undefined) return undefined;
  const values = Array.isArray(value) ? value : [value];
  if (values.length > 20 || !values.every((v): v is string => typeof v === 'string')) throw new BadRequestError(`Invalid ${name}: at most 20 values, each text`);
  return values.length === 1 ? values[0] : values;
}

/** The query of `GET .../ls`: path, show_hidden, limit, offset, orderby, filter (local_user is accepted and has no effect here). */
export function listingQuery(query: Record<string, unknown>): { path: string | undefined; options: ListingOptions } {
  return {
    path: first(query.path),
    options: {
      showHidden: flag('show_hidden', first(query.show_hidden)),
      limit: integer('limit', first(query.limit)),
      offset: integer('offset', first(query.offset)),
      order: parseListingOrder(texts('orderby', query.orderby)),
      filter: parseListingFilter(texts('filter', query.filter)),
    },
  };
}

/** `stat?path=`: the path is required. */
export function statPath(query: Record<string, unknown>): string {
  const path = first(query.path);
  if (path === undefined || path === '') throw new BadRequestError("Missing 'path': the file or directory to describe");
  return path;
}

export class MkdirDto {
  @IsOptional() @IsString() DATA_TYPE?: string;
  @IsString() path!: string;
  @IsOptional() @IsString() local_user?: string;
}

export class RenameDto {
  @IsOptional() @IsString() DATA_TYPE?: string;
  @IsString() old_path!: string;
  @IsString() new_path!: string;
  @IsOptional() @IsString() local_user?: string;
}

export async function decodeMkdir(raw: unknown): Promise<string> {
  const body = await parseBody(MkdirDto, raw);
  checkDataType(body, 'mkdir');
  return body.path as string;
}

export async function decodeRename(raw: unknown): Promise<{ oldPath: string; newPath: string }> {
  const body = await parseBody(RenameDto, raw);
  checkDataType(body, 'rename');
  return { oldPath: body.old_path as string, newPath: body.new_path as string };
}

/** Times as the file documents write them: "YYYY-MM-DD HH:MM:SS+00:00". */
function fileTime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, '+00:00');
}

/** A `file` document, every field of the hosted one. */
export function fileDocument(entry: FileEntry) {
  return {
    DATA_TYPE: 'file' as const,
    name: entry.name,
    type: entry.type,
    link_target: entry.link?.target ?? null,
    link_size: entry.link?.size ?? null,
    link_last_modified: entry.link ? fileTime(entry.link.lastModified) : null,
    link_user: entry.link?.user ?? null,
    link_group: entry.link?.group ?? null,
    size: entry.size,
    last_modified: fileTime(entry.lastModified),
    permissions: octal(entry.permissions),
    user: entry.user,
    group: entry.group,
  };
}

/** A `file_list` document: one page of a directory. */
export function fileListDocument(listing: Listing) {
  return {
    DATA_TYPE: 'file_list' as const,
    endpoint: listing.endpointId,
    path: listing.path,
    absolute_path: listing.absolutePath,
    rename_supported: true,
    // xfer makes no symbolic links (the hosted symlink operation): listings still show those a posix directory holds
    symlink_supported: false,
    length: listing.entries.length,
    total: listing.total,
    offset: listing.offset,
    limit: listing.limit,
    DATA: listing.entries.map(fileDocument),
  };
}
