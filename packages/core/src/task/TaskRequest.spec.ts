import { BadRequestError, InvalidFieldError } from '../shared/errors';
import { deleteRequest, transferRequest } from '../testing/taskRequests';
import { checkTaskRequest, keptByFilterRules, MAX_ITEMS, NoTransferItemsError, type TransferRequest } from './TaskRequest';

const SOURCE = '11111111-1111-4111-8111-111111111111';
const DESTINATION = '22222222-2222-4222-8222-222222222222';
const SUBMISSION = '33333333-3333-4333-8333-333333333333';

const transfer = (extra: Partial<Parameters<typeof transferRequest>[0]> = {}): TransferRequest =>
  transferRequest({ submission_id: SUBMISSION, source_endpoint: SOURCE, destination_endpoint: DESTINATION, items: [{ source_path: '/data/a.txt', destination_path: '/in/a.txt' }], ...extra });
const refusal = (request: Parameters<typeof checkTaskRequest>[0]): Error | null => {
  try {
    checkTaskRequest(request);
    return null;
  } catch (error) {
    return error as Error;
  }
};

describe('the rules of a transfer or delete submission', () => {
  it('takes a plain transfer and a plain delete', () => {
    expect(refusal(transfer())).toBeNull();
    expect(refusal(deleteRequest({ submission_id: SUBMISSION, endpoint: SOURCE, paths: ['/old'] }))).toBeNull();
    expect(refusal(transfer({ label: 'Nightly copy', options: { delete_destination_extra: true, filter_rules: [{ method: 'exclude', name: '*.tmp', type: 'file' }] } }))).toBeNull();
  });

  it.each([
    [{ items: [] }, NoTransferItemsError, 'A task requires at least one item'],
    [{ label: 'x'.repeat(129) }, BadRequestError, 'Invalid label: must be at most 128 characters'],
    [{ label: 'two\nlines' }, BadRequestError, 'Invalid label: must not contain'],
    [{ label: ' padded' }, BadRequestError, 'Invalid label: must not begin or end with spaces'],
    [{ label: 'padded ' }, BadRequestError, 'Invalid label: must not begin or end with spaces'],
    [{ items: [{ source_path: '', destination_path: '/b' }] }, BadRequestError, 'Invalid items[0].source_path: a path'],
    [{ items: [{ source_path: '/a', destination_path: '' }] }, BadRequestError, 'Invalid items[0].destination_path: a path'],
    [{ items: [{ source_path: '/a\n', destination_path: '/b' }] }, BadRequestError, 'Invalid items[0].source_path: must not contain'],
    [{ items: [{ source_path: '/a', destination_path: `/${'b'.repeat(4096)}` }] }, BadRequestError, 'Invalid items[0].destination_path: must be at most 4096 characters'],
    [{ items: [{ source_path: '/a', destination_path: '/b', external_checksum: 'xyz' }] }, BadRequestError, 'Invalid items[0].external_checksum: a hex MD5 or SHA256 digest'],
    [{ items: [{ source_path: '/a', destination_path: '/b', recursive: true, external_checksum: 'd41d8cd98f00b204e9800998ecf8427e' }] }, BadRequestError, "Invalid items[0].external_checksum: a file's checksum, not a directory's"],
    [{ options: { filter_rules: [{ method: 'exclude' as const, name: 'a/b', type: null }] } }, BadRequestError, 'Invalid filter_rules[0].name: a name pattern'],
    [{ options: { filter_rules: [{ method: 'exclude' as const, name: 'a', type: null }, { method: 'exclude' as const, name: '', type: null }] } }, BadRequestError, 'Invalid filter_rules[1].name'],
    [{ items: [{ source_path: '/a', destination_path: '/b', recursive: false }], options: { delete_destination_extra: true } }, BadRequestError, 'Invalid delete_destination_extra: only with a recursive item'],
  ])('refuses %j, naming the field', (extra, type, message) => {
    const refused = refusal(transfer(extra));
    expect(refused).toBeInstanceOf(type);
    expect(refused?.message).toContain(message);
  });

  it('says its own code for no items', () => {
    expect(new NoTransferItemsError('x').code).toBe('ClientError.BadRequest.NoTransferItems');
    expect(refusal(deleteRequest({ submission_id: SUBMISSION, endpoint: SOURCE, paths: [] }))).toBeInstanceOf(NoTransferItemsError);
  });

  it("takes digests of 32 or 64 hex digits only, and a file's checksum on an item that may be a file", () => {
    for (const good of ['a'.repeat(32), 'a'.repeat(64)]) expect(refusal(transfer({ items: [{ source_path: '/a', destination_path: '/b', external_checksum: good }] }))).toBeNull();
    expect(refusal(transfer({ items: [{ source_path: '/a', destination_path: '/b', recursive: false, external_checksum: 'a'.repeat(32) }] }))).toBeNull();
    for (const bad of [`x${'a'.repeat(32)}`, `${'a'.repeat(32)}x`, 'a'.repeat(40), `x${'a'.repeat(64)}`, `${'a'.repeat(64)}x`, 'g'.repeat(64), 'a'.repeat(10)]) {
      expect(refusal(transfer({ items: [{ source_path: '/a', destination_path: '/b', external_checksum: bad }] }))?.message).toContain('external_checksum');
    }
  });

  it('deletes destination extras under an item that is or may be a directory', () => {
    expect(refusal(transfer({ items: [{ source_path: '/a', destination_path: '/b', recursive: true }], options: { delete_destination_extra: true } }))).toBeNull();
    expect(refusal(transfer({ items: [{ source_path: '/a', destination_path: '/b', recursive: false }, { source_path: '/c', destination_path: '/d' }], options: { delete_destination_extra: true } }))).toBeNull();
  });

  it('takes at most MAX_ITEMS items, and checks every path of a delete', () => {
    const items = Array.from({ length: MAX_ITEMS + 1 }, (_, i) => ({ source_path: `/a${i}`, destination_path: `/b${i}` }));
    expect(refusal(transfer({ items }))?.message).toBe(`Invalid items: at most ${MAX_ITEMS} items`);
    expect(refusal(transfer({ items: items.slice(1) }))).toBeNull();
    const paths = Array.from({ length: MAX_ITEMS + 1 }, (_, i) => `/a${i}`);
    expect(refusal(deleteRequest({ submission_id: SUBMISSION, endpoint: SOURCE, paths }))?.message).toBe(`Invalid paths: at most ${MAX_ITEMS} items`);
    expect(refusal(deleteRequest({ submission_id: SUBMISSION, endpoint: SOURCE, paths: ['/a', ''] }))?.message).toBe('Invalid paths[1]: a path');
    expect(refusal(deleteRequest({ submission_id: SUBMISSION, endpoint: SOURCE, paths: ['/a\r'] }))?.message).toContain('Invalid paths[0]');
  });

  it('refuses a path that climbs out of the root or is not absolute, and leaves one in the home to where the task runs', () => {
    const item = (source_path: string) => transfer({ items: [{ source_path, destination_path: '/in/x' }] });
    expect(refusal(item('/data/../../etc/passwd'))).toMatchObject({ code: 'InvalidPath', message: "Invalid items[0].source_path: it climbs out of the endpoint's root" });
    expect(refusal(item('/data/../../etc/passwd'))).toBeInstanceOf(BadRequestError);
    expect(refusal(item('data/x'))?.message).toBe('Invalid items[0].source_path: an absolute path (/...) or one in your home (/~/...)');
    // longer than a path may be in UTF-16 units, though not in characters
    expect(refusal(item(`/${'\u{1F600}'.repeat(3000)}`))?.message).toBe('Invalid items[0].source_path: at most 4096 characters');
    for (const home of ['/~/../../../x', '~/../../x', '~', '/~', '/~/']) expect(refusal(item(home))).toBeNull();
    expect(refusal(item('/data/./a//b/../c'))).toBeNull();
    expect(refusal(deleteRequest({ submission_id: SUBMISSION, endpoint: SOURCE, paths: ['/..'] }))?.message).toBe("Invalid paths[0]: it climbs out of the endpoint's root");
  });

  it('names the field it refuses as core names it, so that an app can name it as its document does', () => {
    const refused = refusal(transfer({ items: [{ source_path: '/a', destination_path: '/b' }, { source_path: '', destination_path: '/b' }] }));
    expect(refused).toBeInstanceOf(InvalidFieldError);
    expect(refused).toMatchObject({ field: 'items[1].source_path', reason: 'a path' });
    expect((refused as InvalidFieldError).renamed('DATA[1].source_path')).toMatchObject({ code: 'BadRequest', message: 'Invalid DATA[1].source_path: a path' });
    expect(refusal(deleteRequest({ submission_id: SUBMISSION, endpoint: SOURCE, paths: Array.from({ length: MAX_ITEMS + 1 }, () => '/a') }))).toMatchObject({ field: 'paths', message: `Invalid paths: at most ${MAX_ITEMS} items` });
    expect((refusal(transfer({ items: [{ source_path: '/..', destination_path: '/in/x' }] })) as InvalidFieldError).renamed('DATA[0].source_path')).toMatchObject({ code: 'InvalidPath', message: "Invalid DATA[0].source_path: it climbs out of the endpoint's root" });
  });

  it('keeps what no filter rule matches; the first that matches decides, for its type only', () => {
    const rules = [
      { method: 'include' as const, name: 'keep-*.tmp', type: 'file' as const },
      { method: 'exclude' as const, name: '*.tmp', type: 'file' as const },
      { method: 'exclude' as const, name: 'cach?', type: null },
      { method: 'exclude' as const, name: 'run[0-2]', type: 'dir' as const },
      { method: 'exclude' as const, name: 'log[!x]', type: null },
    ];
    expect(keptByFilterRules(rules, 'a.txt', 'file')).toBe(true);
    expect(keptByFilterRules(rules, 'a.tmp', 'file')).toBe(false);
    expect(keptByFilterRules(rules, 'a.tmp', 'dir')).toBe(true);
    expect(keptByFilterRules(rules, 'keep-1.tmp', 'file')).toBe(true);
    expect(keptByFilterRules(rules, 'cache', 'dir')).toBe(false);
    expect(keptByFilterRules(rules, 'caches', 'dir')).toBe(true);
    expect(keptByFilterRules(rules, 'run1', 'dir')).toBe(false);
    expect(keptByFilterRules(rules, 'run3', 'dir')).toBe(true);
    expect(keptByFilterRules(rules, 'run1', 'file')).toBe(true);
    expect(keptByFilterRules(rules, 'log1', 'file')).toBe(false);
    expect(keptByFilterRules(rules, 'logx', 'file')).toBe(true);
    expect(keptByFilterRules([{ method: 'exclude', name: 'a.b', type: null }], 'aXb', 'file')).toBe(true);
    expect(keptByFilterRules([{ method: 'exclude', name: '[', type: null }], '[', 'file')).toBe(false);
    expect(keptByFilterRules(null, 'x', 'file')).toBe(true);
    // classes: their own characters only, ] ^ and \ as themselves, [! negates; everything else literal
    expect(keptByFilterRules(rules, 'runS', 'dir')).toBe(true);
    expect(keptByFilterRules(rules, 'log!', 'file')).toBe(false);
    expect(keptByFilterRules([{ method: 'exclude', name: '[]]', type: null }], ']', 'file')).toBe(false);
    expect(keptByFilterRules([{ method: 'exclude', name: 'x[a^]', type: null }], 'x^', 'file')).toBe(false);
    expect(keptByFilterRules([{ method: 'exclude', name: 'a.b', type: null }], 'ab', 'file')).toBe(true);
    expect(keptByFilterRules([{ method: 'exclude', name: '*', type: null }], 'line\nbreak', 'file')).toBe(false);
  });
});
