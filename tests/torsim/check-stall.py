#!/usr/bin/env python3
"""Issue 26's targets for a call whose every link stalled, from the frame
logs of both directions (donar-call --frame-log: seq,sent_ms,arrival_ms,
counted from the sender's frame 0, whose CLOCK_MONOTONIC time donar-call
prints as "frame-log: origin US us").

  check-stall.py STALL_US RELEASE_US [--report-only] [--baseline]
      NAME LOG ORIGIN_US ...

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

With --baseline, the in-time share after is asserted against the path's
own as well: at least 99 %, or the share of the frames sent in the
seconds before the stall less 5 points when that is lower (a network
whose steady calls miss 99 % cannot show a stall costs nothing by 99 %;
it can show the minutes after the stall are as good as those before).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "framelog"))
from frame_log import read_frame_log  # noqa: E402

DEADLINE_MS = 360.0
FIRST_WITHIN_MS = 1000.0
AFTER_FROM_MS, AFTER_TO_MS = 1000.0, 31000.0
IN_TIME_SHARE = 0.99
# Before the stall: from this long after the log's first frame (the
# links' first seconds) to the stall.
BEFORE_FROM_MS = 2000.0
BASELINE_MARGIN = 0.05


def figures(rows, stall_ms, release_ms):
    stall_len = release_ms - stall_ms
    latencies = [a - s for _, s, a in rows if a is not None]
    late_after = [1 for _, s, a in rows
                  if a is not None and a - s > stall_len + DEADLINE_MS]
    worst = max(((a - s, seq, s, a) for seq, s, a in rows if a is not None),
                default=None)
    first = None
    for seq, s, a in rows:
        if s >= release_ms and a is not None and a - s <= DEADLINE_MS:
            first = (seq, s - release_ms, a - release_ms)
            break
    window = [(s, a) for _, s, a in rows
              if release_ms + AFTER_FROM_MS <= s < release_ms + AFTER_TO_MS]
    in_time = sum(1 for s, a in window if a is not None and a - s <= DEADLINE_MS)
    stalled = [(s, a) for _, s, a in rows if stall_ms <= s < release_ms]
    before = [(s, a) for _, s, a in rows
              if BEFORE_FROM_MS <= s < stall_ms]
    return {
        "before_frames": len(before),
        "before_in_time": sum(1 for s, a in before
                              if a is not None and a - s <= DEADLINE_MS),
        "frames": len(rows),
        "lost": sum(1 for r in rows if r[2] is None),
        "max_latency_ms": max(latencies) if latencies else None,
        "later_than_stall_plus_deadline": len(late_after),
        # Whether the latest frame was in flight when the stall began
        # (sent before it) or written into the stall, and how long after
        # the release it came.
        "worst": None if worst is None else
        (worst[1], worst[2] - stall_ms, worst[3] - release_ms),
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
    report_only = baseline = False
    while args and args[0] in ("--report-only", "--baseline"):
        report_only |= args[0] == "--report-only"
        baseline |= args[0] == "--baseline"
        args = args[1:]
    ok = True
    for i in range(0, len(args), 3):
        name, path, origin_us = args[i], args[i + 1], int(args[i + 2])
        stall_ms = (stall_us - origin_us) / 1000.0
        release_ms = (release_us - origin_us) / 1000.0
        f = figures(read_frame_log(path), stall_ms, release_ms)
        first = f["first_in_time"]
        share = (f["window_in_time"] / f["window_frames"]
                 if f["window_frames"] else 0.0)
        before = (f["before_in_time"] / f["before_frames"]
                  if f["before_frames"] else 1.0)
        target = IN_TIME_SHARE
        if baseline:
            target = min(IN_TIME_SHARE, before - BASELINE_MARGIN)
        print("%s: stall at %.1f s of the log, %.1f s long; max latency %.0f ms; "
              "%d frames later than %.0f ms; first in-time frame after the "
              "release: %s; in time from release+1 s to +31 s: %d of %d "
              "(%.2f %%; before the stall %.2f %% of %d); frames sent in the "
              "stall %d, delivered %d; lost %d of %d"
              % (name, stall_ms / 1000, f["stall_len_ms"] / 1000,
                 f["max_latency_ms"] or -1, f["later_than_stall_plus_deadline"],
                 f["stall_len_ms"] + DEADLINE_MS,
                 "none" if first is None else
                 "seq %d sent at release%+.0f ms, arrived at release%+.0f ms"
                 % first,
                 f["window_in_time"], f["window_frames"], 100 * share,
                 100 * before, f["before_frames"], f["stall_frames"], f["stall_frames_delivered"], f["lost"],
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
              "(max latency %.0f ms: seq %d, sent at stall%+.0f ms, arrived "
              "at release%+.0f ms)"
              % ((f["later_than_stall_plus_deadline"], f["max_latency_ms"])
                 + f["worst"]))
        check(first is not None and first[2] <= FIRST_WITHIN_MS,
              "the first in-time frame after the release is not within "
              "%.0f ms of it" % FIRST_WITHIN_MS)
        check(share >= target,
              "%.2f %% in time from release+1 s to +31 s, not %.1f %%"
              % (100 * share, 100 * target))
    return 0 if ok or report_only else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
