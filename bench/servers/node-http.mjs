// Node's http module alone, answering the canned task bare Express answers (servers/bare.mjs):
// the floor under every server here, to show what Express itself costs a request.
import http from 'node:http';
import { cannedAnswer } from './canned-task.mjs';

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.stringify(cannedAnswer(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('SIGTERM', () => process.exit(0));
