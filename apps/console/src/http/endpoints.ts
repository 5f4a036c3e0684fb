import type { Json } from './api';

/** What a person calls an endpoint's kind. */
export type EndpointKind = 'server' | 'share' | 'personal';

export function kindOf(document: Json): EndpointKind {
  if (document.host_endpoint_id) return 'share';
  return document.is_globus_connect ? 'personal' : 'server';
}

/** Whether the signed-in person administers the endpoint (the API says so in my_effective_roles). */
export function administers(document: Json): boolean {
  return Array.isArray(document.my_effective_roles) && document.my_effective_roles.includes('administrator');
}

/** The overview's groups: the fields a person looks for first; every other field goes under "Other". */
const GROUPS: { title: string; fields: [string, string][] }[] = [
  {
    title: 'About',
    fields: [
      ['display_name', 'Display name'], ['description', 'Description'], ['organization', 'Organization'], ['department', 'Department'],
      ['keywords', 'Keywords'], ['contact_email', 'Contact email'], ['contact_info', 'Contact info'], ['info_link', 'Info link'],
      ['owner_string', 'Owner'], ['id', 'Endpoint id'], ['canonical_name', 'Legacy name'], ['public', 'Public'], ['entity_type', 'Entity type'],
    ],
  },
  {
    title: 'Sharing',
    fields: [['host_endpoint_display_name', 'Host endpoint'], ['host_endpoint_id', 'Host endpoint id'], ['host_path', 'Host path'], ['shareable', 'Shareable'], ['acl_available', 'Access rules available'], ['acl_editable', 'Access rules editable by you']],
  },
  {
    title: 'Connection',
    fields: [
      ['default_directory', 'Default directory'], ['force_encryption', 'Force encryption'], ['disable_verify', 'Verification disabled'], ['myproxy_server', 'MyProxy server'],
      ['myproxy_dn', 'MyProxy DN'], ['oauth_server', 'OAuth server'], ['https_server', 'HTTPS server'], ['tlsftp_server', 'TLS-FTP server'], ['gcs_manager_url', 'GCS manager URL'],
      ['location', 'Location'],
    ],
  },
  {
    title: 'Management',
    fields: [
      ['subscription_id', 'Subscription'], ['subscription_admin_verified', 'Verified by subscription administrator'], ['network_use', 'Network use'],
      ['max_concurrency', 'Maximum concurrency'], ['preferred_concurrency', 'Preferred concurrency'],
      ['max_parallelism', 'Maximum parallelism'], ['preferred_parallelism', 'Preferred parallelism'], ['my_effective_roles', 'Your roles'],
    ],
  },
  {
    title: 'Status',
    fields: [['activated', 'Activated'], ['expire_time', 'Activation expires'], ['in_use', 'In use'], ['is_globus_connect', 'Personal endpoint'], ['gcp_connected', 'Connected'], ['gcp_paused', 'Paused'], ['non_functional', 'Non-functional'], ['high_assurance', 'High assurance']],
  },
];

/**
 * Not shown: the document's type, its servers (the Servers tab), the setup keys (a credential
 * the console shows once, when the endpoint is made), and the older names of the two maximums.
 */
const NOT_SHOWN = new Set(['DATA_TYPE', 'DATA', 'globus_connect_setup_key', 'vendor_connect_setup_key', 'min_concurrency', 'min_parallelism']);

export function displayValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map(displayValue).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Every field of the document, grouped, labelled and shown as text. */
export function overviewGroups(document: Json): { title: string; fields: { label: string; value: string }[] }[] {
  const shown = new Set<string>(NOT_SHOWN);
  const groups = GROUPS.map((group) => ({
    title: group.title,
    fields: group.fields.filter(([name]) => name in document).map(([name, label]) => {
      shown.add(name);
      return { label, value: displayValue(document[name]) };
    }),
  })).filter((group) => group.fields.length > 0);
  const others = Object.keys(document).filter((name) => !shown.has(name)).sort();
  if (others.length > 0) groups.push({ title: 'Other', fields: others.map((name) => ({ label: name, value: displayValue(document[name]) })) });
  return groups;
}

/** The fields the Edit form offers, by kind: a share takes neither "public" nor its host's settings. */
export function editableFields(kind: EndpointKind): { text: string[]; flags: string[] } {
  const text = ['display_name', 'description', 'organization', 'department', 'keywords', 'contact_email', 'contact_info', 'info_link'];
  if (kind === 'share') return { text, flags: [] };
  return { text: [...text, 'default_directory'], flags: ['public', 'force_encryption'] };
}

/** A form's values as the API takes them: trimmed text, empty as null; checkboxes as booleans. */
export function documentFromForm(form: Record<string, unknown>, fields: { text: string[]; flags: string[] }): Json {
  const document: Json = {};
  for (const name of fields.text) {
    const value = typeof form[name] === 'string' ? (form[name] as string).trim() : '';
    document[name] = value === '' ? null : value;
  }
  for (const name of fields.flags) document[name] = form[name] === 'true';
  return document;
}

/** A document's values as a form shows them. */
export function formFromDocument(document: Json, fields: { text: string[]; flags: string[] }): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const name of fields.text) values[name] = document[name] ?? '';
  for (const name of fields.flags) values[name] = document[name] === true;
  return values;
}

export const ROLE_LABELS: Record<string, string> = {
  administrator: 'Administrator',
  access_manager: 'Access manager',
  activity_manager: 'Activity manager',
  activity_monitor: 'Activity monitor',
};

/** The roles the API grants. */
const GRANTABLE_ROLES = ['administrator', 'access_manager', 'activity_manager', 'activity_monitor'];

/** The roles one may grant on an endpoint of this kind (access managers only on shares). */
export function roleOptions(kind: EndpointKind): { value: string; label: string }[] {
  return Object.entries(ROLE_LABELS)
    .filter(([role]) => GRANTABLE_ROLES.includes(role) && (kind === 'share' || role !== 'access_manager'))
    .map(([value, label]) => ({ value, label }));
}

export const PRINCIPAL_OPTIONS = [
  { value: 'identity', label: 'A user' },
  { value: 'group', label: 'A group' },
  { value: 'all_authenticated_users', label: 'All signed-in users' },
  { value: 'anonymous', label: 'Anyone (public, read only)' },
];

export const PERMISSION_OPTIONS = [
  { value: 'r', label: 'Read' },
  { value: 'rw', label: 'Read and write' },
];
