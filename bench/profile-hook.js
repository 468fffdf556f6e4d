'use strict';
/**
 * CPU-profiles every Node process of a bench run, agentctls and plugins included (node
 * refuses --cpu-prof in NODE_OPTIONS, but the backend passes NODE_OPTIONS on, so --require
 * reaches them all):
 *
 *   BENCH_PROFILE_DIR=/tmp/prof NODE_OPTIONS="--require $PWD/bench/profile-hook.js" \
 *     npm run bench -- --only=hops
 *
 * Each process writes <dir>/<role>-<pid>.cpuprofile when it exits normally (the backend
 * stops its agentctls and plugins with SIGTERM at the end of a run).
 */
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR || '/tmp/toolport-bench-profiles';
const args = process.argv.slice(1).join(' ');
const role = /toolport agentctl|toolport\S* agentctl/.test(args)
  ? 'agentctl'
  : / serve /.test(`${args} `)
    ? 'backend'
    : /plugins\//.test(args)
      ? 'plugin'
      : /floor-servers/.test(args)
        ? 'floors'
        : /toolport-bench\/main/.test(args)
          ? 'bench'
          : /toolport-bench\/link-clients/.test(args)
            ? 'clients'
            : 'other';
if (role !== 'other') {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${role}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on('exit', write);
  // Written at the stop signal too: a process the backend escalates to SIGKILL never exits.
  process.prependListener('SIGTERM', write);
}
