import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** The README's "Storage on other machines" script, as printed. */
function script(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Storage on other machines');
  const text = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const found = /```bash\n([\s\S]*?)```/.exec(text);
  if (!found) throw new Error("the README's section on nodes has no bash block");
  return found[1]!;
}

/**
 * Run as printed in an empty folder of the checkout (where `npx xfer` finds the command), in a
 * network namespace of its own: its fixed ports (8080, 8081, 9441, 9442) are free there whatever
 * else runs on this machine.
 */
describe("the README's two nodes on one machine, as printed", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(ROOT, '.readme-nodes-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('registers and starts two nodes, makes a mapped collection through a node\'s Manager API, binds an endpoint to each, writes and reads a file over HTTPS, lists it through the API and moves it node to node', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('unshare', ['-n', '--', 'bash', '-c', `ip link set lo up && exec bash -e -c "$0"`, script()], { cwd: dir, env: { ...process.env, HOST: '127.0.0.1' }, timeout: 120_000 }, (error, out, err) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err }),
      );
    });
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.split('\n');
    // the lab node's administrator made a gateway and a mapped collection through its Manager API; Transfer shows it, owned by the node
    const labNode = (JSON.parse(readFileSync(join(dir, 'lab.json'), 'utf8')) as { id: string }).id;
    expect(lines).toContain('mapped Lab data');
    expect(lines).toContain(`GCSv5_mapped_collection owned by ${labNode}`);
    expect(lines).toContain('run0.csv');
    expect(lines).toContain('{"DATA_TYPE":"https_upload","path":"/results/run1.csv","bytes":4}');
    expect(lines).toContain('t,v');
    const listing = JSON.parse(lines.find((line) => line.startsWith('{"DATA_TYPE":"file_list"'))!) as { DATA: { name: string; size: number }[] };
    expect(listing.DATA.map((entry) => [entry.name, entry.size])).toEqual([['run1.csv', 4]]);
    expect(readFileSync(join(dir, 'lab-storage', 'results', 'run1.csv'), 'utf8')).toBe('t,v\n');
    expect(readFileSync(join(dir, 'lab.log'), 'utf8').split('\n')[0]).toBe('https://localhost:9441');
    expect(lines).toContain('SUCCEEDED: 1 file(s), 4 bytes');
    expect(readFileSync(join(dir, 'archive-storage', 'results', 'run1.csv'), 'utf8')).toBe('t,v\n');
  });
});
