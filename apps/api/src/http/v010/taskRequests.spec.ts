import { BadRequestError, checkTaskRequest, MAX_ITEMS, NoTransferItemsError, type TaskRequest } from '@xfer/core';
import { endpointFieldName, inWireNames, taskFieldName } from './fieldNames';
import { decodeDeleteRequest as decodeDelete, decodeTransferRequest as decodeTransfer } from './taskRequests';

/**
 * A document as a submit takes it: decoded here, then the domain's rules (TaskService.submit
 * checks them, once), their refusals named as the document names its fields.
 */
const submitted =
  <T extends TaskRequest>(decode: (raw: unknown) => T) =>
  (raw: unknown): T => {
    try {
      const request = decode(raw);
      checkTaskRequest(request);
      return request;
    } catch (error) {
      throw inWireNames(error, taskFieldName);
    }
  };
const decodeTransferRequest = submitted(decodeTransfer);
const decodeDeleteRequest = submitted(decodeDelete);

const SOURCE = '11111111-1111-4111-8111-111111111111';
const DESTINATION = '22222222-2222-4222-8222-222222222222';
const SUBMISSION = '33333333-3333-4333-8333-333333333333';

/** A TransferData document as the SDK sends it (MISSING fields left out). */
const transfer = (extra: Record<string, unknown> = {}, items: unknown[] = [{ DATA_TYPE: 'transfer_item', source_path: '/data/a.txt', destination_path: '/in/a.txt' }]) => ({
  DATA_TYPE: 'transfer',
  submission_id: SUBMISSION,
  source_endpoint: SOURCE,
  destination_endpoint: DESTINATION,
  DATA: items,
  ...extra,
});

describe('TransferData and DeleteData documents', () => {
  it('reads a TransferData document with its defaults', () => {
    expect(decodeTransferRequest(transfer())).toEqual({
      type: 'TRANSFER',
      submission_id: SUBMISSION,
      label: null,
      deadline: null,
      source_endpoint: SOURCE,
      destination_endpoint: DESTINATION,
      items: [{ source_path: '/data/a.txt', destination_path: '/in/a.txt', recursive: null, external_checksum: null, checksum_algorithm: null }],
      options: { sync_level: null, verify_checksum: false, preserve_timestamp: false, encrypt_data: false, skip_source_errors: false, fail_on_quota_errors: false, delete_destination_extra: false, filter_rules: null },
    });
  });

  it('honours every option the SDK and the CLI send', () => {
    const request = decodeTransferRequest(
      transfer(
        {
          label: 'Nightly copy',
          deadline: '2026-12-01T10:00:00+00:00',
          sync_level: 'mtime',
          verify_checksum: true,
          preserve_timestamp: true,
          encrypt_data: true,
          skip_source_errors: true,
          fail_on_quota_errors: true,
          delete_destination_extra: true,
          notify_on_succeeded: false,
          recursive_symlinks: 'ignore',
          filter_rules: [{ DATA_TYPE: 'filter_rule', method: 'exclude', name: '*.tmp', type: 'file' }, { name: 'cache' }],
        },
        [{ source_path: '/data/', destination_path: '/in/', recursive: true }, { source_path: '/x', destination_path: '/y', recursive: false, external_checksum: 'D41D8CD98F00B204E9800998ECF8427E', checksum_algorithm: 'MD5' }],
      ),
    );
    expect(request.label).toBe('Nightly copy');
    expect(request.deadline).toEqual(new Date('2026-12-01T10:00:00Z'));
    expect(request.options).toEqual({
      sync_level: 2,
      verify_checksum: true,
      preserve_timestamp: true,
      encrypt_data: true,
      skip_source_errors: true,
      fail_on_quota_errors: true,
      delete_destination_extra: true,
      filter_rules: [{ method: 'exclude', name: '*.tmp', type: 'file' }, { method: 'exclude', name: 'cache', type: null }],
    });
    expect(request.items[1]).toEqual({ source_path: '/x', destination_path: '/y', recursive: false, external_checksum: 'd41d8cd98f00b204e9800998ecf8427e', checksum_algorithm: 'md5' });
    expect(decodeTransferRequest(transfer({ sync_level: 3 })).options.sync_level).toBe(3);
    expect(decodeTransferRequest(transfer({ sync_level: 0 })).options.sync_level).toBe(0);
    expect(decodeTransferRequest(transfer({ deadline: '2026-12-01' })).deadline).toEqual(new Date('2026-12-01T00:00:00Z'));
  });

  it.each([
    [{ DATA: [] }, NoTransferItemsError, 'at least one item'],
    [{ DATA: undefined }, NoTransferItemsError, 'at least one item'],
    [{ DATA: 'x' }, BadRequestError, 'Invalid DATA: a list of items'],
    [{ submission_id: undefined }, BadRequestError, 'Invalid submission_id'],
    [{ submission_id: 'not-a-uuid' }, BadRequestError, 'Invalid submission_id'],
    [{ source_endpoint: 'x' }, BadRequestError, 'Invalid source_endpoint'],
    [{ destination_endpoint: undefined }, BadRequestError, 'Invalid destination_endpoint'],
    [{ label: 'x'.repeat(129) }, BadRequestError, 'Invalid label: must be at most 128 characters'],
    [{ label: 'two\nlines' }, BadRequestError, 'Invalid label'],
    [{ label: ' padded' }, BadRequestError, 'Invalid label: must not begin or end with spaces'],
    [{ label: 7 }, BadRequestError, 'Invalid label: text'],
    [{ deadline: 'soon' }, BadRequestError, 'Invalid deadline'],
    [{ sync_level: 4 }, BadRequestError, 'Invalid sync_level'],
    [{ sync_level: 'newest' }, BadRequestError, 'Invalid sync_level'],
    [{ verify_checksum: 'yes' }, BadRequestError, 'Invalid verify_checksum: true or false'],
    [{ notify_on_failed: 'no' }, BadRequestError, 'Invalid notify_on_failed'],
    [{ recursive_symlinks: 'copy' }, BadRequestError, 'Invalid recursive_symlinks'],
    [{ source_local_user: 'alice' }, BadRequestError, 'Invalid source_local_user'],
    [{ destination_local_user: 'alice' }, BadRequestError, 'Invalid destination_local_user'],
    [{ shiny_option: true }, BadRequestError, 'Invalid shiny_option: not a field'],
    [{ DATA_TYPE: 'delete' }, BadRequestError, "Invalid DATA_TYPE: 'transfer'"],
    [{ filter_rules: 'x' }, BadRequestError, 'Invalid filter_rules'],
    [{ filter_rules: [{ name: 'a/b' }] }, BadRequestError, 'Invalid filter_rules[0].name'],
    [{ filter_rules: [{ name: '' }] }, BadRequestError, 'Invalid filter_rules[0].name'],
    [{ filter_rules: [{ name: 'a', method: 'keep' }] }, BadRequestError, 'Invalid filter_rules[0].method'],
    [{ filter_rules: [{ name: 'a', type: 'link' }] }, BadRequestError, 'Invalid filter_rules[0].type'],
    [{ filter_rules: [{ name: 'a', when: 'now' }] }, BadRequestError, 'Invalid filter_rules[0].when'],
    [{ filter_rules: ['x'] }, BadRequestError, 'Invalid filter_rules[0]: a JSON object'],
  ])('refuses %j, naming the field', (extra, type, message) => {
    const body = transfer(extra as Record<string, unknown>);
    for (const [key, value] of Object.entries(extra)) if (value === undefined) delete (body as Record<string, unknown>)[key];
    const refused = (() => {
      try {
        decodeTransferRequest(body);
        return null;
      } catch (error) {
        return error as Error;
      }
    })();
    expect(refused).toBeInstanceOf(type);
    expect(refused?.message).toContain(message);
  });

  it.each([
    [{ source_path: '', destination_path: '/b' }, 'Invalid DATA[0].source_path: a path'],
    [{ source_path: '/a', destination_path: 5 }, 'Invalid DATA[0].destination_path: a path'],
    [{ source_path: '/a\n', destination_path: '/b' }, 'Invalid DATA[0].source_path'],
    [{ source_path: '/a', destination_path: '/b', recursive: 'yes' }, 'Invalid DATA[0].recursive: true or false'],
    [{ source_path: '/a', destination_path: '/b', external_checksum: 'xyz' }, 'Invalid DATA[0].external_checksum: a hex MD5 or SHA256 digest'],
    [{ source_path: '/a', destination_path: '/b', recursive: true, external_checksum: 'd41d8cd98f00b204e9800998ecf8427e' }, "Invalid DATA[0].external_checksum: a file's checksum"],
    [{ source_path: '/a', destination_path: '/b', checksum_algorithm: 'CRC32' }, 'Invalid DATA[0].checksum_algorithm: MD5 or SHA256'],
    [{ source_path: '/a', destination_path: '/b', DATA_TYPE: 'delete_item' }, "Invalid DATA[0].DATA_TYPE: 'transfer_item'"],
    [{ source_path: '/a', destination_path: '/b', extra: 1 }, 'Invalid DATA[0].extra: not a field'],
    ['an item', 'Invalid DATA[0]: a JSON object'],
  ])('refuses the item %j, naming it', (item, message) => {
    expect(() => decodeTransferRequest(transfer({}, [item]))).toThrow(message);
    expect(() => decodeTransferRequest(transfer({}, [item]))).toThrow(BadRequestError);
  });

  it('deletes destination extras only for an item that may be a directory', () => {
    expect(() => decodeTransferRequest(transfer({ delete_destination_extra: true }, [{ source_path: '/a', destination_path: '/b', recursive: false }]))).toThrow('Invalid delete_destination_extra: only with a recursive item');
    expect(decodeTransferRequest(transfer({ delete_destination_extra: true })).options.delete_destination_extra).toBe(true);
  });

  it('takes null as absent, as the SDK may send None', () => {
    const nulls = { label: null, deadline: null, sync_level: null, recursive_symlinks: null, source_local_user: null, destination_local_user: null, filter_rules: null, verify_checksum: null, notify_on_failed: null };
    const request = decodeTransferRequest(transfer(nulls, [{ source_path: '/a', destination_path: '/b', recursive: null, external_checksum: null, checksum_algorithm: null }]));
    expect(request).toEqual(decodeTransferRequest(transfer({}, [{ source_path: '/a', destination_path: '/b' }])));
    expect(decodeDeleteRequest({ submission_id: SUBMISSION, endpoint: SOURCE, local_user: null, label: null, DATA: [{ path: '/a' }] }).options.recursive).toBe(false);
  });

  it('reads ids in any case, as lower case, and refuses anything around them', () => {
    const request = decodeTransferRequest(transfer({ submission_id: SUBMISSION.toUpperCase(), source_endpoint: SOURCE.toUpperCase() }));
    expect([request.submission_id, request.source_endpoint]).toEqual([SUBMISSION, SOURCE]);
    for (const bad of [`x${SOURCE}`, `${SOURCE}x`]) {
      expect(() => decodeTransferRequest(transfer({ source_endpoint: bad }))).toThrow('Invalid source_endpoint');
      expect(() => decodeTransferRequest(transfer({ submission_id: bad }))).toThrow('Invalid submission_id');
    }
  });

  it('reads deadlines as ISO 8601, a date alone as midnight UTC, a space for the T', () => {
    expect(decodeTransferRequest(transfer({ deadline: ' 2026-12-01 ' })).deadline).toEqual(new Date('2026-12-01T00:00:00Z'));
    expect(decodeTransferRequest(transfer({ deadline: '2026-12-01 10:30:00+00:00' })).deadline).toEqual(new Date('2026-12-01T10:30:00Z'));
    expect(() => decodeTransferRequest(transfer({ deadline: 1796083200000 }))).toThrow('Invalid deadline');
  });

  it('names the algorithms and rules it takes, in any case', () => {
    const item = { source_path: '/a', destination_path: '/b', checksum_algorithm: 'SHA256', external_checksum: 'A'.repeat(64) };
    expect(decodeTransferRequest(transfer({}, [item])).items[0]).toMatchObject({ checksum_algorithm: 'sha256', external_checksum: 'a'.repeat(64) });
    expect(decodeTransferRequest(transfer({}, [{ ...item, checksum_algorithm: 'md5' }])).items[0]?.checksum_algorithm).toBe('md5');
    for (const bad of [`x${'a'.repeat(32)}`, `${'a'.repeat(32)}x`, 'a'.repeat(40), `x${'a'.repeat(64)}`, `${'a'.repeat(64)}x`, 'g'.repeat(64), 'a'.repeat(10)]) {
      expect(() => decodeTransferRequest(transfer({}, [{ ...item, external_checksum: bad }]))).toThrow('external_checksum');
    }
    expect(() => decodeTransferRequest(transfer({}, [{ ...item, external_checksum: 5 }]))).toThrow('external_checksum');
    expect(() => decodeTransferRequest(transfer({}, [{ ...item, checksum_algorithm: 5 }]))).toThrow('checksum_algorithm');
    expect(() => decodeTransferRequest(transfer({}, [{ ...item, checksum_algorithm: '' }]))).toThrow('checksum_algorithm');
    const rules = decodeTransferRequest(transfer({ filter_rules: [{ method: 'include', name: 'a', type: 'dir' }] })).options.filter_rules;
    expect(rules).toEqual([{ method: 'include', name: 'a', type: 'dir' }]);
    expect(() => decodeTransferRequest(transfer({ filter_rules: [{ name: 5 }] }))).toThrow('Invalid filter_rules[0].name');
    expect(() => decodeTransferRequest(transfer({ filter_rules: [{ name: 'a', type: '' }] }))).toThrow('Invalid filter_rules[0].type');
    expect(() => decodeTransferRequest(transfer({ filter_rules: [{ name: 'a', method: '' }] }))).toThrow('Invalid filter_rules[0].method');
    for (const [level, name] of [[1, 'size'], [2, 'mtime']] as const) {
      expect(decodeTransferRequest(transfer({ sync_level: level })).options.sync_level).toBe(level);
      expect(decodeTransferRequest(transfer({ sync_level: name })).options.sync_level).toBe(level);
    }
    expect(decodeTransferRequest(transfer({ sync_level: 'exists' })).options.sync_level).toBe(0);
  });

  it('refuses a body that is no object', () => {
    for (const body of [null, [], 'x']) expect(() => decodeTransferRequest(body)).toThrow('Invalid body: a JSON object');
    expect(() => decodeTransferRequest(transfer({ ['k'.repeat(150)]: 1 }))).toThrow(`Invalid ${'k'.repeat(100)}: not a field of this document`);
  });

  it('takes at most MAX_ITEMS items', () => {
    const items = Array.from({ length: MAX_ITEMS + 1 }, (_, i) => ({ source_path: `/a${i}`, destination_path: `/b${i}` }));
    expect(() => decodeTransferRequest(transfer({}, items))).toThrow(`Invalid DATA: at most ${MAX_ITEMS} items`);
    expect(decodeTransferRequest(transfer({}, items.slice(1))).items).toHaveLength(MAX_ITEMS);
  });

  it('reads a DeleteData document, its options, and refuses what it cannot do', () => {
    const body = { DATA_TYPE: 'delete', submission_id: SUBMISSION, endpoint: SOURCE, recursive: true, ignore_missing: true, DATA: [{ DATA_TYPE: 'delete_item', path: '/data/old/' }] };
    expect(decodeDeleteRequest(body)).toEqual({ type: 'DELETE', submission_id: SUBMISSION, label: null, deadline: null, endpoint: SOURCE, paths: ['/data/old/'], options: { recursive: true, ignore_missing: true, interpret_globs: false } });
    expect(decodeDeleteRequest({ ...body, recursive: undefined, ignore_missing: undefined }).options).toEqual({ recursive: false, ignore_missing: false, interpret_globs: false });
    expect(() => decodeDeleteRequest({ ...body, DATA: [] })).toThrow(NoTransferItemsError);
    expect(() => decodeDeleteRequest({ ...body, local_user: 'bob' })).toThrow("Invalid local_user: xfer's storage has no local users to map to");
    expect(decodeDeleteRequest({ ...body, label: 'Clean up', deadline: '2030-01-01' })).toMatchObject({ label: 'Clean up', deadline: new Date('2030-01-01T00:00:00Z') });
    expect(() => decodeDeleteRequest({ ...body, DATA: [{ path: '/a', glob: true }] })).toThrow('Invalid DATA[0].glob: not a field');
    expect(() => decodeDeleteRequest({ ...body, endpoint: 'x' })).toThrow('Invalid endpoint');
    expect(() => decodeDeleteRequest({ ...body, DATA: [{ path: '' }] })).toThrow('Invalid DATA[0].path: a path');
    expect(() => decodeDeleteRequest({ ...body, DATA: [{ path: '/a', DATA_TYPE: 'transfer_item' }] })).toThrow("Invalid DATA[0].DATA_TYPE: 'delete_item'");
    expect(() => decodeDeleteRequest({ ...body, DATA_TYPE: 'transfer' })).toThrow("Invalid DATA_TYPE: 'delete'");
    expect(() => decodeDeleteRequest({ ...body, source_endpoint: SOURCE })).toThrow('Invalid source_endpoint: not a field');
    expect(() => decodeDeleteRequest({ ...body, interpret_globs: 1 })).toThrow('Invalid interpret_globs: true or false');
    expect(() => decodeDeleteRequest([])).toThrow('Invalid body: a JSON object');
  });

  it("names core's fields as the documents do", () => {
    expect(['items', 'items[3].source_path', 'paths', 'paths[2]', 'label', 'filter_rules[1].name'].map(taskFieldName)).toEqual(['DATA', 'DATA[3].source_path', 'DATA', 'DATA[2].path', 'label', 'filter_rules[1].name']);
    expect(['servers', 'display_name'].map(endpointFieldName)).toEqual(['DATA', 'display_name']);
    const outside = new BadRequestError('Invalid items: not renamed, no field');
    expect(inWireNames(outside, taskFieldName)).toBe(outside);
  });
});
