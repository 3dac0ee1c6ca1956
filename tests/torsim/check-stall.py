#!/usr/bin/env python3
"""Issue 26's targets for a call whose every link stalled, from the frame
logs of both directions (donar-call --frame-log: seq,sent_ms,arrival_ms,
counted from the sender's frame 0, whose CLOCK_MONOTONIC time donar-call
prints as "frame-log: origin US us").

  check-stall.py STALL_US RELEASE_US [--report-only] NAME LOG ORIGIN_US ...

STALL_US and RELEASE_US: the stall and its release on CLOCK_MONOTONIC.
For each direction it prints, and (without --report-only) asserts:

- max latency: the latest delivered frame, arrival minus send; at most
  the stall + the deadline (10 s + 360 ms);
- first in-time frame: the first frame sent at or after the release
  whose latency is at most the deadline; it must arrive within 1 s of
  the release (arrival - release <= 1000 ms);
- in time after: of the frames sent from release + 1 s to release + 31 s,
  at least 99 % arrive within the deadline (a lost frame is not in time);
- lost: frames that never arrived, in the whole log, and frames later
  than the stall + the deadline (10 s + 360 ms).
"""
import csv
import sys

DEADLINE_MS = 360.0
FIRST_WITHIN_MS = 1000.0
AFTER_FROM_MS, AFTER_TO_MS = 1000.0, 31000.0
IN_TIME_SHARE = 0.99


def load(path):
    rows = []
    with open(path) as f:
        for row in csv.DictReader(f):
            sent = float(row["sent_ms"])
            arrival = float(row["arrival_ms"]) if row["arrival_ms"] else None
            rows.append((int(row["seq"]), sent, arrival))
    return rows


def figures(rows, stall_ms, release_ms):
    stall_len = release_ms - stall_ms
    latencies = [a - s for _, s, a in rows if a is not None]
    late_after = [1 for _, s, a in rows
                  if a is not None and a - s > stall_len + DEADLINE_MS]
    first = None
    for seq, s, a in rows:
        if s >= release_ms and a is not None and a - s <= DEADLINE_MS:
            first = (seq, s - release_ms, a - release_ms)
            break
    window = [(s, a) for _, s, a in rows
              if release_ms + AFTER_FROM_MS <= s < release_ms + AFTER_TO_MS]
    in_time = sum(1 for s, a in window if a is not None and a - s <= DEADLINE_MS)
    stalled = [(s, a) for _, s, a in rows if stall_ms <= s < release_ms]
    return {
        "frames": len(rows),
        "lost": sum(1 for r in rows if r[2] is None),
        "max_latency_ms": max(latencies) if latencies else None,
        "later_than_stall_plus_deadline": len(late_after),
        "first_in_time": first,
        "window_frames": len(window),
        "window_in_time": in_time,
        "stall_frames": len(stalled),
        "stall_frames_delivered": sum(1 for _, a in stalled if a is not None),
        "stall_len_ms": stall_len,
    }


def main(argv):
    stall_us, release_us = int(argv[1]), int(argv[2])
    args = argv[3:]
    report_only = False
    if args and args[0] == "--report-only":
        report_only, args = True, args[1:]
    ok = True
    for i in range(0, len(args), 3):
        name, path, origin_us = args[i], args[i + 1], int(args[i + 2])
        stall_ms = (stall_us - origin_us) / 1000.0
        release_ms = (release_us - origin_us) / 1000.0
        f = figures(load(path), stall_ms, release_ms)
        first = f["first_in_time"]
        share = (f["window_in_time"] / f["window_frames"]
                 if f["window_frames"] else 0.0)
        print("%s: stall at %.1f s of the log, %.1f s long; max latency %.0f ms; "
              "%d frames later than %.0f ms; first in-time frame after the "
              "release: %s; in time from release+1 s to +31 s: %d of %d "
              "(%.2f %%); frames sent in the stall %d, delivered %d; lost %d "
              "of %d"
              % (name, stall_ms / 1000, f["stall_len_ms"] / 1000,
                 f["max_latency_ms"] or -1, f["later_than_stall_plus_deadline"],
                 f["stall_len_ms"] + DEADLINE_MS,
                 "none" if first is None else
                 "seq %d sent at release%+.0f ms, arrived at release%+.0f ms"
                 % first,
                 f["window_in_time"], f["window_frames"], 100 * share,
                 f["stall_frames"], f["stall_frames_delivered"], f["lost"],
                 f["frames"]))

        def check(cond, what):
            nonlocal ok
            if not cond:
                print("FAIL: %s: %s" % (name, what), file=sys.stderr)
                ok = False

        check(f["window_frames"] >= 0.9 * (AFTER_TO_MS - AFTER_FROM_MS) / 40,
              "only %d frames sent from release+1 s to +31 s in the log: the "
              "call ended early, or its last frames never came (the log ends "
              "at the last frame that came)" % f["window_frames"])
        check(f["later_than_stall_plus_deadline"] == 0,
              "%d frames delivered later than the stall + the deadline "
              "(max latency %.0f ms)"
              % (f["later_than_stall_plus_deadline"], f["max_latency_ms"]))
        check(first is not None and first[2] <= FIRST_WITHIN_MS,
              "the first in-time frame after the release is not within "
              "%.0f ms of it" % FIRST_WITHIN_MS)
        check(share >= IN_TIME_SHARE,
              "%.2f %% in time from release+1 s to +31 s, not %.0f %%"
              % (100 * share, 100 * IN_TIME_SHARE))
    return 0 if ok or report_only else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
