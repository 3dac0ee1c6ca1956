#!/usr/bin/env python3
"""Suite quality, offline path (docs/quality.md): donar-quality-replay and
trace_quality.py on hand-written frame logs whose outcome is worked out by
hand, and on a short donar-sim run.

    test-offline.py CASE REPLAY TRACE_QUALITY DONAR_SIM

The reference is Debian's codec2 speech_orig_16k.wav: 10.8 s, so a loop (a
segment) is 270 frames of 40 ms.
"""

import json
import os
import subprocess
import sys
import tempfile

# Frame logs through their one writer (tools/framelog/frame_log.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', '..', 'tools', 'framelog'))
from frame_log import write_frame_log  # noqa: E402

CASE, REPLAY, TRACE_QUALITY, DONAR_SIM = sys.argv[1:5]
sys.path.insert(0, os.path.dirname(TRACE_QUALITY))
import trace_quality as tq  # noqa: E402  pylint: disable=wrong-import-position

LOOP = 270  # 10.8 s / 40 ms


def fail(msg):
    print(f'FAIL {CASE}: {msg}', file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def write_log(path, n, delay_ms):
    """n frames sent every 40 ms; delay_ms(i): ms after sending, or None:
    lost."""
    rows = []
    for i in range(n):
        d = delay_ms(i)
        rows.append((i, i * 40, None if d is None else i * 40 + d))
    write_frame_log(path, rows)


def replay(tmp, logs, *opts):
    out = os.path.join(tmp, 'out')
    proc = subprocess.run([REPLAY, '--out-dir', out, *opts, *logs],
                          capture_output=True, text=True, check=False)
    check(proc.returncode == 0, f'replay failed: {proc.stderr}')
    summaries = []
    for log in logs:
        name = os.path.basename(log)[:-4]
        with open(os.path.join(out, name + '.json')) as f:
            summaries.append(json.load(f))
    return out, summaries


def case_flat(tmp):
    # Every frame at +100 ms: whatever the policy, all played.
    log = os.path.join(tmp, 'flat.csv')
    write_log(log, 3 * LOOP, lambda i: 100)
    for playout in ('adaptive', 'ideal', 'static:200'):
        _, (s,) = replay(tmp, [log], '--playout', playout)
        check((s['frames'], s['lost'], s['late'], s['played']) ==
              (810, 0, 0, 810), f'{playout}: {s}')
        check(s['damaged_segments'] == [], f'{playout}: damaged {s}')
        check(s['frames_per_segment'] == LOOP and s['segments'] == 3, str(s))
        check(s['one_way_delay_ms'] == {'p50': 100.0, 'p99': 100.0}, str(s))
    # Ideal: the call's own p99, 100 ms; static: as given.
    _, (s,) = replay(tmp, [log], '--playout', 'ideal')
    check(s['playout_fixed_ms'] == 100.0, str(s))
    # Adaptive: the least target (20 ms) above the base of 100 ms.
    _, (s,) = replay(tmp, [log])
    check(s['playout_delay_ms']['p50'] == 120.0, str(s))


def case_hole(tmp):
    # Frames 300..309 never come: those 10 concealed, segment 300 // 270 = 1
    # damaged, segments 0 (its next frame, 270, came) and 2 (538, 539
    # came) clean.
    log = os.path.join(tmp, 'hole.csv')
    write_log(log, 3 * LOOP, lambda i: None if 300 <= i < 310 else 100)
    out, (s,) = replay(tmp, [log])
    check((s['lost'], s['late'], s['played']) == (10, 0, 800), str(s))
    check(s['damaged_segments'] == [300 // LOOP] == [1], str(s))
    check(s['damaged'][0]['lost'] == 10, str(s))
    check(os.path.exists(os.path.join(out, 'hole-seg1.wav')), 'no wav')
    check(not os.path.exists(os.path.join(out, 'hole-seg0.wav')), 'seg0')
    # Segment 1 is frames 270..539, segment 2 from 540.  Segment 1 needs
    # its frames and 540 (the encoder's lookahead, 6.5 ms, reaches into
    # the first frame after it); segment 2 needs 538..539 (the 2 frames
    # before) and its own.
    cases = ((537, [1]), (538, [1, 2]), (539, [1, 2]),
             (540, [1, 2]), (541, [2]), (268, [0, 1]),
             (270, [0, 1]), (0, [0]), (809, [2]))
    logs = []
    for lost, _ in cases:
        logs.append(os.path.join(tmp, f'lost{lost}.csv'))
        write_log(logs[-1], 3 * LOOP, lambda i, lost=lost: None if i == lost
                  else 100)
    _, summaries = replay(tmp, logs)  # one run: one encode
    for (lost, damaged), s in zip(cases, summaries):
        check(s['damaged_segments'] == damaged, f'frame {lost} lost: {s}')


def case_static_late(tmp):
    # Frame 400 arrives 2 s after its sending: late under static:200,
    # played under static:2500.
    log = os.path.join(tmp, 'late.csv')
    write_log(log, 3 * LOOP, lambda i: 2000 if i == 400 else 100)
    _, (s,) = replay(tmp, [log], '--playout', 'static:200')
    check((s['lost'], s['late'], s['played']) == (0, 1, 809), str(s))
    check(s['damaged_segments'] == [1] and s['damaged'][0]['late'] == 1,
          str(s))
    _, (s,) = replay(tmp, [log], '--playout', 'static:2500')
    check((s['late'], s['damaged_segments']) == (0, []), str(s))
    # Adaptive: the lone spike is not chased (1 frame of the window's 250
    # is under the 1 % the share leaves): late.
    _, (s,) = replay(tmp, [log])
    check(s['late'] == 1, str(s))


def case_pesq(tmp):
    # A damaged segment scores clearly below the clean one; clean segments
    # take the clean score; the mean is over the 3 segments.
    log = os.path.join(tmp, 'hole.csv')
    write_log(log, 3 * LOOP, lambda i: None if 300 <= i < 310 else 100)
    (r,) = tq.score_logs([log], tool=REPLAY, jobs=1,
                         work_dir=os.path.join(tmp, 'work'))
    clean_wb, clean_nb = r['clean']['pesq_wb'], r['clean']['pesq_nb']
    seg_wb, seg_nb = r['damaged'][0]['pesq_wb'], r['damaged'][0]['pesq_nb']
    print(f'clean wb {clean_wb} nb {clean_nb}; 400 ms lost: wb {seg_wb} '
          f'nb {seg_nb}')
    check(clean_wb > 4.0 and clean_nb > 4.0, str(r['clean']))
    check(seg_wb < clean_wb - 0.3 and seg_nb < clean_nb - 0.3, str(r))
    check(abs(r['pesq_wb']['mean'] - (2 * clean_wb + seg_wb) / 3) < 1e-3,
          str(r['pesq_wb']))
    check(r['pesq_wb']['worst'] == seg_wb, str(r['pesq_wb']))
    # The shortcut: segment 2 (clean) decoded for real scores as the clean
    # loop does, up to the codec's state.
    out, _ = replay(tmp, [log], '--all-segments', '--clean')
    _, ref = tq.read_wav(os.path.join(out, 'reference.wav'))
    _, seg2 = tq.read_wav(os.path.join(out, 'hole-seg2.wav'))
    real = tq.pesq_scores(ref, seg2)
    print(f'segment 2 decoded: {real}')
    check(abs(real['wb'] - clean_wb) < 0.05, f'{real} vs clean {clean_wb}')
    # The damaged segment decoded whole or from 1 s before it: the same
    # samples up to the first concealed frame (300, i.e. sample
    # (300 - 270) * 640 of the segment, less the 104 of the lookahead);
    # then only the concealment's noise differs (its random state has run
    # since the call's start), not the score.
    full, _ = replay(tmp, [log], '--full-decode')
    _, a = tq.read_wav(os.path.join(full, 'hole-seg1.wav'))
    _, b = tq.read_wav(os.path.join(tmp, 'work', 'hole-seg1.wav'))
    first = 30 * 640 - 104
    check((a[:first] == b[:first]).all(), 'warm-up decode differs before '
          'the loss')
    whole = tq.pesq_scores(ref, a)
    print(f'decoded whole: {whole}')
    check(abs(whole['wb'] - seg_wb) < 0.02 and
          abs(whole['nb'] - seg_nb) < 0.02, f'{whole} vs {seg_wb} {seg_nb}')


def case_sample(tmp):
    # --max-damaged: 4 damaged segments of 6, with 2 to 25 frames lost.
    # K >= 4 scores them all (the full result, exactly); K = 2 scores 2
    # and estimates the others, close to the full mean.
    holes = {0: (100, 102), 1: (400, 425), 3: (900, 905), 4: (1200, 1212)}

    def delay(i):
        return None if any(a <= i < b for a, b in holes.values()) else 100
    log = os.path.join(tmp, 'holes.csv')
    write_log(log, 6 * LOOP, delay)

    def score(k):
        (r,) = tq.score_logs([log], tool=REPLAY, jobs=1, max_damaged=k,
                             work_dir=os.path.join(tmp, f'work{k}'))
        return r
    full = score(None)
    check(full['damaged_segments'] == sorted(holes) and
          full['damaged_scored'] == 4 and not full['estimated'], str(full))
    for k in (4, 9):
        r = score(k)
        check(not r['estimated'] and r['damaged_scored'] == 4 and
              r['pesq_wb'] == full['pesq_wb'] and
              r['pesq_nb'] == full['pesq_nb'], f'K={k}: {r} vs {full}')
    r2 = score(2)
    print(f"full wb {full['pesq_wb']['mean']}, 2 of 4 scored "
          f"{r2['pesq_wb']['mean']}")
    check(r2['estimated'] and r2['damaged_scored'] == 2 and
          r2['damaged_estimated'] == 2, str(r2))
    # The 2 scored: by frames lost the order is segments 0 (2), 3 (5),
    # 4 (12), 1 (25); evenly spaced, the 2nd and the 4th.
    check([d['index'] for d in r2['damaged']] == [1, 3], str(r2['damaged']))
    for mode in ('pesq_wb', 'pesq_nb'):
        check(abs(r2[mode]['mean'] - full[mode]['mean']) < 0.15,
              f'{mode}: {r2[mode]} vs {full[mode]}')
    r1 = score(1)
    check(r1['damaged_scored'] == 1 and r1['estimated'], str(r1))
    # Wide band only: the same wide-band figures, no narrow band.
    (wb,) = tq.score_logs([log], tool=REPLAY, jobs=1, max_damaged=2,
                          modes=('wb',), work_dir=os.path.join(tmp, 'wb'))
    check(wb['pesq_wb'] == r2['pesq_wb'] and wb['pesq_nb']['mean'] is None
          and wb['clean']['pesq_nb'] is None, str(wb))


def expect_error(tmp, args, *needles):
    proc = subprocess.run([REPLAY, '--out-dir', os.path.join(tmp, 'e'),
                           *args], capture_output=True, text=True,
                          check=False)
    check(proc.returncode != 0, f'{args}: succeeded')
    for needle in needles:
        check(needle in proc.stderr, f'{args}: {proc.stderr!r} lacks '
              f'{needle!r}')
    print(proc.stderr.strip())


def case_errors(tmp):
    log = os.path.join(tmp, 'bad.csv')
    with open(log, 'w') as f:
        f.write('seq,sent_ms,arrival_ms\n0,0.000,100.000\n1,40.000,140.000\n'
                '2,80.000,abc\n')
    expect_error(tmp, [log], 'bad.csv:4:', 'abc')
    with open(log, 'w') as f:
        f.write('seq,sent_ms,arrival_ms\n0,0.000,100.000\n2,80.000,\n')
    expect_error(tmp, [log], 'bad.csv:3:', 'seq 2, expected 1')
    with open(log, 'w') as f:
        f.write('seq,sent,arrival\n')
    expect_error(tmp, [log], 'bad.csv:1:', 'header')
    expect_error(tmp, [os.path.join(tmp, 'missing.csv')], 'missing.csv')
    expect_error(tmp, ['--playout', 'sometimes', log], '--playout')
    # A reference that is not 16-bit mono PCM at 8/16/48 kHz.
    wav = os.path.join(tmp, 'stereo.wav')
    import numpy as np  # pylint: disable=import-outside-toplevel
    from scipy.io import wavfile  # pylint: disable=import-outside-toplevel
    wavfile.write(wav, 16000, np.zeros((16000, 2), dtype=np.int16))
    write_log(log, 10, lambda i: 100)
    expect_error(tmp, ['--reference', wav, log], 'stereo.wav', '2 channel')
    wavfile.write(wav, 44100, np.zeros(44100, dtype=np.int16))
    expect_error(tmp, ['--reference', wav, log], '44100 Hz')
    # trace_quality.py passes the error on.
    proc = subprocess.run([sys.executable, TRACE_QUALITY, '--tool', REPLAY,
                           os.path.join(tmp, 'nothing-here')],
                          capture_output=True, text=True, check=False)
    check(proc.returncode == 1 and 'nothing-here' in proc.stderr,
          proc.stderr)


def case_donar_sim(tmp):
    # A 30-s call (750 frames: segments of 270, 270 and 210) end to end.
    logs = os.path.join(tmp, 'logs')
    proc = subprocess.run([DONAR_SIM, '--calls', '1', '--duration', '30',
                           '--seed', '1', '--jobs', '1', '--frame-log', logs],
                          capture_output=True, text=True, check=False)
    check(proc.returncode == 0, proc.stderr)
    proc = subprocess.run([sys.executable, TRACE_QUALITY, '--tool', REPLAY,
                           '--json', '--jobs', '1', logs],
                          capture_output=True, text=True, check=False)
    check(proc.returncode == 0, proc.stderr)
    doc = json.loads(proc.stdout)
    dirs = doc['directions']
    check([d['name'] for d in dirs] == ['call0-dir0', 'call0-dir1'],
          str([d['name'] for d in dirs]))
    for d in dirs:
        check(d['frames'] == 750 and d['segments'] == 3 and
              d['segments_scored'] == 3, str(d))
        check(d['lost'] + d['late'] + d['played'] == 750, str(d))
        check(1.0 <= d['pesq_wb']['worst'] <= d['pesq_wb']['mean'] <= 4.7,
              str(d['pesq_wb']))
        check(d['call'] == 0, str(d))
    summary = doc['summary']
    check(summary['calls'] == 1 and summary['directions'] == 2, str(summary))
    print(json.dumps(summary))


CASES = {'flat': case_flat, 'hole': case_hole, 'static-late':
         case_static_late, 'pesq': case_pesq, 'errors': case_errors,
         'donar-sim': case_donar_sim, 'sample': case_sample}

with tempfile.TemporaryDirectory(prefix='test-offline-') as d:
    CASES[CASE](d)
print(f'ok {CASE}')
