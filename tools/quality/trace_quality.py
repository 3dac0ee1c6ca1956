#!/usr/bin/env python3
"""Voice quality of calls from their frame logs, offline (docs/quality.md).

Each frame log (donar-sim --frame-log: DIR/call<N>-dir<D>.csv, rows
seq,sent_ms,arrival_ms) is replayed by donar-quality-replay: the reference
speech looped through Opus as the pipelines encode it, each frame played or
concealed as the playout policy decides, decoded with Opus's concealment.
The call is cut into segments, one loop of the reference each.  A clean
segment (its frames, the 2 before and the 1 after all played) sounds like
the codec alone, so it takes the score of the clean decode, computed once; a
damaged segment is scored for real.  Scores are PESQ: ITU-T P.862.2 wide band
at 16 kHz (pesq 'wb') and P.862 narrow band at 8 kHz ('nb', the audio
resampled with scipy.signal.resample_poly).  A direction's score is the mean
over its segments (weighted by their frames); also the worst segment and the
10th percentile.  --max-damaged K scores at most K damaged segments a
direction (evenly spaced in the order of their frames not played) and
gives each of the others the score of the nearest of those in that order:
an estimate, for long sweeps (tools/evaluate.py).

    trace_quality.py [--playout adaptive|ideal|static:MS] [--max-damaged K]
                     [--modes wb,nb] [--json] LOG.csv|DIR...

Without --json: one JSON object per frame log, a line each.  With --json:
one JSON document, the directions, the calls and a summary.

Importable: score_logs () returns the per-direction results, summarize ()
the summary (tools/evaluate.py).  Needs numpy, scipy and PyPI's pesq
(build-venv/).
"""

import argparse
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEFAULT_REFERENCE = '/usr/share/codec2/raw/speech_orig_16k.wav'
RATE = 16000
FRAME_SAMPLES = RATE * 40 // 1000
# A last, partial segment shorter than this (2 s) is too short to score.
MIN_PARTIAL_FRAMES = 50
# PESQ's floor: what a segment PESQ cannot score (no speech left) gets.
PESQ_FLOOR = 1.0
MODES = ('wb', 'nb')


class QualityError(Exception):
    """Bad input or a failed replay; the message says which."""


def find_replay_tool(explicit=None):
    """donar-quality-replay: given, $DONAR_QUALITY_REPLAY, or in build/."""
    candidates = [explicit, os.environ.get('DONAR_QUALITY_REPLAY'),
                  os.path.join(ROOT, 'build', 'tools', 'donar-quality-replay')]
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    if explicit:
        raise QualityError(f'{explicit}: not an executable')
    raise QualityError('donar-quality-replay not found: build it (ninja -C '
                       'build) or give --tool')


def collect_logs(paths):
    """The frame logs named, directories expanded to their *.csv."""
    logs = []
    for path in paths:
        if os.path.isdir(path):
            found = sorted(os.path.join(path, n) for n in os.listdir(path)
                           if n.endswith('.csv'))
            if not found:
                raise QualityError(f'{path}: no .csv frame logs')
            logs.extend(found)
        elif os.path.exists(path):
            logs.append(path)
        else:
            raise QualityError(f'{path}: no such file or directory')
    return logs


def run_replay(logs, out_dir, playout='adaptive', reference=DEFAULT_REFERENCE,
               tool=None, full_decode=False):
    """Runs donar-quality-replay --clean on the logs into out_dir; returns
    its summaries (one dict per log, in order)."""
    cmd = [find_replay_tool(tool), '--clean', '--out-dir', out_dir,
           '--playout', playout, '--reference', reference]
    if full_decode:
        cmd.append('--full-decode')
    proc = subprocess.run(cmd + list(logs), capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        raise QualityError(proc.stderr.strip() or
                           f'donar-quality-replay exited {proc.returncode}')
    summaries = []
    for log in logs:
        name = os.path.basename(log)
        if name.endswith('.csv'):
            name = name[:-4]
        with open(os.path.join(out_dir, name + '.json')) as f:
            summaries.append(json.load(f))
    return summaries


def read_wav(path):
    """(rate, int16 samples) of a 16-bit mono WAV."""
    rate, x = wavfile.read(path)
    if x.dtype != np.int16 or x.ndim != 1:
        raise QualityError(f'{path}: not 16-bit mono')
    return rate, x


def resample(x, from_rate, to_rate):
    """x (any dtype) at to_rate, as float64."""
    x = np.asarray(x, dtype=np.float64)
    if from_rate == to_rate:
        return x
    g = math.gcd(from_rate, to_rate)
    return resample_poly(x, to_rate // g, from_rate // g)


def pesq_scores(ref16, deg16, modes=MODES):
    """{'wb': P.862.2 at 16 kHz, 'nb': P.862 at 8 kHz} of deg16 against
    ref16 (both 16 kHz, aligned), the modes asked for; PESQ_FLOOR where
    PESQ finds no speech."""
    from pesq import pesq, PesqError  # pylint: disable=import-outside-toplevel
    out = {}
    ref16 = np.asarray(ref16, dtype=np.float64)
    deg16 = np.asarray(deg16, dtype=np.float64)
    for mode, rate in (('wb', 16000), ('nb', 8000)):
        if mode not in modes:
            continue
        ref = resample(ref16, RATE, rate)
        deg = resample(deg16, RATE, rate)
        try:
            out[mode] = float(pesq(rate, ref, deg, mode))
        except PesqError:
            out[mode] = PESQ_FLOOR
    return out


# Worker processes keep the reference loaded.
_REF16 = None
_MODES = MODES


def _init_worker(ref16, modes=MODES):
    global _REF16, _MODES  # pylint: disable=global-statement
    _REF16 = ref16
    _MODES = modes


def _score_file(path):
    rate, deg = read_wav(path)
    if rate != RATE:
        raise QualityError(f'{path}: {rate} Hz, expected {RATE}')
    return pesq_scores(_REF16[:len(deg)], deg, _MODES)


def sample_evenly(n, k):
    """k of range(n), evenly spaced (the middle of each of k equal parts);
    all of them if k is None or k >= n."""
    if k is None or k >= n:
        return list(range(n))
    return [int((i + 0.5) * n / k) for i in range(k)]


def _by_damage(damaged):
    """The damaged segments (replay summaries) from the least to the most
    damaged: frames not played (lost + late), then index."""
    return sorted(damaged, key=lambda d: (d['lost'] + d['late'], d['index']))


def damaged_sample(damaged, k):
    """The damaged segments to score when at most k are (None: all): k
    evenly spaced in the order of their frames not played, so that the
    sample spans the light and the heavy damage (a stratified sample)."""
    ordered = _by_damage(damaged)
    return [ordered[i] for i in sample_evenly(len(ordered), k)]


def _stats(scores, weights):
    s = np.asarray(scores, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if len(s) == 0 or len(s) != len(w):
        return {'mean': None, 'worst': None, 'p10': None}
    return {'mean': round(float(np.sum(s * w) / np.sum(w)), 4),
            'worst': round(float(s.min()), 4),
            'p10': round(float(np.percentile(s, 10, method='lower')), 4)}


def call_and_direction(name):
    """(call, direction) from callN-dirD, else (None, None)."""
    m = re.fullmatch(r'call(\d+)-dir(\d+)', name)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def score_logs(paths, playout='adaptive', reference=DEFAULT_REFERENCE,
               work_dir=None, jobs=None, tool=None, full_decode=False,
               min_partial_frames=MIN_PARTIAL_FRAMES, max_damaged=None,
               modes=MODES):
    """Scores each frame log of paths (files or directories): a list of
    dicts, one per log, with the replay's counts and delays and the PESQ
    of its segments.  work_dir keeps the replay's output (else a temporary
    directory); jobs: processes for PESQ (default: the cores).

    max_damaged: score at most this many damaged segments per log, evenly
    spaced in the order of their frames not played (damaged_sample), and
    give each damaged segment not scored the score of the nearest scored
    one in that order (the result's 'estimated' is then true); None (the
    default): all.  modes: the PESQ modes, 'wb' and/or
    'nb' (the other's figures are None)."""
    logs = collect_logs(paths)
    if not logs:
        raise QualityError('no frame logs given')
    if max_damaged is not None and max_damaged < 1:
        raise QualityError('max_damaged must be at least 1 (or None: all)')
    modes = tuple(m for m in MODES if m in modes)
    if not modes:
        raise QualityError(f'modes: give some of {", ".join(MODES)}')
    tmp = None
    if work_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix='trace-quality-')
        work_dir = tmp.name
    try:
        summaries = run_replay(logs, work_dir, playout, reference, tool,
                               full_decode)
        ref_rate, ref = read_wav(os.path.join(work_dir, 'reference.wav'))
        ref16 = resample(ref, ref_rate, RATE)
        _, clean16 = read_wav(os.path.join(work_dir, 'clean.wav'))
        if len(clean16) != len(ref16):
            raise QualityError('clean.wav and reference.wav differ in length')

        # The clean score of a segment of m frames (m < L: the last).
        clean_cache = {}

        def clean_score(m):
            if m not in clean_cache:
                n = m * FRAME_SAMPLES
                clean_cache[m] = pesq_scores(ref16[:n], clean16[:n], modes)
            return clean_cache[m]

        # The damaged segments (all, or a sample of each log's), scored in
        # parallel.
        files = []
        for s in summaries:
            scorable = [d for d in s['damaged']
                        if d['frames'] >= min(min_partial_frames,
                                              s['frames_per_segment'])]
            for d in damaged_sample(scorable, max_damaged):
                files.append(os.path.join(work_dir, d['file']))
        jobs = jobs or os.cpu_count() or 1
        if jobs > 1 and len(files) > 1:
            with concurrent.futures.ProcessPoolExecutor(
                    max_workers=jobs, initializer=_init_worker,
                    initargs=(ref16, modes)) as pool:
                scored = dict(zip(files, pool.map(_score_file, files,
                                                  chunksize=4)))
        else:
            _init_worker(ref16, modes)
            scored = {f: _score_file(f) for f in files}

        results = []
        for s in summaries:
            results.append(_direction_result(s, work_dir, scored, clean_score,
                                              min_partial_frames, modes))
        return results
    finally:
        if tmp is not None:
            tmp.cleanup()


def _rounded(x):
    return None if x is None else round(x, 4)


def _direction_result(s, work_dir, scored, clean_score, min_partial_frames,
                      modes=MODES):
    L = s['frames_per_segment']
    damaged = {d['index']: d for d in s['damaged']}
    # A damaged segment not scored (max_damaged) takes the score of the
    # scored one nearest to it in the order of damage (damaged_sample): each
    # scored segment stands for its stratum, about n / k segments.
    ordered = _by_damage(s['damaged'])
    rank_scored = [(r, scored[os.path.join(work_dir, d['file'])])
                   for r, d in enumerate(ordered)
                   if os.path.join(work_dir, d['file']) in scored]
    estimate = {}
    for r, d in enumerate(ordered):
        if rank_scored:
            estimate[d['index']] = min(rank_scored,
                                       key=lambda x, r=r: abs(x[0] - r))[1]
    scores = {m: [] for m in MODES}
    weights, seg_detail = [], []
    skipped = estimated = 0
    for i in range(s['segments']):
        m = L if i + 1 < s['segments'] else s['last_segment_frames']
        if m < min(min_partial_frames, L):
            skipped += 1
            continue
        if i in damaged:
            path = os.path.join(work_dir, damaged[i]['file'])
            if path in scored:
                sc = scored[path]
                seg_detail.append({'index': i, 'frames': m,
                                   'lost': damaged[i]['lost'],
                                   'late': damaged[i]['late'],
                                   'pesq_wb': _rounded(sc.get('wb')),
                                   'pesq_nb': _rounded(sc.get('nb'))})
            else:
                sc = estimate[i]
                estimated += 1
        else:
            sc = clean_score(m)
        for mode in modes:
            scores[mode].append(sc[mode])
        weights.append(m)
    call, direction = call_and_direction(s['name'])
    clean = clean_score(L)
    return {
        'name': s['name'], 'log': s['log'], 'call': call,
        'direction': direction, 'playout': s['playout'],
        'frames': s['frames'], 'lost': s['lost'], 'late': s['late'],
        'played': s['played'],
        'playout_delay_ms': s['playout_delay_ms'],
        'one_way_delay_ms': s['one_way_delay_ms'],
        'burst_ratio': s.get('burst_ratio'),
        'segments': s['segments'], 'segments_scored': len(weights),
        'segments_skipped': skipped,
        'damaged_segments': s['damaged_segments'],
        # Damaged segments scored for real, and given the mean of those
        # (max_damaged): with estimated > 0 the figures are an estimate.
        'damaged_scored': len(seg_detail), 'damaged_estimated': estimated,
        'estimated': estimated > 0,
        'clean': {'pesq_wb': _rounded(clean.get('wb')),
                  'pesq_nb': _rounded(clean.get('nb'))},
        'pesq_wb': _stats(scores['wb'], weights),
        'pesq_nb': _stats(scores['nb'], weights),
        'damaged': seg_detail,
    }


def summarize(results):
    """The calls (directions grouped by call number) and the totals."""
    calls = {}
    for r in results:
        key = r['call'] if r['call'] is not None else r['name']
        calls.setdefault(key, []).append(r)
    call_list = []
    for key, dirs in calls.items():
        entry = {'call': key, 'directions': [d['name'] for d in dirs]}
        for mode in ('pesq_wb', 'pesq_nb'):
            means = [d[mode]['mean'] for d in dirs if d[mode]['mean']
                     is not None]
            entry[mode] = {
                'mean': round(sum(means) / len(means), 4) if means else None,
                'worst_direction': min(means) if means else None,
                'worst_segment': min((d[mode]['worst'] for d in dirs
                                      if d[mode]['worst'] is not None),
                                     default=None)}
        call_list.append(entry)
    frames = sum(r['frames'] for r in results)
    wb = [r['pesq_wb']['mean'] for r in results
          if r['pesq_wb']['mean'] is not None]
    nb = [r['pesq_nb']['mean'] for r in results
          if r['pesq_nb']['mean'] is not None]
    return {
        'directions': len(results), 'calls': len(call_list),
        'frames': frames,
        'lost_share': sum(r['lost'] for r in results) / frames if frames
        else None,
        'late_share': sum(r['late'] for r in results) / frames if frames
        else None,
        'damaged_segments': sum(len(r['damaged_segments']) for r in results),
        'segments': sum(r['segments'] for r in results),
        'pesq_wb_mean': round(float(np.mean(wb)), 4) if wb else None,
        'pesq_nb_mean': round(float(np.mean(nb)), 4) if nb else None,
        # seed 001's good call: PESQ > 3 (with the delay under 400 ms).
        'calls_pesq_wb_above_3': sum(
            1 for c in call_list if c['pesq_wb']['worst_direction'] is not None
            and c['pesq_wb']['worst_direction'] > 3),
        'per_call': call_list,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='PESQ of calls replayed from their frame logs '
        '(docs/quality.md).')
    parser.add_argument('logs', nargs='+', metavar='LOG.csv|DIR',
                        help='frame logs, or donar-sim --frame-log dirs')
    parser.add_argument('--playout', default='adaptive',
                        help='adaptive (lib/playout), ideal (own p99) or '
                        'static:MS (default: adaptive)')
    parser.add_argument('--reference', default=DEFAULT_REFERENCE,
                        help='reference speech WAV (16-bit mono, 8/16/48 '
                        'kHz; default: %(default)s)')
    parser.add_argument('--work-dir', help='keep the replayed audio here')
    parser.add_argument('--jobs', type=int, default=None,
                        help='processes for PESQ (default: the cores)')
    parser.add_argument('--tool', help='donar-quality-replay to run')
    parser.add_argument('--full-decode', action='store_true',
                        help='decode each call whole (slower)')
    parser.add_argument('--max-damaged', type=int, metavar='K',
                        help='score at most K damaged segments per log, '
                        'evenly spaced by damage; each other takes the '
                        'score of the nearest (an estimate; default: all)')
    parser.add_argument('--modes', default='wb,nb',
                        help='PESQ modes: wb, nb or wb,nb (the default)')
    parser.add_argument('--json', action='store_true',
                        help='one JSON document with a summary')
    args = parser.parse_args(argv)
    try:
        results = score_logs(args.logs, playout=args.playout,
                             reference=args.reference,
                             work_dir=args.work_dir, jobs=args.jobs,
                             tool=args.tool, full_decode=args.full_decode,
                             max_damaged=args.max_damaged,
                             modes=tuple(args.modes.split(',')))
    except (QualityError, OSError) as e:
        print(f'trace_quality.py: {e}', file=sys.stderr)
        return 1
    if args.json:
        json.dump({'summary': summarize(results), 'directions': results},
                  sys.stdout, indent=1)
        sys.stdout.write('\n')
    else:
        for r in results:
            print(json.dumps(r))
    return 0


if __name__ == '__main__':
    sys.exit(main())
