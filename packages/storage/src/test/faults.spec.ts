import { onOneHost, type DirectoryFileCopy, type ListedName } from '@xfer/core';
import { gatheredCopies } from '@xfer/core/testing';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { EndpointStorages } from '..';

/** Every outcome a batch copy told, as the test reads it. */
const outcomesOf = async (told: AsyncIterable<readonly DirectoryFileCopy[]>) =>
  (await gatheredCopies(told)).map((outcome) => ('error' in outcome ? [outcome.side, outcome.error.failure, outcome.error.path, outcome.error.message] : outcome));

describe('storages with a fault pending (the stand-in)', () => {
  let dir: string;
  let storages: EndpointStorages;

  beforeEach(async () => {
    dir = await mkdtemp(`${tmpdir()}/xfer-faults-`);
    await mkdir(`${dir}/one`);
    await mkdir(`${dir}/two`);
    for (const name of ['a.txt', 'b.txt', 'c.txt']) await writeFile(`${dir}/one/${name}`, name);
    storages = new EndpointStorages();
  });

  afterEach(async () => {
    await storages.close();
    await rm(dir, { recursive: true, force: true });
  });

  const pair = () => [storages.storageOf('e1', { type: 'posix', root: `${dir}/one` })!, storages.storageOf('e2', { type: 'posix', root: `${dir}/two` })!] as const;

  it('keep their faster paths, on the same host as without the fault', async () => {
    const [plainOne] = pair();
    storages.faults.add({ id: 'f1', endpoint: 'e1', path: '/elsewhere', error: 'PERMISSION_DENIED', count: 1 });
    const [one, two] = pair();
    expect(one).not.toBe(plainOne);
    expect(onOneHost(one.features.batchCopy, two.features.batchCopy)).toBe(true);
    expect(onOneHost(one.features.batchCopy, plainOne.features.batchCopy)).toBe(true);
    expect(onOneHost(one.features.kernelCopy, two.features.kernelCopy)).toBe(true);
    const copied = two.features.batchCopy!.copyFiles(one.features.batchCopy!, '/', '/', [{ name: 'a.txt' }, { name: 'b.txt' }], { checksum: null });
    expect(await outcomesOf(copied)).toEqual([{ bytes: 5, checksums: null }, { bytes: 5, checksums: null }]);
    expect(await two.features.kernelCopy!.copyFile(one.features.kernelCopy!, '/c.txt', '/c.txt')).toBe(5);
    expect((await readdir(`${dir}/two`)).sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);
  });

  it("fail a batch copy's file where a fault hits it, and tell the files around it", async () => {
    storages.faults.add({ id: 'f1', endpoint: 'e1', path: '/b.txt', error: 'PERMISSION_DENIED', count: 1 });
    const [one, two] = pair();
    const files = [{ name: 'a.txt' }, { name: 'b.txt' }, { name: 'c.txt' }];
    const told = await outcomesOf(two.features.batchCopy!.copyFiles(one.features.batchCopy!, '/', '/', files, { checksum: null }));
    expect(told).toEqual([{ bytes: 5, checksums: null }, ['source', 'denied', '/b.txt', 'an injected fault (PERMISSION_DENIED)'], { bytes: 5, checksums: null }]);
    expect((await readdir(`${dir}/two`)).sort()).toEqual(['a.txt', 'c.txt']);
    // the fault's one call is taken: the next copies
    expect(await outcomesOf(two.features.batchCopy!.copyFiles(one.features.batchCopy!, '/', '/', [{ name: 'b.txt' }], { checksum: null }))).toEqual([{ bytes: 5, checksums: null }]);
  });

  it('report a digest that differs, fail a kernel copy and a typed listing where a fault hits', async () => {
    storages.faults.add({ id: 'f1', endpoint: 'e2', path: '/a.txt', error: 'CHECKSUM_MISMATCH', count: 1 });
    storages.faults.add({ id: 'f2', endpoint: 'e2', path: '/k.txt', error: 'QUOTA_EXCEEDED', count: 1 });
    storages.faults.add({ id: 'f3', endpoint: 'e1', path: '/', error: 'FILE_NOT_FOUND', count: 1 });
    const [one, two] = pair();
    const listing = async () => {
      const listed: ListedName[] = [];
      for await (const batch of one.features.typedNames!('/')) listed.push(...batch);
      return listed.length;
    };
    await expect(listing()).rejects.toMatchObject({ failure: 'not_found' });
    expect(await listing()).toBe(3);
    let copied: DirectoryFileCopy | undefined;
    for await (const [outcome] of two.features.batchCopy!.copyFiles(one.features.batchCopy!, '/', '/', [{ name: 'a.txt' }], { checksum: 'md5' })) copied ??= outcome;
    expect(copied).toEqual({ bytes: 5, checksums: { source: expect.stringMatching(/^[0-9a-f]{32}$/), destination: '0'.repeat(32) } });
    expect('checksums' in copied! && copied.checksums!.source).not.toBe('0'.repeat(32));
    await expect(two.features.kernelCopy!.copyFile(one.features.kernelCopy!, '/c.txt', '/k.txt')).rejects.toMatchObject({ failure: 'quota' });
    expect(await two.features.kernelCopy!.copyFile(one.features.kernelCopy!, '/c.txt', '/k.txt')).toBe(5);
  });
});
