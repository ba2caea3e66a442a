#!/usr/bin/env python3
"""chromium_restart_peer: headless Chromium (Debian's `chromium`, driven by Playwright) in a
call with Parley's relay that restarts ICE mid-call (`pc.restartIce()`).

The page sends the fake camera and microphone with no STUN/TURN servers, and samples its
inbound video framesDecoded and audio packetsReceived every 50 ms. Once media has flowed for
--restart-after seconds it calls restartIce(), makes the new offer (new ice-ufrag/ice-pwd, same
DTLS certificate) and prints it; the answer it is given goes to setRemoteDescription, and media
is watched for --seconds-after more. The result says how long media stopped around the restart.

Protocol on stdio (one JSON object per line), as aiortc_echo_peer.py:
  stdout  {"type": "offer", "sdp": ...}             the first offer, after ICE gathering
  stdin   {"sdp": ...}                              the answer
  stdout  {"type": "offer", "sdp": ..., "restart": true}   the restart offer (--restart-after > 0)
  stdin   {"sdp": ...}                              its answer
  stdout  {"type": "result", "videoFrames": N, "audioPackets": N, "videoGapSeconds": s,
           "audioGapSeconds": s, "baselineVideoGapSeconds": s, "connectionState": ...,
           "ufragBefore": ..., "ufragAfter": ..., "restartAnsweredAfter": s, ...}
  stdin   any line (with --hold)                    close the browser
  stdout  {"type": "error", "error": ...}
Nothing is fetched from the network (the page is served by Playwright's router); no browser is
downloaded: Playwright launches /usr/bin/chromium (or --chromium).

Needs: playwright==1.65.* (pip), chromium (Debian).
"""
import argparse
import json
import sys
import time

from playwright.sync_api import sync_playwright

PAGE_URL = "https://parley.test/restart"

FLAGS = [
    "--no-sandbox",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--disable-gpu",
]

GATHER_JS = """
async (pc, timeoutMs) => {
  await new Promise(resolve => {
    if (pc.iceGatheringState === "complete") return resolve();
    pc.addEventListener("icegatheringstatechange", () => { if (pc.iceGatheringState === "complete") resolve(); });
    setTimeout(resolve, timeoutMs);
  });
}
"""

OFFER_JS = """
async ({gatherTimeoutMs}) => {
  const gather = %s;
  const pc = new RTCPeerConnection({iceServers: []});
  window.pc = pc;
  window.timeline = [];
  window.states = [];
  pc.addEventListener("connectionstatechange", () => window.states.push([performance.now(), pc.connectionState]));
  const stream = await navigator.mediaDevices.getUserMedia(
      {audio: true, video: {width: 320, height: 240, frameRate: 30}});
  for (const track of stream.getTracks()) pc.addTrack(track, stream);
  await pc.setLocalDescription(await pc.createOffer());
  await gather(pc, gatherTimeoutMs);
  return pc.localDescription.sdp;
}
""" % GATHER_JS

SAMPLE_JS = """
() => {
  window.sampler = setInterval(async () => {
    const stats = await window.pc.getStats();
    let video = 0, audio = 0, ufrag = null, pairs = null;
    stats.forEach(s => {
      if (s.type === "inbound-rtp" && s.kind === "video") video += s.framesDecoded || 0;
      if (s.type === "inbound-rtp" && s.kind === "audio") audio += s.packetsReceived || 0;
      if (s.type === "transport") { ufrag = s.iceLocalUsernameFragment || null; pairs = s.selectedCandidatePairChanges; }
    });
    window.timeline.push([performance.now(), video, audio, ufrag, pairs]);
  }, 50);
}
"""

RESTART_JS = """
async ({gatherTimeoutMs}) => {
  const gather = %s;
  window.restartAt = performance.now();
  window.pc.restartIce();
  await window.pc.setLocalDescription(await window.pc.createOffer());
  await gather(window.pc, gatherTimeoutMs);
  return window.pc.localDescription.sdp;
}
""" % GATHER_JS

ANSWER_JS = """
async (sdp) => {
  await window.pc.setRemoteDescription({type: "answer", sdp});
  return performance.now();
}
"""

RTX_JS = """
async () => {
  const out = {retransmittedPacketsReceived: 0, retransmittedPacketsSent: 0, videoNacksSent: 0, rtxSsrc: null};
  (await window.pc.getStats()).forEach(s => {
    if (s.type === "inbound-rtp" && s.kind === "video") {
      out.retransmittedPacketsReceived += s.retransmittedPacketsReceived || 0;
      out.videoNacksSent += s.nackCount || 0;
      if (s.rtxSsrc !== undefined) out.rtxSsrc = s.rtxSsrc;
    }
    if (s.type === "outbound-rtp" && s.kind === "video") out.retransmittedPacketsSent += s.retransmittedPacketsSent || 0;
  });
  return out;
}
"""

READ_JS = "() => ({timeline: window.timeline, states: window.states, restartAt: window.restartAt || null, now: performance.now(), state: window.pc.connectionState})"


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def read_answer():
    line = sys.stdin.readline()
    if not line:
        raise RuntimeError("no answer on stdin")
    return json.loads(line)["sdp"]


def longest_gap(timeline, column, start, end):
    """The longest time (ms) within [start, end] in which the counter in `column` did not grow."""
    points = [p for p in timeline if start <= p[0] <= end]
    if not points:
        return None
    longest, since, value = 0.0, points[0][0], points[0][column]
    for p in points[1:]:
        if p[column] > value:
            value, since = p[column], p[0]
        else:
            longest = max(longest, p[0] - since)
    return longest


def latest(page):
    data = page.evaluate(READ_JS)
    last = data["timeline"][-1] if data["timeline"] else [0, 0, 0, None, None]
    return data, last


def run(args):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=FLAGS + args.chromium_arg)
        try:
            page = browser.new_page()
            page.route(PAGE_URL, lambda route: route.fulfill(
                status=200, content_type="text/html", body="<!doctype html><title>Parley ICE restart</title>"))
            page.on("console", lambda m: print(f"console {m.type}: {m.text}", file=sys.stderr))
            page.goto(PAGE_URL)
            gather = {"gatherTimeoutMs": int(args.gather_timeout * 1000)}
            emit({"type": "offer", "sdp": page.evaluate(OFFER_JS, gather)})
            page.evaluate(ANSWER_JS, read_answer())
            page.evaluate(SAMPLE_JS)

            # Media first: wait for frames, then let it run for --restart-after seconds.
            deadline = time.monotonic() + args.timeout
            data, last = latest(page)
            while last[1] < 10 and time.monotonic() < deadline:
                time.sleep(0.1)
                data, last = latest(page)
            if last[1] < 10:
                raise RuntimeError(f"no video before the restart: {last} state {data['state']}")
            media_from = last[0]
            time.sleep(args.restart_after)

            restart_answered = None
            if args.restart_after > 0:
                sdp = page.evaluate(RESTART_JS, gather)
                emit({"type": "offer", "sdp": sdp, "restart": True})
                restart_answered = page.evaluate(ANSWER_JS, read_answer())
            time.sleep(args.seconds_after)

            data, last = latest(page)
            rtx = page.evaluate(RTX_JS)
            timeline = data["timeline"]
            restart_at = data["restartAt"] or last[0]
            before = [p for p in timeline if p[0] < restart_at]
            after = [p for p in timeline if p[0] >= restart_at]
            video_gap = longest_gap(timeline, 1, restart_at - 1000, last[0])
            audio_gap = longest_gap(timeline, 2, restart_at - 1000, last[0])
            baseline = longest_gap(timeline, 1, media_from, restart_at)
            emit({
                "type": "result",
                "videoFrames": last[1],
                "audioPackets": last[2],
                "videoFramesBefore": before[-1][1] if before else 0,
                "audioPacketsBefore": before[-1][2] if before else 0,
                "videoGapSeconds": round(video_gap / 1000, 3) if video_gap is not None else None,
                "audioGapSeconds": round(audio_gap / 1000, 3) if audio_gap is not None else None,
                "baselineVideoGapSeconds": round(baseline / 1000, 3) if baseline is not None else None,
                "connectionState": data["state"],
                "connectionStates": [s for _, s in data["states"]],
                "ufragBefore": before[-1][3] if before else None,
                "ufragAfter": after[-1][3] if after else None,
                "pairChanges": last[4],
                "restartAnsweredAfter": round((restart_answered - restart_at) / 1000, 3) if restart_answered else None,
                # Chromium's own video stats (RFC 4588 retransmissions, NACKs), at the end.
                **rtx,
            })
            if args.hold:
                sys.stdin.readline()   # keep the call until told (one more line, or EOF)
        finally:
            browser.close()
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--restart-after", type=float, default=3.0, help="seconds of media before restartIce() (0: never)")
    p.add_argument("--seconds-after", type=float, default=6.0, help="seconds of media watched after the restart answer")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the first video")
    p.add_argument("--hold", action="store_true",
                   help="after the result, keep the peer connection until one more stdin line (or EOF)")
    p.add_argument("--gather-timeout", type=float, default=5.0)
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--chromium-arg", action="append", default=[], help="one more command-line flag for chromium")
    args = p.parse_args()
    try:
        return run(args)
    except Exception as exc:  # reported as a line so the test shows why
        emit({"type": "error", "error": repr(exc)})
        return 1


if __name__ == "__main__":
    sys.exit(main())
