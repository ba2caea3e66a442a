#!/usr/bin/env python3
"""web_client_media_peer: the web client's media and history, in two Chromium contexts (as
web_client_peer.py), through the page:

  Ann and Bo sign up, verify and become friends. Bo has written more messages than a page (seeded
  through the API); Ann scrolls up her chat until the first one shows. Ann records a voice message
  and a video message with MediaRecorder (whatever Chromium records) and sends them; Bo's page
  plays both. Ann posts a video story (recorded in her page); Bo watches it and Ann sees that he
  did. Ann calls Bo with audio only (no video track on either side, audio counted by getStats on
  both); then with video, turns her camera off (Bo's frames stop, his screen says so) and on, and
  mutes (Bo's received audio energy stops growing). Ann calls and gives up before Bo answers: Bo
  has a missed call, counted on his Calls badge until he opens the call history.

Protocol on stdout (one JSON object per line): {"type": "result", ...what each step saw...} or
{"type": "error", "error", "step"}. Screenshots of each new screen go to --screenshots.

Needs: playwright==1.65.* (pip), chromium (Debian).
"""
import argparse
import base64
import json
import sys
import time
import urllib.request
import uuid
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

from web_client_peer import FLAGS, Person, emit, mail_link, step, until

PASSWORD = "correct horse 42"
SEEDED = 75     # more than two of the page's 30-message pages

RECORD = """async ([type, ms]) => {
  const video = type.startsWith("video/");
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true, video: video && { width: 320, height: 240 } });
  const recorder = new MediaRecorder(stream, { mimeType: type });
  const chunks = [];
  recorder.ondataavailable = (e) => chunks.push(e.data);
  const stopped = new Promise((resolve) => { recorder.onstop = resolve; });
  recorder.start();
  await new Promise((resolve) => setTimeout(resolve, ms));
  recorder.stop();
  await stopped;
  stream.getTracks().forEach((t) => t.stop());
  const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return [recorder.mimeType, btoa(text)];
}"""

# Plays the newest <audio>/<video> of a kind and answers once it has played `seconds`.
PLAY = """async ([selector, muted]) => {
  const all = document.querySelectorAll(selector);
  const el = all[all.length - 1];
  el.muted = muted;
  try { await el.play(); } catch (error) { el.muted = true; await el.play(); }
  return true;
}"""
PLAYED = """([selector, seconds]) => {
  const all = document.querySelectorAll(selector);
  const el = all[all.length - 1];
  return !!el && !el.error && el.currentTime >= seconds && (el.tagName !== "VIDEO" || el.videoWidth > 0);
}"""


class API:
    """The public REST API as the test's own client: seeding and reading what the server holds."""
    def __init__(self, base, email):
        self.base = base
        self.token = self.call("POST", "/v1/auth/login", {"email": email, "password": PASSWORD, "deviceName": "seed"})["accessToken"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if getattr(self, "token", None):
            request.add_header("Authorization", f"Bearer {self.token}")
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            return json.loads(text) if text else {}


def stats(person):
    el = person.page.get_by_test_id("call-stats")
    return {k: float(el.get_attribute(f"data-{k}") or 0) for k in ("video-frames", "audio-packets", "audio-energy", "video-transceivers")}


def wait_stats(person, predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        s = stats(person)
        if predicate(s):
            return s
        if time.monotonic() > deadline:
            raise TimeoutError(f"{person.name}: {what} not within {timeout} s: {s}")
        time.sleep(0.5)


def end_call(ann, bo):
    ann.page.get_by_test_id("hang-up").click()
    for person in (ann, bo):
        person.page.wait_for_selector("[data-testid=call-screen]", state="detached", timeout=15000)
        person.page.wait_for_selector("[data-testid=call-ended]", state="detached", timeout=15000)


def call(ann, bo, media):
    ann.page.get_by_test_id(f"call-{media}").click()
    bo.page.wait_for_selector(f"[data-testid=incoming-call][data-media={media}]", timeout=20000)
    bo.page.get_by_test_id("accept-call").click()
    for person in (ann, bo):
        person.page.wait_for_selector("[data-testid=call-screen][data-state=active]", timeout=20000)


PAGE_STATE = """async () => {
  const state = { hash: location.hash, connection: document.getElementById("connection")?.textContent,
                  badges: {}, marks: {} };
  for (const el of document.querySelectorAll(".badge")) state.badges[el.id] = { hidden: el.hidden, text: el.textContent };
  for (const key of Object.keys(localStorage)) if (key.startsWith("parley.") && key.includes("Seen")) state.marks[key] = localStorage.getItem(key);
  try {
    const { get } = await import("/web/js/api.js");
    state.calls = (await get("/v1/calls")).calls.slice(0, 3).map((c) => ({ outcome: c.outcome, startedAt: c.startedAt, direction: c.direction }));
  } catch (e) { state.calls = String(e); }
  return state;
}"""


def page_state(person):
    """What a page showed when a step failed: where it was, its badges and marks, the calls the
    server lists, and what its console said."""
    try:
        state = person.page.evaluate(PAGE_STATE)
    except Exception as exc:
        state = {"unreadable": repr(exc)[:300]}
    state["who"] = person.name
    state["problems"] = person.problems[-10:]
    return state


def run(args):
    result = {"type": "result", "screenshots": []}
    base = urlsplit(args.base)
    public = urlsplit(args.public_url) if args.public_url else None
    flags = FLAGS + list(args.chromium_arg)
    if public and public.hostname != base.hostname:
        flags.append(f"--host-resolver-rules=MAP {public.hostname} {base.hostname}:{base.port}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=flags)
        people = []
        try:
            ann = Person(browser, args.base, "Ann Lee", "ann@example.com", args.screenshots)
            bo = Person(browser, args.base, "Bo Park", "bo@example.com", args.screenshots)
            people += [ann, bo]

            step("sign up, verify, sign in, befriend")
            for person in (ann, bo):
                person.sign_up(PASSWORD, "1992-03-14")
                person.page.wait_for_selector("[data-testid=outbox-notice]")
                outbox = person.page.get_by_test_id("outbox-directory").text_content()
                person.page.goto(mail_link(outbox, person.email, "/v1/auth/verify"))
                person.page.get_by_role("button", name="Verify my address").click()
                person.page.wait_for_selector("text=Address verified")
                person.sign_in(PASSWORD)
            ann.nav("people")
            ann.page.get_by_test_id("people-search").fill("Bo P")
            ann.page.locator("[data-testid=search-results] [data-name='Bo Park'] [data-testid=add-friend]").click()
            ann.page.wait_for_selector("[data-testid=outgoing-requests] [data-name='Bo Park']")
            bo.nav("people")
            bo.page.locator("[data-testid=incoming-requests] [data-name='Ann Lee'] [data-testid=accept-request]").click()
            bo.page.wait_for_selector("[data-testid=friends] [data-name='Ann Lee']")
            ann.page.wait_for_selector("[data-testid=friends] [data-name='Bo Park']")

            step(f"older messages: Bo has written {SEEDED} (through the API), Ann scrolls up to the first")
            bo_api, ann_api = API(args.base, bo.email), API(args.base, ann.email)
            ann_id = ann_api.call("GET", "/v1/me")["user"]["id"]
            dialog = bo_api.call("POST", "/v1/dialogs", {"type": "private", "userId": ann_id})["dialog"]["id"]
            for n in range(1, SEEDED + 1):
                bo_api.call("POST", f"/v1/dialogs/{dialog}/messages",
                            {"clientMessageId": str(uuid.uuid4()), "kind": "text", "text": f"Older message {n}"})
            ann.nav("chats")
            ann.page.get_by_test_id("chat-item").first.click()
            ann.page.wait_for_selector(f"[data-testid=message] div:text-is('Older message {SEEDED}')", timeout=15000)
            shown = "() => document.querySelectorAll('[data-testid=messages] [data-testid=message]').length"
            result["olderFirstPage"] = ann.page.evaluate(shown)
            result["olderFirstShownAtOnce"] = ann.page.locator("[data-testid=message] div:text-is('Older message 1')").count()
            deadline = time.monotonic() + 30
            while not ann.page.locator("[data-testid=message] div:text-is('Older message 1')").count():
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the first message never showed; {ann.page.evaluate(shown)} shown")
                ann.page.locator("[data-testid=messages]").hover()
                ann.page.mouse.wheel(0, -5000)   # a person scrolling up
                time.sleep(0.4)
            result["olderAll"] = ann.page.evaluate(shown)
            result["olderInOrder"] = ann.page.evaluate(
                "() => [...document.querySelectorAll('[data-testid=messages] [data-testid=message] > div > div')]"
                ".map(e => e.textContent).filter(t => t.startsWith('Older message ')).map(t => +t.slice(14))"
                ".every((n, i, all) => i === 0 || all[i - 1] < n)")
            result["screenshots"].append(ann.shot("chat-older-messages"))
            bo.nav("chats")
            bo.page.get_by_test_id("chat-item").first.click()
            bo.page.wait_for_selector("main[data-screen=chat]")

            step("a voice message and a video message, recorded in Ann's page, played in Bo's")
            ann.page.get_by_test_id("record").click()
            time.sleep(2.5)
            ann.page.get_by_test_id("record").click()
            ann.page.wait_for_selector("[data-testid=message][data-kind=audio] audio", timeout=20000)
            ann.page.get_by_test_id("record-video").click()
            ann.page.wait_for_selector("[data-testid=recording-preview]")
            time.sleep(3)
            result["screenshots"].append(ann.shot("chat-recording-video"))
            ann.page.get_by_test_id("record-video").click()
            ann.page.wait_for_selector("[data-testid=message][data-kind=video] video", timeout=20000)
            for kind, selector, muted in (("audio", "[data-testid=message-audio]", False), ("video", "[data-testid=message-video]", True)):
                bo.page.wait_for_selector(selector, timeout=20000)
                bo.page.evaluate(PLAY, [selector, muted])
                until(bo.page, f"() => ({PLAYED})({json.dumps([selector, 1.0])})", timeout=30)
                result.setdefault("boPlayed", []).append(kind)
            result["screenshots"].append(bo.shot("chat-voice-and-video"))

            step("WebM, as Firefox and older Chromium record: recorded in Ann's page, attached, played in Bo's")
            for kind, mime in (("audio", "audio/webm;codecs=opus"), ("video", "video/webm;codecs=vp8,opus")):
                recorded_as, data = ann.page.evaluate(RECORD, [mime, 2500])
                selector = f"[data-testid=message-{kind}]"
                count = bo.page.locator(selector).count()
                ann.page.get_by_test_id("composer-file").set_input_files(
                    files=[{"name": f"recording.webm", "mimeType": recorded_as.split(";")[0], "buffer": base64.b64decode(data)}])
                until(bo.page, f"() => document.querySelectorAll({json.dumps(selector)}).length > {count}", timeout=20)
                bo.page.evaluate(PLAY, [selector, kind == "video"])
                until(bo.page, f"() => ({PLAYED})({json.dumps([selector, 1.0])})", timeout=30)
                result.setdefault("boPlayedWebM", []).append(recorded_as)
            page = bo_api.call("GET", f"/v1/dialogs/{dialog}/messages?limit=5")
            result["recorded"] = [{"kind": m["kind"], "contentType": m["attachment"]["contentType"],
                                   "durationMs": m["attachment"].get("durationMs") or 0}
                                  for m in reversed(page["messages"]) if m.get("attachment")]

            step("a video story: Ann posts one recorded in her page, Bo watches it")
            mime, data = ann.page.evaluate(RECORD, ["video/mp4", 3000])
            result["storyRecordedAs"] = mime
            ann.nav("stories")
            ann.page.get_by_test_id("story-file").set_input_files(
                files=[{"name": "story.mp4", "mimeType": mime.split(";")[0], "buffer": base64.b64decode(data)}])
            ann.page.get_by_test_id("story-title").fill("On the road")
            ann.page.get_by_test_id("post-story").click()
            ann.page.wait_for_selector("[data-testid=my-story]:has-text('video')", timeout=20000)
            bo.nav("stories")
            bo.page.locator("[data-testid=story-ring]").first.click()
            bo.page.wait_for_selector("[data-testid=story-viewer] video[data-testid=story-media]", timeout=20000)
            until(bo.page, f"() => ({PLAYED})({json.dumps(['[data-testid=story-media]', 1.0])})", timeout=30)
            result["boWatchedVideoStory"] = True
            result["screenshots"].append(bo.shot("story-video"))
            ann.nav("chats")
            ann.nav("stories")
            ann.page.get_by_test_id("show-viewers").first.click()
            ann.page.wait_for_selector("[data-testid=story-viewers] li:has-text('Bo Park')")
            result["videoStoryViewers"] = ann.page.get_by_test_id("story-viewers").locator("li").count()

            for person in (ann, bo):
                person.nav("chats")
                person.page.get_by_test_id("chat-item").first.click()
                person.page.wait_for_selector("main[data-screen=chat]")

            step("an audio call: no video on either side, audio received on both")
            call(ann, bo, "audio")
            got = {}
            for name, person in (("ann", ann), ("bo", bo)):
                got[name] = wait_stats(person, lambda s: s["audio-packets"] >= 50, args.timeout, "audio packets")
                got[name]["remoteElement"] = person.page.evaluate(
                    "() => document.querySelector('[data-testid=remote-media]').tagName.toLowerCase()")
            result["audioCall"] = {name: {"audioPackets": int(s["audio-packets"]), "videoFrames": int(s["video-frames"]),
                                          "videoTransceivers": int(s["video-transceivers"]), "remoteElement": s["remoteElement"]}
                                   for name, s in got.items()}
            result["screenshots"].append(bo.shot("call-audio"))
            end_call(ann, bo)

            step("a video call: Ann turns her camera off and on, then mutes")
            call(ann, bo, "video")
            for person in (ann, bo):
                wait_stats(person, lambda s: s["video-frames"] >= 30 and s["audio-packets"] > 0, args.timeout, "first frames")
            ann.page.get_by_test_id("toggle-camera").click()
            bo.page.wait_for_selector("[data-testid=call-screen][data-remote-video=off]", timeout=15000)
            bo.page.wait_for_selector("[data-testid=remote-placeholder]:has-text('turned the camera off')")
            time.sleep(1.5)   # what was already on its way lands
            before = stats(bo)["video-frames"]
            time.sleep(3)
            after = stats(bo)["video-frames"]
            result["cameraOff"] = {"framesWhileOff": int(after - before), "boSawIt": True}
            result["screenshots"].append(bo.shot("call-camera-off"))
            ann.page.get_by_test_id("toggle-camera").click()
            bo.page.wait_for_selector("[data-testid=call-screen][data-remote-video=on]", timeout=15000)
            back = wait_stats(bo, lambda s: s["video-frames"] >= after + 30, args.timeout, "frames after the camera came back")
            result["cameraOff"]["framesAfterOn"] = int(back["video-frames"] - after)

            def energy_over(seconds):
                first = stats(bo)["audio-energy"]
                time.sleep(seconds)
                return stats(bo)["audio-energy"] - first
            result["mute"] = {"energyUnmuted": energy_over(3)}
            ann.page.get_by_test_id("toggle-mute").click()
            bo.page.wait_for_selector("[data-testid=call-screen][data-remote-audio=off]", timeout=15000)
            bo.page.wait_for_selector("[data-testid=call-status]:has-text('muted')")
            time.sleep(1.5)
            result["mute"]["energyMuted"] = energy_over(3)
            result["mute"]["boSawIt"] = True
            end_call(ann, bo)

            step("a missed call: Ann gives up before Bo answers")
            ann.page.get_by_test_id("call-audio").click()
            bo.page.wait_for_selector("[data-testid=incoming-call]", timeout=20000)
            ann.page.wait_for_selector("[data-testid=call-screen]")
            time.sleep(1)
            ann.page.get_by_test_id("hang-up").click()
            bo.page.wait_for_selector("[data-testid=incoming-call]", state="detached", timeout=15000)
            bo.page.wait_for_selector("[data-testid=missed-badge]:not([hidden])", timeout=15000)
            result["missedBadge"] = bo.page.get_by_test_id("missed-badge").text_content()
            bo.page.wait_for_selector("[data-testid=call-ended]", state="detached", timeout=15000)
            result["screenshots"].append(bo.shot("chat-missed-call"))
            bo.nav("calls")
            bo.page.wait_for_selector("[data-testid=call-entry]")
            first = bo.page.get_by_test_id("call-entry").first
            result["boFirstEntry"] = {"outcome": first.get_attribute("data-outcome"), "direction": first.get_attribute("data-direction"),
                                      "shownMissed": first.evaluate("e => e.classList.contains('missed-call') && e.textContent.includes('Missed')")}
            result["screenshots"].append(bo.shot("calls-missed"))
            result["badgeAfterOpening"] = bo.page.get_by_test_id("missed-badge").is_hidden()
            bo.nav("chats")
            bo.page.reload()   # the badge counts again from what the server says, against this device's mark
            bo.page.wait_for_selector("[data-testid=connection].online", timeout=20000)
            time.sleep(1.5)
            result["badgeStaysCleared"] = bo.page.get_by_test_id("missed-badge").is_hidden()
            result["problems"] = ann.problems + bo.problems
        except Exception as exc:
            exc.page_states = [page_state(person) for person in people]
            raise
        finally:
            browser.close()
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="the server under test, e.g. http://127.0.0.1:8080")
    p.add_argument("--public-url", default="", help="the server's publicBaseURL (mail links); resolved to --base")
    p.add_argument("--screenshots", required=True, help="folder for the screenshots")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for media to flow")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--chromium-arg", action="append", default=[], help="one more command-line flag for chromium")
    args = p.parse_args()
    try:
        emit(run(args))
        return 0
    except Exception as exc:  # reported as a line so the test shows why
        import web_client_peer
        emit({"type": "error", "step": web_client_peer.STEP, "error": repr(exc)[:2000],
              "pages": getattr(exc, "page_states", [])})
        return 1


if __name__ == "__main__":
    sys.exit(main())
