import { BadRequestError, parseIsoInstant, type PauseRuleInput } from '@xfer/core';
import { Allow, IsBoolean, IsOptional, IsString, ValidateIf } from 'class-validator';
import { checkDataType } from './requests';
import { parseBody } from './validation';

const FLAGS = ['pause_ls', 'pause_mkdir', 'pause_rename', 'pause_task_delete', 'pause_task_transfer_write', 'pause_task_transfer_read'] as const;

/** The body of a pause rule to create or change: its fields; the read-only ones of a GET are accepted and ignored. */
class PauseRuleDto {
  [field: string]: unknown;
  @IsOptional() @IsString() DATA_TYPE?: string;
  // a value or absent: null is no endpoint and no message
  @ValidateIf((_o, v) => v !== undefined) @IsString() endpoint_id?: string;
  @ValidateIf((_o, v) => v !== undefined) @IsString() message?: string;
  @ValidateIf((_o, v) => v !== undefined && v !== null) @IsString() identity_id?: string | null;
  @ValidateIf((_o, v) => v !== undefined && v !== null) @IsString() start_time?: string | null;
  @IsOptional() @IsBoolean() pause_ls?: boolean;
  @IsOptional() @IsBoolean() pause_mkdir?: boolean;
  @IsOptional() @IsBoolean() pause_rename?: boolean;
  @IsOptional() @IsBoolean() pause_task_delete?: boolean;
  @IsOptional() @IsBoolean() pause_task_transfer_write?: boolean;
  @IsOptional() @IsBoolean() pause_task_transfer_read?: boolean;
  @Allow() id?: unknown;
  @Allow() modified_by?: unknown;
  @Allow() modified_by_id?: unknown;
  @Allow() created_by_host_manager?: unknown;
  @Allow() editable?: unknown;
}

export async function decodePauseRule(raw: unknown): Promise<PauseRuleInput> {
  const body = (await parseBody(PauseRuleDto, raw)) as PauseRuleDto;
  checkDataType(body, 'pause_rule');
  const input: PauseRuleInput = {};
  if (body.endpoint_id !== undefined) input.endpoint_id = body.endpoint_id;
  if (body.message !== undefined) input.message = body.message;
  if (body.identity_id !== undefined) input.identity_id = body.identity_id;
  if (body.start_time !== undefined) {
    // the hosted format has a space where ISO 8601 has T
    const at = body.start_time === null ? null : parseIsoInstant(body.start_time.replace(' ', 'T'));
    if (at === null && body.start_time !== null) throw new BadRequestError(`Invalid start_time '${body.start_time.slice(0, 40)}': a date and time`);
    input.start_time = at;
  }
  const flags = Object.fromEntries(FLAGS.filter((f) => body[f] !== undefined).map((f) => [f, body[f] as boolean]));
  if (Object.keys(flags).length > 0) input.flags = flags;
  return input;
}

/** `PUT /endpoint/<id>/subscription_admin_verified`: `{"subscription_admin_verified": true | false}`. */
class VerifiedDto {
  @IsOptional() @IsString() DATA_TYPE?: string;
  @IsBoolean() subscription_admin_verified!: boolean;
}

export async function decodeSubscriptionAdminVerified(raw: unknown): Promise<boolean> {
  return (await parseBody(VerifiedDto, raw)).subscription_admin_verified as boolean;
}

/** `PUT /endpoint/<id>/subscription`: `{"subscription_id": <id> | "DEFAULT" | null}`. */
class SubscriptionDto {
  @IsOptional() @IsString() DATA_TYPE?: string;
  @ValidateIf((_o, v) => v !== null) @IsString() subscription_id?: string | null;
}

export async function decodeSubscriptionChange(raw: unknown): Promise<string | null> {
  const body = (await parseBody(SubscriptionDto, raw)) as SubscriptionDto;
  if (!('subscription_id' in body)) throw new BadRequestError("Field 'subscription_id' is required: a subscription id, DEFAULT or null");
  return body.subscription_id ?? null;
}
