/**
 * Runs `blocks` rounds in which every kind runs one block, the order rotated by one each
 * round: no kind always runs right after another, and all see the same machine load.
 */
export async function rotatedBlocks<K>(kinds: readonly K[], blocks: number, runBlock: (kind: K, block: number) => Promise<void>): Promise<void> {
  for (let block = 0; block < blocks; block++) {
    for (let i = 0; i < kinds.length; i++) await runBlock(kinds[(i + block) % kinds.length]!, block);
  }
}
