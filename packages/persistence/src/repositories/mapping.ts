import { In, QueryFailedError, type EntityManager, type EntitySchema, type ObjectLiteral } from 'typeorm';

export const toTime = (date: Date): string => date.toISOString();
export const toTimeOrNull = (date: Date | null): string | null => (date === null ? null : date.toISOString());
export const fromTime = (value: string): Date => new Date(value);
export const fromTimeOrNull = (value: string | null): Date | null => (value === null ? null : new Date(value));

/**
 * Deletes at most `limit` rows whose time column (ISO 8601 text, which sorts as time) is before
 * `before`; returns how many. Bounded, so a purge never holds a long lock.
 */
export async function purgeBefore<R extends ObjectLiteral>(manager: EntityManager, schema: EntitySchema<R>, key: keyof R & string, column: keyof R & string, before: Date, limit: number): Promise<number> {
  const rows = (await manager.createQueryBuilder(schema, 'r').select(`r.${key}`, 'k').where(`r.${column} < :before`, { before: toTime(before) }).limit(limit).getRawMany()) as { k: unknown }[];
  if (rows.length === 0) return 0;
  await manager.delete(schema, { [key]: In(rows.map((r) => r.k)) } as never);
  return rows.length;
}

/** SQLite hands booleans back as 0/1. */
export const bool = (value: unknown): boolean => value === true || value === 1 || value === '1' || value === 't';
export const boolOrNull = (value: unknown): boolean | null => (value === null || value === undefined ? null : bool(value));

/**
 * When `error` is a unique-constraint violation, the constraint or the columns it names
 * (Postgres gives the index name, SQLite the columns); otherwise null.
 */
export function uniqueViolation(error: unknown): string | null {
  if (!(error instanceof QueryFailedError)) return null;
  const driverError = (error as QueryFailedError & { driverError?: { code?: string; constraint?: string; message?: string } }).driverError;
  if (driverError?.code === '23505') return driverError.constraint ?? 'unique';
  if (driverError?.code === 'SQLITE_CONSTRAINT_UNIQUE' || driverError?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return driverError.message ?? 'unique';
  }
  return null;
}
