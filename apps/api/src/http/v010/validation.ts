import { BadRequestError } from '@xfer/core';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';

const MESSAGES: Record<string, string> = {
  isString: 'must be a string or null',
  isBoolean: 'must be true or false',
  isInt: 'must be an integer',
  isArray: 'must be a list',
  nestedValidation: 'must be a list of objects',
  whitelistValidation: 'is not a known field',
};

function describe(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = /^\d+$/.test(error.property) ? `${prefix}[${error.property}]` : prefix ? `${prefix}.${error.property}` : error.property;
    if (error.children && error.children.length > 0) return describe(error.children, path);
    const constraint = Object.keys(error.constraints ?? {})[0] ?? 'invalid';
    if (constraint === 'whitelistValidation') return [`Unknown field '${path}'`];
    return [`Invalid ${path}: ${MESSAGES[constraint] ?? 'has the wrong type'}`];
  });
}

/** The deepest a v0.10 document nests (endpoint, DATA, server, a value) with room to spare. */
const MAX_DEPTH = 8;
/** Keys that name Object's own machinery: never a field, whatever a DTO's whitelist lets through. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Refuses bodies nested deeper than any document (without recursion) and keys no document has. */
function checkShape(body: object): void {
  const pending: [value: unknown, depth: number][] = [[body, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_DEPTH) throw new BadRequestError('The request body nests objects or lists too deeply');
    for (const [key, child] of Object.entries(value)) {
      if (!Array.isArray(value) && FORBIDDEN_KEYS.has(key)) throw new BadRequestError(`Unknown field '${key}'`);
      pending.push([child, depth + 1]);
    }
  }
}

/**
 * Checks a JSON body against a DTO (types and known keys, unknown keys rejected) and hands back
 * the plain keys the client sent.
 */
export async function parseBody<T extends object>(dto: ClassConstructor<T>, body: unknown): Promise<Record<string, unknown>> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestError('The request body must be a JSON object');
  }
  checkShape(body);
  const instance = plainToInstance(dto, body);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false });
  if (errors.length > 0) throw new BadRequestError(describe(errors).join('; '));
  return body as Record<string, unknown>;
}
