import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeBrowserSuite, launchTestBrowser } from '@xfer/server-kit/testing';
import type { Browser } from 'playwright-core';

const BIN = join(__dirname, '..', '..', 'bin', 'xfer.js');
const LAB = '3a9d2c1b-7e4f-4a6b-8c5d-1e2f3a4b5c6d';
const PASSWORD = 'a long demo password';

/**
 * A person reaches a node's file in a browser as at a Globus Connect Server collection: the node
 * sends the browser to sign in and consent to the endpoint's https scope, takes the code back on its
 * own registered address, and serves the file (issue 69, "also seen").
 */
describe("a data node's files in a browser", () => {
  let dir: string;
  let child: ChildProcess;
  let browser: Browser;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-node-browser-'));
    mkdirSync(join(dir, 'lab', 'results'), { recursive: true });
    writeFileSync(join(dir, 'lab', 'results', 'run 1.csv'), 't,v\n0,1\n');
    const seed = {
      identities: [{ username: 'alice', password: PASSWORD }],
      tokens: [{ identity: 'alice', value: 'alice-token' }],
      nodes: [{ name: 'lab-node', port: 0 }],
      endpoints: [{ id: LAB, display_name: 'Lab', owner: 'alice', storage: { type: 'node', node: 'lab-node', root: join(dir, 'lab') } }],
    };
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
    child = spawn(process.execPath, [BIN, 'serve', '--ephemeral', '--port', '0', '--seed', 'seed.json'], { cwd: dir, env: { ...process.env, HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`the stand-in exited ${code}: ${stderr}`)));
    });
    browser = await launchTestBrowser();
  }, 60_000);

  afterAll(async () => {
    await closeBrowserSuite(browser, []);
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('follows the node\'s redirect, signs in, consents to the endpoint\'s https scope and downloads the file; the next file needs no sign-in', async () => {
    const endpoint = (await (await fetch(`${url}/v0.10/endpoint/${LAB}`, { headers: { Authorization: 'Bearer alice-token' } })).json()) as { https_server: string };
    // the node's certificate comes from the stand-in's own CA
    const context = await browser.newContext({ ignoreHTTPSErrors: true, acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${endpoint.https_server}/results/run%201.csv`).catch(() => undefined);
    await page.waitForURL(/\/v2\/web\/login\?next=/);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/v2\/web\/authorize\?/);
    // the consent names the endpoint and what its scope allows
    await page.getByText("Read and write the files of 'Lab' over HTTPS").waitFor();
    expect(await page.content()).toContain('Lab (files over HTTPS)');
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Allow' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('run 1.csv');
    expect(readFileSync((await download.path())!, 'utf8')).toBe('t,v\n0,1\n');
    // signed in for the endpoint's files: another opens at once, without the authorization service
    writeFileSync(join(dir, 'lab', 'results', 'run2.csv'), 'second');
    const again = page.waitForEvent('download');
    await page.goto(`${endpoint.https_server}/results/run2.csv`).catch(() => undefined);
    expect(readFileSync((await (await again).path())!, 'utf8')).toBe('second');
    await context.close();
  });
});
