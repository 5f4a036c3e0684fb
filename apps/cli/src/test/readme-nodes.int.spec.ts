import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** The README's "Storage on other machines" scripts, as printed: the nodes, and the mapped collection that continues it before its last line. */
function scripts(): { nodes: string; mapped: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Storage on other machines');
  const text = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const [nodes, mapped] = [...text.matchAll(/```bash\n([\s\S]*?)```/g)].map((found) => found[1]!);
  if (nodes === undefined || mapped === undefined) throw new Error("the README's section on nodes has not its two bash blocks");
  return { nodes, mapped };
}

/** The local accounts the README's mapped collection makes (removed after). */
const ACCOUNTS = ['xfer-alice', 'xfer-bob'];

/**
 * Run as printed in an empty folder of the checkout (where `npx xfer` finds the command), in a
 * network namespace of its own: its fixed ports (8080, 8081, 9441, 9442) are free there whatever
 * else runs on this machine.
 */
describe("the README's two nodes on one machine, as printed", () => {
  let dir: string;
  beforeEach(() => {
    for (const account of ACCOUNTS) expect(spawnSync('id', [account]).status).not.toBe(0);
    dir = mkdtempSync(join(ROOT, '.readme-nodes-'));
    // an empty folder of a checkout, as a person's: its accounts pass through it to their homes
    chmodSync(dir, 0o755);
  });
  afterEach(() => {
    for (const account of ACCOUNTS) spawnSync('userdel', [account]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers and starts two nodes, makes a mapped collection through a node\'s Manager API, binds an endpoint to each, writes and reads a file over HTTPS, lists it through the API and moves it node to node; serves each person\'s home as their account', async () => {
    const { nodes, mapped } = scripts();
    const printed = nodes.trimEnd().split('\n');
    // the mapped collection's block, before the nodes' block's last line (which stops them)
    const script = [...printed.slice(0, -1), mapped, printed.at(-1)!].join('\n');
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('unshare', ['-n', '--', 'bash', '-c', `ip link set lo up && exec bash -e -c "$0"`, script], { cwd: dir, env: { ...process.env, HOST: '127.0.0.1' }, timeout: 120_000 }, (error, out, err) =>
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
    // alice made a folder in her home as xfer-alice; bob may not list it, and his upload is his
    expect(lines).toEqual(expect.arrayContaining(['Updated', 'DirectoryCreated', 'EndpointPermissionDenied', 'GCSv5_mapped_collection']));
    expect(lines).toContain('xfer-alice homes/alice/papers');
    expect(lines).toContain('xfer-bob homes/bob/run1.csv');
    expect(readFileSync(join(dir, 'homes', 'bob', 'run1.csv'), 'utf8')).toBe('t,v\n');
  });
});
