import { InvalidFieldError } from '@xfer/core';

/**
 * Core's names of the fields the v0.10 documents name otherwise: a list of items or servers is
 * their DATA (a delete's paths are DATA[i].path). A refusal names its field as the client sent it.
 */
export function taskFieldName(field: string): string {
  return field.replace(/^items(?=\[|$)/, 'DATA').replace(/^paths\[(\d+)\]$/, 'DATA[$1].path').replace(/^paths$/, 'DATA');
}

export function endpointFieldName(field: string): string {
  return field === 'servers' ? 'DATA' : field;
}

/** A refusal of a field, naming it as the document does (`wireName`); any other error as it is. */
export function inWireNames(error: unknown, wireName: (field: string) => string): unknown {
  return error instanceof InvalidFieldError ? error.renamed(wireName(error.field)) : error;
}
