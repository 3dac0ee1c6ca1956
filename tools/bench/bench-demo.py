#!/usr/bin/python3
"""The README's main job as a benchmark: pipelines/demo.sh, a 20-s one-way
call over donar-torsim, run again and again (docs/performance.md, *The
README's demo*; a benchmark, not a test).

    tools/bench/bench-demo.py [--build DIR] [--runs N] [--seeds 1,2]
        [--policy adaptive] [--seconds 20] [--json]
    tools/bench/bench-demo.py --summarize FRAME_LOG DEMO_JSON

For each run: the frames later than 360 ms one-way (from the frame log:
capture to first arrival at donarsrc), the frames donarjitterbuffer
played late, mouth to ear (demo.sh's: the least one-way delay plus the
jitter buffer's mean target), and when the late frames were sent.  Then,
per seed, how many runs kept the targets of issue 36: at most 5 frames
later than 360 ms and mouth to ear under 330 ms.  --summarize reads one
run's files (what the unit test checks).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEADLINE_MS = 360.0
MAX_LATE = 5
MAX_MOUTH_TO_EAR_MS = 330.0

# The frame logs' one reader (tools/framelog/frame_log.py).
sys.path.insert(0, os.path.join(TOP, 'tools', 'framelog'))
from frame_log import read_frame_log  # noqa: E402


def summarize(frame_log, demo_json):
    """One run's figures: {late, late_at_s, jitterbuffer_late,
    mouth_to_ear_ms, frames, ok}."""
    with open(demo_json, encoding='utf-8') as f:
        demo = json.load(f)
    rows = read_frame_log(frame_log)
    frames = len(rows)
    origin = rows[0][1] if rows else None
    late_at = [round((sent - origin) / 1000.0, 1)
               for _, sent, arrival in rows
               if arrival is None or arrival - sent > DEADLINE_MS]
    mouth_to_ear = float(demo['mouth_to_ear_ms'])
    return {'frames': frames, 'late': len(late_at), 'late_at_s': late_at,
            'jitterbuffer_late': demo['frames_late'],
            'mouth_to_ear_ms': mouth_to_ear,
            'ok': len(late_at) <= MAX_LATE and
            mouth_to_ear < MAX_MOUTH_TO_EAR_MS}


def run_once(build, seed, policy, seconds, scratch, index):
    log = os.path.join(scratch, f'seed{seed}-{index}.csv')
    out = os.path.join(scratch, f'seed{seed}-{index}.json')
    with open(out, 'w', encoding='utf-8') as f:
        done = subprocess.run(
            ['bash', os.path.join(TOP, 'pipelines', 'demo.sh'), '--build',
             build, '--seconds', str(seconds), '--seed', str(seed),
             '--policy', policy, '--json', '--frame-log', log],
            stdout=f, stderr=subprocess.DEVNULL)
    if done.returncode != 0:
        sys.exit(f'bench-demo: demo.sh failed ({done.returncode}) on seed '
                 f'{seed}')
    return summarize(log, out)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--build', default=os.path.join(TOP, 'build'))
    p.add_argument('--runs', type=int, default=10)
    p.add_argument('--seeds', default='1')
    p.add_argument('--policy', default='adaptive')
    p.add_argument('--seconds', type=int, default=20)
    p.add_argument('--json', action='store_true')
    p.add_argument('--summarize', nargs=2, metavar=('FRAME_LOG', 'DEMO_JSON'))
    args = p.parse_args(argv)
    if args.summarize:
        print(json.dumps(summarize(*args.summarize)))
        return
    try:
        seeds = [int(s) for s in args.seeds.split(',')]
    except ValueError:
        sys.exit(f'bench-demo: --seeds: {args.seeds!r} is not a list of '
                 'numbers')
    if args.runs < 1:
        sys.exit('bench-demo: --runs must be at least 1')
    results = {}
    with tempfile.TemporaryDirectory(prefix='bench-demo-') as scratch:
        for seed in seeds:
            runs = []
            for i in range(args.runs):
                r = run_once(args.build, seed, args.policy, args.seconds,
                             scratch, i)
                runs.append(r)
                if not args.json:
                    print(f'seed {seed} run {i + 1}: {r["late"]} later than '
                          f'360 ms, {r["jitterbuffer_late"]} late at the '
                          f'jitter buffer, mouth to ear '
                          f'{r["mouth_to_ear_ms"]:.1f} ms; late at '
                          f'{r["late_at_s"][:8]} s', flush=True)
            results[seed] = runs
    summary = {seed: {'runs': len(runs),
                      'kept': sum(r['ok'] for r in runs),
                      'most_late': max(r['late'] for r in runs),
                      'mouth_to_ear_ms': [min(r['mouth_to_ear_ms']
                                              for r in runs),
                                          max(r['mouth_to_ear_ms']
                                              for r in runs)]}
               for seed, runs in results.items()}
    if args.json:
        print(json.dumps({'policy': args.policy, 'seconds': args.seconds,
                          'summary': summary, 'runs': results}))
        return
    for seed, s in summary.items():
        print(f'seed {seed}: {s["kept"]} of {s["runs"]} runs kept at most '
              f'{MAX_LATE} frames later than 360 ms and mouth to ear under '
              f'{MAX_MOUTH_TO_EAR_MS:.0f} ms; at most {s["most_late"]} late; '
              f'mouth to ear {s["mouth_to_ear_ms"][0]:.1f} to '
              f'{s["mouth_to_ear_ms"][1]:.1f} ms')


if __name__ == '__main__':
    main(sys.argv[1:])
