import type { DirectoryFileCopy } from '../storage/Storage';

/** Every outcome a batch copy told, in order (a test reads them whole). */
export async function gatheredCopies(told: AsyncIterable<readonly DirectoryFileCopy[]>): Promise<DirectoryFileCopy[]> {
  const outcomes: DirectoryFileCopy[] = [];
  for await (const batch of told) outcomes.push(...batch);
  return outcomes;
}
