#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the binary seed inputs of the ring, aux-window and spe harnesses
into tests/fuzz/corpus/ (their layouts are described at the top of each
harness).  Run from the repository root; the text seeds are written by
hand."""
import glob
import os
import struct

PERF_RECORD_LOST, PERF_RECORD_THROTTLE, PERF_RECORD_UNTHROTTLE = 2, 5, 6
PERF_RECORD_SAMPLE, PERF_RECORD_AUX, PERF_RECORD_COMM = 9, 11, 3
# Bit i of the harness's sample_type selector: IDENTIFIER IP TID TIME ADDR ID
# STREAM_ID CPU PERIOD.
ST_IP_TID_TIME_CPU = 0b010001110
ST_IDENT_IP_TIME = 0b000001011


def rec(rtype, words, misc=0):
    body = b"".join(struct.pack("<Q", w) for w in words)
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def ring(order, cap, st, tail, data, keep=0xffffffff, length=None):
    size = 1 << order
    area = bytearray(size)
    for i, b in enumerate(data):
        area[(tail + i) % size] = b
    hdr = struct.pack("<BBHIII", order, cap, st, tail,
                      len(data) if length is None else length, keep)
    return hdr + bytes(area)


def write(dirname, name, blob):
    os.makedirs(dirname, exist_ok=True)
    with open(os.path.join(dirname, name), "wb") as f:
        f.write(blob)


def ring_seeds():
    d = "tests/fuzz/corpus/ring"
    sample = rec(PERF_RECORD_SAMPLE, [0x401000, 1234 | 1235 << 32, 10**9, 1])
    mixed = (sample + rec(PERF_RECORD_THROTTLE, [2 * 10**9, 7, 7]) +
             rec(PERF_RECORD_UNTHROTTLE, [3 * 10**9, 7, 7]) +
             rec(PERF_RECORD_LOST, [7, 12]) + rec(PERF_RECORD_COMM, [1, 2, 3]) +
             rec(PERF_RECORD_AUX, [0, 4096, 0]))
    write(d, "samples", ring(9, 4, ST_IP_TID_TIME_CPU, 0, sample * 4))
    write(d, "mixed", ring(9, 7, ST_IP_TID_TIME_CPU, 64, mixed))
    # A record split across the end of the area, tail far past the size.
    write(d, "wrapped", ring(8, 2, ST_IP_TID_TIME_CPU, 0x10000 + 240, sample * 2))
    write(d, "ident", ring(7, 1, ST_IDENT_IP_TIME, 0,
                           rec(PERF_RECORD_SAMPLE, [5, 0x1000, 99]) * 3))
    write(d, "kept", ring(9, 3, ST_IP_TID_TIME_CPU, 0, mixed, keep=1 << 5 | 1 << 6))
    write(d, "short", ring(6, 1, 0, 0, struct.pack("<IHH", 9, 0, 0), length=8))
    write(d, "truncated", ring(9, 1, 0, 0, rec(PERF_RECORD_AUX, [0, 1, 0]), length=20))
    # Once crashes (lib/ring.c): a record longer than the ring, a ring
    # smaller than a header, a head 4 GiB past the tail of a 64-byte ring.
    write(d, "oversized", ring(4, 1, 0, 0, rec(PERF_RECORD_AUX, [0, 1, 0]) * 2))
    write(d, "tiny", ring(1, 1, 0, 1, b"", length=16))
    write(d, "runaway", ring(6, 1, 0, 0, rec(PERF_RECORD_COMM, []) * 8,
                             length=0xfffffff8))


def cfg(allowance=0, nmi=0, order=16, flags=2, maxf=8, raw=0):
    return struct.pack("<QBBBBIQQ", allowance, nmi, order, flags, maxf, 0, raw, 0)


def win(kind, start, end, before, after, rec_bytes=None, flags=0, req=None, hits=None,
        samples=None, nmi=0, thr=0, unthr=0, lost=0, padding=0, running=None):
    if req is None:
        req = 1 if kind == 1 else 0
    hits = req if hits is None else hits
    samples = hits if samples is None else samples
    rec_bytes = max(after - before, 0) if rec_bytes is None else rec_bytes
    running = end - start if running is None else running
    return struct.pack("<B7x18Q", kind, start, end, before, after, rec_bytes, flags,
                       req, req, hits, hits, samples, samples, nmi, thr, unthr, lost,
                       padding, running)


def window_seeds():
    d = "tests/fuzz/corpus/aux-window"
    clean = b"".join(win(i % 2, i * 1000, i * 1000 + 900, (i // 2) * 512,
                         ((i + 1) // 2) * 512) for i in range(8))
    write(d, "clean", cfg() + clean)
    leak = (win(0, 0, 900, 0, 0) + win(1, 1000, 1900, 0, 512) +
            win(0, 2000, 2900, 512, 2048) + win(1, 3000, 3900, 2048, 2048))
    write(d, "findings", cfg(allowance=64) + leak)
    write(d, "nmi-resume", cfg(nmi=2) + win(0, 0, 900, 0, 300, nmi=2) +
          win(1, 1000, 1900, 300, 900) + win(0, 2000, 2900, 900, 900))
    write(d, "throttled", cfg(nmi=1, flags=3) + win(1, 0, 900, 0, 0, thr=1) +
          win(0, 1000, 1900, 0, 0, unthr=1, lost=3) + win(1, 2000, 2900, 0, 4096))
    write(d, "backwards", cfg(order=12) + win(1, 0, 900, 4096, 1024) +
          win(0, 1000, 1900, 512, 9000, flags=1))
    write(d, "not-scheduled", cfg() + win(1, 0, 900, 0, 512, running=0) +
          win(0, 1000, 1900, 512, 512, running=0))
    write(d, "bad-size", cfg(order=200, raw=3000) + win(0, 0, 1, 0, 0))


def hex_fixture(path):
    """The bytes of a hex-text fixture of scenarios/pidns/fixtures."""
    with open(path) as f:
        text = "".join(line.split("#", 1)[0] for line in f)
    return bytes.fromhex("".join(text.split()))


def spe_seeds():
    """Every decoder fixture of the pidns scenario, each behind a header
    that judges it for a root-namespace opener with the option on and the
    fixtures' workload pids (root 4001 4002, namespace-local 1 2); the
    context ones also for a child-namespace opener without CAP_PERFMON."""
    d = "tests/fuzz/corpus/spe"
    pids = struct.pack("<4I", 4001, 4002, 1, 2)
    for path in sorted(glob.glob("scenarios/pidns/fixtures/*.hex")):
        name = os.path.basename(path)[:-4]
        data = hex_fixture(path)
        write(d, name, struct.pack("<4B", 3, 2, 2, 0) + pids + data)
        if name.startswith("ctx-"):
            write(d, name + "-child", struct.pack("<4B", 0, 2, 2, 0) + pids + data)


if __name__ == "__main__":
    ring_seeds()
    window_seeds()
    spe_seeds()
