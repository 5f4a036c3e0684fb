import { TestWorld } from '../testing/TestWorld';
import { ServiceUnavailableError } from './errors';
import { MaintenanceGate } from './MaintenanceGate';

describe('MaintenanceGate', () => {
  it('refuses while maintenance is on and follows a switch within its refresh interval', async () => {
    const world = new TestWorld();
    const gate = new MaintenanceGate(world.uow, world.clock, 1000);
    await gate.check();
    await world.services.admin.maintenance.set(true, { message: 'Upgrade', retryAfterSeconds: 60 });
    // the last reading (off) is still fresh
    expect(() => gate.check()).not.toThrow();
    world.clock.advance(1);
    await expect(Promise.resolve().then(() => gate.check())).rejects.toMatchObject({ message: 'Upgrade', retryAfterSeconds: 60 });
    expect(() => gate.check()).toThrow(ServiceUnavailableError);
    await world.services.admin.maintenance.set(false);
    world.clock.advance(1);
    await expect(Promise.resolve().then(() => gate.check())).resolves.toBeUndefined();
  });
});
