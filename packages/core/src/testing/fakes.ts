import type { Clock, IdGenerator } from '../shared/ports';

/** A clock that stands still until a test moves it. */
export class FixedClock implements Clock {
  constructor(private current = new Date('2026-01-02T03:04:05.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

/** Predictable UUIDs: 00000000-0000-4000-8000-000000000001, ...02, ... */
export class SequentialIdGenerator implements IdGenerator {
  private next = 1;
  uuid(): string {
    return `00000000-0000-4000-8000-${(this.next++).toString(16).padStart(12, '0')}`;
  }
}
