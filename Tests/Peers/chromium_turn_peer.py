#!/usr/bin/env python3
"""chromium_turn_peer: headless Chromium (Debian's `chromium`, driven by Playwright) placing
Parley's echo call through a TURN server only — or, with `--policy all` and no iceServers,
straight to the relay over whatever candidates its answer offers (ICE over TCP when it offers
only TCP).

The page makes an RTCPeerConnection with `iceTransportPolicy: "relay"` and the iceServers it is
given (what GET /v1/calls/ice-servers answered), so every packet goes through the TURN server;
it sends the fake camera and microphone and counts the video frames it DECODES coming back, and
the audio energy it hears.

Protocol on stdio (one JSON object per line), as aiortc_echo_peer.py:
  stdout  {"type": "offer", "sdp": ..., "relayCandidates": N}   after ICE gathering (no trickle)
  stdin   {"sdp": ...}                                          the relay's answer
  stdout  {"type": "result", "videoFrames": N, "audioPackets": N, "audioEnergy": x, "candidateType": "relay",
           "relayProtocol": "udp"|"tcp", "protocol": "udp"|"tcp", "remoteProtocol": "udp"|"tcp",
           "connectSeconds": s}
  stdout  {"type": "error", "error": ...}                       anything that went wrong
Nothing is fetched from the network: the page is served by Playwright's router, and the only
addresses the page talks to are the TURN servers it is handed. No browser is downloaded:
Playwright launches /usr/bin/chromium (or --chromium).

Needs: playwright==1.65.* (pip), chromium (Debian).
"""
import argparse
import json
import sys
import time

from playwright.sync_api import sync_playwright

PAGE_URL = "https://parley.test/turn-echo"   # fulfilled by the route below: a secure context, no network

FLAGS = [
    "--no-sandbox",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--disable-gpu",
    "--autoplay-policy=no-user-gesture-required",
]

OFFER_JS = """
async ({iceServers, policy, gatherTimeoutMs}) => {
  const pc = new RTCPeerConnection({iceServers, iceTransportPolicy: policy});
  window.pc = pc;
  window.started = performance.now();
  // Play what comes back, so that Chromium decodes the audio and measures its energy.
  pc.addEventListener("track", event => {
    if (event.track.kind !== "audio") return;
    const audio = new Audio();
    audio.srcObject = new MediaStream([event.track]);
    audio.play().catch(error => console.log("audio play: " + error));
    window.remoteAudio = audio;
  });
  const stream = await navigator.mediaDevices.getUserMedia(
      {audio: true, video: {width: 320, height: 240, frameRate: 30}});
  for (const track of stream.getTracks()) pc.addTrack(track, stream);
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise(resolve => {
    if (pc.iceGatheringState === "complete") return resolve();
    pc.addEventListener("icegatheringstatechange", () => {
      if (pc.iceGatheringState === "complete") resolve();
    });
    setTimeout(resolve, gatherTimeoutMs);
  });
  return {sdp: pc.localDescription.sdp, gathering: pc.iceGatheringState};
}
"""

ANSWER_JS = """
async (sdp) => {
  window.answeredAt = performance.now();
  await window.pc.setRemoteDescription({type: "answer", sdp});
}
"""

STATS_JS = """
async () => {
  const pc = window.pc;
  const stats = await pc.getStats();
  let videoFrames = 0, audioPackets = 0, audioEnergy = 0, pair = null, transport = null;
  stats.forEach(s => {
    if (s.type === "inbound-rtp" && s.kind === "video") videoFrames += s.framesDecoded || 0;
    if (s.type === "inbound-rtp" && s.kind === "audio") {
      audioPackets += s.packetsReceived || 0;
      audioEnergy += s.totalAudioEnergy || 0;
    }
    if (s.type === "transport" && s.selectedCandidatePairId) transport = s;
  });
  if (transport) pair = stats.get(transport.selectedCandidatePairId);
  const local = pair ? stats.get(pair.localCandidateId) : null;
  const remote = pair ? stats.get(pair.remoteCandidateId) : null;
  return {
    videoFrames, audioPackets, audioEnergy,
    protocol: local ? local.protocol : null,
    remoteProtocol: remote ? remote.protocol : null,
    connectionState: pc.connectionState, iceState: pc.iceConnectionState,
    candidateType: local ? local.candidateType : null,
    relayProtocol: local ? (local.relayProtocol || null) : null,
    connectedAfterMs: window.connectedAt ? window.connectedAt - window.answeredAt : null,
  };
}
"""

WATCH_JS = """
() => {
  window.pc.addEventListener("connectionstatechange", () => {
    if (window.pc.connectionState === "connected" && !window.connectedAt) window.connectedAt = performance.now();
  });
}
"""


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def relay_candidates(sdp):
    return [ln for ln in sdp.splitlines() if ln.startswith("a=candidate:") and " typ relay" in ln]


def run(args):
    ice_servers = json.loads(args.ice_servers)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=FLAGS + args.chromium_arg)
        try:
            page = browser.new_page()
            page.route(PAGE_URL, lambda route: route.fulfill(
                status=200, content_type="text/html", body="<!doctype html><title>Parley TURN echo</title>"))
            page.on("console", lambda m: print(f"console {m.type}: {m.text}", file=sys.stderr))
            page.goto(PAGE_URL)
            offer = page.evaluate(OFFER_JS, {"iceServers": ice_servers, "policy": args.policy,
                                             "gatherTimeoutMs": int(args.gather_timeout * 1000)})
            relays = relay_candidates(offer["sdp"])
            emit({"type": "offer", "sdp": offer["sdp"], "relayCandidates": len(relays), "gathering": offer["gathering"]})
            if args.policy == "relay" and not relays:
                # Nothing to connect through: the TURN server refused us (or is not there).
                return 0
            line = sys.stdin.readline()
            if not line:
                raise RuntimeError("no answer on stdin")
            page.evaluate(WATCH_JS)
            page.evaluate(ANSWER_JS, json.loads(line)["sdp"])
            deadline = time.monotonic() + args.timeout
            stats = page.evaluate(STATS_JS)
            while stats["videoFrames"] < args.frames and time.monotonic() < deadline:
                if stats["connectionState"] == "failed":
                    break
                time.sleep(0.25)
                stats = page.evaluate(STATS_JS)
            result = {"type": "result", **stats,
                      "connectSeconds": round(stats["connectedAfterMs"] / 1000, 3) if stats["connectedAfterMs"] else None}
            result.pop("connectedAfterMs")
            emit(result)
        finally:
            browser.close()
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ice-servers", required=True, help="the iceServers JSON list, as the endpoint gave it")
    p.add_argument("--policy", choices=["relay", "all"], default="relay",
                   help="iceTransportPolicy: relay (TURN only) or all (host candidates straight to the relay)")
    p.add_argument("--frames", type=int, default=60, help="stop once this many video frames were decoded")
    p.add_argument("--timeout", type=float, default=25.0, help="seconds to wait for them after the answer")
    p.add_argument("--gather-timeout", type=float, default=10.0)
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
