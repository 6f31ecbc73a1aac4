// An OTLP/HTTP collector stand-in for the bench, in a process of its own so that what the traced
// server exports does not load the process that measures: reads and counts every request,
// answers 200. Reports its port, and its counts when asked.
import http from 'node:http';

const received = { requests: 0, bytes: 0 };
const server = http.createServer((req, res) => {
  req.on('data', (chunk) => (received.bytes += chunk.length));
  req.on('end', () => {
    received.requests++;
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('message', () => process.send?.({ ...received }));
process.on('SIGTERM', () => process.exit(0));
