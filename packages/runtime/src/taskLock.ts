/** The advisory lock a process holds while it runs a task: 64 bits of the task's UUID. */
export function taskLockKey(taskId: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${taskId.replace(/-/g, '').slice(0, 16)}`));
}
