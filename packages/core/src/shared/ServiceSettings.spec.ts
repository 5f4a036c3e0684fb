import { newMaintenance } from './ServiceSettings';

describe('maintenance mode', () => {
  const now = new Date('2026-01-02T03:04:05.000Z');

  it('says the service is down, retry in five minutes, unless told otherwise', () => {
    expect(newMaintenance(undefined, undefined, now)).toEqual({ message: 'The service is down for maintenance.', retry_after_seconds: 300, since: now });
    expect(newMaintenance('Moving racks', 86400, now)).toEqual({ message: 'Moving racks', retry_after_seconds: 86400, since: now });
  });

  it('takes a message of one line, at most 1024 characters', () => {
    expect(newMaintenance('é'.repeat(1024), 1, now).message).toHaveLength(1024);
    expect(() => newMaintenance('a'.repeat(1025), 1, now)).toThrow('Invalid message: must be at most 1024 characters');
    expect(() => newMaintenance('down\nfor a while', 1, now)).toThrow('Invalid message: must not contain new lines');
  });

  it('takes a retry-after of 1 second to a day', () => {
    expect(() => newMaintenance(undefined, 0, now)).toThrow(/^Invalid retry-after/);
    expect(() => newMaintenance(undefined, 86401, now)).toThrow(/^Invalid retry-after/);
  });
});
