import { ConsoleSessions, type ConsoleSession } from './sessions';

const person = (id: string) => ({ id, username: `${id}@example.org`, name: null });
const tokens = (n: string) => ({ transfer: `t-${n}`, auth: `a-${n}`, access: [`t-${n}`, `a-${n}`], refresh: [`r-${n}`] });

describe("the console's sessions", () => {
  /** Sessions whose ends are recorded, with a clock the test moves. */
  function recorded(options = { idleSeconds: 60, perPerson: 2 }) {
    const clock = { now: 0 };
    const ended: string[] = [];
    const sessions = new ConsoleSessions(async (s: ConsoleSession) => void ended.push(s.tokens.refresh[0]), options, () => clock.now);
    return { sessions, ended, clock };
  }

  it('end after their idle time, every use starting it again, and their tokens are given up when they do', () => {
    const { sessions, ended, clock } = recorded();
    const session = sessions.create(person('alice'), tokens('1'));
    clock.now = 59_000;
    expect(sessions.find(session.id)).toBe(session);
    clock.now = 118_000;
    expect(sessions.find(session.id)).toBe(session);
    clock.now = 178_001;
    expect(sessions.find(session.id)).toBeNull();
    expect(sessions.size).toBe(0);
    expect(ended).toEqual(['r-1']);
  });

  it('end idle sessions nobody asks for again too, when the next request comes a minute later', () => {
    const { sessions, ended, clock } = recorded();
    sessions.create(person('alice'), tokens('1'));
    clock.now = 61_000;
    const bob = sessions.create(person('bob'), tokens('2'));
    expect(ended).toEqual(['r-1']);
    expect(sessions.size).toBe(1);
    expect(sessions.find(bob.id)).toBe(bob);
  });

  it("keep at most perPerson sessions of one person, their least recently used going first; nobody else's", () => {
    const { sessions, ended } = recorded();
    const [a, b] = [sessions.create(person('alice'), tokens('a')), sessions.create(person('alice'), tokens('b'))];
    const bob = sessions.create(person('bob'), tokens('bob'));
    expect(sessions.find(a.id)).toBe(a);
    const c = sessions.create(person('alice'), tokens('c'));
    expect([sessions.find(a.id), sessions.find(b.id), sessions.find(c.id), sessions.find(bob.id)]).toEqual([a, null, c, bob]);
    expect(ended).toEqual(['r-b']);
    // many sign-ins of someone else never end bob's
    for (let i = 0; i < 50; i++) sessions.create(person('mallory'), tokens(`m${i}`));
    expect(sessions.find(bob.id)).toBe(bob);
    expect(sessions.size).toBe(5);
  });

  it('find nothing for no cookie, an unknown one, or one that ended; end each once; end all when the process stops', async () => {
    const { sessions, ended } = recorded();
    const session = sessions.create(person('alice'), tokens('1'));
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.find(undefined)).toBeNull();
    expect(sessions.find('not-a-session')).toBeNull();
    await sessions.end(session);
    await sessions.end(session);
    expect(sessions.find(session.id)).toBeNull();
    expect(ended).toEqual(['r-1']);
    sessions.create(person('alice'), tokens('2'));
    sessions.create(person('bob'), tokens('3'));
    await sessions.endAll();
    expect(sessions.size).toBe(0);
    expect(ended.sort()).toEqual(['r-1', 'r-2', 'r-3']);
  });
});
