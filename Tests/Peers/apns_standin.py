#!/usr/bin/env python3
"""A strict stand-in for Apple's Push Notification service (the HTTP/2 provider API), for the
ParleyPush tests: a TLS server that speaks only HTTP/2 (ALPN "h2"; HTTP/1.1 is refused), checks
every request the way APNs does, and answers the way APNs does.

Usage:
    apns_standin.py --workdir DIR --public-key KEY.pem --key-id KID --team-id TEAM --bundle-id ID

It makes a test CA and a server certificate for 127.0.0.1/localhost in DIR, listens on a free
127.0.0.1 port, and prints one JSON line: {"port": N, "ca": "DIR/ca.pem"}.

Control, JSON lines on stdin, one JSON line answered on stdout for each:
    {"op": "unregister", "token": HEX}          -> 410 Unregistered for that token from now on
    {"op": "fail", "count": N, "seconds": T, "status": 503, "reason": "ServiceUnavailable",
     "retry_after": S}                          -> the next N requests (or all for T seconds) fail
    {"op": "hold", "after": A, "seconds": T}    -> requests arriving from A seconds from now, for T
                                                   seconds, are never answered (status 0, held),
                                                   except those a "fail" still answers
    {"op": "expire_tokens"}                     -> every JWT seen so far now gets 403 ExpiredProviderToken
    {"op": "requests"}                          -> {"requests": [...]}: every request so far
It exits when stdin closes, so a test that dies leaves nothing behind.

What is checked, in APNs' order (reasons from Apple's "Handling notification responses from APNs"):
    method POST (405 MethodNotAllowed); path /3/device/<token> (404 BadPath);
    authorization: bearer JWT (403 MissingProviderToken); ES256 signature against the public key,
    header alg ES256 and kid, claim iss = team id (403 InvalidProviderToken); iat within the last
    hour and not ahead of now (403 ExpiredProviderToken / InvalidProviderToken);
    apns-push-type alert|voip|background (400 InvalidPushType); apns-topic the bundle id, with
    ".voip" for voip (400 MissingTopic, TopicDisallowed, DeviceTokenNotForTopic); apns-priority
    10, 5 or 1 (400 BadPriority); apns-expiration an integer (400 BadExpirationDate);
    apns-collapse-id at most 64 bytes (400 BadCollapseId); apns-id a UUID (400 BadMessageId);
    the token hex of 64..200 digits (400 BadDeviceToken); a body of at most 4096 bytes (5120 for
    voip) (413 PayloadTooLarge); a JSON object with an "aps" dictionary (400 PayloadEmpty when
    empty; 400 InvalidPayload, the stand-in's own word, as Apple names none for bad JSON).
"""
import argparse
import asyncio
import base64
import datetime
import ipaddress
import json
import os
import re
import ssl
import sys
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.exceptions
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID

TOKEN = re.compile(r"^[0-9a-fA-F]{64,200}$")
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def make_certificates(workdir):
    """A throwaway CA and a server certificate it signs, for 127.0.0.1 and localhost."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Parley test APNs CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = {name: os.path.join(workdir, name) for name in ("ca.pem", "server.pem", "server.key")}
    with open(paths["ca.pem"], "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths["server.pem"], "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths["server.key"], "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return paths


class Rejection(Exception):
    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class APNs:
    """What the service knows: the provider's public key, unregistered tokens, injected failures,
    and the log of every request."""

    def __init__(self, public_key, key_id, team_id, bundle_id):
        self.public_key = public_key
        self.key_id = key_id
        self.team_id = team_id
        self.bundle_id = bundle_id
        self.unregistered = {}       # token -> milliseconds since 1970
        self.expired_jwts = set()
        self.seen_jwts = set()
        self.fail_count = 0
        self.fail_until = 0.0
        self.fail_status = 503
        self.fail_reason = "ServiceUnavailable"
        self.fail_retry_after = None
        self.hold_from = self.hold_until = 0.0
        self.requests = []

    def check_jwt(self, authorization, entry):
        if not authorization:
            raise Rejection(403, "MissingProviderToken")
        scheme, _, jwt = authorization.partition(" ")
        if scheme.lower() != "bearer" or jwt.count(".") != 2:
            raise Rejection(403, "InvalidProviderToken")
        head, body, signature = jwt.split(".")
        try:
            header = json.loads(b64url_decode(head))
            claims = json.loads(b64url_decode(body))
            raw = b64url_decode(signature)
        except ValueError:
            raise Rejection(403, "InvalidProviderToken")
        entry["jwt"] = {"token": jwt, "header": header, "claims": claims}
        if header.get("alg") != "ES256" or header.get("kid") != self.key_id or len(raw) != 64:
            raise Rejection(403, "InvalidProviderToken")
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            self.public_key.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise Rejection(403, "InvalidProviderToken")
        if claims.get("iss") != self.team_id or not isinstance(claims.get("iat"), int):
            raise Rejection(403, "InvalidProviderToken")
        now = time.time()
        if claims["iat"] > now + 60:
            raise Rejection(403, "InvalidProviderToken")
        if claims["iat"] < now - 3600 or jwt in self.expired_jwts:
            raise Rejection(403, "ExpiredProviderToken")
        self.seen_jwts.add(jwt)

    def check(self, method, path, headers, body, entry):
        """Raises Rejection as APNs would; fills entry with what it decoded on the way."""
        if self.fail_count > 0 or time.time() < self.fail_until:
            self.fail_count = max(0, self.fail_count - 1)
            raise Rejection(self.fail_status, self.fail_reason)
        if method != "POST":
            raise Rejection(405, "MethodNotAllowed")
        match = re.fullmatch(r"/3/device/([^/]*)", path)
        if not match:
            raise Rejection(404, "BadPath")
        token = match.group(1)
        entry["token"] = token
        self.check_jwt(headers.get("authorization"), entry)
        push_type = headers.get("apns-push-type")
        if push_type not in ("alert", "voip", "background"):
            raise Rejection(400, "InvalidPushType")
        topic = headers.get("apns-topic")
        if not topic:
            raise Rejection(400, "MissingTopic")
        if topic not in (self.bundle_id, self.bundle_id + ".voip"):
            raise Rejection(400, "TopicDisallowed")
        if (push_type == "voip") != topic.endswith(".voip"):
            raise Rejection(400, "DeviceTokenNotForTopic")
        if headers.get("apns-priority", "10") not in ("10", "5", "1"):
            raise Rejection(400, "BadPriority")
        if not re.fullmatch(r"[0-9]+", headers.get("apns-expiration", "0")):
            raise Rejection(400, "BadExpirationDate")
        if len(headers.get("apns-collapse-id", "").encode()) > 64:
            raise Rejection(400, "BadCollapseId")
        if "apns-id" in headers and not UUID.match(headers["apns-id"]):
            raise Rejection(400, "BadMessageId")
        if not TOKEN.match(token) or len(token) % 2:
            raise Rejection(400, "BadDeviceToken")
        if len(body) > (5120 if push_type == "voip" else 4096):
            raise Rejection(413, "PayloadTooLarge")
        if not body:
            raise Rejection(400, "PayloadEmpty")
        try:
            payload = json.loads(body)
        except ValueError:
            raise Rejection(400, "InvalidPayload")
        if not isinstance(payload, dict) or not isinstance(payload.get("aps"), dict):
            raise Rejection(400, "InvalidPayload")
        if token.lower() in self.unregistered:
            raise Rejection(410, "Unregistered")

    def handle(self, connection, method, path, headers, body):
        """One complete request: (status, response headers, response body)."""
        entry = {"arrival": time.time(), "connection": connection.number, "alpn": connection.alpn,
                 "streamID": headers.pop(":stream", None), "method": method, "path": path,
                 "headers": {k: v for k, v in headers.items()}, "body": body.decode("utf-8", "replace"),
                 "bodyBytes": len(body)}
        apns_id = headers.get("apns-id") or str(uuid.uuid4()).upper()
        response_headers = [("apns-id", apns_id)]
        entry["apnsID"] = apns_id
        try:
            self.check(method, path, headers, body, entry)
            status, payload = 200, b""
        except Rejection as rejection:
            status = rejection.status
            reason = {"reason": rejection.reason}
            if status == 410:
                reason["timestamp"] = self.unregistered.get(entry.get("token", "").lower(), 0)
            if rejection.reason == self.fail_reason and self.fail_retry_after is not None:
                response_headers.append(("retry-after", str(self.fail_retry_after)))
            payload = json.dumps(reason).encode()
            response_headers.append(("content-type", "application/json; charset=utf-8"))
            entry["reason"] = rejection.reason
        entry["status"] = status
        self.requests.append(entry)
        return status, response_headers, payload

    def control(self, command):
        op = command.get("op")
        if op == "unregister":
            self.unregistered[command["token"].lower()] = int(time.time() * 1000)
        elif op == "fail":
            self.fail_count = int(command.get("count", 0))
            self.fail_until = time.time() + float(command.get("seconds", 0))
            self.fail_status = int(command.get("status", 503))
            self.fail_reason = command.get("reason", "ServiceUnavailable")
            self.fail_retry_after = command.get("retry_after")
        elif op == "hold":
            self.hold_from = time.time() + float(command.get("after", 0))
            self.hold_until = self.hold_from + float(command.get("seconds", 0))
        elif op == "expire_tokens":
            self.expired_jwts |= self.seen_jwts
        elif op == "requests":
            return {"requests": self.requests}
        else:
            return {"error": f"unknown op {op!r}"}
        return {"ok": True}


class H2Connection(asyncio.Protocol):
    count = 0

    def __init__(self, apns):
        self.apns = apns
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.streams = {}
        H2Connection.count += 1
        self.number = H2Connection.count
        self.alpn = None
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        self.alpn = transport.get_extra_info("ssl_object").selected_alpn_protocol()
        if self.alpn != "h2":   # APNs speaks HTTP/2 only
            print(f"refused a connection that negotiated {self.alpn!r}, not h2", file=sys.stderr)
            transport.close()
            return
        self.conn.initiate_connection()
        transport.write(self.conn.data_to_send())

    def data_received(self, data):
        if self.alpn != "h2":
            return
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError as error:
            print(f"HTTP/2 protocol error: {error}", file=sys.stderr)
            self.transport.write(self.conn.data_to_send())
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                headers = dict(event.headers)
                headers[":stream"] = event.stream_id
                self.streams[event.stream_id] = (headers, bytearray())
                if event.stream_ended:
                    self.finish(event.stream_id)
            elif isinstance(event, h2.events.DataReceived):
                if event.stream_id in self.streams:
                    self.streams[event.stream_id][1].extend(event.data)
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.finish(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.streams.pop(event.stream_id, None)
        self.transport.write(self.conn.data_to_send())

    def finish(self, stream_id):
        headers, body = self.streams.pop(stream_id)
        method = headers.pop(":method", None)
        path = headers.pop(":path", None)
        for pseudo in (":scheme", ":authority"):
            headers.pop(pseudo, None)
        failing = self.apns.fail_count > 0 or time.time() < self.apns.fail_until
        if not failing and self.apns.hold_from <= time.time() < self.apns.hold_until:
            self.apns.requests.append({"arrival": time.time(), "connection": self.number, "alpn": self.alpn,
                                       "streamID": stream_id, "method": method, "path": path,
                                       "headers": {k: v for k, v in headers.items() if not k.startswith(":")},
                                       "body": bytes(body).decode("utf-8", "replace"), "bodyBytes": len(body),
                                       "status": 0, "apnsID": "", "held": True})
            return   # never answered: the client's own timeout ends it
        status, response_headers, payload = self.apns.handle(self, method, path, headers, bytes(body))
        self.conn.send_headers(stream_id, [(":status", str(status))] + response_headers
                               + [("content-length", str(len(payload)))], end_stream=not payload)
        if payload:
            self.conn.send_data(stream_id, payload, end_stream=True)


async def read_control(apns):
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        if not line.strip():
            continue
        try:
            answer = apns.control(json.loads(line))
        except (ValueError, KeyError) as error:
            answer = {"error": str(error)}
        print(json.dumps(answer), flush=True)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--bundle-id", required=True)
    args = parser.parse_args()

    with open(args.public_key, "rb") as f:
        public_key = serialization.load_pem_public_key(f.read())
    if not isinstance(public_key, ec.EllipticCurvePublicKey) or public_key.curve.name != "secp256r1":
        sys.exit("the provider key must be an EC P-256 public key")
    apns = APNs(public_key, args.key_id, args.team_id, args.bundle_id)

    paths = make_certificates(args.workdir)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(paths["server.pem"], paths["server.key"])
    context.set_alpn_protocols(["h2"])

    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: H2Connection(apns), "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    print(json.dumps({"port": port, "ca": paths["ca.pem"]}), flush=True)
    await read_control(apns)   # returns when stdin closes
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
