#!/usr/bin/env python3
"""Writes fuzz/seeds/<target>/ from the repo's own fixtures: the RFC 5769 STUN vectors, the RTP and
RTCP vectors, the realtime frames of the protocol tests, the test images; plus hand-made DTLS,
multipart and media files. Run it again when those fixtures change; the SDP fixtures are read in
place by scripts/fuzz.sh. The DTLS seeds (fuzz/seeds/dtls) are a ClientHello that `openssl s_client
-dtls1_2 -use_srtp …` sent, whole and split in two, each datagram after a two-byte length."""
import io, os, re, struct, wave, zlib

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
seeds = os.path.join(root, "fuzz", "seeds")


def swift_arrays(path):
    """Every `static let name: [UInt8] = [ … ]` of hex or decimal literals in a Swift file."""
    text = open(os.path.join(root, path)).read()
    for match in re.finditer(r"static let (\w+): \[UInt8\] = \[(.*?)\n    \]", text, re.S):
        body = re.sub(r"//[^\n]*", "", match.group(2))
        values = [v.strip() for v in body.split(",") if v.strip()]
        try:
            yield match.group(1), bytes(int(v, 0) for v in values)
        except ValueError:
            continue


def write(target, name, data):
    os.makedirs(os.path.join(seeds, target), exist_ok=True)
    with open(os.path.join(seeds, target, name), "wb") as f:
        f.write(data)


for name, data in swift_arrays("Tests/ParleySTUNTests/RFC5769Vectors.swift"):
    write("stun", name, data)
for name, data in swift_arrays("Tests/ParleyRTPTests/RTPVectors.swift"):
    write("rtp", name, data)
    write("rtp", name + "-rfc4571", struct.pack(">H", len(data)) + data)
# RTX (RFC 4588 §4): PT 97 on its own SSRC, a mid extension, the OSN 0x1234 and a VP8 payload;
# and a padding-only one (libwebrtc's bandwidth probe on the RTX stream).
rtx_header = struct.pack(">BBHII", 0x90, 97, 7, 3000, 0x52585800) + bytes([0xBE, 0xDE, 0, 1, 0x10, ord("1"), 0, 0])
write("rtp", "rtx-vp8", rtx_header + b"\x12\x34\x90\x80\x05" + bytes(range(40)))
write("rtp", "rtx-padding-only", struct.pack(">BBHII", 0xA0, 97, 8, 3000, 0x52585800) + bytes(199) + bytes([200]))
for name, data in swift_arrays("Tests/ParleyRTPTests/RTCPVectors.swift"):
    write("rtcp", name, data)

frames = re.findall(r'\(#"(\{.*?\})"#', open(os.path.join(root, "Tests/ParleyProtocolTests/CommandFrameTests.swift")).read())
for index, frame in enumerate(frames):
    write("command", "frame-%02d" % index, ('{"id":"%d",' % index + frame[1:]).encode())
# The message.send frames its fast path takes, as they are (the frames above all repeat `id`).
fast_path = open(os.path.join(root, "Tests/ParleyProtocolTests/MessageSendFastPathTests.swift")).read()
valid = re.search(r"static let valid: \[String\] = \[(.*?)\n    \]", fast_path, re.S).group(1)
for index, frame in enumerate(re.findall(r'#"(\{.*?\})"#', valid)):
    frame = re.sub(r"\\#u\{([0-9A-Fa-f]+)\}", lambda m: chr(int(m.group(1), 16)), frame)
    write("command", "send-%02d" % index, frame.encode())

# Multipart: boundary line, a piece-size byte, then the body (the fuzz target's input format).
for index, step in enumerate([1, 7, 63]):
    body = (b"--b0undary\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAnn\r\n"
            b"--b0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n"
            b"\x89PNG\r\n--b0und\r\n--b0undary--\r\nepilogue")
    write("multipart", "form-%d" % index, b"b0undary\n" + bytes([step]) + body)

# Media: the test images, and a small file of each other kind the probes read.
images = dict(swift_arrays("Tests/ParleyHTTPTests/Support/TestImages.swift"))
for name, data in images.items():
    write("media", name, data)
write("media", "gif", b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
buffer = io.BytesIO()
with wave.open(buffer, "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000); w.writeframes(b"\x00\x01" * 800)
write("media", "wav", buffer.getvalue())
mp3_frame = b"\xff\xfb\x90\x64" + b"\x00" * 413            # MPEG-1 layer III, 128 kbit/s, 44.1 kHz
write("media", "mp3", b"ID3\x03\x00\x00\x00\x00\x00\x00" + mp3_frame * 3)
adts = b"\xff\xf1\x50\x80\x02\x1f\xfc" + b"\x00" * 9      # AAC-LC 44.1 kHz stereo, 16-byte frame
write("media", "aac", adts * 3)


def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind + payload


mvhd = box(b"mvhd", b"\x00" * 4 + b"\x00" * 8 + struct.pack(">II", 1000, 5000) + b"\x00" * 80)
tkhd = box(b"tkhd", b"\x00\x00\x00\x07" + b"\x00" * 72 + struct.pack(">II", 640 << 16, 480 << 16))
mdhd = box(b"mdhd", b"\x00" * 12 + struct.pack(">II", 90000, 450000) + b"\x00" * 4)
hdlr = box(b"hdlr", b"\x00" * 8 + b"vide" + b"\x00" * 13)
trak = box(b"trak", tkhd + box(b"mdia", mdhd + hdlr))
write("media", "mp4", box(b"ftyp", b"isom\x00\x00\x02\x00isomiso2mp41") + box(b"moov", mvhd + trak) + box(b"mdat", b"\x00" * 16))


def ogg_page(header_type, granule, serial, sequence, packet):
    segments = bytes([255] * (len(packet) // 255) + [len(packet) % 255])
    page = b"OggS\x00" + bytes([header_type]) + struct.pack("<qIII", granule, serial, sequence, 0) + bytes([len(segments)]) + segments + packet
    crc = 0
    for byte in page:                                     # RFC 3533 §6: CRC-32, poly 0x04C11DB7
        crc ^= byte << 24
        for _ in range(8):
            crc = (crc << 1 ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
    return page[:22] + struct.pack("<I", crc) + page[26:]


opus_head = b"OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00"
write("media", "ogg", ogg_page(2, 0, 7, 0, opus_head) + ogg_page(0, 0, 7, 1, b"OpusTags\x00\x00\x00\x00\x00\x00\x00\x00")
      + ogg_page(4, 48312, 7, 2, b"\xfc\xff\xfe"))

def ebml(element_id, data, unknown_size=False):
    """An EBML element (RFC 8794): ID bytes, a size (8-byte "unknown" when asked), the data."""
    size = b"\x01\xff\xff\xff\xff\xff\xff\xff" if unknown_size else bytes([0x80 | len(data)]) if len(data) < 127 \
        else bytes([0x40 | len(data) >> 8, len(data) & 0xFF])
    return element_id + size + data


# WebM as MediaRecorder writes it live: open Segment and Cluster, no Duration, VP8 and Opus tracks.
tracks = (ebml(b"\xae", ebml(b"\xd7", b"\x01") + ebml(b"\x83", b"\x01") + ebml(b"\x86", b"V_VP8")
               + ebml(b"\xe0", ebml(b"\xb0", b"\x01\x40") + ebml(b"\xba", b"\xf0")))
          + ebml(b"\xae", ebml(b"\xd7", b"\x02") + ebml(b"\x83", b"\x02") + ebml(b"\x86", b"A_OPUS")))
blocks = b"".join(ebml(b"\xa3", bytes([0x82, 0, t, 0x80]) + b"\xfc" * 8) for t in (0, 20, 40, 60))
write("media", "webm", ebml(b"\x1a\x45\xdf\xa3", ebml(b"\x42\x82", b"webm"))
      + ebml(b"\x18\x53\x80\x67", ebml(b"\x15\x49\xa9\x66", ebml(b"\x2a\xd7\xb1", b"\x0f\x42\x40"))
             + ebml(b"\x16\x54\xae\x6b", tracks) + ebml(b"\x1f\x43\xb6\x75", ebml(b"\xe7", b"\x00") + blocks, True), True))
def caf_chunk(kind, body, size=None):
    return kind + struct.pack(">q", len(body) if size is None else size) + body
# CAF as an iPhone records AAC: desc, packet table (valid frames, priming, remainder), data.
write("media", "caf", b"caff\x00\x01\x00\x00"
      + caf_chunk(b"desc", struct.pack(">d4sIIIII", 44100.0, b"aac ", 0, 0, 1024, 1, 0))
      + caf_chunk(b"pakt", struct.pack(">qqii", 4, 2000, 2112, 0) + b"\x08" * 4)
      + caf_chunk(b"data", b"\x00\x00\x00\x00" + b"\xa5" * 32, -1))
print("seeds written under", os.path.relpath(seeds))
