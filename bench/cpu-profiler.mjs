// Preloaded by bench/profile-read.ts (`node --import ./bench/cpu-profiler.mjs ...`): the first
// SIGUSR2 starts a CPU profile, the second writes it to $PROFILE_OUT. Start-up and warm-up
// stay out of the profile, so it shows only the load.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const session = new Session();
session.connect();
let running = false;
process.on('SIGUSR2', () => {
  if (!running) {
    running = true;
    session.post('Profiler.enable', () => session.post('Profiler.start'));
    return;
  }
  running = false;
  session.post('Profiler.stop', (err, result) => {
    if (!err) writeFileSync(process.env.PROFILE_OUT, JSON.stringify(result.profile));
    process.send?.('profile-written');
  });
});
