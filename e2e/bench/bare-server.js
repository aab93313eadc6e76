// The gateway benchmark's baseline: a bare node:http server answering every
// request with the exact bytes (status, headers, body) the gateway gave for
// GET /. Started by gateway.js in its own process; loopback only.
const http = require('node:http');

const { port, body, headers } = JSON.parse(process.argv[2]);
const payload = Buffer.from(body);
http
  .createServer((_req, res) => {
    res.writeHead(200, { ...headers, 'content-length': payload.length });
    res.end(payload);
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
