import type { RoleAssignmentState, RoleGrant } from '@xfer/core';
import { IsOptional, IsString } from 'class-validator';
import { checkDataType } from './requests';
import { parseBody } from './validation';

/** The body of `POST /endpoint/<id>/role`: a role document without its id. */
export class RoleDocumentDto {
  @IsOptional() @IsString() DATA_TYPE?: string;
  @IsString() principal_type!: string;
  @IsString() principal!: string;
  @IsString() role!: string;
}

export async function decodeRoleGrant(raw: unknown): Promise<RoleGrant> {
  const body = await parseBody(RoleDocumentDto, raw);
  checkDataType(body, 'role');
  return { role: body.role as string, principal_type: body.principal_type as string, principal: body.principal as string };
}

/** The role document of catalogue features 3. */
export function roleDocument(assignment: RoleAssignmentState) {
  return { DATA_TYPE: 'role' as const, id: assignment.id, principal_type: assignment.principal_type, principal: assignment.principal_id, role: assignment.role };
}
