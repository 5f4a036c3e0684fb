import 'reflect-metadata';
import { Endpoint, newIdentity, type EndpointView, type PauseRuleState } from '@xfer/core';
import { endpointDocument, fieldSelection, limitedPauseRuleDocument, selectFields, serverDocument } from './documents';
import {
  assertSentBackUnchanged,
  assertServerSentBackUnchanged,
  decodeAddServer,
  decodeCreateEndpoint,
  decodeCreateSharedEndpoint,
  decodeEndpointPatch,
  decodeServerPatch,
} from './requests';

const now = new Date('2026-05-06T07:08:09.000Z');
const owner = newIdentity({ id: '11111111-1111-4111-8111-111111111111', username: 'alice@example.org', now });
let seq = 0;
const nextId = () => `22222222-2222-4222-8222-${String(++seq).padStart(12, '0')}`;

async function created(body: unknown): Promise<Endpoint> {
  return Endpoint.create(await decodeCreateEndpoint(body, owner.username), { id: nextId(), owner, now, subscriptionId: null, setupKey: nextId() });
}

function ownerView(endpoint: Endpoint): EndpointView {
  return { endpoint, roles: ['administrator'], host: null, hostVisible: false, hostRoles: [], hostPathVisible: false, aclEditable: false, setupKeyVisible: true };
}

async function patched(endpoint: Endpoint, body: unknown): Promise<void> {
  const { patch, sentBack } = await decodeEndpointPatch(body);
  assertSentBackUnchanged(sentBack, ownerView(endpoint));
  endpoint.update(patch);
}

describe('v0.10 request documents to commands', () => {
  it('takes is_globus_connect as the name of is_vendor_connect, and refuses the two disagreeing', async () => {
    expect(await decodeCreateEndpoint({ display_name: 'A', is_globus_connect: true }, 'alice')).toEqual({ display_name: 'A', personal: true });
    expect(await decodeCreateEndpoint({ display_name: 'A', is_vendor_connect: null }, 'alice')).toEqual({ display_name: 'A', personal: false });
    await expect(decodeCreateEndpoint({ display_name: 'B', is_globus_connect: true, is_vendor_connect: false }, 'alice')).rejects.toThrow(/disagree/);
  });

  it('turns canonical_name into the legacy name, checking the username part', async () => {
    expect(await decodeCreateEndpoint({ canonical_name: 'alice#lab-1' }, 'alice@example.org')).toEqual({ personal: false, name: 'lab-1' });
    expect(await decodeCreateEndpoint({ canonical_name: 'alice#lab', name: 'lab' }, 'alice')).toMatchObject({ name: 'lab' });
    expect(await decodeCreateEndpoint({ display_name: 'N', canonical_name: null }, 'alice')).toMatchObject({ name: null });
    await expect(decodeCreateEndpoint({ canonical_name: 'bob#lab' }, 'alice')).rejects.toThrow(/must be your username 'alice'/);
    await expect(decodeCreateEndpoint({ canonical_name: 'no-hash' }, 'alice')).rejects.toThrow(/USERNAME#ENDPOINTNAME/);
    await expect(decodeCreateEndpoint({ canonical_name: 'alice#has space' }, 'alice')).rejects.toThrow(/Invalid canonical_name: 1 to 128/);
    await expect(decodeCreateEndpoint({ name: 'a', canonical_name: 'alice#b' }, 'alice')).rejects.toThrow(/disagree/);
  });

  it('refuses share fields, the owner and read-only keys on POST /endpoint', async () => {
    await expect(decodeCreateEndpoint({ display_name: 'S', DATA_TYPE: 'shared_endpoint' }, 'alice')).rejects.toThrow(/POST \/shared_endpoint/);
    await expect(decodeCreateEndpoint({ display_name: 'S', host_endpoint: nextId(), host_path: '/' }, 'alice')).rejects.toThrow(/POST \/shared_endpoint/);
    await expect(decodeCreateEndpoint({ display_name: 'S', owner_string: 'bob' }, 'alice')).rejects.toThrow(/set from your identity/);
    await expect(decodeCreateEndpoint({ display_name: 'S', entity_type: 'GCSv4_host' }, 'alice')).rejects.toThrow(/'entity_type' cannot be set when creating a server endpoint/);
    await expect(decodeCreateEndpoint({ display_name: 'S', id: null, is_globus_connect: true }, 'alice')).rejects.toThrow(/'id' cannot be set when creating a personal-client endpoint/);
    await expect(decodeCreateEndpoint({ display_name: 'S', DATA_TYPE: 'server' }, 'alice')).rejects.toThrow(/Invalid DATA_TYPE 'server'/);
    expect(await decodeCreateEndpoint({ display_name: 'S', host_endpoint: null, DATA_TYPE: 'endpoint' }, 'alice')).toEqual({ display_name: 'S', personal: false });
  });

  it.each([
    ['public', null, 'Invalid public: must be true or false'],
    ['force_encryption', 'yes', 'Invalid force_encryption: must be true or false'],
    ['display_name', 5, 'Invalid display_name: must be a string or null'],
    ['min_concurrency', 1.5, 'Invalid min_concurrency: must be an integer'],
    ['bogus', 1, "Unknown field 'bogus'"],
  ])('checks the type of %s = %j', async (field, value, message) => {
    await expect(decodeCreateEndpoint(JSON.parse(JSON.stringify({ display_name: 'T', [field]: value })), 'alice')).rejects.toThrow(message);
    await expect(decodeEndpointPatch(JSON.parse(JSON.stringify({ [field]: value })))).rejects.toThrow(message);
  });

  it('refuses keys that name Object machinery, and bodies nested deeper than any document', async () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      await expect(decodeEndpointPatch(JSON.parse(`{"${key}": {}}`))).rejects.toThrow(`Unknown field '${key}'`);
      await expect(decodeAddServer(JSON.parse(`{"hostname": "a.example.org", "${key}": 1}`))).rejects.toThrow(`Unknown field '${key}'`);
    }
    await expect(decodeCreateEndpoint(JSON.parse('{"display_name": "D", "DATA": [{"__proto__": {"x": 1}}]}'), 'alice')).rejects.toThrow("Unknown field '__proto__'");
    const deep = JSON.parse(`{"display_name": ${'['.repeat(5000)}${']'.repeat(5000)}}`);
    await expect(decodeEndpointPatch(deep)).rejects.toThrow(/nests objects or lists too deeply/);
    expect((await decodeEndpointPatch({ display_name: 'ok', DATA: [{ hostname: 'a.example.org' }] })).patch).toEqual({ display_name: 'ok' });
  });

  it('reads a share: host_endpoint or host_endpoint_id, and nothing a share cannot have', async () => {
    const host = nextId();
    expect(await decodeCreateSharedEndpoint({ host_endpoint: host, host_path: '/a/', display_name: 'S' })).toEqual({ display_name: 'S', host_endpoint_id: host, host_path: '/a/' });
    expect(await decodeCreateSharedEndpoint({ host_endpoint_id: host, host_endpoint: host })).toMatchObject({ host_endpoint_id: host });
    await expect(decodeCreateSharedEndpoint({ host_endpoint: host, host_endpoint_id: nextId() })).rejects.toThrow(/name different endpoints/);
    await expect(decodeCreateSharedEndpoint({ host_path: '/' })).rejects.toThrow(/host_endpoint' is required/);
    await expect(decodeCreateSharedEndpoint({ host_endpoint: host, DATA: [] })).rejects.toThrow(/Servers cannot be added/);
    await expect(decodeCreateSharedEndpoint({ host_endpoint: host, DATA_TYPE: 'endpoint' })).rejects.toThrow(/expected 'shared_endpoint'/);
    await expect(decodeCreateSharedEndpoint({ host_endpoint: host, is_globus_connect: false })).rejects.toThrow(/'is_globus_connect' cannot be set when creating a shared endpoint/);
    await expect(decodeCreateSharedEndpoint({ host_endpoint: host, owner_string: 'a' })).rejects.toThrow(/set from your identity/);
  });

  it('accepts a full document from GET unchanged, and refuses a changed read-only key', async () => {
    const endpoint = await created({ display_name: 'Full', DATA: [{ hostname: 'a.example.org' }] });
    const document = () => JSON.parse(JSON.stringify(endpointDocument(ownerView(endpoint))));
    await patched(endpoint, { ...document(), description: 'changed' });
    expect(endpoint.snapshot.description).toBe('changed');
    await expect(patched(endpoint, { ...document(), activated: true })).rejects.toThrow(/'activated' cannot be changed on a server endpoint/);
    await expect(patched(endpoint, { ...document(), DATA: [] })).rejects.toThrow(/server operations/);
    await expect(patched(endpoint, { name: 'other' })).rejects.toThrow(/'name' cannot be changed/);
    await expect(patched(endpoint, { DATA_TYPE: 'shared_endpoint' })).rejects.toThrow(/DATA_TYPE/);
    const { sentBack } = await decodeEndpointPatch({ description: 'x', owner_string: 'alice', DATA_TYPE: 'endpoint' });
    expect(sentBack).toEqual([]);
  });

  it('reads servers: derived keys never on add, and only unchanged on update', async () => {
    expect(await decodeAddServer({ DATA_TYPE: 'server', hostname: 'a.example.org', port: 2812 })).toEqual({ hostname: 'a.example.org', port: 2812 });
    for (const field of ['id', 'uri', 'is_connected', 'is_paused']) {
      await expect(decodeAddServer({ hostname: 'a.example.org', [field]: null })).rejects.toThrow(`Field '${field}' of a server is derived or status only`);
    }
    await expect(decodeAddServer({ hostname: 'a.example.org', DATA_TYPE: 'endpoint' })).rejects.toThrow(/expected 'server'/);
    await expect(decodeCreateEndpoint({ display_name: 'D', DATA: [{ hostname: 'a.example.org', uri: 'x' }] }, 'alice')).rejects.toThrow(/'uri' of a server/);
    const endpoint = await created({ display_name: 'Servers', DATA: [{ hostname: 'a.example.org' }] });
    const current = serverDocument(endpoint.server(1));
    const { patch, sentBack } = await decodeServerPatch({ ...current, hostname: 'b.example.org' });
    endpoint.updateServer(1, patch, (server) => assertServerSentBackUnchanged(sentBack, server));
    expect(serverDocument(endpoint.server(1))).toMatchObject({ hostname: 'b.example.org', uri: 'gsiftp://b.example.org:2811' });
    const changed = await decodeServerPatch({ uri: 'gsiftp://elsewhere:1' });
    expect(() => endpoint.updateServer(1, changed.patch, (server) => assertServerSentBackUnchanged(changed.sentBack, server))).toThrow(/'uri' of a server cannot be updated/);
  });
});

describe('v0.10 response documents', () => {
  it('shows a personal client with its compatibility keys and one virtual server', async () => {
    const endpoint = await created({ display_name: 'Laptop', is_vendor_connect: true });
    expect(endpointDocument(ownerView(endpoint))).toMatchObject({
      is_vendor_connect: true,
      is_globus_connect: true,
      entity_type: 'GCP_mapped_collection',
      vcp_connected: false,
      gcp_connected: false,
      activated: true,
      expires_in: -1,
      username: 'alice',
      vendor_connect_setup_key: endpoint.setupKey,
      DATA: [expect.objectContaining({ DATA_TYPE: 'server', id: 1, hostname: null, uri: null, is_connected: false, is_paused: false })],
    });
  });

  it('shows a setup key only where the view allows it', async () => {
    const endpoint = await created({ display_name: 'Laptop', is_vendor_connect: true });
    expect(endpoint.setupKey).toEqual(expect.any(String));
    expect(endpointDocument({ ...ownerView(endpoint), roles: [], setupKeyVisible: false }).vendor_connect_setup_key).toBeNull();
    expect(endpointDocument(ownerView(endpoint)).vendor_connect_setup_key).toBe(endpoint.setupKey);
  });

  it('shows an object store as an alpha GCSv4 host', () => {
    const endpoint = Endpoint.createObjectStore({ display_name: 'Bucket', s3_url: 'https://s3.example.org/bucket' }, { id: nextId(), owner, now });
    expect(endpointDocument(ownerView(endpoint))).toMatchObject({ entity_type: 'GCSv4_host', s3_owner_activated: false, local_user_info_available: false, DATA: [] });
  });

  it('limits a document to the fields asked for, keeps DATA_TYPE, and rejects unknown names', async () => {
    const endpoint = await created({ display_name: 'F', DATA: [{ hostname: 'a.example.org' }] });
    const document = endpointDocument(ownerView(endpoint));
    expect(selectFields(document, fieldSelection('id, display_name'))).toEqual({ DATA_TYPE: 'endpoint', id: endpoint.id, display_name: 'F' });
    expect(selectFields(document, fieldSelection('server')).DATA).toHaveLength(1);
    expect(selectFields(document, fieldSelection(undefined))).toBe(document);
    expect(() => fieldSelection('id,bogus')).toThrow(/bogus/);
    expect(() => fieldSelection('DATA')).toThrow(/DATA/);
    expect(() => fieldSelection(['id', 'name'])).toThrow(/one comma-separated list/);
  });

  it('shows a pause rule without its administrator-only fields', () => {
    const rule: PauseRuleState = {
      id: 'r1', endpoint_id: 'e1', message: 'Paused', start_time: now, identity_id: null, pause_ls: true, pause_mkdir: false,
      pause_rename: false, pause_task_delete: false, pause_task_transfer_write: true, pause_task_transfer_read: false,
      modified_by: 'admin', modified_by_id: 'a1', created_by_host_manager: true,
    };
    const document = limitedPauseRuleDocument(rule);
    expect(document).toMatchObject({ DATA_TYPE: 'pause_rule_limited', editable: false, start_time: '2026-05-06 07:08:09+00:00', pause_ls: true });
    expect(document).not.toHaveProperty('modified_by');
    expect(document).not.toHaveProperty('modified_by_id');
    expect(document).not.toHaveProperty('created_by_host_manager');
  });
});
