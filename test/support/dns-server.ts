// A name server of the test's own on 127.0.0.1 (UDP): it answers A queries from a table the
// test sets, answers AAAA with no data, and never answers a name it does not know (a silent
// server, as a partner's broken DNS would be). It keeps every question it was asked.
import { createSocket } from 'node:dgram';
import { once } from 'node:events';

const TYPE_A = 1;

/** The question's name and type, and where the question section ends. */
function question(message: Buffer) {
  const labels: string[] = [];
  let at = 12;
  while (at < message.length && message[at]! > 0) {
    const length = message[at]!;
    labels.push(message.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  const type = message.readUInt16BE(at + 1);
  return { name: labels.join('.').toLowerCase(), type, end: at + 5 };
}

function answer(query: Buffer, end: number, addresses: string[]): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(TYPE_A, 2);
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(0, 6); // TTL 0: asked again every time
    record.writeUInt16BE(4, 10);
    address.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
    return record;
  });
  return Buffer.concat([header, query.subarray(12, end), ...records]);
}

export async function startDnsServer() {
  const asked: { name: string; type: number; at: number }[] = [];
  const names = new Map<string, string[]>();
  const socket = createSocket('udp4');
  socket.on('message', (message, from) => {
    const { name, type, end } = question(message);
    asked.push({ name, type, at: Date.now() });
    const addresses = names.get(name);
    if (!addresses) return;
    socket.send(answer(message, end, type === TYPE_A ? addresses : []), from.port, from.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  const { port } = socket.address();
  return {
    /** For Resolver.setServers. */
    server: `127.0.0.1:${port}`,
    asked,
    /** `name` resolves to these IPv4 addresses from now on. */
    serve(name: string, addresses: string[]) {
      names.set(name, addresses);
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
