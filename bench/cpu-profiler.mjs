// Preloaded by bench/profile-read.ts (`node --import ./bench/cpu-profiler.mjs ...`): the first
// SIGUSR2 starts a CPU profile, the second writes it to $PROFILE_OUT. Start-up and warm-up
// stay out of the profile, so it shows only the load. The profile also carries the process's CPU
// time over the same span (`cpuUsageUs`, user + system from process.cpuUsage()): on a shared
// machine a sample's wall time includes time the process waited for a core, its CPU time does not.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const session = new Session();
session.connect();
let running = false;
let cpuAtStart;
process.on('SIGUSR2', () => {
  if (!running) {
    running = true;
    cpuAtStart = process.cpuUsage();
    session.post('Profiler.enable', () => session.post('Profiler.start'));
    return;
  }
  running = false;
  const cpu = process.cpuUsage(cpuAtStart);
  session.post('Profiler.stop', (err, result) => {
    if (!err)
      writeFileSync(
        process.env.PROFILE_OUT,
        JSON.stringify({ ...result.profile, cpuUsageUs: cpu.user + cpu.system }),
      );
    process.send?.('profile-written');
  });
});
