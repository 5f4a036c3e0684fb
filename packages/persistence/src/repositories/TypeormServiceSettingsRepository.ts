import type { Maintenance, ServiceSettingsRepository } from '@xfer/core';
import type { EntityManager } from 'typeorm';
import { SettingSchema } from '../records/schemas';

const MAINTENANCE = 'maintenance';
const CATALOGUE = 'standard_catalogue_version';

export class TypeormServiceSettingsRepository implements ServiceSettingsRepository {
  constructor(private readonly manager: EntityManager) {}

  async maintenance(): Promise<Maintenance | null> {
    const record = await this.manager.findOneBy(SettingSchema, { key: MAINTENANCE });
    if (!record) return null;
    const value = JSON.parse(record.value) as Omit<Maintenance, 'since'> & { since: string };
    return { ...value, since: new Date(value.since) };
  }

  async setMaintenance(maintenance: Maintenance | null): Promise<void> {
    if (maintenance === null) {
      await this.manager.delete(SettingSchema, { key: MAINTENANCE });
      return;
    }
    await this.manager.upsert(SettingSchema, { key: MAINTENANCE, value: JSON.stringify(maintenance) }, ['key']);
  }

  async catalogueVersion(): Promise<number> {
    const record = await this.manager.findOneBy(SettingSchema, { key: CATALOGUE });
    return record ? Number(JSON.parse(record.value)) : 0;
  }

  async setCatalogueVersion(version: number): Promise<void> {
    await this.manager.upsert(SettingSchema, { key: CATALOGUE, value: JSON.stringify(version) }, ['key']);
  }
}
