import { rmSync } from 'node:fs';
import type { Logger } from '../../application/ports/logger';
import { isSameProcess, type ProcessIdentity } from '../shared/process-identity';
import { ProcessGroupRecord, type RecordedGroup } from './process-group-record';
import { removeTmpDirs } from './private-tmp-dir';
import { descendantsOf, listProcesses, signalProcesses, waitUntilEnded } from './process-tree';

/** The §8 stop sequence's SIGTERM wait, before SIGKILL. */
const TERM_WAIT_MS = 2000;

/**
 * Ends every plugin process group a previous backend on this data dir recorded and did not end
 * (it was killed), then removes their TMPDIRs and the record. Run it holding the data-dir
 * lock, before anything else starts. Resolves with how many processes it ended.
 */
export async function sweepPluginGroups(recordPath: string, tmpRoot: string, logger: Logger): Promise<number> {
  const recorded = ProcessGroupRecord.read(recordPath);
  const left = leftBehind(recorded);
  if (left.length > 0) {
    logger.warn({ processes: left.length, groups: recorded.length }, 'ending plugin processes a previous backend left behind');
    signalProcesses(left, 'SIGTERM');
    if (!(await waitUntilEnded(left, TERM_WAIT_MS))) {
      signalProcesses(left, 'SIGKILL');
      await waitUntilEnded(left, TERM_WAIT_MS);
    }
  }
  for (const group of recorded) rmSync(group.tmpDir, { recursive: true, force: true });
  removeTmpDirs(tmpRoot);
  rmSync(recordPath, { force: true });
  return left.length;
}

/**
 * The recorded processes still running, each named by pid and start time (signalProcesses
 * checks both again right before each signal). A group counts when its leader is still the
 * process that was started, or when the leader is gone but members remain: Linux keeps a pid
 * reserved while it names a process group, so those members can only be the ones started
 * then. A leader pid now used by another process means the group is gone; only its recorded
 * descendants (checked one by one) are then still looked for.
 */
function leftBehind(recorded: RecordedGroup[]): ProcessIdentity[] {
  const processes = listProcesses();
  const found = new Map<number, ProcessIdentity>();
  for (const group of recorded) {
    const leader = processes.find((p) => p.pid === group.leader.pid && p.state !== 'Z');
    const leaderRuns = leader !== undefined && leader.startTime === group.leader.startTime;
    if (leaderRuns) found.set(group.leader.pid, group.leader);
    if (leaderRuns || leader === undefined) {
      for (const member of descendantsOf(group.leader.pid, processes)) found.set(member.pid, member);
    }
    for (const descendant of group.descendants) if (isSameProcess(descendant)) found.set(descendant.pid, descendant);
  }
  return [...found.values()].filter(isSameProcess);
}
