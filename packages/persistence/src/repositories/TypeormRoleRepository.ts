import { ConflictError, type EndpointRole, type PrincipalType, type RoleAssignmentState, type RoleRepository } from '@xfer/core';
import type { EntityManager } from 'typeorm';
import { RoleAssignmentSchema, type RoleAssignmentRecord } from '../records/schemas';
import type { Sql } from '../engine/Sql';
import { fromTime, toTime, uniqueViolation } from './mapping';

const fromRecord = ({ host_endpoint_id: _host, ...r }: RoleAssignmentRecord): RoleAssignmentState => ({
  ...r,
  role: r.role as EndpointRole,
  principal_type: r.principal_type as PrincipalType,
  created_at: fromTime(r.created_at),
});

const ROLE_COLUMNS = Object.keys(RoleAssignmentSchema.options.columns).filter((c) => c !== 'host_endpoint_id');
// the share's host is copied from the endpoint in the same statement
const INSERT_ROLE = `INSERT INTO role_assignments (${ROLE_COLUMNS.map((c) => `"${c}"`).join(', ')}, host_endpoint_id)
  SELECT ${ROLE_COLUMNS.map(() => '?').join(', ')}, (SELECT e.host_endpoint_id FROM endpoints e WHERE e.id = ?)`;

export class TypeormRoleRepository implements RoleRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly sql: Sql,
  ) {}

  async add(assignment: RoleAssignmentState) {
    try {
      const record: Record<string, unknown> = { ...assignment, created_at: toTime(assignment.created_at) };
      await this.sql.run(INSERT_ROLE, [...ROLE_COLUMNS.map((c) => record[c]), assignment.endpoint_id]);
    } catch (error) {
      if (uniqueViolation(error) === null) throw error;
      throw new ConflictError('A role assignment with the same principal and role already exists');
    }
  }

  async listForEndpoint(endpointId: string) {
    return (await this.manager.findBy(RoleAssignmentSchema, { endpoint_id: endpointId })).map(fromRecord);
  }

  async deleteForEndpoint(endpointId: string) {
    await this.manager.delete(RoleAssignmentSchema, { endpoint_id: endpointId });
  }

  async findById(id: string) {
    const r = await this.manager.findOneBy(RoleAssignmentSchema, { id });
    return r ? fromRecord(r) : null;
  }

  async delete(id: string) {
    await this.manager.delete(RoleAssignmentSchema, { id });
  }
}
