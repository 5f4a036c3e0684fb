import { seedDatabase as seed, type SeedResult } from '@xfer/persistence';
import { SingleBar, Presets } from 'cli-progress';
import type { Engine } from '@xfer/persistence';

/** `xfer seed`: the persistence seeder with a progress bar on a terminal (cli-progress). */
export async function seedDatabase(
  engine: Engine,
  options: { endpoints: number; sharesOnFirstHost: number; progress?: NodeJS.WriteStream },
): Promise<SeedResult> {
  const bar = options.progress
    ? new SingleBar({ stream: options.progress, format: 'seeding [{bar}] {percentage}% | {value}/{total} endpoints | {eta_formatted} left', hideCursor: true }, Presets.shades_classic)
    : null;
  bar?.start(options.endpoints, 0);
  try {
    return await seed(engine, { endpoints: options.endpoints, sharesOnFirstHost: options.sharesOnFirstHost, onProgress: (done) => bar?.update(done) });
  } finally {
    bar?.stop();
  }
}
