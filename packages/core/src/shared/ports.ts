import { randomUUID } from 'node:crypto';

export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  /** A new 36-character UUID. */
  uuid(): string;
}

/**
 * Remembers what a read computed until the data it came from may have changed (the persistence
 * adapter knows when): for reads that depend on stored data only, never on the time.
 */
export interface ReadMemo {
  remember<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

/** Remembers nothing: every read is computed afresh. */
export const noReadMemo: ReadMemo = { remember: (_key, compute) => compute() };

export const systemClock: Clock = { now: () => new Date() };
export const randomIdGenerator: IdGenerator = { uuid: () => randomUUID() };
