import { Type } from 'class-transformer';
import { Allow, IsArray, IsBoolean, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';

/**
 * The shapes a client may send, checked at the edge: types and known keys only. Null is let
 * through (it clears a field); the domain decides what each value may be.
 */
type FieldType = 'string' | 'boolean' | 'integer' | 'any';

function declareFields(target: object, fields: Record<string, FieldType>): void {
  for (const [name, type] of Object.entries(fields)) {
    if (type === 'any') {
      Allow()(target, name);
      continue;
    }
    IsOptional()(target, name);
    if (type === 'string') IsString()(target, name);
    if (type === 'boolean') IsBoolean()(target, name);
    if (type === 'integer') IsInt()(target, name);
  }
}

export class ServerDocumentDto {
  [field: string]: unknown;
}
declareFields(ServerDocumentDto.prototype, {
  DATA_TYPE: 'string',
  hostname: 'string',
  port: 'integer',
  scheme: 'string',
  subject: 'string',
  incoming_data_port_start: 'integer',
  incoming_data_port_end: 'integer',
  outgoing_data_port_start: 'integer',
  outgoing_data_port_end: 'integer',
  // derived and status fields: the domain decides whether their presence is allowed
  id: 'any',
  uri: 'any',
  is_connected: 'any',
  is_paused: 'any',
});

/** Every key of endpoint, shared-endpoint and update bodies, including the read-only ones of a GET. */
export class EndpointDocumentDto {
  [field: string]: unknown;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ServerDocumentDto)
  DATA?: ServerDocumentDto[];
}
declareFields(EndpointDocumentDto.prototype, {
  DATA_TYPE: 'string',
  display_name: 'string',
  organization: 'string',
  department: 'string',
  keywords: 'string',
  name: 'string',
  canonical_name: 'string',
  owner_string: 'string',
  description: 'string',
  contact_email: 'string',
  contact_info: 'string',
  info_link: 'string',
  public: 'boolean',
  subscription_id: 'string',
  default_directory: 'string',
  force_encryption: 'boolean',
  disable_verify: 'boolean',
  myproxy_server: 'string',
  myproxy_dn: 'string',
  oauth_server: 'string',
  is_vendor_connect: 'boolean',
  is_globus_connect: 'boolean',
  host_endpoint: 'string',
  host_endpoint_id: 'string',
  host_path: 'string',
  network_use: 'string',
  location: 'string',
  min_concurrency: 'integer',
  preferred_concurrency: 'integer',
  min_parallelism: 'integer',
  preferred_parallelism: 'integer',
  https_server: 'string',
  // read-only keys of the document: accepted when sent back unchanged, which the domain checks
  id: 'any',
  username: 'any',
  owner_id: 'any',
  expire_time: 'any',
  expires_in: 'any',
  activated: 'any',
  vendor_connect_setup_key: 'any',
  host_endpoint_display_name: 'any',
  s3_url: 'any',
  s3_owner_activated: 'any',
  acl_available: 'any',
  acl_editable: 'any',
  in_use: 'any',
  my_effective_roles: 'any',
  vcp_connected: 'any',
  vcp_paused: 'any',
  local_user_info_available: 'any',
  entity_type: 'any',
  gcp_connected: 'any',
  gcp_paused: 'any',
});
