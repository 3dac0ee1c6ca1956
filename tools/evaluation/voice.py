"""Voice quality (issue 6): PESQ-WB of real speech replayed from the frame
logs of simulated calls (tools/quality/trace_quality.py, docs/quality.md),
and seed 001's good call.
"""

import concurrent.futures
import os
import shutil
import sys
import time

from framelog.frame_log import write_frame_log

from .policies import (
    DIRECT_DELAY_MS, DIRECT_KEY, FRAME_MS, GOOD_DELAY_MS, GOOD_PESQ,
    SECURITIES, VOICE_DIRECTION, VOICE_POLICIES)
from .plan import protocol_options
from .run import gather, run_checked


def import_quality():
    """tools/quality/'s trace_quality and qscore, or exit naming the fix."""
    for module in ('numpy', 'scipy', 'pesq'):
        try:
            __import__(module)
        except ImportError:
            sys.exit(f'evaluate: {module} is missing (the voice-quality '
                     'section scores PESQ with PyPI\'s pesq): run '
                     '`bash scripts/setup.sh install-only`, then '
                     '`build-venv/bin/python3 tools/evaluate.py` '
                     '(or `bash scripts/setup.sh evaluate`)')
    # Only now: trace_quality and qscore import numpy and scipy.
    from quality import qscore, trace_quality
    return trace_quality, qscore


def write_direct_log(path, seconds):
    """A frame log of direct UDP: every frame arrives DIRECT_DELAY_MS after
    it is sent, none lost."""
    write_frame_log(path, [(i, i * FRAME_MS, i * FRAME_MS + DIRECT_DELAY_MS)
                           for i in range(seconds * 1000 // FRAME_MS)])


def voice_call(result, qscore):
    """The figures of one call from its direction's trace_quality result:
    PESQ-WB, the one-way delay as seed 001 counts it (encoding at the
    sender to decoding at the receiver: the playout delay, p50), the share
    of frames not played (lost or late), G.107's R and the good call."""
    frames = result['frames']
    unplayed = (result['lost'] + result['late']) / frames
    delay = result['playout_delay_ms']['p50']
    pesq_wb = result['pesq_wb']['mean']
    r = qscore.r_factor(delay, 100.0 * unplayed,
                        burst_r=result.get('burst_ratio') or 1.0)
    return {'call': result['call'], 'pesq_wb': pesq_wb, 'delay_ms': delay,
            'unplayed': unplayed, 'r': r,
            'good': pesq_wb is not None and pesq_wb > GOOD_PESQ
            and delay < GOOD_DELAY_MS,
            'damaged': len(result['damaged_segments']),
            'damaged_scored': result['damaged_scored'],
            'segments': result['segments']}


def voice_cell(build, key, policy_args, security_key, seconds, calls, seed,
               options, max_damaged, scratch):
    """Runs donar-sim with --frame-log for one policy and configuration (or
    writes the direct-UDP log) and scores the caller-to-callee direction of
    each call.  Runs in a worker process: [voice_call ()...]."""
    trace_quality, qscore = import_quality()
    logs = os.path.join(scratch, 'voice', '-'.join(key))
    os.makedirs(logs)
    if key[0] == DIRECT_KEY:
        write_direct_log(os.path.join(logs, 'call0-dir0.csv'), seconds)
        max_damaged = None
    else:
        cmd = [os.path.join(build, 'tools', 'donar-sim'), *policy_args,
               '--security', security_key, '--calls', str(calls),
               '--duration', str(seconds), '--seed', str(seed),
               '--jobs', '1', '--json', '--frame-log', logs]
        for name, value in options:
            cmd += [name, value]
        run_checked(cmd)
    paths = sorted(os.path.join(logs, name) for name in os.listdir(logs)
                   if name.endswith(f'-dir{VOICE_DIRECTION}.csv'))
    results = trace_quality.score_logs(
        paths, jobs=1, max_damaged=max_damaged, modes=('wb',),
        tool=os.path.join(build, 'tools', 'donar-quality-replay'))
    shutil.rmtree(logs)
    return sorted((voice_call(r, qscore) for r in results),
                  key=lambda c: c['call'])


def run_voice(build, plan, scratch):
    """{(policy key, security key): [call figures]} and
    {DIRECT_KEY: [call]}, the cells on all cores (a process each)."""
    cells = {(DIRECT_KEY, 'none'): ((), 'default', {})}
    for security in SECURITIES:
        for policy in VOICE_POLICIES:
            cells[(policy.key, security.key)] = (
                policy.args, security.key, protocol_options(policy))
    started = time.monotonic()
    workers = os.cpu_count() or 1
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        futures = {pool.submit(voice_cell, build, key, args, security_key,
                               plan.voice_seconds, plan.voice_calls,
                               plan.seed, options, plan.voice_segments,
                               scratch): key
                   for key, (args, security_key, options) in cells.items()}
        try:
            return gather(futures, started, 'voice ', ' '.join)
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise


def median(values):
    values = sorted(values)
    n = len(values)
    return (values[n // 2] if n % 2 else
            (values[n // 2 - 1] + values[n // 2]) / 2)


def percentile(values, q):
    """Linear interpolation between the closest ranks (numpy's default)."""
    values = sorted(values)
    position = (len(values) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


def voice_figures(calls):
    return {'median': median([c['pesq_wb'] for c in calls]),
            'p10': percentile([c['pesq_wb'] for c in calls], 10),
            'good': sum(c['good'] for c in calls) / len(calls),
            'r': median([c['r'] for c in calls]),
            'delay': median([c['delay_ms'] for c in calls]),
            'unplayed': sum(c['unplayed'] for c in calls) / len(calls),
            'damaged': sum(c['damaged'] for c in calls),
            'scored': sum(c['damaged_scored'] for c in calls),
            'segments': sum(c['segments'] for c in calls)}
