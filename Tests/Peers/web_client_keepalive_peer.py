#!/usr/bin/env python3
"""web_client_keepalive_peer: the web client on a network that goes silent. Ann's page (signed in
with a refresh token the test made) reaches Parley through a TCP relay of this script's own; the
relay then stops carrying bytes both ways but closes nothing — as a phone's or laptop's network
does when it goes away — and the page must find out from its unanswered `ping` (the server's hello
asks for one every `pingIntervalSeconds`). Then the relay resets what it held and carries new
connections again, and the page must come back online and send a message.

Prints one JSON line: {"type": "result", "offlineAfter": s, "onlineAgainAfter": s, "sent": bool,
"problems": [...]} or {"type": "error", "error", "step"}.

Needs: playwright==1.65.* (pip), chromium (Debian).
"""
import argparse
import socket
import sys
import threading
import time
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

import web_client_peer as peer
from web_client_peer import FLAGS, step, until

REFRESH_KEY = "parley.refreshToken"   # web/js/session.js


class SilentRelay:
    """127.0.0.1:<port> → the server. `silence()` stops moving bytes (nothing is closed);
    `restore()` resets every connection it held and carries new ones again."""

    def __init__(self, host, port):
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.silent = threading.Event()
        self.lock = threading.Lock()
        self.held = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.held.append((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self.pump, args=(a, b), daemon=True).start()

    def pump(self, source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                while self.silent.is_set():   # held, not dropped: the network is just gone
                    time.sleep(0.05)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def silence(self):
        self.silent.set()

    def restore(self):
        with self.lock:
            held, self.held = self.held, []
        for pair in held:
            for s in pair:
                try:
                    s.shutdown(socket.SHUT_RDWR)   # what the silence held ends: a new network, new connections
                except OSError:
                    pass
        self.silent.clear()


ONLINE = "() => document.getElementById('connection').classList.contains('online')"
OFFLINE = "() => !document.getElementById('connection').classList.contains('online')"


def wait_for(page, predicate, timeout):
    try:
        until(page, predicate, timeout)
        return True
    except TimeoutError:
        return False


def run(args):
    result = {"type": "result", "problems": []}
    target = urlsplit(args.base)
    relay = SilentRelay(target.hostname, target.port)
    base = f"http://127.0.0.1:{relay.port}"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=FLAGS)
        try:
            context = browser.new_context()
            context.add_init_script(f"localStorage.getItem({REFRESH_KEY!r}) || localStorage.setItem({REFRESH_KEY!r}, {args.refresh_token!r})")
            page = context.new_page()
            page.on("pageerror", lambda e: result["problems"].append(f"pageerror: {e}"))
            page.on("console", lambda m: print(f"console {m.type}: {m.text}", file=sys.stderr))

            step("signed in and online")
            page.goto(f"{base}/#/chats")
            if not wait_for(page, ONLINE, 20):
                raise RuntimeError("the page never came online")

            step("the network goes silent")
            relay.silence()
            went = time.monotonic()
            if not wait_for(page, OFFLINE, args.within):
                raise RuntimeError(f"still online {args.within} s after the network went silent")
            result["offlineAfter"] = round(time.monotonic() - went, 2)

            step("the network is back")
            relay.restore()
            back = time.monotonic()
            if not wait_for(page, ONLINE, 20):
                raise RuntimeError("not online again 20 s after the network came back")
            result["onlineAgainAfter"] = round(time.monotonic() - back, 2)

            step("a command on the new socket")
            reply = page.evaluate("async () => { const r = await import('/web/js/realtime.js'); return (await r.command('ping')).ok; }")
            result["sent"] = reply is True
        finally:
            browser.close()
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True)
    p.add_argument("--refresh-token", required=True)
    p.add_argument("--within", type=float, default=10.0, help="seconds the page may take to notice")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    return peer.answer(run, p.parse_args())


if __name__ == "__main__":
    sys.exit(main())
