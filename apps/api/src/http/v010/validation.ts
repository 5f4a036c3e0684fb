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

/**
 * Checks a JSON body against a DTO (types and known keys, unknown keys rejected) and hands back
 * the plain keys the client sent.
 */
export async function parseBody<T extends object>(dto: ClassConstructor<T>, body: unknown): Promise<Record<string, unknown>> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestError('The request body must be a JSON object');
  }
  const instance = plainToInstance(dto, body);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false });
  if (errors.length > 0) throw new BadRequestError(describe(errors).join('; '));
  return body as Record<string, unknown>;
}
