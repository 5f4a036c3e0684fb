import { isVirtualServer, newServer, PERSONAL_SERVER_ID, serverFieldCannotBeUpdated, updatedServer, virtualServer } from './Server';

describe('a server of an endpoint', () => {
  it('needs a hostname, and takes gsiftp on port 2811 with no subject and no data ports by default', () => {
    expect(() => newServer(1, {})).toThrow("Field 'hostname' is required to add a server");
    expect(() => newServer(1, { hostname: null })).toThrow("Field 'hostname' is required to add a server");
    expect(newServer(3, { hostname: 'gridftp.example.org' })).toEqual({
      id: 3,
      hostname: 'gridftp.example.org',
      port: 2811,
      scheme: 'gsiftp',
      subject: null,
      incoming_data_port_start: null,
      incoming_data_port_end: null,
      outgoing_data_port_start: null,
      outgoing_data_port_end: null,
    });
  });

  it('checks the hostname, the port (1-65535), the scheme and the subject', () => {
    expect(() => newServer(1, { hostname: 'not a host' })).toThrow("Invalid hostname: 'not a host' is not a hostname");
    expect(newServer(1, { hostname: 'h.example.org', port: 1 }).port).toBe(1);
    expect(newServer(1, { hostname: 'h.example.org', port: 65535 }).port).toBe(65535);
    expect(() => newServer(1, { hostname: 'h.example.org', port: 0 })).toThrow('Invalid port: must be an integer from 1 to 65535');
    expect(() => newServer(1, { hostname: 'h.example.org', port: 65536 })).toThrow('Invalid port: must be an integer from 1 to 65535');
    expect(newServer(1, { hostname: 'h.example.org', scheme: 'ftp' }).scheme).toBe('ftp');
    expect(() => newServer(1, { hostname: 'h.example.org', scheme: 'http' })).toThrow("Invalid scheme 'http': must be one of gsiftp, ftp");
    expect(newServer(1, { hostname: 'h.example.org', subject: '/C=US/O=Lab/CN=host' }).subject).toBe('/C=US/O=Lab/CN=host');
    expect(() => newServer(1, { hostname: 'h.example.org', subject: 'a\nb' })).toThrow('Invalid subject: must not contain new lines');
    expect(() => newServer(1, { hostname: 'h.example.org', subject: 's'.repeat(1025) })).toThrow('Invalid subject: must be at most 1024 characters');
  });

  it('takes data port ranges set together, within 1024-65535, end not before start', () => {
    const ok = newServer(1, { hostname: 'h.example.org', incoming_data_port_start: 1024, incoming_data_port_end: 1024, outgoing_data_port_start: 50000, outgoing_data_port_end: 65535 });
    expect(ok).toMatchObject({ incoming_data_port_start: 1024, incoming_data_port_end: 1024, outgoing_data_port_start: 50000, outgoing_data_port_end: 65535 });
    const fails = (ports: Record<string, number>) => () => newServer(1, { hostname: 'h.example.org', ...ports });
    expect(fails({ incoming_data_port_start: 50000 })).toThrow('Invalid incoming_data_port_start/incoming_data_port_end: must be set together');
    expect(fails({ outgoing_data_port_end: 50000 })).toThrow('Invalid outgoing_data_port_start/outgoing_data_port_end: must be set together');
    expect(fails({ incoming_data_port_start: 1023, incoming_data_port_end: 2000 })).toThrow('Invalid incoming_data_port_start: must be an integer from 1024 to 65535');
    expect(fails({ incoming_data_port_start: 2000, incoming_data_port_end: 65536 })).toThrow('Invalid incoming_data_port_end: must be an integer from 1024 to 65535');
    expect(fails({ outgoing_data_port_start: 2001, outgoing_data_port_end: 2000 })).toThrow('Invalid outgoing_data_port_end: must be greater than or equal to outgoing_data_port_start');
  });

  it('changes hostname, scheme, port and subject; the other fields only when sent unchanged', () => {
    const server = newServer(2, { hostname: 'old.example.org', incoming_data_port_start: 50000, incoming_data_port_end: 51000 });
    expect(updatedServer(server, { hostname: 'new.example.org', scheme: 'ftp', port: 21, subject: 'CN=x' })).toEqual({ ...server, hostname: 'new.example.org', scheme: 'ftp', port: 21, subject: 'CN=x' });
    expect(updatedServer(server, { incoming_data_port_start: 50000, outgoing_data_port_end: null })).toEqual(server);
    expect(updatedServer(server, { subject: null, port: undefined })).toEqual({ ...server, subject: null });
    expect(() => updatedServer(server, { incoming_data_port_start: 50001 })).toThrow("Field 'incoming_data_port_start' of a server cannot be updated: only hostname, scheme, port and subject can");
    expect(serverFieldCannotBeUpdated('x').message).toBe("Field 'x' of a server cannot be updated: only hostname, scheme, port and subject can");
    expect(server.hostname).toBe('old.example.org');
  });

  it('refuses null for hostname, scheme and port, and checks new values', () => {
    const server = newServer(2, { hostname: 'old.example.org' });
    expect(() => updatedServer(server, { hostname: null })).toThrow('Invalid hostname: must not be null');
    expect(() => updatedServer(server, { scheme: null })).toThrow('Invalid scheme: must not be null');
    expect(() => updatedServer(server, { port: null })).toThrow('Invalid port: must not be null');
    expect(() => updatedServer(server, { hostname: '-bad' })).toThrow(/is not a hostname/);
    expect(() => updatedServer(server, { scheme: 'sftp' })).toThrow(/Invalid scheme 'sftp'/);
    expect(() => updatedServer(server, { port: 70000 })).toThrow(/Invalid port/);
  });

  it("stands for a personal client's connection as its one virtual server, id 1", () => {
    const virtual = virtualServer(true, false);
    expect(virtual).toEqual({ id: PERSONAL_SERVER_ID, virtual: true, connected: true, paused: false });
    expect(PERSONAL_SERVER_ID).toBe(1);
    expect(isVirtualServer(virtual)).toBe(true);
    expect(isVirtualServer(newServer(1, { hostname: 'h.example.org' }))).toBe(false);
  });
});
