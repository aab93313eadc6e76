"""A webhook receiver on loopback that accepts every delivery (2xx), for the schemathesis run's endpoints."""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Accept(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the http.server naming)
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Accept)
print(server.server_address[1], flush=True)
server.serve_forever()
