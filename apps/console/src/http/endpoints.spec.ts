import { ApiError, PersonApi } from './api';
import { documentFromForm, kindOf, overviewGroups, roleOptions } from './endpoints';

describe('what the console makes of the API', () => {
  it('finds the field an API refusal names, else none', () => {
    expect(new ApiError(400, 'BadRequest', 'Invalid display_name: must be at most 128 characters').field).toBe('display_name');
    expect(new ApiError(400, 'BadRequest', "Invalid contact_email: 'x' is not an e-mail address").field).toBe('contact_email');
    expect(new ApiError(400, 'BadRequest', "Field 'host_path' is required: an absolute path on the host").field).toBe('host_path');
    expect(new ApiError(409, 'Exists', "An access rule for this principal and path '/' exists already").field).toBe('path');
    expect(new ApiError(403, 'PermissionDenied', "You need the 'administrator' role").field).toBeNull();
  });

  it('tells the kinds apart as people do', () => {
    expect([kindOf({ host_endpoint_id: 'h' }), kindOf({ is_globus_connect: true }), kindOf({ is_globus_connect: false })]).toEqual(['share', 'personal', 'server']);
    // the roles the API grants: access managers on shares only
    expect(roleOptions('server').map((o) => o.value)).toEqual(['administrator', 'activity_manager', 'activity_monitor']);
    expect(roleOptions('personal').map((o) => o.value)).toEqual(['administrator', 'activity_manager', 'activity_monitor']);
    expect(roleOptions('share').map((o) => o.value)).toEqual(['administrator', 'access_manager', 'activity_manager', 'activity_monitor']);
  });

  it('shows every field of the document once, grouped, and never a setup key', () => {
    const document = { DATA_TYPE: 'endpoint', id: 'e1', display_name: 'Lab', public: true, keywords: null, globus_connect_setup_key: 'secret', brand_new_field: ['a', 'b'], DATA: [] };
    const groups = overviewGroups(document);
    const labels = groups.flatMap((g) => g.fields.map((f) => `${f.label}=${f.value}`));
    expect(labels).toEqual(['Display name=Lab', 'Keywords=—', 'Endpoint id=e1', 'Public=Yes', 'brand_new_field=a, b']);
    expect(groups.map((g) => g.title)).toEqual(['About', 'Other']);
  });

  it('sends a form as the API takes it: trimmed text, empty as null, unticked boxes as false', () => {
    expect(documentFromForm({ display_name: '  Lab ', description: '', public: 'true' }, { text: ['display_name', 'description', 'organization'], flags: ['public', 'force_encryption'] })).toEqual({
      display_name: 'Lab',
      description: null,
      organization: null,
      public: true,
      force_encryption: false,
    });
  });
});

describe('the API out of reach', () => {
  it('is a refusal that says which service did not answer, not an internal error', async () => {
    const api = new PersonApi('http://127.0.0.1:9', 'http://127.0.0.1:9', { transfer: 't', auth: 'a' });
    await expect(api.transfer('GET', '/endpoint_search')).rejects.toMatchObject({ status: 502, code: 'Unavailable', message: 'The service at http://127.0.0.1:9 did not answer. Try again in a moment.' });
  });
});
