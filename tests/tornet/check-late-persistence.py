#!/usr/bin/env python3
"""`python3 -m tornet report late-persistence` (tools/tornet) on a made-up kept run and a made-up
donar-sim directory, the figures worked out by hand.

One direction of 501 frames, one every 40 ms; the frames of second k
(frames 25k to 25k + 24) go on link k mod 4, so a frame's chances (its
link and the next frame's) are that link, and two links for the last
frame of a second.  Late: frames 300, 312, 313 and 330.  Counted: frames
250 to 449 (10 s in, up to 2 s before the last frame with a next one):
200, 4 late, 2.00 %.  The frames 0.4 to 1 s after each late one (10 to 24
frames later), on its links or on links apart; 324 and 349 cross two
links, one of them the late frame's, and count in neither:

    after 300 (link 0): 310-323 same (312, 313 late)          14 same
    after 312 (link 0): 322-323 same, 325-336 apart (330)     2 same, 12 apart
    after 313 (link 0): 323 same, 325-337 apart (330)         1 same, 13 apart
    after 330 (link 1): 340-348 same, 350-354 apart           9 same, 5 apart

Same links 26, 2 late (7.7 %); apart 30, 2 late (6.7 %): 1.2 times.  The
other direction, all in time, adds 200 frames and no late one (1.00 %).

Calls late together: three 60-s calls of one round, every origin at 0,
caller to callee late at (s) ALTERNATE 12 and 16, ADAPTIVE (the same tors)
12.2 and 36, DOUBLE-SEND (other tors) 16; callee to caller all in time.
Both of ALTERNATE's late frames lie 10 s within the others' span.  Same
tors: 12 meets 12.2, 16 nothing: 1 of 2, 50 %; shifted 20 s, 16 + 20 =
36 meets 36, nothing else: 1 of 4, 25 %.  Other tors: 16 meets 16: 50 %;
shifted, nothing: 0 %.

    check-late-persistence.py TOOLS_TORNET_DIR
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

FRAMES = 501
LATE = (300, 312, 313, 330)


def fail(message):
    print(f'check-late-persistence: {message}', file=sys.stderr)
    sys.exit(1)


def link_of(seq):
    return (seq // 25) % 4


def arrival(seq, late):
    return None if seq in late else seq * 40 + 200


def write_frames(path, late, frames=FRAMES):
    write_frame_log(path, [(q, q * 40, arrival(q, late))
                           for q in range(frames)])


def make_tor(keep):
    os.makedirs(keep)
    name = 'round00-alternate-0'
    json.dump([{'name': name, 'policy': 'ALTERNATE', 'round': 0,
                'tor_pair': 0},
               {'name': 'round00-double-send-1', 'policy': 'DOUBLE-SEND',
                'round': 0, 'tor_pair': 1}],
              open(os.path.join(keep, 'calls.json'), 'w'))
    for sender in ('caller', 'callee'):
        with open(os.path.join(keep, f'{name}-{sender}-sends.csv'), 'w') as f:
            f.write('seq,sent_ms,links,no_link_in_time\n')
            for q in range(FRAMES):
                f.write(f'{q},{q * 40},{link_of(q)},0\n')
    # Caller to callee late; callee to caller all in time.
    write_frames(os.path.join(keep, f'{name}-callee.csv'), LATE)
    write_frames(os.path.join(keep, f'{name}-caller.csv'), ())


def make_sim(d):
    os.makedirs(d)
    with open(os.path.join(d, 'call0-sends.csv'), 'w') as f:
        f.write('dir,frame,link,caller_guard,callee_guard\n')
        for q in range(FRAMES):
            for di in (0, 1):
                f.write(f'{di},{q},{link_of(q)},0,0\n')
    write_frames(os.path.join(d, 'call0-dir0.csv'), LATE)
    write_frames(os.path.join(d, 'call0-dir1.csv'), ())


def make_together(keep):
    """Three 60-s calls (1501 frames) as above."""
    os.makedirs(keep)
    calls = (('round00-alternate-0', 'ALTERNATE', 0, (300, 400)),
             ('round00-adaptive-budget-1-1', 'ADAPTIVE budget 1', 0,
              (305, 900)),
             ('round00-double-send-2', 'DOUBLE-SEND', 1, (400,)))
    json.dump([{'name': name, 'policy': policy, 'round': 0, 'tor_pair': pair}
               for name, policy, pair, _ in calls],
              open(os.path.join(keep, 'calls.json'), 'w'))
    for name, _, _, late in calls:
        for end in ('caller', 'callee'):
            with open(os.path.join(keep, f'{name}-{end}.log'), 'w') as f:
                f.write('donar-call: connecting to tor\n'
                        'frame-log: origin 0 us\n')
            with open(os.path.join(keep, f'{name}-{end}-sends.csv'),
                      'w') as f:
                f.write('seq,sent_ms,links,no_link_in_time\n')
                for q in range(1501):
                    f.write(f'{q},{q * 40},0,0\n')
        write_frames(os.path.join(keep, f'{name}-callee.csv'), late, 1501)
        write_frames(os.path.join(keep, f'{name}-caller.csv'), (), 1501)


def run(tools_tornet, *args):
    return subprocess.run([sys.executable, '-m', 'tornet', 'report',
                           'late-persistence', *args],
                          capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=tools_tornet))


def main():
    script = sys.argv[1]
    expected = ('400 frames, 1.00 % late; of the frames 0.4-1 s after a late '
                'one, on the same links 7.7 % late (26), on links apart 6.7 % '
                'late (30): 1.2 times')
    with tempfile.TemporaryDirectory() as tmp:
        keep = os.path.join(tmp, 'keep')
        make_tor(keep)
        make_sim(os.path.join(keep, 'sim-alternate'))
        proc = run(script, '--keep', keep)
        # The other call of the round left no logs: no call to meet.
        want = (f'ALTERNATE over real tor: {expected}\n'
                "ALTERNATE's late frames with one of another call's within "
                '0.5 s: no other call\n'
                f'ALTERNATE over donar-sim: {expected}\n')
        if proc.returncode != 0 or proc.stdout != want:
            fail(f'exit {proc.returncode}, printed {proc.stdout!r} '
                 f'{proc.stderr}, not {want!r}')
        keep2 = os.path.join(tmp, 'together')
        make_together(keep2)
        proc = run(script, '--keep', keep2)
        want = ("ALTERNATE's late frames with one of another call's within "
                "0.5 s: through the same tors 50 % (2; 20 s apart 25 %), "
                "through other tors 50 % (2; 20 s apart 0 %)\n")
        if proc.returncode != 0 or want not in proc.stdout:
            fail(f'exit {proc.returncode}, printed {proc.stdout!r} '
                 f'{proc.stderr}, without {want!r}')
        # A policy without send logs, a directory without a run, a --sim
        # without send logs: each refused with a clear error.
        for args, needed in (
                (('--keep', keep, '--policy', 'DOUBLE-SEND'),
                 "no call of 'DOUBLE-SEND' with send logs"),
                (('--keep', tmp), 'no calls.json in'),
                (('--keep', keep, '--sim', tmp), 'no call*-sends.csv in')):
            proc = run(script, *args)
            if proc.returncode == 0 or \
                    f'late-persistence: {needed}' not in proc.stderr:
                fail(f'{args} was not refused with {needed!r}: '
                     f'{proc.returncode} {proc.stderr}')


if __name__ == '__main__':
    main()
