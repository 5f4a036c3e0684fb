import { inMemory, onSqlite } from './embedCore';

describe("the README's example of embedding the core", () => {
  it.each([
    ['in memory', inMemory],
    ['on SQLite', () => onSqlite()],
  ])('creates, changes and reads an endpoint %s', async (_where, run) => {
    const result = await run();
    expect(result).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      displayName: "Ada's lab",
      description: 'Where the data lives',
      servers: [1],
      roles: ['administrator'],
    });
  });
});
