/**
 * Run as another user against a live backend: holds `count` idle TCP connections to its port,
 * spread over the given loopback source addresses (each is another peer to the backend), and
 * opens a new one 50 ms after the server closes one, so that as many as it can are held the
 * whole time, the way issue 25's attacker exhausted the backend's file descriptors. It sends
 * nothing. Prints `{"holding": <count>, "uid"}` once it has opened `count` connections,
 * then after `holdMs` `{"opened", "closedByServer", "open"}` and exits.
 *
 * argv: <port> <count> <hold ms> <source address>[,<source address>…]
 */
import { connect } from 'node:net';

const [port, count, holdMs, sources] = process.argv.slice(2);
const addresses = sources!.split(',');
let opened = 0;
let closedByServer = 0;
let open = 0;
let stopping = false;
let announced = false;

function hold(slot: number): void {
  const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: addresses[slot % addresses.length] });
  let connected = false;
  socket.on('connect', () => {
    connected = true;
    opened += 1;
    open += 1;
    if (!announced && opened >= Number(count)) {
      announced = true;
      console.log(JSON.stringify({ holding: Number(count), uid: process.getuid?.() }));
    }
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    if (connected) open -= 1;
    if (stopping) return;
    closedByServer += 1;
    setTimeout(() => hold(slot), 50);
  });
}

for (let slot = 0; slot < Number(count); slot += 1) hold(slot);
setTimeout(() => {
  stopping = true;
  console.log(JSON.stringify({ opened, closedByServer, open }));
  process.exit(0);
}, Number(holdMs));
