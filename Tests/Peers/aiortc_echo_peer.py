#!/usr/bin/env python3
"""aiortc_echo_peer: a real aiortc client for Parley's relay interop tests.

Sends Opus (a generated tone) and VP8 (generated moving frames) to the relay and counts the
frames it DECODES from its own remote tracks — for an echo leg, its own media coming back.

Protocol on stdio (one JSON object per line):
  stdout  {"type": "offer", "sdp": ...}          the offer, after ICE gathering (no trickle)
  stdin   {"sdp": ...}                           the relay's answer
  stdout  {"type": "progress", "audioFrames": N, "videoFrames": N, "t": S}   with --progress, every few seconds
  stdout  {"type": "result", "audioFrames": N, "videoFrames": N, "audioFramesSent": N, "videoFramesSent": N, "srtpProfile": ..., ...}
  stdin   any line (with --hold)                 close the peer connection (DTLS close_notify)
With --rtx the video offer keeps aiortc's RTX format (RFC 4588) beside VP8; the result then says
what arrived per SSRC and payload type ("rtpReceived", "ssrc/pt": count, counted as aiortc's
receiver takes each packet), how many retransmissions this peer sent ("retransmissionsSent",
"rtxSent") and the answer's video RTX payload type and FID SSRCs.
Logs go to stderr. Everything stays on loopback: aioice gathers only 127.0.0.1 (or ::1 with
`--address ::1`), no STUN/TURN servers, remote candidates other than UDP on that address are
refused (as peer-bench/echo_bench.py).

Needs: aiortc==1.16.* (brings aioice 0.13, pylibsrtp 1.0, av).
"""
import argparse
import asyncio
import fractions
import json
import logging
import math
import sys
import time

LOOPBACK = "127.0.0.1"

# --- loopback only: patch aioice before aiortc imports it ------------------------------------
import aioice.ice  # noqa: E402

aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: [LOOPBACK]
_orig_add_remote = aioice.ice.Connection.add_remote_candidate


async def _loopback_add_remote(self, remote_candidate):
    if remote_candidate is not None and (
        remote_candidate.host != LOOPBACK or remote_candidate.transport.lower() != "udp"
    ):
        logging.getLogger("peer").warning("refused remote candidate %s", remote_candidate)
        return None
    return await _orig_add_remote(self, remote_candidate)


aioice.ice.Connection.add_remote_candidate = _loopback_add_remote
_orig_send_stun = aioice.ice.StunProtocol.send_stun
_orig_send_data = aioice.ice.StunProtocol.send_data


def _loopback_send_stun(self, message, addr):
    if addr[0] != LOOPBACK:
        raise RuntimeError(f"refusing to send STUN to {addr[0]} (loopback only)")
    return _orig_send_stun(self, message, addr)


async def _loopback_send_data(self, data, addr):
    if addr[0] != LOOPBACK:
        raise RuntimeError(f"refusing to send data to {addr[0]} (loopback only)")
    return await _orig_send_data(self, data, addr)


aioice.ice.StunProtocol.send_stun = _loopback_send_stun
aioice.ice.StunProtocol.send_data = _loopback_send_data

import av  # noqa: E402
import aiortc.rtcdtlstransport as rtcdtls  # noqa: E402
from aiortc import (  # noqa: E402
    MediaStreamTrack,
    RTCConfiguration,
    RTCPeerConnection,
    RTCRtpSender,
    RTCSessionDescription,
    VideoStreamTrack,
)

log = logging.getLogger("peer")

# --- counting what aiortc's own receiver and sender see (no change to what they do) -----------
import aiortc.rtcrtpreceiver as rtcrtpreceiver  # noqa: E402
import aiortc.rtcrtpsender as rtcrtpsender  # noqa: E402

RTP_RECEIVED = {}
SENT = {"retransmissions": 0, "rtx": 0}
# The counting window (open from the connection to the end of --seconds), and the frames this
# peer's own tracks handed to their encoders while it was open: what a test holds the decoded
# frames to, so that it measures what the relay carried, not how much CPU aiortc had to encode.
WINDOW = {"open": False}
FRAMES_SENT = {"audio": 0, "video": 0}
_orig_handle_rtp = rtcrtpreceiver.RTCRtpReceiver._handle_rtp_packet
_orig_wrap_rtx = rtcrtpsender.wrap_rtx
_orig_retransmit = rtcrtpsender.RTCRtpSender._retransmit


async def _counting_handle_rtp(self, packet, arrival_time_ms):
    key = f"{packet.ssrc}/{packet.payload_type}"
    RTP_RECEIVED[key] = RTP_RECEIVED.get(key, 0) + 1
    return await _orig_handle_rtp(self, packet, arrival_time_ms)


def _counting_wrap_rtx(*a, **kw):
    SENT["rtx"] += 1
    return _orig_wrap_rtx(*a, **kw)


async def _counting_retransmit(self, sequence_number):
    SENT["retransmissions"] += 1
    return await _orig_retransmit(self, sequence_number)


rtcrtpreceiver.RTCRtpReceiver._handle_rtp_packet = _counting_handle_rtp
rtcrtpsender.wrap_rtx = _counting_wrap_rtx
rtcrtpsender.RTCRtpSender._retransmit = _counting_retransmit

SRTP_CHOICES = {
    "gcm128": rtcdtls.SRTP_AEAD_AES_128_GCM,
    "gcm256": rtcdtls.SRTP_AEAD_AES_256_GCM,
    "cm80": rtcdtls.SRTP_AES128_CM_SHA1_80,
}


class ToneTrack(MediaStreamTrack):
    """A 440 Hz sine, 20 ms frames of s16 mono at 48 kHz, paced in real time."""

    kind = "audio"
    RATE = 48000
    SAMPLES = 960

    def __init__(self):
        super().__init__()
        self._pts = 0
        self._start = None

    async def recv(self):
        if self._start is None:
            self._start = time.monotonic()
        else:
            self._pts += self.SAMPLES
            wait = self._start + self._pts / self.RATE - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        samples = bytearray()
        for i in range(self.SAMPLES):
            value = int(8000 * math.sin(2 * math.pi * 440 * (self._pts + i) / self.RATE))
            samples += value.to_bytes(2, "little", signed=True)
        if WINDOW["open"]:
            FRAMES_SENT["audio"] += 1
        frame = av.AudioFrame(format="s16", layout="mono", samples=self.SAMPLES)
        frame.planes[0].update(bytes(samples))
        frame.sample_rate = self.RATE
        frame.pts = self._pts
        frame.time_base = fractions.Fraction(1, self.RATE)
        return frame


class MovingBarTrack(VideoStreamTrack):
    """A bright vertical bar sweeping across a grey picture, 30 frames/s, yuv420p."""

    def __init__(self, width, height):
        super().__init__()
        self.width, self.height = width, height
        self.count = 0
        self._chroma = bytes([128]) * ((width // 2) * (height // 2))

    async def recv(self):
        pts, time_base = await self.next_timestamp()
        if WINDOW["open"]:
            FRAMES_SENT["video"] += 1
        x = (self.count * 8) % self.width
        self.count += 1
        row = bytearray([80]) * self.width
        row[x:x + 16] = bytes([235]) * len(row[x:x + 16])
        frame = av.VideoFrame(self.width, self.height, "yuv420p")
        frame.planes[0].update(bytes(row) * self.height)
        frame.planes[1].update(self._chroma)
        frame.planes[2].update(self._chroma)
        frame.pts = pts
        frame.time_base = time_base
        return frame


def keep_loopback_candidates(sdp):
    out, dropped = [], []
    for line in sdp.splitlines():
        if line.startswith("a=candidate:"):
            f = line.split()
            if len(f) >= 8 and f[2].lower() == "udp" and f[4] == LOOPBACK:
                out.append(line)
            else:
                dropped.append(line)
            continue
        out.append(line)
    return "\r\n".join(out) + "\r\n", dropped


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def run(args):
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    counts = {"audio": 0, "video": 0}
    first_at = {}
    window = WINDOW
    video_size = [None]
    consumers = []

    async def consume(track):
        while True:
            try:
                frame = await track.recv()
            except Exception as exc:  # MediaStreamError when the track ends
                log.warning("remote %s track stopped: %r", track.kind, exc)
                return
            if track.kind not in first_at:
                first_at[track.kind] = time.monotonic()
            if window["open"]:
                counts[track.kind] += 1
                if track.kind == "video":
                    video_size[0] = [frame.width, frame.height]

    @pc.on("track")
    def on_track(track):
        log.info("remote %s track", track.kind)
        consumers.append(asyncio.ensure_future(consume(track)))

    connected = asyncio.Event()

    @pc.on("connectionstatechange")
    def on_state():
        log.info("connection %s", pc.connectionState)
        if pc.connectionState in ("connected", "failed", "closed"):
            connected.set()

    for track, codec in ((ToneTrack(), "audio/opus"), (MovingBarTrack(args.width, args.height), "video/VP8")):
        transceiver = pc.addTransceiver(track, direction="sendrecv")
        caps = RTCRtpSender.getCapabilities(track.kind).codecs
        wanted = [codec.lower()] + (["video/rtx"] if args.rtx and track.kind == "video" else [])
        transceiver.setCodecPreferences([c for c in caps if c.mimeType.lower() in wanted])

    await pc.setLocalDescription(await pc.createOffer())
    emit({"type": "offer", "sdp": pc.localDescription.sdp})

    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if not line:
        raise RuntimeError("no answer on stdin")
    answer, dropped = keep_loopback_candidates(json.loads(line)["sdp"])
    if dropped:
        log.warning("dropped candidates: %s", dropped)
    await pc.setRemoteDescription(RTCSessionDescription(answer, "answer"))
    t_connect = time.monotonic()
    await asyncio.wait_for(connected.wait(), args.connect_timeout)
    if pc.connectionState != "connected":
        raise RuntimeError(f"connection {pc.connectionState}")
    connect_s = time.monotonic() - t_connect

    dtls = [t for t in pc.getTransceivers() if t.kind == "video"][0].sender.transport
    profile = dtls._ssl.get_selected_srtp_profile().decode()
    window["open"] = True
    t0 = time.monotonic()

    async def report_progress():
        # {"type": "progress"} lines while the window is open, so a test can see frames over time.
        while window["open"]:
            await asyncio.sleep(args.progress)
            emit({"type": "progress", "audioFrames": counts["audio"], "videoFrames": counts["video"],
                  "t": round(time.monotonic() - t0, 3)})

    progress = asyncio.ensure_future(report_progress()) if args.progress > 0 else None
    if args.from_first_frame:
        # In a call the other side may join later: count `seconds` from the first frame received.
        deadline = t0 + args.connect_timeout
        while not first_at and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        if first_at:
            t0 = min(first_at.values())
        await asyncio.sleep(max(0.0, t0 + args.seconds - time.monotonic()))
    else:
        await asyncio.sleep(args.seconds)
    window["open"] = False
    if progress:
        progress.cancel()
    result = {
        "type": "result",
        "audioFrames": counts["audio"],
        "videoFrames": counts["video"],
        "audioFramesSent": FRAMES_SENT["audio"],
        "videoFramesSent": FRAMES_SENT["video"],
        "srtpProfile": profile,
        "seconds": round(time.monotonic() - t0, 3),
        "connectSeconds": round(connect_s, 3),
        "firstAudioAfter": round(first_at["audio"] - t0, 3) if "audio" in first_at else None,
        "firstVideoAfter": round(first_at["video"] - t0, 3) if "video" in first_at else None,
        # Wall-clock times (Unix seconds) of the first decoded frames, to set beside the signalling.
        "firstAudioEpoch": first_at["audio"] - time.monotonic() + time.time() if "audio" in first_at else None,
        "firstVideoEpoch": first_at["video"] - time.monotonic() + time.time() if "video" in first_at else None,
        "videoSize": video_size[0],
        "remoteIceLite": "a=ice-lite" in answer,
        "remoteSetup": next((ln[8:] for ln in answer.splitlines() if ln.startswith("a=setup:")), None),
        "rtpReceived": dict(RTP_RECEIVED),
        "retransmissionsSent": SENT["retransmissions"],
        "rtxSent": SENT["rtx"],
        "answerRtxPayloadType": next((int(ln[9:].split()[0]) for ln in answer.splitlines()
                                      if ln.startswith("a=rtpmap:") and " rtx/" in ln), None),
        "answerFID": next(([int(x) for x in ln.split()[1:]] for ln in answer.splitlines()
                           if ln.startswith("a=ssrc-group:FID ")), None),
    }
    emit(result)
    for task in consumers:
        task.cancel()
    if args.hold:
        # Keep the connection (and the call) until told: one more stdin line, or EOF.
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await pc.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--srtp", default="gcm128,cm80",
                   help="SRTP profiles offered, in order: gcm128, gcm256, cm80 (cm80 alone forces "
                        "AES128_CM_SHA1_80)")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--from-first-frame", action="store_true",
                   help="open the counting window at the first frame received (for calls, where the peer joins later)")
    p.add_argument("--progress", type=float, default=0.0,
                   help="print a progress line with the frame counts every this many seconds (0: none)")
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=240)
    p.add_argument("--connect-timeout", type=float, default=20.0)
    p.add_argument("--address", default=LOOPBACK, choices=["127.0.0.1", "::1"],
                   help="the loopback address to gather, and the only one to send to (::1: IPv6)")
    p.add_argument("--hold", action="store_true",
                   help="after the result, keep the peer connection open until a stdin line or EOF")
    p.add_argument("--rtx", action="store_true",
                   help="offer RTX (RFC 4588) with VP8, as aiortc does without codec preferences")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args()
    globals()["LOOPBACK"] = args.address   # read by the aioice patches above at call time
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    rtcdtls.SRTP_PROFILES[:] = [SRTP_CHOICES[x] for x in args.srtp.split(",")]
    try:
        asyncio.run(asyncio.wait_for(run(args), args.seconds + args.connect_timeout + 30))
    except Exception as exc:  # reported as a result line so the test shows why
        emit({"type": "error", "error": repr(exc)})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
