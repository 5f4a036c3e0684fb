import { BadRequestError, type AccessRulePatch, type AccessRuleView, type NewAccessRule } from '@xfer/core';
import { Allow, IsOptional, IsString, ValidateIf } from 'class-validator';
import { checkDataType } from './requests';
import { parseBody } from './validation';

/** The body of `POST .../access`: an access document without what the service sets. */
export class AccessDocumentDto {
  @IsOptional() @IsString() DATA_TYPE?: string;
  @IsString() principal_type!: string;
  @IsString() principal!: string;
  @IsString() path!: string;
  @IsString() permissions!: string;
  @IsOptional() @IsString() notify_email?: string | null;
  @IsOptional() @IsString() notify_message?: string | null;
  @IsOptional() @IsString() expiration_date?: string | null;
  // sent back from a GET: read-only, ignored when null
  @Allow() id?: unknown;
  @Allow() role_id?: unknown;
  @Allow() role_type?: unknown;
  @Allow() create_time?: unknown;
}

export async function decodeNewAccessRule(raw: unknown): Promise<NewAccessRule> {
  const body = await parseBody(AccessDocumentDto, raw);
  checkDataType(body, 'access');
  for (const key of ['id', 'role_id', 'role_type', 'create_time']) {
    if (body[key] != null) throw new BadRequestError(`Field '${key}' is set by the service`);
  }
  return {
    principal_type: body.principal_type as string,
    principal: body.principal as string,
    path: body.path as string,
    permissions: body.permissions as string,
    notify_email: (body.notify_email as string | null | undefined) ?? null,
    notify_message: (body.notify_message as string | null | undefined) ?? null,
    expiration_date: (body.expiration_date as string | null | undefined) ?? null,
  };
}

/** The body of `PUT .../access/<id>`: permissions and/or expiration_date; an id must be the rule's. */
export class AccessPatchDto {
  @IsOptional() @IsString() DATA_TYPE?: string;
  @IsOptional() @IsString() id?: string;
  @IsOptional() @IsString() permissions?: string;
  @ValidateIf((_o, v) => v !== undefined && v !== null) @IsString() expiration_date?: string | null;
}

export async function decodeAccessPatch(raw: unknown, ruleId: string): Promise<AccessRulePatch> {
  const body = await parseBody(AccessPatchDto, raw);
  checkDataType(body, 'access');
  if (body.id !== undefined && String(body.id).toLowerCase() !== ruleId.toLowerCase()) throw new BadRequestError(`Field 'id' must be the rule's id '${ruleId}'`);
  return {
    ...(body.permissions !== undefined && { permissions: body.permissions as string }),
    ...(body.expiration_date !== undefined && { expiration_date: body.expiration_date as string | null }),
  };
}

/** Times as the hosted service writes them: ISO 8601 with +00:00. */
const isoUtc = (date: Date | null) => (date === null ? null : date.toISOString().replace(/\.\d{3}Z$/, '+00:00'));

export function accessDocument(rule: AccessRuleView) {
  return {
    DATA_TYPE: 'access' as const,
    id: rule.id,
    role_id: rule.role_id,
    role_type: rule.role_type,
    principal_type: rule.principal_type,
    principal: rule.principal,
    path: rule.path,
    permissions: rule.permissions,
    notify_email: rule.notify_email,
    notify_message: rule.notify_message,
    create_time: isoUtc(rule.create_time),
    expiration_date: isoUtc(rule.expiration_date),
  };
}
