import { randomUUID } from 'node:crypto';

export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  /** A new 36-character UUID. */
  uuid(): string;
}

export const systemClock: Clock = { now: () => new Date() };
export const randomIdGenerator: IdGenerator = { uuid: () => randomUUID() };
