import type { DeleteOptions, DeleteRequest, TransferItem, TransferOptions, TransferRequest } from '../task/TaskRequest';

type Item = Pick<TransferItem, 'source_path' | 'destination_path'> & Partial<TransferItem>;

/** A transfer request with the defaults a client leaves out: tests name only what they care about. */
export function transferRequest(fields: {
  submission_id: string;
  source_endpoint: string;
  destination_endpoint: string;
  items: Item[];
  label?: string | null;
  deadline?: Date | null;
  options?: Partial<TransferOptions>;
}): TransferRequest {
  return {
    type: 'TRANSFER',
    submission_id: fields.submission_id,
    label: fields.label ?? null,
    deadline: fields.deadline ?? null,
    source_endpoint: fields.source_endpoint,
    destination_endpoint: fields.destination_endpoint,
    items: fields.items.map((item) => ({ recursive: null, external_checksum: null, checksum_algorithm: null, ...item })),
    options: {
      sync_level: null,
      verify_checksum: false,
      preserve_timestamp: false,
      encrypt_data: false,
      skip_source_errors: false,
      fail_on_quota_errors: false,
      delete_destination_extra: false,
      filter_rules: null,
      ...fields.options,
    },
  };
}

/** A delete request with the defaults a client leaves out. */
export function deleteRequest(fields: { submission_id: string; endpoint: string; paths: string[]; label?: string | null; deadline?: Date | null; options?: Partial<DeleteOptions> }): DeleteRequest {
  return {
    type: 'DELETE',
    submission_id: fields.submission_id,
    label: fields.label ?? null,
    deadline: fields.deadline ?? null,
    endpoint: fields.endpoint,
    paths: fields.paths,
    options: { recursive: false, ignore_missing: false, interpret_globs: false, ...fields.options },
  };
}
