import { ConsoleSessions } from './sessions';

describe("the console's sessions", () => {
  it('end after their idle time, and every use starts it again', () => {
    let now = 0;
    const sessions = new ConsoleSessions({ idleSeconds: 60, limit: 10 }, () => now);
    const session = sessions.create();
    now = 59_000;
    expect(sessions.find(session.id)).toBe(session);
    now = 118_000;
    expect(sessions.find(session.id)).toBe(session);
    now = 178_001;
    expect(sessions.find(session.id)).toBeNull();
    expect(sessions.size).toBe(0);
  });

  it('keep at most their limit, the least recently used going first', () => {
    const sessions = new ConsoleSessions({ idleSeconds: 60, limit: 2 }, () => 0);
    const [a, b] = [sessions.create(), sessions.create()];
    expect(sessions.find(a.id)).toBe(a);
    const c = sessions.create();
    expect([sessions.find(a.id), sessions.find(b.id), sessions.find(c.id)]).toEqual([a, null, c]);
  });

  it('find nothing for no cookie, an unknown one, or one that ended', () => {
    const sessions = new ConsoleSessions();
    const session = sessions.create();
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.find(undefined)).toBeNull();
    expect(sessions.find('not-a-session')).toBeNull();
    sessions.end(session);
    expect(sessions.find(session.id)).toBeNull();
  });
});
