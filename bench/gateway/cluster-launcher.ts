// N gateway processes behind one port, for `npm run bench -- --only scale`: Node 20 has no
// `reusePort`, so node:cluster's primary holds PORT and METRICS_PORT and hands each connection to
// a worker in turn (round robin). Each worker runs the compiled gateway exactly as production
// starts it (production's node flags and entry point, given after N on the command line).
//   node --import tsx bench/gateway/cluster-launcher.ts N [node flags…] dist/gateway/src/main.js
// Prints `ready <pid> <pid>…` once every worker listens on PORT. SIGTERM (or SIGINT) is passed
// on to the workers, and the primary exits once they all have; a worker that exits on its own
// stops the others and the primary with exit code 1.
import cluster, { type Worker } from 'node:cluster';

const [count, ...command] = process.argv.slice(2);
const processes = Number(count);
const entry = command.at(-1);
if (!Number.isInteger(processes) || processes < 1 || !entry) {
  console.error('usage: cluster-launcher.ts N [node flags…] entry.js');
  process.exit(2);
}
const port = Number(process.env.PORT);

cluster.setupPrimary({
  exec: entry,
  execArgv: command.slice(0, -1),
  args: [],
  // Their log (stdout) is written out and read by nobody, as processes.ts does for one gateway;
  // stderr stays visible. The launcher's own stdout carries `ready`.
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});

const workers: Worker[] = [];
const listening = new Set<number>();
let stopping = false;

function stop(code: number) {
  if (stopping) return;
  stopping = true;
  const alive = workers.filter((w) => !w.isDead());
  if (alive.length === 0) process.exit(code);
  let left = alive.length;
  for (const worker of alive) {
    worker.once('exit', () => {
      if (--left === 0) process.exit(code);
    });
    worker.process.kill('SIGTERM');
  }
}

cluster.on('listening', (worker, address) => {
  if (address.port !== port) return;
  listening.add(worker.id);
  if (listening.size === processes) {
    console.log(`ready ${workers.map((w) => w.process.pid).join(' ')}`);
  }
});
cluster.on('exit', (worker, code, signal) => {
  if (stopping) return;
  console.error(`gateway process ${worker.process.pid} exited (${signal ?? code}): stopping`);
  stop(1);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stop(0));

for (let i = 0; i < processes; i++) workers.push(cluster.fork());
