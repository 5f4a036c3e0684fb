import { describeStorageContract } from './contracts';
import { MemoryStorage } from './MemoryStorage';

describeStorageContract("core's fake (MemoryStorage)", async () => ({ storage: new MemoryStorage(), close: async () => undefined }));
