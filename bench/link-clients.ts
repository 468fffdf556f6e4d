/**
 * A child process of the bench running part of the light link clients (bench/link-client.ts),
 * so that 10,000 of them are not all read, applied and answered on the bench's one event loop.
 * Driven over IPC by bench/linked-sessions.ts; the sessions' tokens arrive that way too.
 */
import { allAppliedSince, linkStarted, markOf, roundAt, type LinkedSession } from './link-client';
import type { ClientCommand, ClientReply } from './linked-sessions';

const sessions: LinkedSession[] = [];
let watch: ReturnType<typeof setInterval> | undefined;

function reply(message: ClientReply): void {
  process.send!(message);
}

/** Resolves once `done` holds, checking every `everyMs`. */
function when(done: () => boolean, everyMs: number, then: () => void): void {
  if (watch) clearInterval(watch);
  watch = setInterval(() => {
    if (!done()) return;
    clearInterval(watch);
    watch = undefined;
    then();
  }, everyMs);
}

process.on('message', (command: ClientCommand) => {
  switch (command.type) {
    case 'link': {
      const batch = command.targets.map(linkStarted);
      sessions.push(...batch);
      when(
        () => batch.every((s) => s.appliedAt.length > 0),
        2,
        () => reply({ type: 'linked' }),
      );
      return;
    }
    case 'mark': {
      const mark = markOf(sessions);
      const cpu = process.cpuUsage();
      reply({ type: 'marked' });
      when(
        () => allAppliedSince(sessions, mark),
        5,
        () => {
          const used = process.cpuUsage(cpu);
          reply({ type: 'applied', at: roundAt(sessions, mark), cpuMs: (used.user + used.system) / 1000 });
        },
      );
      return;
    }
    case 'close':
      if (watch) clearInterval(watch);
      void Promise.all(sessions.map((s) => s.link.close())).finally(() => process.exit(0));
      return;
  }
});
process.on('disconnect', () => process.exit(0));
