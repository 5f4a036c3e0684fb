import { BadRequestError, isUuid, type EndpointSearchRequest, type ShareCursor } from '@xfer/core';
import { firstValue as first } from '@xfer/server-kit';

export const MAX_SHARES_PAGE = 1000;


/** next_token is opaque to clients: the cursor as base64url JSON. */
export function encodeShareCursor(cursor: ShareCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.id])).toString('base64url');
}

function decodeShareCursor(token: string): ShareCursor {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as [unknown, unknown];
    const date = typeof createdAt === 'string' ? new Date(createdAt) : new Date(NaN);
    if (typeof id === 'string' && isUuid(id) && !Number.isNaN(date.getTime())) return { createdAt: date, id };
  } catch {
    // fall through
  }
  throw new BadRequestError('Invalid next_token: pass it back as it came');
}

/** `max_results` (1-1000, default 1000) and `next_token` of shared_endpoint_list. */
export function sharesPage(query: Record<string, unknown>): { after: ShareCursor | null; limit: number } {
  const max = first(query.max_results);
  if (max !== undefined && (!/^\d{1,4}$/.test(max) || Number(max) < 1 || Number(max) > MAX_SHARES_PAGE)) {
    throw new BadRequestError(`Invalid max_results '${max.slice(0, 20)}': a number from 1 to ${MAX_SHARES_PAGE}`);
  }
  const token = first(query.next_token);
  return { after: token ? decodeShareCursor(token) : null, limit: max === undefined ? MAX_SHARES_PAGE : Number(max) };
}

/** `true/false/1/0`, or undefined when absent. */
export function flag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new BadRequestError(`Invalid ${name} '${value.slice(0, 20)}': true, false, 1 or 0`);
}

export function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,7}$/.test(value)) throw new BadRequestError(`Invalid ${name} '${value.slice(0, 20)}': a whole number`);
  return Number(value);
}

/** The query of `GET /endpoint_search` as a search request (the domain checks the values). */
export function searchRequest(query: Record<string, unknown>): EndpointSearchRequest {
  const text = (name: string) => first(query[name]);
  return {
    fulltext: text('filter_fulltext'),
    scope: text('filter_scope'),
    ownerId: text('filter_owner_id'),
    hostEndpointId: text('filter_host_endpoint'),
    nonFunctional: flag('filter_non_functional', text('filter_non_functional')),
    entityType: text('filter_entity_type'),
    limit: integer('limit', text('limit')),
    offset: integer('offset', text('offset')),
  };
}

/** The query of `GET /endpoint_manager/pause_rule_list`: `filter_endpoint` (comma-joined ids), `offset` and `limit`. */
export function pauseRuleListQuery(query: Record<string, unknown>): { filter: string[] | undefined; offset: number | undefined; limit: number | undefined } {
  const filter = first(query.filter_endpoint);
  return {
    filter: filter?.split(',').map((s) => s.trim()).filter(Boolean),
    offset: integer('offset', first(query.offset)),
    limit: integer('limit', first(query.limit)),
  };
}
