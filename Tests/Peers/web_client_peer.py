#!/usr/bin/env python3
"""web_client_peer: two people use Parley's web client (served at / by the server under test) in
headless Chromium (Debian's `chromium`, driven by Playwright), each in a browser context of
their own, doing what a person does, only through the page:

  Ann and Bo sign up (the page says which outbox folder the mail was written to; the script opens
  the verification link from that mail and presses its button), sign in, become friends (Ann
  finds Bo, Bo accepts), chat both ways (text, and an image from Ann), Ann calls Bo with video,
  Bo accepts on the incoming-call screen, both call screens count >= --frames video frames decoded
  and audio packets received (getStats(), shown on the screen), Ann hangs up, both histories show
  the call; Bo's socket drops and his page catches up (`sync`) on its return; Ann calls again and Bo declines; Ann posts a story and Bo watches it, Ann sees who
  watched; Ann runs the echo test and sees her own video come back.

The verification links name the server's publicBaseURL (--public-host); Chromium resolves that
host to the server under test (--host-resolver-rules), so the link is opened exactly as mailed.

Protocol on stdio (one JSON object per line):
  stdout  {"type": "drop", "userId": ...}     close this user's realtime sockets on the server
  stdin   any line                            done
  stdout  {"type": "result", ...what each step saw...} or {"type": "error", "error", "step"} Screenshots of each main screen go to --screenshots. Nothing is fetched from anywhere
but the server under test; no browser is downloaded: Playwright launches /usr/bin/chromium.

Needs: playwright==1.65.* (pip), chromium (Debian).
"""
import argparse
import json
import os
import re
import struct
import sys
import time
import zlib
from urllib.parse import urlsplit, urlunsplit

from playwright.sync_api import sync_playwright

FLAGS = [
    "--no-sandbox",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--disable-gpu",
]

STEP = "start"


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def answer(run, args):
    """Prints what `run(args)` saw as the one JSON line, or the error and the step it came in
    (so the test shows why); the exit status to end with."""
    try:
        emit(run(args))
        return 0
    except Exception as exc:
        emit({"type": "error", "step": STEP, "error": repr(exc)[:2000]})
        return 1


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def step(name):
    global STEP
    STEP = name
    log(name)


def png(width=96, height=64):
    """A small gradient PNG made here (no file needed): the photo Ann sends."""
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (x * 255 // width, y * 255 // height, 160))
                    for y in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def mail_link(directory, address, path_part, timeout=10.0):
    """The link containing `path_part` in the newest mail to `address` in the outbox folder."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        names = sorted((n for n in os.listdir(directory) if n.endswith(".eml")),
                       key=lambda n: os.path.getmtime(os.path.join(directory, n)), reverse=True) if os.path.isdir(directory) else []
        for name in names:
            text = open(os.path.join(directory, name), encoding="utf-8", errors="replace").read()
            if address.lower() not in text.lower():
                continue
            text = re.sub(r"=\r?\n", "", text)   # quoted-printable soft line breaks
            match = re.search(r"[a-z][a-z0-9+.-]*://[^\s\"'<>]*" + re.escape(path_part) + r"[^\s\"'<>]*token=[A-Za-z0-9_-]+", text)
            if match:
                return match.group(0).replace("=3D", "=")
        time.sleep(0.1)
    raise RuntimeError(f"no mail with {path_part} to {address} in {directory}")


def until(page, predicate, timeout=30.0):
    """Polls `predicate` (a function's source) with page.evaluate. Not page.wait_for_function:
    it polls with eval inside the page, which the client's CSP (no 'unsafe-eval') refuses."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(predicate):
        if time.monotonic() > deadline:
            raise TimeoutError(f"not true within {timeout} s: {predicate}")
        time.sleep(0.1)


class Person:
    def __init__(self, browser, base, name, email, shots):
        self.name, self.email, self.base, self.shots = name, email, base, shots
        self.context = browser.new_context(viewport={"width": 1100, "height": 800})
        self.context.grant_permissions(["camera", "microphone"], origin=base)
        self.page = self.context.new_page()
        self.problems = []
        self.page.on("console", lambda m: self.console(m))
        self.page.on("pageerror", lambda e: self.problems.append(f"pageerror: {e}"))

    def console(self, message):
        if message.type == "error":
            where = (message.location or {}).get("url", "")
            self.problems.append(f"console: {message.text} ({where})")
        print(f"{self.name} console {message.type}: {message.text}", file=sys.stderr)

    def shot(self, name):
        path = os.path.join(self.shots, f"{name}.png")
        self.page.screenshot(path=path)
        return path

    def go(self, hash_path):
        self.page.goto(f"{self.base}/#/{hash_path}")

    def nav(self, which):
        self.page.get_by_test_id(f"nav-{which}").click()
        self.page.wait_for_selector(f"main[data-screen={which}]")

    def sign_up(self, password, born):
        self.go("signup")
        form = self.page.get_by_test_id("signup-form")
        form.locator("input[name=name]").fill(self.name)
        form.locator("input[name=email]").fill(self.email)
        form.locator("input[name=password]").fill(password)
        form.locator("input[name=dateOfBirth]").fill(born)
        form.locator("button[type=submit]").click()

    def sign_in(self, password):
        self.go(f"signin")
        form = self.page.get_by_test_id("signin-form")
        form.locator("input[name=email]").fill(self.email)
        form.locator("input[name=password]").fill(password)
        form.locator("button[type=submit]").click()
        self.page.wait_for_selector("main[data-screen=chats]")
        self.page.wait_for_selector("[data-testid=connection].online")

    def stats(self, testid):
        el = self.page.get_by_test_id(testid)
        return int(el.get_attribute("data-video-frames") or 0), int(el.get_attribute("data-audio-packets") or 0)

    def history(self):
        self.nav("calls")
        self.page.wait_for_selector("[data-testid=call-entry]")
        entries = self.page.get_by_test_id("call-entry")
        return [{"outcome": entries.nth(i).get_attribute("data-outcome"), "direction": entries.nth(i).get_attribute("data-direction"),
                 "media": entries.nth(i).get_attribute("data-media")} for i in range(entries.count())]


def run(args):
    result = {"type": "result", "screenshots": []}
    shots = args.screenshots
    os.makedirs(shots, exist_ok=True)
    public = urlsplit(args.public_url) if args.public_url else None
    base = urlsplit(args.base)
    flags = FLAGS + list(args.chromium_arg)
    if public and public.hostname != base.hostname:
        flags.append(f"--host-resolver-rules=MAP {public.hostname} {base.hostname}:{base.port}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=flags)
        try:
            ann = Person(browser, args.base, "Ann Lee", "ann@example.com", shots)
            bo = Person(browser, args.base, "Bo Park", "bo@example.com", shots)
            password = "correct horse 42"

            step("the age rule: a 13-year-old is refused")
            ann.sign_up(password, time.strftime("%Y-%m-%d", time.gmtime(time.time() - 13 * 365.25 * 86400)))
            ann.page.wait_for_selector("[data-testid=signup-error]:not(:empty)")
            result["tooYoung"] = ann.page.get_by_test_id("signup-error").text_content()

            step("sign up, and the verification link from the outbox")
            for person in (ann, bo):
                person.sign_up(password, "1990-04-02")
                person.page.wait_for_selector("[data-testid=outbox-notice]")
                if person is ann:
                    result["screenshots"].append(ann.shot("signup-check-mail"))
                outbox = person.page.get_by_test_id("outbox-directory").text_content()
                result.setdefault("outboxShown", []).append(outbox)
                link = mail_link(outbox, person.email, "/v1/auth/verify")
                person.page.goto(link)
                person.page.get_by_role("button", name="Verify my address").click()
                person.page.wait_for_selector("text=Address verified")
                result.setdefault("verified", []).append(person.email)

            step("sign in, and stay signed in across a reload")
            ann.sign_in(password)
            bo.sign_in(password)
            ann.page.reload()
            ann.page.wait_for_selector("[data-testid=connection].online")
            result["signedInAfterReload"] = ann.page.locator("main").get_attribute("data-screen") == "chats"
            result["accessTokenInStorage"] = ann.page.evaluate(
                "() => Object.keys(localStorage).filter(k => !k.startsWith('parley.refresh'))")

            step("friends: Ann finds Bo and asks, Bo accepts")
            ann.nav("people")
            ann.page.get_by_test_id("people-search").fill("Bo P")
            ann.page.locator("[data-testid=search-results] [data-name='Bo Park'] [data-testid=add-friend]").click()
            ann.page.wait_for_selector("[data-testid=outgoing-requests] [data-name='Bo Park']")
            bo.nav("people")
            bo.page.locator("[data-testid=incoming-requests] [data-name='Ann Lee'] [data-testid=accept-request]").click()
            bo.page.wait_for_selector("[data-testid=friends] [data-name='Ann Lee']")
            ann.page.wait_for_selector("[data-testid=friends] [data-name='Bo Park']")   # live, by friend.accepted
            bo_id = ann.page.locator("[data-testid=friends] [data-name='Bo Park']").get_attribute("data-user")
            result["screenshots"].append(bo.shot("people"))
            result["friends"] = True

            step("chat: Ann writes and sends a photo, Bo reads and answers")
            ann.page.locator("[data-testid=friends] [data-name='Bo Park'] [data-testid=message]").click()
            ann.page.wait_for_selector("main[data-screen=chat]")
            ann.page.get_by_test_id("composer-text").fill("Hello Bo! Here is the view from my window.")
            ann.page.get_by_test_id("send").click()
            ann.page.get_by_test_id("composer-file").set_input_files(
                files=[{"name": "window.png", "mimeType": "image/png", "buffer": png()}])
            ann.page.wait_for_selector("[data-testid=message][data-kind=image] img")
            bo.nav("chats")
            bo.page.wait_for_selector("[data-testid=chat-item] [data-testid=unread]")
            result["boUnread"] = int(bo.page.locator("[data-testid=chat-item] [data-testid=unread]").first.text_content())
            result["screenshots"].append(bo.shot("chats"))
            bo.page.get_by_test_id("chat-item").first.click()
            bo.page.wait_for_selector("[data-testid=message][data-kind=image] img")
            until(bo.page, "() => [...document.querySelectorAll('[data-testid=message] img')].some(i => i.complete && i.naturalWidth > 0)")
            result["boSawText"] = bo.page.locator("[data-testid=message]", has_text="Hello Bo!").count() == 1
            result["boSawImage"] = True
            bo.page.get_by_test_id("composer-text").fill("Lovely! Call me?")
            ann.page.wait_for_selector("[data-testid=typing]:has-text('is typing')")
            result["annSawTyping"] = True
            bo.page.get_by_test_id("send").click()
            ann.page.wait_for_selector("[data-testid=message]:has-text('Call me?')")
            result["annSawReply"] = True
            ann.page.wait_for_selector("[data-testid=read-mark][data-read='1']")
            result["annSawRead"] = True
            result["screenshots"].append(ann.shot("chat"))

            step("catching up: Bo's socket drops, Ann writes, Bo's page syncs on its return")
            # Offline first, so that the page cannot reconnect before Ann has written; then the
            # server closes Bo's socket (the driver does it when asked on stdout).
            bo.context.set_offline(True)
            emit({"type": "drop", "userId": bo_id})
            if not sys.stdin.readline():
                raise RuntimeError("no answer to the drop request on stdin")
            dropped = time.monotonic()
            bo.page.wait_for_selector("[data-testid=connection]:not(.online)")
            result["boOfflineAfter"] = round(time.monotonic() - dropped, 2)
            ann.page.get_by_test_id("composer-text").fill("Written while you were away")
            ann.page.get_by_test_id("send").click()
            ann.page.wait_for_selector("[data-testid=message]:has-text('while you were away')")
            time.sleep(0.5)
            result["boHadItBeforeReturn"] = bo.page.locator("[data-testid=message]:has-text('while you were away')").count()
            bo.context.set_offline(False)
            bo.page.wait_for_selector("[data-testid=connection].online", timeout=20000)
            bo.page.wait_for_selector("[data-testid=message]:has-text('while you were away')", timeout=10000)
            result["boCaughtUp"] = True

            step("a video call: Ann calls, Bo accepts on the incoming-call screen")
            ann.page.get_by_test_id("call-video").click()
            bo.page.wait_for_selector("[data-testid=incoming-call][data-media=video]")
            result["screenshots"].append(bo.shot("incoming-call"))
            bo.page.get_by_test_id("accept-call").click()
            for person in (ann, bo):
                person.page.wait_for_selector("[data-testid=call-screen][data-state=active]")
            deadline = time.monotonic() + args.timeout
            while time.monotonic() < deadline:
                annStats, boStats = ann.stats("call-stats"), bo.stats("call-stats")
                if min(annStats[0], boStats[0]) >= args.frames and min(annStats[1], boStats[1]) > 0:
                    break
                time.sleep(0.5)
            result["ann"] = {"videoFrames": annStats[0], "audioPackets": annStats[1]}
            result["bo"] = {"videoFrames": boStats[0], "audioPackets": boStats[1]}
            result["screenshots"].append(ann.shot("call"))
            ann.page.get_by_test_id("toggle-mute").click()
            bo.page.wait_for_selector("[data-testid=call-status]:has-text('muted')")
            result["boSawMute"] = True
            ann.page.get_by_test_id("hang-up").click()
            for person in (ann, bo):   # the call screen gives way to "Call ended", which goes by itself
                person.page.wait_for_selector("[data-testid=call-screen]", state="detached")
            for person in (ann, bo):
                person.page.wait_for_selector("[data-testid=call-ended]", state="detached", timeout=10000)
            result["annHistory"] = ann.history()
            result["boHistory"] = bo.history()

            step("a declined call")
            ann.page.locator("[data-testid=call-entry]").first.locator("button").click()   # call back, from the history
            bo.page.wait_for_selector("[data-testid=incoming-call]")
            bo.page.get_by_test_id("decline-call").click()
            ann.page.wait_for_selector("[data-testid=call-ended]:has-text('declined')")
            ann.page.wait_for_selector("[data-testid=call-ended]", state="detached", timeout=10000)
            bo.page.wait_for_selector("[data-testid=call-ended]", state="detached", timeout=10000)
            time.sleep(0.5)
            result["annAfterDecline"] = ann.history()
            result["boAfterDecline"] = bo.history()
            result["screenshots"].append(ann.shot("calls"))

            step("stories: Ann posts a photo, Bo watches, Ann sees who watched")
            ann.nav("stories")
            ann.page.get_by_test_id("story-file").set_input_files(
                files=[{"name": "story.png", "mimeType": "image/png", "buffer": png(120, 90)}])
            ann.page.get_by_test_id("story-title").fill("Sunset")
            ann.page.get_by_test_id("post-story").click()
            ann.page.wait_for_selector("[data-testid=my-story]")
            bo.nav("stories")
            bo.page.locator("[data-testid=story-ring]").first.click()
            bo.page.wait_for_selector("[data-testid=story-viewer] img[data-testid=story-media]")
            result["screenshots"].append(bo.shot("stories"))
            time.sleep(0.5)
            ann.nav("chats")
            ann.nav("stories")
            ann.page.get_by_test_id("show-viewers").first.click()
            ann.page.wait_for_selector("[data-testid=story-viewers] li:has-text('Bo Park')")
            result["storyViewers"] = ann.page.get_by_test_id("story-viewers").locator("li").count()

            step("the echo test: Ann's own video comes back")
            ann.nav("calls")
            ann.page.get_by_test_id("echo-test").click()
            deadline = time.monotonic() + args.timeout
            echo = (0, 0)
            while time.monotonic() < deadline:
                echo = ann.stats("echo-stats")
                if echo[0] >= args.frames and echo[1] > 0:
                    break
                time.sleep(0.5)
            result["echo"] = {"videoFrames": echo[0], "audioPackets": echo[1],
                              "remoteWidth": ann.page.evaluate("() => document.querySelector('[data-testid=echo-remote]').videoWidth")}
            result["screenshots"].append(ann.shot("echo-test"))
            ann.page.get_by_test_id("echo-stop").click()

            step("profile, and signing out")
            ann.nav("profile")
            ann.page.get_by_test_id("profile-status").fill("Back from the mountains")
            ann.page.get_by_test_id("profile-form").locator("button[type=submit]").click()
            ann.page.wait_for_selector("text=Saved")
            result["screenshots"].append(ann.shot("profile"))
            ann.page.get_by_test_id("sign-out").click()
            ann.page.wait_for_selector("main[data-screen=signin]")
            ann.page.reload()
            ann.page.wait_for_selector("main[data-screen=signin]")
            result["signedOut"] = ann.page.evaluate("() => localStorage.length") == 0
            result["problems"] = ann.problems + bo.problems
        finally:
            browser.close()
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="the server under test, e.g. http://127.0.0.1:8080")
    p.add_argument("--public-url", default="", help="the server's publicBaseURL (mail links); resolved to --base")
    p.add_argument("--screenshots", required=True, help="folder for the screenshots")
    p.add_argument("--frames", type=int, default=100, help="video frames each side must decode")
    p.add_argument("--timeout", type=float, default=45.0, help="seconds to wait for the frames")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--chromium-arg", action="append", default=[], help="one more command-line flag for chromium")
    return answer(run, p.parse_args())


if __name__ == "__main__":
    sys.exit(main())
