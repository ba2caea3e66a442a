#!/usr/bin/env python3
"""A strict stand-in for an SMS provider's Messages API (Twilio's shape, which ParleySMS's
HTTPSMSTransport speaks), for the phone sign-up tests: a real HTTP/1.1 server on 127.0.0.1 that
checks every request the way the provider does and answers the way it does.

Usage:
    sms_standin.py --account-id AC… --auth-token TOKEN --from +15005550006

It listens on a free 127.0.0.1 port and prints one JSON line: {"port": N}.
Control, JSON lines on stdin, one JSON line answered on stdout for each:
    {"op": "messages"}   -> {"messages": [{"to", "from", "body", "sid"}], "refused": [{"status", "code", "path"}]}
It exits when stdin closes, so a test that dies leaves nothing behind.

What is checked, in this order (codes from Twilio's error dictionary):
    path /2010-04-01/Accounts/<account>/Messages.json (404, 20404); method POST (405, 20004);
    HTTP Basic auth with the account id and token, the same account as the path (401, 20003);
    Content-Type application/x-www-form-urlencoded and a Content-Length (400, 21617);
    a form with To, From and Body exactly once each and nothing unknown (400, 21604 / 21603 / 21602);
    To in E.164, "+" and 8 to 15 digits (400, 21211); From the configured sender (400, 21606);
    Body of 1 to 1600 characters (400, 21617).
Accepted: 201 with {"sid": "SM<32 hex>", "status": "queued", "to", "from", "body"}.
"""
import argparse
import base64
import json
import re
import secrets
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

E164 = re.compile(r"^\+[1-9][0-9]{7,14}$")
lock = threading.Lock()
messages = []
refused = []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--account-id", required=True)
    parser.add_argument("--auth-token", required=True)
    parser.add_argument("--from", dest="sender", required=True)
    args = parser.parse_args()
    path = f"/2010-04-01/Accounts/{args.account_id}/Messages.json"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def answer(self, status, payload):
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def refuse(self, status, code, message):
            with lock:
                refused.append({"status": status, "code": code, "path": self.path})
            self.answer(status, {"code": code, "message": message, "status": status,
                                 "more_info": f"https://www.twilio.com/docs/errors/{code}"})

        def drain(self):
            length = self.headers.get("Content-Length")
            if length is None:
                return None
            return self.rfile.read(int(length))

        def do_GET(self):
            self.drain()
            if self.path != path:
                return self.refuse(404, 20404, "The requested resource was not found")
            self.refuse(405, 20004, "Method not allowed")

        def do_POST(self):
            raw = self.drain()
            if self.path != path:
                return self.refuse(404, 20404, "The requested resource was not found")
            auth = self.headers.get("Authorization", "")
            expected = base64.b64encode(f"{args.account_id}:{args.auth_token}".encode()).decode()
            if auth != f"Basic {expected}":
                return self.refuse(401, 20003, "Authenticate")
            if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/x-www-form-urlencoded" or raw is None:
                return self.refuse(400, 21617, "The request body must be a form")
            try:
                form = urllib.parse.parse_qs(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
            except (ValueError, UnicodeDecodeError):
                return self.refuse(400, 21617, "The request body could not be read")
            if set(form) - {"To", "From", "Body"}:
                return self.refuse(400, 21617, f"Unknown parameters: {sorted(set(form) - {'To', 'From', 'Body'})}")
            for name, code in (("To", 21604), ("From", 21603), ("Body", 21602)):
                if len(form.get(name, [])) != 1:
                    return self.refuse(400, code, f"A '{name}' parameter is required, once")
            to, sender, text = form["To"][0], form["From"][0], form["Body"][0]
            if not E164.match(to):
                return self.refuse(400, 21211, f"The 'To' number {to} is not a valid phone number.")
            if sender != args.sender:
                return self.refuse(400, 21606, f"The 'From' phone number {sender} is not a valid, SMS-capable number for your account.")
            if not 1 <= len(text) <= 1600:
                return self.refuse(400, 21617, "The concatenated message body exceeds the 1600 character limit.")
            sid = "SM" + secrets.token_hex(16)
            with lock:
                messages.append({"to": to, "from": sender, "body": text, "sid": sid})
            self.answer(201, {"sid": sid, "status": "queued", "to": to, "from": sender, "body": text,
                              "account_sid": args.account_id})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    for line in sys.stdin:
        try:
            command = json.loads(line)
        except ValueError:
            print(json.dumps({"error": "not JSON"}), flush=True)
            continue
        if command.get("op") == "messages":
            with lock:
                print(json.dumps({"messages": list(messages), "refused": list(refused)}), flush=True)
        else:
            print(json.dumps({"error": "unknown op"}), flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
