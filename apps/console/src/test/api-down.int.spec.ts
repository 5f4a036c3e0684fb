import { signInOverHttp, startConsoleWorld, type ConsoleWorld } from './harness';

/** The console when the API does not answer: a page that says so, never an internal error. */
describe('the web console with its API out of reach', () => {
  let world: ConsoleWorld;
  // nothing listens on port 9 of this machine (discard)
  beforeAll(async () => (world = await startConsoleWorld({ apiUrl: 'http://127.0.0.1:9' })));
  afterAll(() => world.close());

  it('answers 502 with a page naming the service that did not answer', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const page = await agent.get('/console/search?scope=my-endpoints');
    expect(page.status).toBe(502);
    expect(page.text).toContain('<h1>Service unavailable</h1>');
    expect(page.text).toContain('The service at http://127.0.0.1:9 did not answer. Try again in a moment.');
  });
});
