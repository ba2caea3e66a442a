// Calls: one RTCPeerConnection per call with Parley's relay (ICE-lite; the relay answers every
// offer, so candidates are gathered before the offer goes out, no trickle). The caller offers in
// `call.invite`, the callee in `call.accept`; both show the other side's video, and the call
// screen shows what getStats() counts (frames decoded, audio packets received).
// Also the echo test (POST /v1/calls/echo): the relay sends your own audio and video back.
import { h, fill, duration, toast } from "./dom.js";
import * as realtime from "./realtime.js";
import { post, del } from "./api.js";
import { user, avatar } from "./users.js";

const layer = () => document.getElementById("call-layer");
let current = null;     // the one call this device is in or being offered
let installed = false;

export function install() {
  if (installed) return;
  installed = true;
  realtime.on("call.incoming", incoming);
  realtime.on("call.accepted", ({ callId }) => { if (current?.callId === callId) activate(); });
  realtime.on("call.ended", ({ callId, reason, durationSeconds }) => {
    if (current?.callId !== callId) return;
    const missed = current.role === "callee" && current.state === "ringing" && ["canceled", "no_answer"].includes(reason);
    const peer = current.peer;
    finish(reason === "hangup" ? `Call ended · ${duration(durationSeconds)}` : `Call ended: ${reason.replaceAll("_", " ")}`);
    if (missed) toast(`Missed call from ${peer.name}`);
  });
  realtime.on("call.media", ({ callId, audio, video }) => {
    if (current?.callId !== callId) return;
    current.remoteMedia = { audio, video };
    render();
  });
  // A call still ringing or up when this device reconnects (the sync reply lists them).
  realtime.on("sync", (reply) => {
    const ringing = (reply.calls || []).find((c) => c.state === "ringing" && c.direction === "incoming");
    if (!current && ringing) incoming({ callId: ringing.callId, from: ringing.peerId, media: ringing.media });
    if (current && current.callId && !(reply.calls || []).some((c) => c.callId === current.callId) && current.state !== "ending") {
      finish("Call ended while you were offline");
    }
  });
}

async function media(kind) {
  try {
    return await navigator.mediaDevices.getUserMedia({ audio: true, video: kind === "video" ? { width: 640, height: 480 } : false });
  } catch (error) {
    if (kind === "video") return navigator.mediaDevices.getUserMedia({ audio: true });
    throw error;
  }
}

/** A peer connection sending `stream`, its offer made with every candidate in it. */
async function connection(stream, kind) {
  const pc = new RTCPeerConnection({ iceServers: realtime.hello?.iceServers || [] });
  for (const track of stream.getTracks()) pc.addTrack(track, stream);
  if (kind === "video" && !stream.getVideoTracks().length) pc.addTransceiver("video", { direction: "recvonly" });
  const remote = new MediaStream();
  pc.addEventListener("track", (event) => remote.addTrack(event.track));
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((resolve) => {
    if (pc.iceGatheringState === "complete") return resolve();
    pc.addEventListener("icegatheringstatechange", () => { if (pc.iceGatheringState === "complete") resolve(); });
    setTimeout(resolve, 3000);
  });
  return { pc, remote, sdp: pc.localDescription.sdp };
}

/** What getStats() says has arrived: video frames decoded, audio packets and energy. */
export async function inbound(pc) {
  const totals = { videoFrames: 0, audioPackets: 0, audioEnergy: 0, width: 0 };
  if (!pc) return totals;
  (await pc.getStats()).forEach((s) => {
    if (s.type !== "inbound-rtp") return;
    if (s.kind === "video") { totals.videoFrames += s.framesDecoded || 0; totals.width = s.frameWidth || totals.width; }
    if (s.kind === "audio") { totals.audioPackets += s.packetsReceived || 0; totals.audioEnergy += s.totalAudioEnergy || 0; }
  });
  return totals;
}

export async function startCall(peer, kind) {
  if (current) return toast("You are already in a call");
  current = { peer, media: kind, role: "caller", state: "starting", muted: false, cameraOff: false, remoteMedia: { audio: true, video: true } };
  render();
  try {
    current.local = await media(kind);
    render();
    const { pc, remote, sdp } = await connection(current.local, kind);
    Object.assign(current, { pc, remote });
    if (!realtime.isOpen()) throw new Error("Not connected: try again in a moment");
    const reply = await realtime.command("call.invite", { to: peer.id, media: kind, sdp });
    if (!current) return;
    current.callId = reply.callId;
    if (reply.ended) return finish(`Call ended: ${reply.ended.replaceAll("_", " ")}`);
    await pc.setRemoteDescription({ type: "answer", sdp: reply.sdp });
    current.state = "ringing";
    render();
  } catch (error) {
    finish(error.message);
  }
}

async function incoming({ callId, from, media: kind }) {
  if (current) return;   // the server already told the caller we are busy, or will
  const peer = await user(from).catch(() => ({ id: from, name: "Someone" }));
  current = { callId, peer, media: kind, role: "callee", state: "ringing", muted: false, cameraOff: false, remoteMedia: { audio: true, video: true } };
  render();
}

async function accept() {
  const call = current;
  call.state = "connecting";
  render();
  try {
    call.local = await media(call.media);
    const { pc, remote, sdp } = await connection(call.local, call.media);
    Object.assign(call, { pc, remote });
    const reply = await realtime.command("call.accept", { callId: call.callId, sdp });
    await pc.setRemoteDescription({ type: "answer", sdp: reply.sdp });
    if (current === call) activate();
  } catch (error) {
    finish(error.message);
  }
}

function decline() {
  realtime.command("call.decline", { callId: current.callId }).catch(() => {});
  finish("Declined");
}

function hangup() {
  if (current?.callId) realtime.command("call.hangup", { callId: current.callId }).catch(() => {});
  finish("Call ended");
}

function activate() {
  if (current.state === "active") return;
  current.state = "active";
  current.since = Date.now();
  render();
}

// Mute sends silence (the track disabled). Camera off sends no video at all: the sender's track
// is taken away, so the other side's picture stops rather than turning black, and comes back
// with the camera (the encoder starts again on a key frame).
function toggle(what) {
  const call = current;
  if (what === "audio") call.muted = !call.muted; else call.cameraOff = !call.cameraOff;
  for (const t of call.local?.getAudioTracks() || []) t.enabled = !call.muted;
  const camera = call.local?.getVideoTracks()[0];
  call.videoSender ??= call.pc?.getSenders().find((s) => s.track?.kind === "video");
  if (camera && call.videoSender) call.videoSender.replaceTrack(call.cameraOff ? null : camera).catch(() => {});
  if (call.callId) realtime.command("call.media", { callId: call.callId, audio: !call.muted, video: !call.cameraOff }).catch(() => {});
  render();
}

function finish(text) {
  const call = current;
  current = null;
  if (!call) return;
  call.state = "ending";
  clearInterval(call.ticker);
  call.pc?.close();
  call.local?.getTracks().forEach((t) => t.stop());
  fill(layer(), h("div.overlay", { "data-testid": "call-ended" }, h("div.title", text)));
  setTimeout(() => { if (!current) layer().replaceChildren(); }, 2500);
}

// The call screen --------------------------------------------------------------------------
function render() {
  const call = current;
  if (!call) return;
  const who = h("div.row", avatar(call.peer, true), h("div.title", call.peer.name));
  if (call.role === "callee" && call.state === "ringing") {
    return fill(layer(), h("div.overlay", { "data-testid": "incoming-call", "data-media": call.media }, who,
      h("div", `Incoming ${call.media} call`),
      h("div.row", h("button.good", { "data-testid": "accept-call", onclick: accept }, "Accept"),
        h("button.danger", { "data-testid": "decline-call", onclick: decline }, "Decline"))));
  }
  let screen = layer().querySelector("[data-testid=call-screen]");
  if (!screen) {
    // An audio call plays the other side through an <audio> element and shows their picture;
    // a video call shows their video, or their picture while their camera is off.
    call.remoteVideo = h(call.media === "video" ? "video.remote" : "audio", { autoplay: true, playsInline: true, "data-testid": "remote-media" });
    call.localVideo = h("video.local", { autoplay: true, playsInline: true, muted: true });
    call.placeholder = h("div.placeholder", { "data-testid": "remote-placeholder" }, avatar(call.peer, true),
      h("div", { "data-testid": "placeholder-text" }));
    call.status = h("div", { "data-testid": "call-status" });
    call.stats = h("div.stats", { "data-testid": "call-stats" });
    call.controls = h("div.row");
    screen = h("div.overlay", { "data-testid": "call-screen", "data-media": call.media }, who,
      h(call.media === "video" ? "div.videos" : "div.videos.audio-only", call.remoteVideo, call.placeholder, call.localVideo),
      call.status, call.controls, call.stats);
    fill(layer(), screen);
    call.ticker = setInterval(() => tick(call), 1000);
  }
  if (call.local && call.localVideo.srcObject !== call.local) call.localVideo.srcObject = call.local;
  if (call.remote && call.remoteVideo.srcObject !== call.remote) call.remoteVideo.srcObject = call.remote;
  call.localVideo.hidden = call.media !== "video" || call.cameraOff;
  const theirVideo = call.media === "video" && call.remoteMedia.video;
  call.remoteVideo.hidden = !theirVideo;
  call.placeholder.hidden = theirVideo;
  call.placeholder.lastChild.textContent = call.media === "video" ? `${call.peer.name} turned the camera off` : "Audio call";
  screen.dataset.state = call.state;
  screen.dataset.remoteVideo = theirVideo ? "on" : "off";
  screen.dataset.remoteAudio = call.remoteMedia.audio ? "on" : "off";
  const remoteOff = [!call.remoteMedia.audio && "muted", !call.remoteMedia.video && call.media === "video" && "camera off"].filter(Boolean);
  call.status.textContent = (call.state === "active" ? `${call.media === "video" ? "Video" : "Audio"} call` :
    call.state === "ringing" ? `Calling ${call.peer.name}…` : "Connecting…") + (remoteOff.length ? ` · ${call.peer.name}: ${remoteOff.join(", ")}` : "");
  fill(call.controls,
    h("button.secondary", { "data-testid": "toggle-mute", onclick: () => toggle("audio") }, call.muted ? "Unmute" : "Mute"),
    call.media === "video" ? h("button.secondary", { "data-testid": "toggle-camera", onclick: () => toggle("video") }, call.cameraOff ? "Camera on" : "Camera off") : null,
    h("button.danger", { "data-testid": "hang-up", onclick: hangup }, call.state === "active" ? "Hang up" : "Cancel"));
  tick(call);
}

async function tick(call) {
  if (!call.stats) return;
  const s = await inbound(call.pc);
  const videoTransceivers = call.pc?.getTransceivers().filter((t) => t.receiver.track.kind === "video").length ?? 0;
  Object.assign(call.stats.dataset, { videoFrames: s.videoFrames, audioPackets: s.audioPackets, audioEnergy: s.audioEnergy, videoTransceivers });
  call.stats.textContent = `${call.since ? duration((Date.now() - call.since) / 1000) + " · " : ""}received: ` +
    (call.media === "video" ? `${s.videoFrames} video frames decoded, ` : "") + `${s.audioPackets} audio packets`;
}

// The echo test ------------------------------------------------------------------------------
export async function startEcho() {
  if (current) return toast("You are in a call");
  const echo = { state: "starting" };
  current = echo;
  const localVideo = h("video", { autoplay: true, playsInline: true, muted: true, "data-testid": "echo-local" });
  const remoteVideo = h("video", { autoplay: true, playsInline: true, "data-testid": "echo-remote" });
  const stats = h("div.stats", { "data-testid": "echo-stats" });
  const stop = h("button.danger", { "data-testid": "echo-stop" }, "Stop the test");
  fill(layer(), h("div.overlay", { "data-testid": "echo-screen" }, h("div.title", "Testing your microphone and camera"),
    h("div.side-by-side", h("figure", localVideo, h("figcaption", "Your camera")),
      h("figure", remoteVideo, h("figcaption", "Back from the server"))), stats, stop));
  let ticker;
  const end = (text) => {
    clearInterval(ticker);
    echo.pc?.close();
    echo.local?.getTracks().forEach((t) => t.stop());
    if (echo.callId) del(`/v1/calls/echo/${echo.callId}`).catch(() => {});
    if (current === echo) current = null;
    layer().replaceChildren();
    if (text) toast(text);
  };
  stop.addEventListener("click", () => end());
  try {
    echo.local = await media("video");
    localVideo.srcObject = echo.local;
    const { pc, remote, sdp } = await connection(echo.local, "video");
    echo.pc = pc;
    remoteVideo.srcObject = remote;
    const reply = await post("/v1/calls/echo", { sdp });
    echo.callId = reply.callId;
    await pc.setRemoteDescription({ type: "answer", sdp: reply.sdp });
    ticker = setInterval(async () => {
      const s = await inbound(pc);
      Object.assign(stats.dataset, { videoFrames: s.videoFrames, audioPackets: s.audioPackets });
      stats.textContent = `back from the server: ${s.videoFrames} video frames decoded, ${s.audioPackets} audio packets` +
        (s.videoFrames > 0 ? " — your camera and microphone work" : "");
      if (pc.connectionState === "failed") end("The test could not reach the media server");
    }, 1000);
  } catch (error) {
    end(error.message);
  }
}
