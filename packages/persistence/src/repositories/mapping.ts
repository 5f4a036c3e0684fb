import { QueryFailedError } from 'typeorm';

export const toTime = (date: Date): string => date.toISOString();
export const toTimeOrNull = (date: Date | null): string | null => (date === null ? null : date.toISOString());
export const fromTime = (value: string): Date => new Date(value);
export const fromTimeOrNull = (value: string | null): Date | null => (value === null ? null : new Date(value));

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
