import type { SeedResult } from '@xfer/runtime';
import { SingleBar, Presets } from 'cli-progress';

/** `xfer seed`: runs the seeder with a progress bar on a terminal (cli-progress). */
export async function seedProgress(progress: NodeJS.WriteStream | undefined, endpoints: number, seed: (onProgress: (done: number) => void) => Promise<SeedResult>): Promise<SeedResult> {
  const bar = progress
    ? new SingleBar({ stream: progress, format: 'seeding [{bar}] {percentage}% | {value}/{total} endpoints | {eta_formatted} left', hideCursor: true }, Presets.shades_classic)
    : null;
  bar?.start(endpoints, 0);
  try {
    return await seed((done) => bar?.update(done));
  } finally {
    bar?.stop();
  }
}
