"""An OTLP/HTTP trace receiver for the tracing tests: what an OpenTelemetry collector does on
POST /v1/traces (binary protobuf, opentelemetry-proto's own messages), strictly.

Prints {"port": N} once listening, then one JSON line per span received:
{"traceId", "spanId", "parentSpanId", "name", "kind", "service", "attributes", "events"}.
Anything but a protobuf ExportTraceServiceRequest POSTed to /v1/traces is refused (404, 415, 400).
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path != "/v1/traces":
            return self.refuse(404, "only /v1/traces")
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/x-protobuf":
            return self.refuse(415, "application/x-protobuf only")
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        request = ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except DecodeError as error:
            return self.refuse(400, f"not an ExportTraceServiceRequest: {error}")
        for resource_spans in request.resource_spans:
            service = next((value(a.value) for a in resource_spans.resource.attributes if a.key == "service.name"), None)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    line = {
                        "traceId": span.trace_id.hex(),
                        "spanId": span.span_id.hex(),
                        "parentSpanId": span.parent_span_id.hex(),
                        "name": span.name,
                        "kind": span.kind,
                        "service": service,
                        "attributes": {a.key: value(a.value) for a in span.attributes},
                        "events": [event.name for event in span.events],
                    }
                    print(json.dumps(line), flush=True)
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def refuse(self, status, why):
        body = why.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        print(json.dumps({"refused": status, "why": why}), flush=True)

    def log_message(self, *args):
        sys.stderr.write("otlp-standin: " + (args[0] % args[1:]) + "\n")


server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
print(json.dumps({"port": server.server_address[1]}), flush=True)
server.serve_forever()
