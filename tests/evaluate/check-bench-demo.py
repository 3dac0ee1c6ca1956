#!/usr/bin/python3
"""tools/bench/bench-demo.py --summarize on a run made up here: the frames
later than 360 ms (a lost one counts), when they were sent, and whether
the run kept issue 36's targets (at most 5 late, mouth to ear under
330 ms), worked out by hand.

    check-bench-demo.py BENCH_DEMO_PY
"""

import json
import os
import subprocess
import sys
import tempfile

# Frame logs through their one writer (tools/framelog/frame_log.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'tools', 'framelog'))
from frame_log import write_frame_log  # noqa: E402


def summarize(bench, rows, mouth_to_ear, frames_late):
    with tempfile.TemporaryDirectory(prefix='bench-demo-test-') as d:
        log, out = os.path.join(d, 'f.csv'), os.path.join(d, 'd.json')
        write_frame_log(log, rows)
        with open(out, 'w', encoding='utf-8') as f:
            json.dump({'mouth_to_ear_ms': mouth_to_ear,
                       'frames_late': frames_late}, f)
        done = subprocess.run([sys.executable, bench, '--summarize', log, out],
                              capture_output=True, text=True, check=True)
        return json.loads(done.stdout)


def main(bench):
    # 50 frames of 40 ms from 1000 ms, each 200 ms on its way but frame 3
    # (360.5 ms: late), frame 10 (exactly 360 ms: in time), frame 20 (lost)
    # and frame 30 (1300 ms).
    rows = []
    for seq in range(50):
        sent = 1000.0 + 40 * seq
        delay = {3: 360.5, 10: 360.0, 30: 1300.0}.get(seq, 200.0)
        rows.append((seq, sent, None if seq == 20 else sent + delay))
    r = summarize(bench, rows, 329.9, 2)
    failures = []
    if (r['frames'], r['late'], r['late_at_s']) != (50, 3, [0.1, 0.8, 1.2]):
        failures.append(f'frames, late, late_at_s: {r}')
    if r['jitterbuffer_late'] != 2 or not r['ok']:
        failures.append(f'3 late and 329.9 ms is within the targets: {r}')
    if summarize(bench, rows, 330.0, 2)['ok']:
        failures.append('330 ms mouth to ear is not under 330 ms')
    # Frames 0 to 5 400 ms on their way: with the lost one and the 1300-ms
    # one, 8 later than 360 ms.
    six = [(s, t, t + 400 if s < 6 else a) for s, t, a in rows]
    if summarize(bench, six, 300.0, 0)['ok']:
        failures.append('8 frames later than 360 ms are more than 5')
    for failure in failures:
        print('FAIL: ' + failure, file=sys.stderr)
    if failures:
        sys.exit(1)
    print('check-bench-demo: late frames, their times and the targets as '
          'worked out by hand')


if __name__ == '__main__':
    main(sys.argv[1])
