#!/usr/bin/env python3
"""DONAR's evaluation of record: seed 000, section 6, over the Tor link model.

Runs build/tools/donar-sim and build/tools/donar-netmodel-calibrate, then
writes docs/evaluation.md and the plots under docs/img/. Every figure of that
page comes from this script, except the paper's figures, which are in
PAPER_SUCCESSFUL, PAPER_DROPPED and PAPER_QUOTES below with the sentences
they come from.

    build-venv/bin/python3 tools/evaluate.py [--build build] [--out docs]
        [--calls 96] [--seed 1] [--voice-calls 32] [--voice-segments 8]
    build-venv/bin/python3 tools/evaluate.py --only voice   # that section
    build-venv/bin/python3 tools/evaluate.py --only shared-fate  # that one
    build-venv/bin/python3 tools/evaluate.py --only short-calls  # that one
    build-venv/bin/python3 tools/evaluate.py --quick --out /tmp/eval  # smoke

Python 3 with matplotlib, numpy and scipy (Debian) and PyPI's pesq for the
voice-quality section (tools/quality/trace_quality.py): the virtual
environment build-venv/ that scripts/setup.sh makes has them all.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Optional

# --------------------------------------------------------------------------
# What is run


@dataclass(frozen=True)
class Policy:
    key: str        # short name used in file names and tables
    label: str      # as the paper writes it
    args: tuple     # donar-sim options that select it
    links: int      # nLINKS as the paper ran it


SIMPLE = Policy('simple', 'SIMPLE', ('--policy', 'simple'), 1)
TORFONE = Policy('torfone', 'TORFONE', ('--policy', 'torfone'), 2)
# DONAR as seed 000 has it: links leave L1ST / L2ND only at the end of a
# window.  The paper's figures are compared with these.
ALTERNATE = Policy('alternate', 'ALTERNATE',
                   ('--policy', 'alternate', '--alarm-frames', '0'), 12)
DOUBLE_SEND = Policy('double-send', 'DOUBLE-SEND',
                     ('--policy', 'double-send', '--alarm-frames', '0'), 12)
# Ours: a link whose frame is overtaken by ALARM_FRAMES later ones leaves at
# once (lib/core, config alarm_frames; docs/protocol.md).
ALARM_FRAMES = 8
ALTERNATE_ALARM = Policy(
    'alternate-alarm', 'ALTERNATE + alarm',
    ('--policy', 'alternate', '--alarm-frames', str(ALARM_FRAMES)), 12)
DOUBLE_SEND_ALARM = Policy(
    'double-send-alarm', 'DOUBLE-SEND + alarm',
    ('--policy', 'double-send', '--alarm-frames', str(ALARM_FRAMES)), 12)
ORACLE_1 = Policy('oracle-1', 'oracle, 1 send',
                  ('--policy', 'oracle', '--oracle-sends', '1'), 12)
ORACLE_2 = Policy('oracle-2', 'oracle, 2 sends',
                  ('--policy', 'oracle', '--oracle-sends', '2'), 12)

# Beyond the paper: each frame on the link predicted to deliver it first,
# a second copy only where that is unsure, within a budget of messages a
# frame (docs/protocol.md, "ADAPTIVE").
ADAPTIVE_1 = Policy('adaptive-1', 'ADAPTIVE, budget 1',
                    ('--policy', 'adaptive', '--budget', '1'), 12)
ADAPTIVE_125 = Policy('adaptive-1.25', 'ADAPTIVE, budget 1.25',
                      ('--policy', 'adaptive', '--budget', '1.25'), 12)
ADAPTIVE_2 = Policy('adaptive-2', 'ADAPTIVE, budget 2',
                    ('--policy', 'adaptive', '--budget', '2'), 12)

MAIN_POLICIES = (SIMPLE, TORFONE, ALTERNATE, DOUBLE_SEND, ALTERNATE_ALARM,
                 DOUBLE_SEND_ALARM, ADAPTIVE_1, ADAPTIVE_125, ADAPTIVE_2,
                 ORACLE_1, ORACLE_2)

# The oracle that spends the same bandwidth as each policy (seed 000, 6.1:
# SIMPLE is the bandwidth reference of ALTERNATE, TORFONE of DOUBLE-SEND).
SAME_BANDWIDTH_ORACLE = {
    SIMPLE.key: ORACLE_1, ALTERNATE.key: ORACLE_1,
    TORFONE.key: ORACLE_2, DOUBLE_SEND.key: ORACLE_2,
    ALTERNATE_ALARM.key: ORACLE_1, DOUBLE_SEND_ALARM.key: ORACLE_2,
    ADAPTIVE_1.key: ORACLE_1, ADAPTIVE_2.key: ORACLE_2,
}

POLICY_COLOURS = {
    SIMPLE.key: 'tab:gray', TORFONE.key: 'tab:orange',
    ALTERNATE.key: 'tab:blue', DOUBLE_SEND.key: 'tab:green',
    ALTERNATE_ALARM.key: 'tab:cyan', DOUBLE_SEND_ALARM.key: 'tab:olive',
    ADAPTIVE_1.key: 'tab:brown', ADAPTIVE_125.key: 'tab:pink',
    ADAPTIVE_2.key: 'black',
    ORACLE_1.key: 'tab:purple', ORACLE_2.key: 'tab:red',
}
POLICY_LINE_STYLES = {ORACLE_1.key: ':', ORACLE_2.key: '-.',
                      ALTERNATE_ALARM.key: '--', DOUBLE_SEND_ALARM.key: '--'}


@dataclass(frozen=True)
class Security:
    key: str        # donar-sim --security
    label: str


SECURITIES = (
    Security('default', 'Default'),
    Security('2hop', '2-hop'),
    Security('1way', '1-way anonymity'),
)


@dataclass(frozen=True)
class CallLength:
    key: str        # the paper's call length this stands for: 5min or 90min
    label: str
    seconds: int


FULL_CALL_LENGTHS = (CallLength('5min', '5 min', 300),
                     CallLength('90min', '90 min', 5400))
QUICK_CALL_LENGTHS = (CallLength('5min', '30 s (quick run, for 5 min)', 30),
                      CallLength('90min', '60 s (quick run, for 90 min)', 60))

# The protocol as seed 000, 6.1 ran it, passed to donar-sim explicitly.
FRAME_MS = 40                # "a rate of 25 frames per second"
FRAME_BYTES = 172
WINDOW_MS = 2000             # w = 2s
N_1ST = 3
N_2ND = 3
REDUNDANCY = 1               # previous frames piggybacked

DEFAULT_CALLS = 96           # seed 000, 6.1: "We run 96 instances"
QUICK_CALLS = 4
QUICK_CALIBRATION_CALLS = 16
QUICK_OUT = 'evaluation-quick'     # under the build directory

# Fig. 10: the paper's links had 4 relays and unlimited guards; the nearest
# setting we have is 2-hop (4 relays, 2 guards a side).
SWEEP_SECURITY = SECURITIES[1]
SWEEP_POLICIES = (ALTERNATE, DOUBLE_SEND)
SWEEP_SECONDS = 5400
QUICK_SWEEP_SECONDS = 30
SWEEP_CALLS_DIVISOR = 3      # 32 calls a point when the main table has 96


@dataclass(frozen=True)
class SweepParameter:
    key: str
    label: str
    values: tuple
    default: float
    log_axis: bool

    def options(self, value):
        """The donar-sim options that set this parameter to value."""
        if self.key == 'w':
            return {'--window-ms': round(value * 1000)}
        if self.key == 'links':
            return {'--links': value}
        return {'--n1st': value, '--n2nd': value}

    def show(self, value):
        return f'{value:g}'


SWEEP_PARAMETERS = (
    SweepParameter('w', 'w (s)', (0.2, 0.5, 1, 2, 4, 8, 16, 32), 2, True),
    SweepParameter('links', 'nLINKS', (8, 10, 12, 16, 20), 12, False),
    # 2·n1ST <= nLINKS = 12
    SweepParameter('n1st', 'n1ST = n2ND', (1, 2, 3, 4, 5), 3, False),
)

TOOLS = ('donar-sim', 'donar-netmodel-calibrate', 'donar-quality-replay')

# Voice quality (issue 6): PESQ-WB of real speech replayed from the frame
# logs of simulated calls (tools/quality/trace_quality.py, docs/quality.md),
# and seed 001's good call.
VOICE_POLICIES = (SIMPLE, TORFONE, ALTERNATE, DOUBLE_SEND, ADAPTIVE_2)
VOICE_SECONDS = 300          # 90-minute calls are out of reach
QUICK_VOICE_SECONDS = 30
DEFAULT_VOICE_CALLS = 32
QUICK_VOICE_CALLS = 2
VOICE_SEGMENTS = 8           # damaged segments scored per call; the rest
QUICK_VOICE_SEGMENTS = 1     # estimated (trace_quality max_damaged)
VOICE_DIRECTION = 0          # caller to callee
GOOD_PESQ = 3.0              # seed 001: PESQ > 3 ...
GOOD_DELAY_MS = 400          # ... and one-way delay < 400 ms
DIRECT_DELAY_MS = 1          # direct UDP: every frame 1 ms after it is sent
DIRECT_KEY = 'direct'
VOICE_BEGIN = '<!-- voice quality begin -->'
VOICE_END = '<!-- voice quality end -->'

SPEED_LINKS = 12
SPEED_SECONDS = 5400
SPEED_TARGET_CPU_S = 0.2
QUICK_SPEED_SECONDS = 60

DEADLINE_MS = 360            # Table 1: 400 ms minus Tframe
DROP_AFTER_MS = 1000         # later than this, a frame counts as missing
OBJECTIVE_MS = 110           # 150 ms mouth to ear minus Tframe
CDF_X_MAX_MS = 1000
CCDF_FLOOR = 1e-6
LATENCY_TICKS_MS = (50, 100, 200, 300, 500, 1000, 2000, 5000)
DIFFERENCE_POINTS = 10       # a figure this far from the paper's is marked
DIFFERS_MARK = '†'
NO_FIGURE = '—'

# The section "Over real tor" comes from tools/tornet/evaluate-tornet.py,
# which writes it to evaluation-tor.md beside the page (half an hour of
# real tor, not rerun here) and between these markers of the page itself.
OVER_TOR_BEGIN = '<!-- over real tor begin -->'
OVER_TOR_END = '<!-- over real tor end -->'
OVER_TOR_FILE = 'evaluation-tor.md'

NOTES_BEGIN = '<!-- notes begin -->'
NOTES_END = '<!-- notes end -->'

# --------------------------------------------------------------------------
# The paper's figures (seed 000, section 6.1), with the sentences they come
# from. Small capitals and line breaks of the text extraction are undone; the
# "≥" before 95% was lost in the extraction and is restored in brackets.

PAPER_QUOTES = {
    'double-send':
        'For all security policies and call durations, the DONAR '
        'DOUBLE-SEND algorithm provides at least 87% (Default, 90 minutes) '
        'of successful calls. Considering only our optimized security '
        'policies, the ratio of successful calls is even higher at [≥] 95%.',
    'torfone':
        'TORFONE enables as low as 23% (1-way anon., 90 minutes) and at most '
        '47% (Default, 5 minutes) of successful calls.',
    'torfone-gap':
        "Compared to DONAR DOUBLE-SEND's worst performance (Default, "
        '90-minute configuration), there is a 55-point difference with '
        'TORFONE in favor of DONAR.',
    'alternate':
        'for its Default security policy, it enables only 62% (resp. 57%) of '
        'successful calls for 5 minutes (resp. 90 minutes). Results are '
        'better with 1-way anon.: 78% (resp. 77%) for 5-minute (resp. '
        '90-minute) calls. However, only the 2-hop configuration seems to '
        'offer acceptable quality, enabling at least 87% of successful calls.',
    'simple-gap':
        'With the 2-hop configuration, it is a 43 points (resp. 65 points) '
        'for 5-minute (resp. 90-minute) calls improvement on SIMPLE. [...] '
        'it only works well with the 2-hop security policy (87%+ compared to '
        '46%+ for SIMPLE).',
    'dropped':
        'We run 96 instances of a 90-minute call for each combination and '
        'count the percentage of dropped calls. [...] All DONAR variants '
        'perform better than the previous approaches and meet the goal of '
        'less than 2% of dropped calls. We only record, in fact, dropped '
        'calls for the most conservative of our setups, i.e., combining the '
        'ALTERNATE policy with the default configuration, and even then not '
        'exceeding 2%. TORFONE only meets the goal in the 1-way anonymity '
        'configuration.',
}

# Fig. 10 (seed 000, section 6.2): what the paper found best.
PAPER_SWEEP_QUOTES = {
    'w': 'the best value of w for the DOUBLE-SEND policy is 5s, while the '
         'best for ALTERNATE appears to be 2s.',
    'links': 'The ALTERNATE policy performs best with 20 links, while the '
             'DOUBLE-SEND policy performs best with 12 links.',
    'n1st': 'Using n1ST = 1 yields high latencies with either variant, while '
            'n1ST = 3 or n1ST = 4 offers a good compromise.',
}


@dataclass(frozen=True)
class PaperFigure:
    """A percentage the paper's text gives, as the range it allows.

    With below set, the figure is instead a gap: this policy's percentage is
    low..high points under the percentage of policy `below`.
    """
    text: str
    low: float
    high: float
    quote: str
    below: Optional[Policy] = None


def _exactly(value, quote):
    return PaperFigure(f'{value:g}', value, value, quote)


def _at_least(value, quote):
    return PaperFigure(f'≥ {value:g}', value, 100, quote)


_TORFONE_RANGE = PaperFigure('23–47', 23, 47, 'torfone')

# Successful calls, % of calls: (policy, security, call length) -> figure.
PAPER_SUCCESSFUL = {
    ('double-send', 'default', '5min'): _at_least(87, 'double-send'),
    ('double-send', 'default', '90min'): _exactly(87, 'double-send'),
    ('double-send', '2hop', '5min'): _at_least(95, 'double-send'),
    ('double-send', '2hop', '90min'): _at_least(95, 'double-send'),
    ('double-send', '1way', '5min'): _at_least(95, 'double-send'),
    ('double-send', '1way', '90min'): _at_least(95, 'double-send'),
    ('alternate', 'default', '5min'): _exactly(62, 'alternate'),
    ('alternate', 'default', '90min'): _exactly(57, 'alternate'),
    ('alternate', '2hop', '5min'): _at_least(87, 'alternate'),
    ('alternate', '2hop', '90min'): _at_least(87, 'alternate'),
    ('alternate', '1way', '5min'): _exactly(78, 'alternate'),
    ('alternate', '1way', '90min'): _exactly(77, 'alternate'),
    ('torfone', 'default', '5min'): _exactly(47, 'torfone'),
    ('torfone', 'default', '90min'):
        PaperFigure('32 (87 − 55)', 32, 32, 'torfone-gap'),
    ('torfone', '2hop', '5min'): _TORFONE_RANGE,
    ('torfone', '2hop', '90min'): _TORFONE_RANGE,
    ('torfone', '1way', '5min'): _TORFONE_RANGE,
    ('torfone', '1way', '90min'): _exactly(23, 'torfone'),
    ('simple', '2hop', '5min'):
        PaperFigure('ALTERNATE − 43', 43, 43, 'simple-gap', ALTERNATE),
    ('simple', '2hop', '90min'):
        PaperFigure('ALTERNATE − 65', 65, 65, 'simple-gap', ALTERNATE),
}

# Dropped calls, % of 90-minute calls (Fig. 8 has only 90-minute calls).
PAPER_DROPPED = {
    ('double-send', 'default', '90min'): _exactly(0, 'dropped'),
    ('double-send', '2hop', '90min'): _exactly(0, 'dropped'),
    ('double-send', '1way', '90min'): _exactly(0, 'dropped'),
    ('alternate', 'default', '90min'): PaperFigure('≤ 2', 0, 2, 'dropped'),
    ('alternate', '2hop', '90min'): _exactly(0, 'dropped'),
    ('alternate', '1way', '90min'): _exactly(0, 'dropped'),
    ('torfone', 'default', '90min'): PaperFigure('> 2', 2, 100, 'dropped'),
    ('torfone', '2hop', '90min'): PaperFigure('> 2', 2, 100, 'dropped'),
    ('torfone', '1way', '90min'): PaperFigure('< 2', 0, 2, 'dropped'),
}

# --------------------------------------------------------------------------
# Running the tools


def protocol_options(policy, overrides=None):
    """The protocol options of a donar-sim run of policy, as sorted
    (option, value) pairs, with overrides (a dict) replacing some."""
    options = {'--frame-ms': FRAME_MS, '--frame-bytes': FRAME_BYTES,
               '--window-ms': WINDOW_MS, '--redundancy': REDUNDANCY,
               '--deadline-ms': DEADLINE_MS, '--drop-after-ms': DROP_AFTER_MS,
               '--links': policy.links}
    if policy.links >= N_1ST + N_2ND:
        options.update({'--n1st': N_1ST, '--n2nd': N_2ND})
    options.update(overrides or {})
    return tuple(sorted((name, str(value)) for name, value in options.items()))


@dataclass(frozen=True)
class SimRun:
    policy: Policy
    security: Security
    seconds: int
    calls: int
    seed: int
    options: tuple          # from protocol_options()
    histogram: bool = False
    note: str = field(default='', compare=False)   # for the progress lines

    def command(self, build, histogram_path=None):
        cmd = [os.path.join(build, 'tools', 'donar-sim'), *self.policy.args,
               '--security', self.security.key, '--calls', str(self.calls),
               '--duration', str(self.seconds), '--seed', str(self.seed),
               '--jobs', '1', '--json']
        for name, value in self.options:
            cmd += [name, value]
        if histogram_path:
            cmd += ['--histogram', histogram_path]
        return cmd

    def describe(self):
        return (f'{self.policy.label}, {self.security.label}, '
                f'{self.calls} x {self.seconds} s {self.note}').rstrip()

    def cost(self):
        return self.seconds * self.calls


def run_checked(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f'{" ".join(cmd)} failed ({done.returncode}):\n'
                           f'{done.stderr.strip()}')
    return done.stdout


def read_histogram(path):
    """{latency_ms: frames} from donar-sim --histogram."""
    bins = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            fields = line.strip().split(',')
            if len(fields) == 2 and fields[0].isdigit():
                bins[int(fields[0])] = int(fields[1])
    return bins


def run_sim(build, run, scratch):
    """The JSON report of one donar-sim run, with 'histogram' if asked."""
    path = None
    if run.histogram:
        fd, path = tempfile.mkstemp(suffix='.csv', dir=scratch)
        os.close(fd)
    report = json.loads(run_checked(run.command(build, path)))
    if path:
        report['histogram'] = read_histogram(path)
        os.unlink(path)
    return report


def run_calibration(build, seed, quick):
    cmd = [os.path.join(build, 'tools', 'donar-netmodel-calibrate'),
           '--json', '--seed', str(seed)]
    if quick:
        cmd += ['--quick', '--calls', str(QUICK_CALIBRATION_CALLS)]
    return json.loads(run_checked(cmd))


def log(message):
    print(f'evaluate: {message}', file=sys.stderr, flush=True)


def snapshot_tools(build, scratch):
    """Copies the tools into scratch/tools and returns scratch, to be used
    as the build directory: the whole run then uses one build, even if
    build/ is rebuilt meanwhile (the tools link libdonar statically)."""
    os.makedirs(os.path.join(scratch, 'tools'))
    for tool in TOOLS:
        shutil.copy2(os.path.join(build, 'tools', tool),
                     os.path.join(scratch, 'tools', tool))
    return scratch


def run_sims(pool, build, runs, scratch):
    """Runs every SimRun on pool, longest first: {run: report}."""
    ordered = sorted(set(runs), key=SimRun.cost, reverse=True)
    started = time.monotonic()
    reports = {}
    futures = {pool.submit(run_sim, build, run, scratch): run
               for run in ordered}
    for count, future in enumerate(
            concurrent.futures.as_completed(futures), 1):
        run = futures[future]
        reports[run] = future.result()
        log(f'[{count}/{len(ordered)}] '
            f'{time.monotonic() - started:6.0f} s  {run.describe()}')
    return reports


def run_all(build, runs, seed, quick, scratch, calibrate=True):
    """Runs the calibration (unless not calibrate) and every SimRun on all
    cores, longest first.

    Returns (calibration or None, {run: report}).
    """
    workers = os.cpu_count() or 1
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        calibration = (pool.submit(run_calibration, build, seed, quick)
                       if calibrate else None)
        try:
            reports = run_sims(pool, build, runs, scratch)
            if calibration is None:
                return None, reports
            log('link model calibration')
            return calibration.result(), reports
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise


def measure_speed(build, seconds, seed):
    """CPU seconds of one call of each policy with SPEED_LINKS links, alone
    on one core (donar-sim --jobs 1), after everything else has finished."""
    speeds = {}
    for policy in MAIN_POLICIES:
        run = SimRun(policy, SECURITIES[0], seconds, 1, seed,
                     protocol_options(policy, {'--links': SPEED_LINKS}))
        report = json.loads(run_checked(run.command(build)))
        speeds[policy.key] = report['cpu_s']
        log(f'speed: {policy.label} {speeds[policy.key]:.3f} s')
    return speeds


# --------------------------------------------------------------------------
# Voice quality


def quality_dir():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), 'quality')


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
    if quality_dir() not in sys.path:
        sys.path.insert(0, quality_dir())
    import trace_quality
    import qscore
    return trace_quality, qscore


def write_direct_log(path, seconds):
    """A frame log of direct UDP: every frame arrives DIRECT_DELAY_MS after
    it is sent, none lost."""
    with open(path, 'w', encoding='utf-8') as f:
        f.write('seq,sent_ms,arrival_ms\n')
        for i in range(seconds * 1000 // FRAME_MS):
            f.write(f'{i},{i * FRAME_MS},{i * FRAME_MS + DIRECT_DELAY_MS}\n')


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
    voice = {}
    workers = os.cpu_count() or 1
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        futures = {pool.submit(voice_cell, build, key, args, security_key,
                               plan.voice_seconds, plan.voice_calls,
                               plan.seed, options, plan.voice_segments,
                               scratch): key
                   for key, (args, security_key, options) in cells.items()}
        try:
            for count, future in enumerate(
                    concurrent.futures.as_completed(futures), 1):
                key = futures[future]
                voice[key] = future.result()
                log(f'voice [{count}/{len(cells)}] '
                    f'{time.monotonic() - started:6.0f} s  {" ".join(key)}')
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    return voice


# --------------------------------------------------------------------------
# Plans

# The sections `--only` runs alone, each between its markers on the page.
ONLY_SECTIONS = ('voice', 'shared-fate', 'short-calls')


@dataclass(frozen=True)
class Plan:
    quick: bool
    seed: int
    calls: int
    call_lengths: tuple
    sweep_calls: int
    sweep_seconds: int
    speed_seconds: int
    voice_calls: int = DEFAULT_VOICE_CALLS
    voice_seconds: int = VOICE_SECONDS
    voice_segments: int = VOICE_SEGMENTS


def make_plan(args):
    calls = args.calls or (QUICK_CALLS if args.quick else DEFAULT_CALLS)
    return Plan(
        quick=args.quick, seed=args.seed, calls=calls,
        call_lengths=QUICK_CALL_LENGTHS if args.quick else FULL_CALL_LENGTHS,
        sweep_calls=max(2, calls // SWEEP_CALLS_DIVISOR),
        sweep_seconds=QUICK_SWEEP_SECONDS if args.quick else SWEEP_SECONDS,
        speed_seconds=QUICK_SPEED_SECONDS if args.quick else SPEED_SECONDS,
        voice_calls=args.voice_calls or (QUICK_VOICE_CALLS if args.quick
                                         else DEFAULT_VOICE_CALLS),
        voice_seconds=QUICK_VOICE_SECONDS if args.quick else VOICE_SECONDS,
        voice_segments=args.voice_segments or (
            QUICK_VOICE_SEGMENTS if args.quick else VOICE_SEGMENTS))


# The adaptive policy and the paper's with alarms under faults, Default,
# 90-minute calls (a third of the calls of the main table): bulk downloads
# through one of the caller's guards for the second half hour (seed 003:
# 8 flows of 100 KiB/s, more than most guards give), that guard failing
# for good at 30 min, and a link killed every minute.
FAULT_POLICIES = (ALTERNATE_ALARM, DOUBLE_SEND_ALARM, ADAPTIVE_1, ADAPTIVE_2)
FAULTS = (
    ('as is', ()),
    ('cross traffic through a guard', ('--cross-traffic', '1800,1800,8')),
    ('the guard fails at 30 min', ('--guard-failure', '1800')),
    ('a link killed every minute', ('--kill-link-every', '60')),
)


# The oracles told of the links late (donar-sim --oracle-lag-ms), Default,
# the longest calls, all the calls of the main table: the links a frame
# would take with news as old as it is when it comes to a policy (a one-way
# delay, 89 ms at the least on the model's links).  Lag 0 is the main
# table's.
NEWS_LAGS_MS = (50, 100, 150)


def lagged_oracle(oracle, lag):
    """oracle choosing by what a frame sent lag ms earlier met."""
    return Policy(f'{oracle.key}-lag{lag}',
                  f'{oracle.label}, told {lag} ms late',
                  oracle.args + ('--oracle-lag-ms', str(lag)), oracle.links)


def news_runs(plan):
    length = plan.call_lengths[-1]
    return {(oracle.key, lag):
            SimRun(lagged_oracle(oracle, lag), SECURITIES[0], length.seconds,
                   plan.calls, plan.seed, protocol_options(oracle),
                   note=f'news {lag} ms old')
            for oracle in (ORACLE_1, ORACLE_2) for lag in NEWS_LAGS_MS}


def fault_runs(plan):
    length = plan.call_lengths[-1]
    return {(name, policy.key):
            SimRun(Policy(policy.key, policy.label, policy.args + args,
                          policy.links), SECURITIES[0], length.seconds,
                   max(2, plan.calls // SWEEP_CALLS_DIVISOR), plan.seed,
                   protocol_options(policy), note=name)
            for name, args in FAULTS for policy in FAULT_POLICIES}


# Shared fate (issue 24): links that cross one relay share its spikes, its
# cross traffic and its failure, and every link of a side crosses one of
# its 2 guards.  Default, the shortest calls, each scenario under the three
# states of knowledge of donar-sim --paths (which sides learn their links'
# guards from tor).  The options are formatted with the call's length
# ({seconds}) and its middle ({half}).
@dataclass(frozen=True)
class Scenario:
    key: str
    label: str
    options: tuple          # donar-sim options, formatted by length

    def args(self, seconds):
        return tuple(option.format(seconds=seconds, half=seconds // 2)
                     for option in self.options)

    def command(self, seconds):
        """The options as the page shows them."""
        return f'`{" ".join(self.args(seconds))}`'


# The callee's guards flaky for the whole call at the quiet period of the
# model's median flaky relay (spike_gap_flaky_median_s, docs/netmodel.md).
CALLEE_GUARD_SPIKE_GAP_S = 10
# Seed 003's bulk downloads, as issue 24 measured them: 8 flows of 50 KiB/s
# (400 KiB/s, more than the median guard's 250) for the whole call.
SHARED_FATE_SCENARIOS = (
    Scenario('bulk-caller', "bulk downloads through the caller's guard 0",
             ('--cross-traffic', '0,{seconds},8,50,0,0')),
    Scenario('bulk-callee', "bulk downloads through the callee's guard 0",
             ('--cross-traffic', '0,{seconds},8,50,1,0')),
    Scenario('spikes-callee', "the callee's 2 guards flaky",
             ('--set',
              f'callee_guard_spike_gap_s={CALLEE_GUARD_SPIKE_GAP_S}')),
    Scenario('guard-fails-caller', "the caller's guard 0 fails halfway",
             ('--guard-failure', '{half}')),
    Scenario('guard-fails-callee', "the callee's guard 0 fails halfway",
             ('--guard-failure', '{half},1')),
)
# donar-sim --paths: own (each side its half of every circuit), caller (only
# the caller, as the link engine does today), none (neither: trace replay).
SHARED_FATE_PATHS = ('own', 'caller', 'none')
SHARED_FATE_POLICIES = (SIMPLE, TORFONE, ALTERNATE, DOUBLE_SEND,
                        ALTERNATE_ALARM, DOUBLE_SEND_ALARM, ADAPTIVE_1,
                        ADAPTIVE_2)
SHARED_FATE_LAG_MS = 100
# The oracles run no session of lib/core, so --paths means nothing to them:
# one run a scenario, shown under every --paths.
SHARED_FATE_ORACLES = (ORACLE_1, ORACLE_2,
                       lagged_oracle(ORACLE_1, SHARED_FATE_LAG_MS),
                       lagged_oracle(ORACLE_2, SHARED_FATE_LAG_MS))
# Issue 24's targets: ADAPTIVE at least as many calls successful as the
# paper's policy with alarms at the same budget, and no more dropped.
SHARED_FATE_TARGETS = ((ADAPTIVE_1, ALTERNATE_ALARM),
                       (ADAPTIVE_2, DOUBLE_SEND_ALARM))
SHARED_FATE_BEGIN = '<!-- shared fate begin -->'
SHARED_FATE_END = '<!-- shared fate end -->'


def shared_fate_run(plan, scenario, policy, paths):
    """The SimRun of policy in scenario with --paths paths (None: the
    oracles, which take no --paths)."""
    length = plan.call_lengths[0]
    args = policy.args + scenario.args(length.seconds)
    if paths is not None:
        args += ('--paths', paths)
    return SimRun(Policy(policy.key, policy.label, args, policy.links),
                  SECURITIES[0], length.seconds, plan.calls, plan.seed,
                  protocol_options(policy),
                  note=f'{scenario.label}, --paths {paths or "-"}')


def shared_fate_runs(plan):
    """{(scenario key, paths, policy key): SimRun}; the oracles' under
    paths None."""
    runs = {}
    for scenario in SHARED_FATE_SCENARIOS:
        for paths in SHARED_FATE_PATHS:
            for policy in SHARED_FATE_POLICIES:
                runs[(scenario.key, paths, policy.key)] = shared_fate_run(
                    plan, scenario, policy, paths)
        for oracle in SHARED_FATE_ORACLES:
            runs[(scenario.key, None, oracle.key)] = shared_fate_run(
                plan, scenario, oracle, None)
    return runs


# The first seconds of a call, apart (the README's demo is a 20-s call),
# both ways and one way: a callee that only listens gives the caller its
# news in acknowledgements alone (docs/protocol.md, *Keepalives*); donar-sim's
# long calls of both sides sending never see either.
SHORT_CALL_SECONDS = 20
SHORT_CALLS_FACTOR = 4
SHORT_CALL_POLICIES = (ALTERNATE, DOUBLE_SEND, ADAPTIVE_1, ADAPTIVE_2)
SHORT_CALL_WAYS = (('two-way', 'both ends talk', ()),
                   ('one-way', 'the callee only listens', ('--one-way',)))
SHORT_CALLS_BEGIN = '<!-- short calls begin -->'
SHORT_CALLS_END = '<!-- short calls end -->'


def short_call_runs(plan):
    """{(policy key, way key): SimRun} of 20-s calls (a tenth of the quick
    run's 30 s in a quick run, for a smoke test)."""
    seconds = 3 if plan.quick else SHORT_CALL_SECONDS
    runs = {}
    for policy in SHORT_CALL_POLICIES:
        for way, label, args in SHORT_CALL_WAYS:
            runs[(policy.key, way)] = SimRun(
                Policy(policy.key, policy.label, policy.args + args,
                       policy.links),
                SECURITIES[0], seconds, plan.calls * SHORT_CALLS_FACTOR,
                plan.seed, protocol_options(policy),
                note=f'{seconds}-s calls, {label}')
    return runs


def main_runs(plan):
    return {(policy.key, security.key, length.key):
            SimRun(policy, security, length.seconds, plan.calls, plan.seed,
                   protocol_options(policy), histogram=True)
            for security in SECURITIES for length in plan.call_lengths
            for policy in MAIN_POLICIES}


def sweep_runs(plan):
    return {(parameter.key, value, policy.key):
            SimRun(policy, SWEEP_SECURITY, plan.sweep_seconds,
                   plan.sweep_calls, plan.seed,
                   protocol_options(policy, parameter.options(value)),
                   note=f'{parameter.label} = {parameter.show(value)}')
            for parameter in SWEEP_PARAMETERS for value in parameter.values
            for policy in SWEEP_POLICIES}


# --------------------------------------------------------------------------
# Comparing with the paper


def percent(ratio):
    return 100.0 * ratio


def distance_outside(value, figure):
    """Points by which value lies outside the figure's range (0 inside)."""
    return max(figure.low - value, value - figure.high, 0.0)


@dataclass(frozen=True)
class Difference:
    key: str
    text: str


def compare(results, figures, measure, name, plan):
    """The Differences of one measure ('successful_ratio' or
    'dropped_ratio') from the paper's figures, more than DIFFERENCE_POINTS
    apart."""
    differences = {}
    lengths = {length.key: length for length in plan.call_lengths}
    securities = {security.key: security for security in SECURITIES}
    for key, figure in figures.items():
        policy_key, security_key, length_key = key
        ours = percent(results[key][measure])
        label = (f'{policy_label(policy_key)}, '
                 f'{securities[security_key].label}, '
                 f'{lengths[length_key].label}')
        if figure.below:
            theirs = percent(results[(figure.below.key, security_key,
                                      length_key)][measure])
            gap = theirs - ours
            if distance_outside(gap, figure) <= DIFFERENCE_POINTS:
                continue
            text = (f'{label}: {name} {ours:.1f} %, {gap:.1f} points below '
                    f'our {figure.below.label} (paper: {figure.text})')
        else:
            if distance_outside(ours, figure) <= DIFFERENCE_POINTS:
                continue
            text = f'{label}: {name} {ours:.1f} % (paper: {figure.text})'
        name_key = '/'.join((measure.split('_')[0], *key))
        differences[key] = Difference(name_key, text)
    return differences


def in_table_order(*differences_by_key):
    """The Differences of several compare() results, in the order of the
    tables: policy, security configuration, call length."""
    order = {}
    for policy in MAIN_POLICIES:
        for security in SECURITIES:
            for length in ('5min', '90min'):
                order[(policy.key, security.key, length)] = len(order)
    merged = [(order[key], n, difference)
              for n, differences in enumerate(differences_by_key)
              for key, difference in differences.items()]
    return [difference for _, _, difference in sorted(merged,
                                                      key=lambda m: m[:2])]


def policy_label(key):
    return next(p.label for p in MAIN_POLICIES if p.key == key)


# --------------------------------------------------------------------------
# Plots


def import_pyplot():
    try:
        import matplotlib
    except ImportError:
        sys.exit('evaluate: matplotlib is missing: apt-get install '
                 'python3-matplotlib, and run Debian\'s /usr/bin/python3')
    matplotlib.use('Agg')
    import matplotlib.pyplot as pyplot
    import matplotlib.ticker as ticker
    return pyplot, ticker


def latency_curve(report):
    """(x ms, fraction of all frames delivered within x, fraction later or
    never) over 0..CDF_X_MAX_MS; lost frames never arrive."""
    histogram = report['histogram']
    delivered = sum(histogram.values())
    loss = report['frame_loss_ratio']
    frames = delivered / (1 - loss) if loss < 1 else max(delivered, 1)
    xs, within, later = [], [], []
    seen = 0
    for ms in range(CDF_X_MAX_MS + 1):
        seen += histogram.get(ms, 0)
        xs.append(ms)
        within.append(seen / frames if frames else 0.0)
        later.append(max(1 - seen / frames, 0.0) if frames else 1.0)
    return xs, within, later


def plot_cdf(pyplot, reports, security, length, path):
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(11, 4.2))
    for policy in MAIN_POLICIES:
        xs, within, later = latency_curve(reports[policy.key])
        style = POLICY_LINE_STYLES.get(policy.key, '-')
        colour = POLICY_COLOURS[policy.key]
        left.plot(xs, within, style, color=colour, label=policy.label)
        right.plot(xs, [v if v > 0 else float('nan') for v in later], style,
                   color=colour, label=policy.label)
    for axis in (left, right):
        axis.set_xlim(0, CDF_X_MAX_MS)
        axis.set_xlabel('one-way frame latency (ms)')
        for line_ms in (OBJECTIVE_MS, DEADLINE_MS):
            axis.axvline(line_ms, color='black', linewidth=0.8,
                         linestyle='--')
        axis.grid(True, alpha=0.3)
    left.set_ylim(0, 1)
    left.set_ylabel('fraction of frames delivered within x')
    right.set_yscale('log')
    right.set_ylim(CCDF_FLOOR, 1)
    right.set_ylabel('fraction of frames later than x or lost (log scale)')
    right.axhline(0.01, color='grey', linewidth=0.6)
    left.legend(loc='lower right', fontsize=8)
    figure.suptitle(f'Frame latency, {security.label}, {length.label}')
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


def plot_sweep(pyplot, ticker, parameter, sweep, plan, path):
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(11, 4.2))
    styles = (('p50', '-', 'p50'), ('p99', '--', 'p99'),
              ('p999', ':', 'p99.9'))
    for policy in SWEEP_POLICIES:
        colour = POLICY_COLOURS[policy.key]
        reports = [sweep[(parameter.key, v, policy.key)]
                   for v in parameter.values]
        for field, style, name in styles:
            ys = [r['latency_ms'][field] for r in reports]
            left.plot(parameter.values, [float('nan') if y is None else y
                                         for y in ys],
                      style, marker='o', markersize=3, color=colour,
                      label=f'{policy.label} {name}')
        right.plot(parameter.values,
                   [percent(r['successful_ratio']) for r in reports],
                   '-', marker='o', color=colour, label=policy.label)
    left.axhline(DEADLINE_MS, color='black', linewidth=0.8, linestyle='--')
    left.set_yscale('log')
    low, high = left.get_ylim()
    left.set_yticks([t for t in LATENCY_TICKS_MS if low <= t <= high])
    left.set_yticks([], minor=True)
    left.yaxis.set_major_formatter(ticker.ScalarFormatter())
    left.set_ylabel('frame latency (ms, log scale)')
    right.set_ylabel('successful calls (%)')
    right.set_ylim(0, 101)
    for axis in (left, right):
        if parameter.log_axis:
            axis.set_xscale('log')
        axis.set_xticks(parameter.values)
        axis.set_xticklabels([parameter.show(v) for v in parameter.values])
        axis.set_xlabel(parameter.label)
        axis.grid(True, alpha=0.3)
    left.legend(fontsize=7, ncol=2)
    right.legend(fontsize=8)
    figure.suptitle(f'{parameter.label}: {SWEEP_SECURITY.label}, '
                    f'{plan.sweep_calls} calls of {plan.sweep_seconds} s '
                    'per point')
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


VOICE_IMAGE = 'img/voice-pesq-cdf.png'
DIRECT_COLOUR = 'black'


def plot_voice(pyplot, voice, plan, path):
    """A CDF of the calls' PESQ-WB per policy, a plot per configuration."""
    figure, axes = pyplot.subplots(1, len(SECURITIES), figsize=(13, 4.2),
                                   sharey=True)
    direct = voice[(DIRECT_KEY, 'none')][0]['pesq_wb']
    for axis, security in zip(axes, SECURITIES):
        for policy in VOICE_POLICIES:
            scores = sorted(c['pesq_wb'] for c in
                            voice[(policy.key, security.key)])
            n = len(scores)
            axis.step([1.0] + scores + [4.7],
                      [0.0] + [(i + 1) / n for i in range(n)] + [1.0],
                      where='post', color=POLICY_COLOURS[policy.key],
                      label=policy.label)
        axis.axvline(direct, color=DIRECT_COLOUR, linewidth=0.8,
                     linestyle=':', label=f'direct UDP ({direct:.2f})')
        axis.axvline(GOOD_PESQ, color='black', linewidth=0.8,
                     linestyle='--')
        axis.set_xlim(1.0, 4.7)
        axis.set_ylim(0, 1)
        axis.set_xlabel('PESQ-WB of the call (caller to callee)')
        axis.set_title(security.label)
        axis.grid(True, alpha=0.3)
    axes[0].set_ylabel('fraction of calls with PESQ-WB ≤ x')
    axes[0].legend(loc='upper left', fontsize=8)
    figure.suptitle(f'Voice quality: {plan.voice_calls} calls of '
                    f'{plan.voice_seconds} s per policy and configuration')
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


def write_voice_plot(out, voice, plan):
    pyplot, _ = import_pyplot()
    os.makedirs(os.path.join(out, 'img'), exist_ok=True)
    path = os.path.join(out, VOICE_IMAGE)
    plot_voice(pyplot, voice, plan, path)
    log(f'wrote {path}')


def cdf_image_name(security, length):
    return f'img/latency-cdf-{security.key}-{length.key}.png'


def sweep_image_name(parameter):
    return f'img/sweep-{parameter.key}.png'


BUDGET_IMAGE = 'img/budget-default-90min.png'


def plot_budget(pyplot, results, plan, path):
    """Successful calls against the cells a second they cost, Default,
    the longest calls: every policy a point, ADAPTIVE's budgets a line."""
    length = plan.call_lengths[-1]
    figure, axes = pyplot.subplots(figsize=(8.4, 4.2))
    adaptive = []
    for policy in MAIN_POLICIES:
        report = results[(policy.key, SECURITIES[0].key, length.key)]
        x, y = report['cells_per_s'], percent(report['successful_ratio'])
        if policy.key.startswith('adaptive'):
            adaptive.append((x, y))
        axes.plot([x], [y], 'o', color=POLICY_COLOURS[policy.key],
                  label=policy.label)
    adaptive.sort()
    axes.plot([x for x, _ in adaptive], [y for _, y in adaptive], '-',
              color=POLICY_COLOURS[ADAPTIVE_2.key], linewidth=0.8)
    axes.set_xlabel('Tor cells per second, each way')
    axes.set_ylabel(f'successful calls (% of {plan.calls})')
    axes.set_title(f'{SECURITIES[0].label}, {length.label}')
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize='small', loc='upper left', bbox_to_anchor=(1.02, 1))
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


def section_budget(results, plan):
    length = plan.call_lengths[-1]
    rows = []
    for policy in MAIN_POLICIES:
        report = results[(policy.key, SECURITIES[0].key, length.key)]
        rows.append([policy.label, f'{report["cells_per_s"]:.2f}',
                     f'{report["bytes_per_s"]:.0f}',
                     pct(report['successful_ratio']),
                     pct(report['dropped_ratio']),
                     ms(report['latency_ms']['p99'])])
    return '\n'.join([
        '## Successful calls against bandwidth', '',
        f'{SECURITIES[0].label}, {length.label}, the runs of the tables '
        'above: what each policy buys with the cells it sends. ADAPTIVE\'s '
        'budget is messages (one cell each) a frame: 1 spends ALTERNATE\'s '
        'cells, 2 DOUBLE-SEND\'s.', '',
        table(['policy', 'cells/s', 'bytes/s', 'successful %', 'dropped %',
               'p99 ms'], rows), '',
        f'![successful calls against cells/s]({BUDGET_IMAGE})'])


def section_news_age(results, news, plan):
    length = plan.call_lengths[-1]
    rows = []

    def main_row(policy):
        return results[(policy.key, SECURITIES[0].key, length.key)]

    def row(label, lag, report):
        latency = report['latency_ms']
        rows.append([label, lag, f'{report["cells_per_s"]:.2f}',
                     pct(report['successful_ratio']),
                     pct(report['dropped_ratio']), ms(latency['p50']),
                     ms(latency['p99']), ms(latency['p999'])])

    for oracle in (ORACLE_1, ORACLE_2):
        row(oracle.label, '0', main_row(oracle))
        for lag in NEWS_LAGS_MS:
            row(oracle.label, str(lag), news[(oracle.key, lag)])
    for policy in (ADAPTIVE_1, ADAPTIVE_2):
        row(policy.label, 'a one-way delay or more', main_row(policy))
    oracle_1 = main_row(ORACLE_1)
    fastest_ms = min(oracle_1['histogram'], default=None)
    return '\n'.join([
        '## What a policy could know', '',
        f'{SECURITIES[0].label}, {plan.calls} calls of {length.label}, seed '
        f'{plan.seed}. The oracle picks the links that deliver a frame '
        'first; here it picks them by what a frame sent *lag* ms earlier '
        'met (`donar-sim --policy oracle --oracle-lag-ms LAG`). News of a '
        'link takes a one-way delay to come: the oracle\'s median frame '
        f'takes {ms(oracle_1["latency_ms"]["p50"])} ms here, and none less '
        f'than {ms(fastest_ms)} ms. With a lag of 100 ms '
        'the oracle still knows more than any policy could: every link at '
        'once, not only those the peer sent on, and the queue behind its '
        'own frames as soon as it sends them. ADAPTIVE\'s rows are those of '
        'the tables above. p50 / p99 / p99.9 over the frames delivered.', '',
        table(['policy', 'lag ms', 'cells/s', 'successful %', 'dropped %',
               'p50 ms', 'p99 ms', 'p99.9 ms'], rows)])


def section_faults(faults, plan):
    calls = max(2, plan.calls // SWEEP_CALLS_DIVISOR)
    header = ['policy'] + [name for name, _ in FAULTS]
    rows = []
    for policy in FAULT_POLICIES:
        row = [policy.label]
        for name, _ in FAULTS:
            report = faults[(name, policy.key)]
            row.append(f'{pct(report["successful_ratio"])} / '
                       f'{pct(report["dropped_ratio"])} / '
                       f'{ms(report["latency_ms"]["p99"])} ms')
        rows.append(row)
    return '\n'.join([
        '## ADAPTIVE under faults', '',
        f'{calls} calls of {plan.call_lengths[-1].label}, '
        f'{SECURITIES[0].label}, seed {plan.seed}; successful % / dropped % '
        '/ p99. The faults, as donar-sim options: '
        + '; '.join(f'{name}: `{" ".join(args) or "none"}`'
                    for name, args in FAULTS)
        + ' (cross traffic: 8 bulk flows of 100 KiB/s through guard 0 of '
        'the caller from 30 min for 30 min, seed 003\'s bulk downloads).',
        '', table(header, rows)])


def calls_of(report, measure, calls):
    """How many of the run's calls the ratio `measure` stands for."""
    return round(report[measure] * calls)


def shared_fate_report(fate, scenario, paths, policy):
    report = fate.get((scenario.key, paths, policy.key))
    return report if report is not None else fate[(scenario.key, None,
                                                   policy.key)]


def target_verdict(fate, scenario, paths, calls):
    """'ok', or which of issue 24's targets fail under scenario and paths:
    ADAPTIVE fewer calls successful, or more dropped, than the paper's
    policy with alarms at the same budget."""
    failing = []
    for adaptive, paper in SHARED_FATE_TARGETS:
        ours = shared_fate_report(fate, scenario, paths, adaptive)
        theirs = shared_fate_report(fate, scenario, paths, paper)
        if (calls_of(ours, 'successful_ratio', calls) <
                calls_of(theirs, 'successful_ratio', calls)):
            failing.append(f'{adaptive.label}: successful '
                           f'{pct(ours["successful_ratio"])} < '
                           f'{pct(theirs["successful_ratio"])}')
        if (calls_of(ours, 'dropped_ratio', calls) >
                calls_of(theirs, 'dropped_ratio', calls)):
            failing.append(f'{adaptive.label}: dropped '
                           f'{pct(ours["dropped_ratio"])} > '
                           f'{pct(theirs["dropped_ratio"])}')
    return '; '.join(failing) or 'ok'


def shared_fate_cell(report):
    latency = report['latency_ms']
    return (f'{pct(report["successful_ratio"])} / '
            f'{pct(report["dropped_ratio"])} / {ms(latency["p99"])} / '
            f'{ms(latency["p999"])}')


def shared_fate_targets_table(fate, plan):
    rows = []
    for scenario in SHARED_FATE_SCENARIOS:
        for paths in SHARED_FATE_PATHS:
            row = [scenario.label, paths]
            for adaptive, paper in SHARED_FATE_TARGETS:
                for policy in (adaptive, paper):
                    report = shared_fate_report(fate, scenario, paths, policy)
                    row.append(f'{pct(report["successful_ratio"])} / '
                               f'{pct(report["dropped_ratio"])}')
            row.append(target_verdict(fate, scenario, paths, plan.calls))
            rows.append(row)
    header = ['scenario', '--paths']
    header += [policy.label for pair in SHARED_FATE_TARGETS for policy in pair]
    return table(header + ['targets'], rows)


def shared_fate_scenario_table(fate, scenario):
    header = ['policy'] + [f'`--paths {paths}`'
                           for paths in SHARED_FATE_PATHS]
    rows = [[policy.label] + [shared_fate_cell(shared_fate_report(
        fate, scenario, paths, policy)) for paths in SHARED_FATE_PATHS]
        for policy in SHARED_FATE_POLICIES + SHARED_FATE_ORACLES]
    return table(header, rows)


def section_shared_fate(fate, plan, command, cpu_s):
    length = plan.call_lengths[0]
    lines = [
        SHARED_FATE_BEGIN, '## Shared fate', '',
        'Links that cross one relay share its spikes, its cross traffic and '
        'its failure, and every link of a side crosses one of that side\'s 2 '
        'guards (issue 24). '
        f'{plan.calls} calls of {length.label} per cell, '
        f'{SECURITIES[0].label}, seed {plan.seed}; call *i* has the same '
        'network under every policy and `--paths`. The scenarios, as '
        'donar-sim options: '
        + '; '.join(f'{scenario.label}: {scenario.command(length.seconds)}'
                    for scenario in SHARED_FATE_SCENARIOS)
        + f' (bulk downloads: seed 003\'s, 8 flows of 50 KiB/s; the flaky '
        'guards: quiet periods of '
        f'{CALLEE_GUARD_SPIKE_GAP_S} s on average, the model\'s median flaky '
        'relay, docs/netmodel.md).', '',
        '`--paths`: which sides learn their links\' guards from tor; '
        '`own`: each side its half of every circuit, `caller`: only the '
        'caller (what the link engine does today), `none`: neither (as in '
        'trace replay). Only ADAPTIVE uses them; the oracles run no session '
        'and are run once a scenario, shown under each `--paths`. '
        f'"told {SHARED_FATE_LAG_MS} ms late": the oracle choosing by what a '
        f'frame sent {SHARED_FATE_LAG_MS} ms earlier met '
        f'(`--oracle-lag-ms {SHARED_FATE_LAG_MS}`).', '',
        f'Regenerate this section alone: `{command}` '
        f'({len(fate)} donar-sim runs, '
        f'{duration_text(cpu_s)} of CPU).', '',
        '### The targets', '',
        'Issue 24: ADAPTIVE at budget 1 at least as many calls successful as '
        'ALTERNATE + alarm and at most as many dropped; at budget 2 the same '
        'against DOUBLE-SEND + alarm. Successful % / dropped %; "targets": '
        'ok, or the ones that fail.', '',
        shared_fate_targets_table(fate, plan)]
    for scenario in SHARED_FATE_SCENARIOS:
        lines += ['', f'### {scenario.label[0].upper()}{scenario.label[1:]}',
                  '', f'{scenario.command(length.seconds)}; '
                  'successful % / dropped % / p99 / p99.9 ms (over the '
                  'frames delivered).', '',
                  shared_fate_scenario_table(fate, scenario)]
    lines.append(SHARED_FATE_END)
    return '\n'.join(lines)


def section_short_calls(reports, plan, command, cpu_s):
    run = next(iter(short_call_runs(plan).values()))
    header = ['policy'] + [f'{label}: successful % / p99 / p99.9 ms'
                           for _, label, _ in SHORT_CALL_WAYS]
    rows = []
    for policy in SHORT_CALL_POLICIES:
        row = [policy.label]
        for way, _, _ in SHORT_CALL_WAYS:
            r = reports[(policy.key, way)]
            latency = r['latency_ms']
            row.append(f'{pct(r["successful_ratio"])} / '
                       f'{ms(latency.get("p99"))} / '
                       f'{ms(latency.get("p999"))}')
        rows.append(row)
    lines = [
        SHORT_CALLS_BEGIN, '## Short and one-way calls', '',
        f'{run.calls} calls of {run.seconds} s, {SECURITIES[0].label}, seed '
        f'{plan.seed}: the first seconds of a call, which the long calls '
        'above dilute (a frame late in the first second is 0.07 % of a '
        '5-minute call, 0.2 % of a 20-s one), with both ends talking and '
        'with a callee that only listens (`donar-sim --one-way`, as the '
        'README\'s demo), whose acknowledgements alone tell the caller of '
        'its links (docs/protocol.md, *Keepalives*). A one-way call is '
        'successful when 99 % of the caller\'s frames are in time.', '',
        table(header, rows), '',
        f'Regenerate this section alone: `{command}` ({len(reports)} '
        f'donar-sim runs, {duration_text(cpu_s)} of CPU).',
        SHORT_CALLS_END]
    return '\n'.join(lines)


def replace_short_calls_section(page, section):
    return replace_marked_section(page, SHORT_CALLS_BEGIN, SHORT_CALLS_END,
                                  section, SECTION_AFTER_SHARED_FATE)


def write_plots(out, results, sweep, plan):
    pyplot, ticker = import_pyplot()
    os.makedirs(os.path.join(out, 'img'), exist_ok=True)
    for security in SECURITIES:
        for length in plan.call_lengths:
            reports = {p.key: results[(p.key, security.key, length.key)]
                       for p in MAIN_POLICIES}
            path = os.path.join(out, cdf_image_name(security, length))
            plot_cdf(pyplot, reports, security, length, path)
            log(f'wrote {path}')
    for parameter in SWEEP_PARAMETERS:
        path = os.path.join(out, sweep_image_name(parameter))
        plot_sweep(pyplot, ticker, parameter, sweep, plan, path)
        log(f'wrote {path}')
    path = os.path.join(out, BUDGET_IMAGE)
    plot_budget(pyplot, results, plan, path)
    log(f'wrote {path}')


# --------------------------------------------------------------------------
# The page


def duration_text(seconds):
    if seconds < 120:
        return f'{seconds:.0f} s'
    return f'{seconds / 60:.1f} min'


def ms(value):
    return NO_FIGURE if value is None else f'{value:g}'


def pct(ratio):
    return f'{percent(ratio):.1f}'


def table(header, rows):
    lines = ['| ' + ' | '.join(header) + ' |',
             '|' + '---|' * len(header)]
    lines += ['| ' + ' | '.join(str(cell) for cell in row) + ' |'
              for row in rows]
    return '\n'.join(lines)


def marked(text, differs):
    return f'{text} {DIFFERS_MARK}' if differs else text


def section_run(plan, command, wall_s, cpu_s, voice_wall_s):
    lines = ['## The run', '']
    if plan.quick:
        lines += ['**This is a quick run** (`--quick`): few calls, short '
                  'calls; its figures are a smoke test, not the evaluation.',
                  '']
    lengths = ', '.join(f'{l.seconds} s' for l in plan.call_lengths)
    kbit_s = FRAME_BYTES * 8 / FRAME_MS
    lines += [
        f'- command: `{command}` (after `ninja -C build`), or '
        '`bash scripts/setup.sh evaluate` on a fresh Debian 12 machine',
        f'- seed {plan.seed}; {plan.calls} calls per policy, security '
        f'configuration and call length ({lengths}); call *i* has the same '
        'seed under every policy',
        f'- the protocol as in seed 000, 6.1: nLINKS = {ALTERNATE.links}, '
        f'n1ST = {N_1ST}, n2ND = {N_2ND}, w = {WINDOW_MS / 1000:g} s, one '
        f'{FRAME_BYTES}-byte frame every {FRAME_MS} ms ({kbit_s:.1f} kbit/s), '
        f'{REDUNDANCY} previous frame(s) piggybacked; SIMPLE on '
        f'{SIMPLE.links} link, TORFONE on {TORFONE.links}',
        f'- ALTERNATE and DOUBLE-SEND as the paper has them (links change '
        'groups only at the end of a window); "+ alarm": ours, where a link '
        f'one of whose frames is overtaken by {ALARM_FRAMES} later ones '
        'leaves L1ST / L2ND at once (`--alarm-frames`, docs/protocol.md)',
        f'- a successful call delivers at least 99 % of its frames within '
        f'{DEADLINE_MS} ms; a dropped call misses 25 frames in a row (a frame '
        f'more than {DROP_AFTER_MS} ms late counts as missing)',
        f'- machine: {os.cpu_count()} cores; the whole run took '
        f'{duration_text(wall_s)} of wall time and {duration_text(cpu_s)} '
        'of CPU in donar-sim; the voice-quality section '
        f'{duration_text(voice_wall_s)} of that wall time',
    ]
    return '\n'.join(lines)


CALIBRATION_DURATIONS = ('30s', '5min', '90min')


def calibration_rows(figures):
    """(target of seed 000 section 3, the model's figure) for the
    calibration figures of one configuration (donar-netmodel-calibrate)."""
    def calls(duration, name, scale, spec, unit):
        return _figure(figures.get('calls', {}).get(duration, {}), name,
                       scale, spec, unit)

    def over_durations(name, scale, spec, unit):
        return ' / '.join(calls(d, name, scale, spec, unit)
                          for d in CALIBRATION_DURATIONS)

    def with_formula(name):
        return (f"{_figure(figures, name, 100, '.1f', ' %')} "
                f"({_figure(figures, name + '_formula', 100, '.1f', ' %')})")

    return [
        ('Fig. 3: single-link calls unacceptable, 30 s / 5 min / 90 min '
         '(exit links, 3 relays: 20 / 37 / 50 %; two-way anonymity worse)',
         over_durations('unacceptable', 100, '.1f', ' %')),
        ('the same among calls whose link did not fail',
         over_durations('unacceptable_held', 100, '.1f', ' %')),
        ('Fig. 3: latencies grow with call duration (median over calls of '
         'the p99, 30 s / 5 min / 90 min)',
         over_durations('median_p99_ms', 1, '.0f', ' ms')),
        ('Fig. 5: max often ≥ 3× the 75th percentile, on any link (5-min '
         'calls: all; links under / over the median of medians)',
         f"{calls('5min', 'max_over_3x_p75', 100, '.1f', ' %')}; "
         f"{calls('5min', 'max_over_3x_p75_best_half', 100, '.1f', ' %')} / "
         f"{calls('5min', 'max_over_3x_p75_worst_half', 100, '.1f', ' %')}"),
        ('the same over 90-min calls',
         calls('90min', 'max_over_3x_p75', 100, '.1f', ' %')),
        ('Fig. 4: ≥ 4 % of links failed after 10 min (formula)',
         with_formula('failed_10min')),
        ('Fig. 4: 7-16 % after 60 min (formula)',
         with_formula('failed_60min')),
        ('median one-way latency of a link: a few hundred ms at most '
         '(median of link medians, p10-p90, 5-min calls)',
         f"{calls('5min', 'median_latency_ms', 1, '.0f', ' ms')} "
         f"({calls('5min', 'p10_latency_ms', 1, '.0f', '')}-"
         f"{calls('5min', 'p90_latency_ms', 1, '.0f', ' ms')})"),
        ('12-link calls where ≥ 2 links fail at the same instant within '
         '90 min (shared guard); no target',
         _figure(figures, 'simultaneous_failures', 100, '.1f', ' %')),
        ('circuit setup, median: "a few seconds" (an assumption)',
         _figure(figures, 'setup_median_s', 1, '.2f', ' s')),
        ('cost of a send; no target',
         _figure(figures, 'ns_per_send', 1, '.0f', ' ns')),
    ]


def _figure(figures, name, scale, spec, unit):
    """figures[name] × scale, formatted with spec, or NO_FIGURE."""
    value = figures.get(name)
    return NO_FIGURE if value is None else f'{value * scale:{spec}}{unit}'



def section_link_model(calibration, plan):
    header = ['target (seed 000, section 3)'] + [s.label for s in SECURITIES]
    columns = [calibration_rows(calibration.get(s.key, {}))
               for s in SECURITIES]
    rows = [[target] + [column[i][1] for column in columns]
            for i, (target, _) in enumerate(columns[0])]
    calls = QUICK_CALIBRATION_CALLS if plan.quick else 256
    lines = ['## The link model', '',
             'Every call runs over the Tor link model of `lib/netmodel/`; '
             '[netmodel.md](netmodel.md) gives its parameters and why. Its '
             'calibration figures, from `donar-netmodel-calibrate --json` '
             f'({calls} single-link calls per configuration and duration'
             + (', no 90-minute calls in a quick run' if plan.quick else '')
             + '), against the targets of seed 000, section 3:', '',
             table(header, rows)]
    return '\n'.join(lines)


def paper_cell(figure):
    return figure.text if figure else NO_FIGURE


def section_headline(results, successful_diffs, plan):
    header = ['policy'] + [f'{s.label}, {l.label}' for s in SECURITIES
                           for l in plan.call_lengths]
    rows = []
    for policy in MAIN_POLICIES:
        row = [policy.label]
        for security in SECURITIES:
            for length in plan.call_lengths:
                key = (policy.key, security.key, length.key)
                ours = marked(pct(results[key]['successful_ratio']),
                              key in successful_diffs)
                row.append(f'{ours} ({paper_cell(PAPER_SUCCESSFUL.get(key))})')
        rows.append(row)
    return '\n'.join([
        '## Successful calls: ours (the paper\'s)', '',
        f'% of {plan.calls} calls with at least 99 % of frames within '
        f'{DEADLINE_MS} ms; in brackets the paper\'s figure where its text '
        f'gives one ({NO_FIGURE}: none); {DIFFERS_MARK}: more than '
        f'{DIFFERENCE_POINTS} points from the paper\'s.', '',
        table(header, rows)])


def detail_table(results, security, length, successful_diffs, dropped_diffs):
    header = ['policy', 'successful %', 'paper', 'dropped %', 'paper',
              'frames lost %', 'p50 ms', 'p99 ms', 'p99.9 ms',
              'p99 over the oracle', 'cells/s', 'bytes/s']
    rows = []
    for policy in MAIN_POLICIES:
        key = (policy.key, security.key, length.key)
        report = results[key]
        latency = report['latency_ms']
        oracle = SAME_BANDWIDTH_ORACLE.get(policy.key)
        if oracle and latency['p99'] is not None:
            oracle_p99 = results[(oracle.key, security.key,
                                  length.key)]['latency_ms']['p99']
            over = (NO_FIGURE if oracle_p99 is None
                    else f'{latency["p99"] - oracle_p99:+g} ms')
        else:
            over = NO_FIGURE
        rows.append([
            policy.label,
            marked(pct(report['successful_ratio']), key in successful_diffs),
            paper_cell(PAPER_SUCCESSFUL.get(key)),
            marked(pct(report['dropped_ratio']), key in dropped_diffs),
            paper_cell(PAPER_DROPPED.get(key)),
            f'{percent(report["frame_loss_ratio"]):.3f}',
            ms(latency['p50']), ms(latency['p99']), ms(latency['p999']),
            over, f'{report["cells_per_s"]:.1f}',
            f'{report["bytes_per_s"]:.0f}'])
    return table(header, rows)


def section_details(results, successful_diffs, dropped_diffs, plan):
    lines = [
        '## Fig. 8 and Fig. 9: the calls in detail', '',
        'Per endpoint: cells/s and bytes/s on the wire. Latencies over the '
        'delivered frames (1 ms bins). "p99 over the oracle": this policy\'s '
        'p99 minus that of the oracle with the same bandwidth (1 send a frame '
        'for SIMPLE and ALTERNATE, 2 for TORFONE and DOUBLE-SEND). The '
        'paper\'s dropped calls (Fig. 8) are for 90-minute calls only.', '']
    for security in SECURITIES:
        for length in plan.call_lengths:
            lines += [f'### {security.label}, {length.label}', '',
                      detail_table(results, security, length,
                                   successful_diffs, dropped_diffs), '']
    lines += ['### Where the paper\'s figures come from', '',
              'Seed 000, section 6.1 (small capitals and line breaks of the '
              'text extraction undone; the "≥" lost in the extraction '
              'restored in brackets). "32 (87 − 55)" is TORFONE\'s figure '
              'implied by the 55-point difference; "ALTERNATE − 43" means '
              '43 points below ALTERNATE in the same configuration, and is '
              'compared with our own gap.', '']
    lines += [f'- *{key}*: "{quote}"' for key, quote in PAPER_QUOTES.items()]
    return '\n'.join(lines)


SECTION_AFTER_SHARED_FATE = '## Fig. 9: frame latency distributions'


def section_cdfs(plan):
    lines = [
        SECTION_AFTER_SHARED_FATE, '',
        'One plot per security configuration and call length, a curve per '
        'policy and the two oracles (dotted: 1 send, dash-dotted: 2 sends; '
        'they often coincide), over all frames of the '
        f'{plan.calls} calls. x axis linear, 0 to {CDF_X_MAX_MS} ms; dashed '
        f'lines at {OBJECTIVE_MS} ms and {DEADLINE_MS} ms as in the paper. '
        'Left: the CDF (fraction of the frames sent that were delivered '
        'within x). Right: its tail, the fraction later than x or never '
        'delivered, on a log scale (the grey line is 1 %: a curve must be '
        f'below it at {DEADLINE_MS} ms).', '']
    for security in SECURITIES:
        for length in plan.call_lengths:
            lines += [f'![{security.label}, {length.label}]'
                      f'({cdf_image_name(security, length)})', '']
    return '\n'.join(lines)


def best_value(parameter, sweep, policy):
    """The value with the lowest p99, then p99.9 (None counts as worst)."""
    def rank(value):
        latency = sweep[(parameter.key, value, policy.key)]['latency_ms']
        return tuple(float('inf') if latency[f] is None else latency[f]
                     for f in ('p99', 'p999'))
    return min(parameter.values, key=rank)


def sweep_table(parameter, sweep):
    header = [parameter.label]
    for policy in SWEEP_POLICIES:
        header += [f'{policy.label} p50', 'p99', 'p99.9', 'successful %']
    rows = []
    for value in parameter.values:
        shown = parameter.show(value)
        row = [f'**{shown}**' if value == parameter.default else shown]
        for policy in SWEEP_POLICIES:
            report = sweep[(parameter.key, value, policy.key)]
            latency = report['latency_ms']
            row += [ms(latency['p50']), ms(latency['p99']),
                    ms(latency['p999']), pct(report['successful_ratio'])]
        rows.append(row)
    return table(header, rows)


def section_sweep(sweep, plan):
    lines = [
        '## Fig. 10: protocol parameters', '',
        'Frame latency (ms) and successful calls as one parameter varies, '
        'the others at their defaults (w = 2 s, nLINKS = 12, n1ST = n2ND = 3, '
        'in bold). The paper used links of 4 relays with an unlimited number '
        'of guards; we have no unlimited-guard setting, so these runs use '
        f'the {SWEEP_SECURITY.label} configuration (4 relays, 2 guards a '
        f'side): {plan.sweep_calls} calls of {plan.sweep_seconds} s per '
        'point (fewer than the main table, to keep the run short).', '']
    for parameter in SWEEP_PARAMETERS:
        best = ', '.join(
            f'{p.label} {parameter.show(best_value(parameter, sweep, p))}'
            for p in SWEEP_POLICIES)
        lines += [f'### {parameter.label}', '',
                  sweep_table(parameter, sweep), '',
                  f'Lowest p99 (then p99.9) here: {best}. The paper: '
                  f'"{PAPER_SWEEP_QUOTES[parameter.key]}"', '',
                  f'![{parameter.label}]({sweep_image_name(parameter)})', '']
    return '\n'.join(lines)


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


def section_voice(voice, plan, wall_s):
    direct = voice_figures(voice[(DIRECT_KEY, 'none')])
    header = ['policy']
    for security in SECURITIES:
        header += [f'{security.label}: median', 'p10', 'good %', 'R']
    rows = [['direct UDP (no Tor)'] + [
        f'{direct["median"]:.2f}', f'{direct["p10"]:.2f}',
        f'{percent(direct["good"]):.0f}', f'{direct["r"]:.1f}']
        * len(SECURITIES)]
    delay_rows = [['direct UDP (no Tor)'] + [
        f'{direct["delay"]:.0f} / {percent(direct["unplayed"]):.2f}']
        * len(SECURITIES)]
    damaged = scored = segments = 0
    for policy in VOICE_POLICIES:
        row, delay_row = [policy.label], [policy.label]
        for security in SECURITIES:
            f = voice_figures(voice[(policy.key, security.key)])
            row += [f'{f["median"]:.2f}', f'{f["p10"]:.2f}',
                    f'{percent(f["good"]):.0f}', f'{f["r"]:.1f}']
            delay_row.append(f'{f["delay"]:.0f} / '
                             f'{percent(f["unplayed"]):.2f}')
            damaged += f['damaged']
            scored += f['scored']
            segments += f['segments']
        rows.append(row)
        delay_rows.append(delay_row)
    cells = len(VOICE_POLICIES) * len(SECURITIES)
    lines = [
        VOICE_BEGIN,
        '## Voice quality', '',
        'How the calls sound (issue 6; [quality.md](quality.md)): real '
        'speech (codec2-examples\' `speech_orig_16k.wav`, looped) through '
        'Opus at 32 kbit/s and the adaptive playout of `donarjitterbuffer`, '
        'each frame played, late or lost as in a simulated call, scored '
        'with PESQ wide band (ITU-T P.862.2) against what was sent: '
        '`donar-sim --frame-log` and `tools/quality/trace_quality.py`, '
        'offline. Per policy and security configuration: '
        f'{plan.voice_calls} calls of {plan.voice_seconds} s '
        '(5-minute calls in the evaluation of record; 90-minute ones are '
        'out of reach of this run\'s time) with the same seed and protocol '
        'options as the rest; the caller-to-callee direction of each call.',
        '',
        f'- **PESQ-WB of a call**: the mean over its {10.8:g}-s segments '
        '(one loop of the speech each). A segment whose frames were all '
        'played takes the codec\'s own score; of the damaged ones at most '
        f'{plan.voice_segments} per call are scored for real, evenly spread '
        'in the order of their frames not played, and each other takes the '
        'score of its nearest in that order: an estimate '
        f'({scored} of {damaged} damaged segments scored, of {segments} '
        'segments). Measured on 32 calls of SIMPLE and of DOUBLE-SEND, '
        'Default, scored whole: with 8 damaged segments scored per call, '
        'the estimate of a call was off by 0.06 and 0.013 rms, 0.17 and '
        '0.03 at most.',
        '- **one-way delay**, as seed 001 counts it ("from encoding at the '
        'sender to decoding at the receiver"): the playout delay, from '
        'sending a frame to its playout time (the median over the call\'s '
        'frames, `playout_delay_ms` p50 of the replay). '
        f'A **good call** (seed 001): PESQ-WB > {GOOD_PESQ:g} and that '
        f'delay < {GOOD_DELAY_MS} ms.',
        '- **R**: ITU-T G.107\'s E-model as `tools/quality/qscore.py` has '
        'it (Opus: Ie = 0, Bpl = 20, our assumptions; 93.2 with no delay '
        'and no loss), with Ta = that delay, Ppl = the frames lost or late '
        '(not played), BurstR from the runs of frames not played.',
        f'- **direct UDP**: no Tor; modelled as a call whose every frame '
        f'arrives {DIRECT_DELAY_MS} ms after it is sent (the same for every '
        'configuration): the codec and the playout alone.',
        '- median and 10th percentile (linear between ranks) of the calls\' '
        'PESQ-WB; good %: share of the calls; R: the median over the calls.',
        '',
        table(header, rows), '',
        'The one-way delay (median over the calls, ms) / the frames not '
        'played (lost or late, % of all frames):', '',
        table(['policy'] + [s.label for s in SECURITIES], delay_rows), '',
        f'![PESQ-WB per call]({VOICE_IMAGE})', '',
        f'The CDF of the calls\' PESQ-WB per policy (dashed: {GOOD_PESQ:g}; '
        'dotted: direct UDP). This section took '
        f'{duration_text(wall_s)} of wall time on {os.cpu_count()} cores '
        f'({cells} donar-sim runs and their scoring, a process each).',
        VOICE_END]
    return '\n'.join(lines)


def replace_marked_section(page, begin, end, section, before):
    """page with the section between the markers begin and end replaced by
    section (or, if it has none, section inserted before the heading
    `before`, where a whole run puts it, else appended)."""
    found = re.search(re.escape(begin) + '.*?' + re.escape(end), page,
                      re.DOTALL)
    if found:
        return page[:found.start()] + section + page[found.end():]
    heading = page.find(f'\n{before}\n')
    if heading >= 0:
        return page[:heading + 1] + section + '\n\n' + page[heading + 1:]
    return page.rstrip('\n') + '\n\n' + section + '\n'


def replace_voice_section(page, section):
    return replace_marked_section(page, VOICE_BEGIN, VOICE_END, section,
                                  '## Speed')


def replace_shared_fate_section(page, section):
    return replace_marked_section(page, SHARED_FATE_BEGIN, SHARED_FATE_END,
                                  section, SECTION_AFTER_SHARED_FATE)


def section_speed(speeds, plan, wall_s):
    rows = [[p.label, f'{speeds[p.key]:.3f}',
             'yes' if speeds[p.key] <= SPEED_TARGET_CPU_S else 'no']
            for p in MAIN_POLICIES]
    return '\n'.join([
        '## Speed', '',
        f'CPU seconds of one {plan.speed_seconds}-s call with {SPEED_LINKS} '
        'links (every policy, SIMPLE and TORFONE included), Default '
        'configuration, on one core (`donar-sim --calls 1 --duration '
        f'{plan.speed_seconds} --links {SPEED_LINKS} --jobs 1`, its cpu_s), '
        f'against the target of {SPEED_TARGET_CPU_S:g} s for a 90-minute '
        'call. The whole evaluation took '
        f'{duration_text(wall_s)} of wall time on {os.cpu_count()} cores.', '',
        table(['policy', 'CPU s', f'within {SPEED_TARGET_CPU_S:g} s'],
              rows)])


def section_differences(differences, notes):
    lines = ['## Where we differ from the paper', '',
             f'Our figures more than {DIFFERENCE_POINTS} points from the '
             f'paper\'s ({DIFFERS_MARK} in the tables).', '']
    if differences:
        for difference in differences:
            lines += [f'- {difference.text}',
                      f'  <!-- explain: {difference.key} -->']
    else:
        lines += ['None.']
    lines += ['', 'Explanations (kept when the page is regenerated):', '',
              NOTES_BEGIN, notes, NOTES_END]
    return '\n'.join(lines)


def read_notes(path):
    """The human-written text between the notes markers of an existing
    page, or an empty line."""
    try:
        with open(path, encoding='utf-8') as f:
            page = f.read()
    except FileNotFoundError:
        return ''
    found = re.search(re.escape(NOTES_BEGIN) + r'\n?(.*?)\n?' +
                      re.escape(NOTES_END), page, re.DOTALL)
    return found.group(1) if found else ''


def section_over_tor(out):
    """The last section written by tools/tornet/evaluate-tornet.py, kept
    as it is, or where to get it."""
    try:
        with open(os.path.join(out, OVER_TOR_FILE), encoding='utf-8') as f:
            body = f.read().rstrip('\n') + '\n'
    except FileNotFoundError:
        body = ('## Over real tor\n\nNot measured yet: '
                '`build-venv/bin/python3 tools/tornet/evaluate-tornet.py` '
                '(about 30 minutes) writes this section.\n')
    return f'{OVER_TOR_BEGIN}\n{body}{OVER_TOR_END}'


def render_page(plan, command, calibration, results, sweep, faults, news,
                fate, short, speeds, wall_s, cpu_s, notes, voice,
                voice_wall_s, out):
    successful_diffs = compare(results, PAPER_SUCCESSFUL, 'successful_ratio',
                               'successful calls', plan)
    dropped_diffs = compare(results, PAPER_DROPPED, 'dropped_ratio',
                            'dropped calls', plan)
    title = '# DONAR evaluation: seed 000, section 6, over the Tor link model'
    if plan.quick:
        title += ' (QUICK RUN)'
    sections = [
        title,
        'Written by `tools/evaluate.py`: do not edit by hand, except between '
        'the notes markers at the end, which are kept.',
        section_run(plan, command, wall_s, cpu_s, voice_wall_s),
        section_headline(results, successful_diffs, plan),
        section_details(results, successful_diffs, dropped_diffs, plan),
        section_budget(results, plan),
        section_news_age(results, news, plan),
        section_faults(faults, plan),
        section_shared_fate(fate['reports'], plan, fate['command'],
                            fate['cpu_s']),
        section_short_calls(short['reports'], plan, short['command'],
                            short['cpu_s']),
        section_cdfs(plan),
        section_sweep(sweep, plan),
        section_voice(voice, plan, voice_wall_s),
        section_speed(speeds, plan, wall_s),
        section_link_model(calibration, plan),
        section_over_tor(out),
        section_differences(in_table_order(successful_diffs, dropped_diffs),
                            notes),
    ]
    return '\n\n'.join(sections) + '\n'


def write_atomically(path, text):
    temporary = path + '.tmp'
    with open(temporary, 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(temporary, path)


# --------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--build', default='build',
                        help='meson build directory (build)')
    parser.add_argument('--out', default=None,
                        help='where evaluation.md and img/ go (docs; with '
                        f'--quick, BUILD/{QUICK_OUT}, so that a smoke run '
                        'never replaces the evaluation of record)')
    parser.add_argument('--calls', type=int, default=None,
                        help=f'calls per table cell ({DEFAULT_CALLS}; '
                        f'{QUICK_CALLS} with --quick)')
    parser.add_argument('--quick', action='store_true',
                        help='few, short calls: a smoke test')
    parser.add_argument('--seed', type=int, default=1, help='seed (1)')
    parser.add_argument('--voice-calls', type=int, default=None,
                        help='calls per policy and configuration in the '
                        f'voice-quality section ({DEFAULT_VOICE_CALLS}; '
                        f'{QUICK_VOICE_CALLS} with --quick)')
    parser.add_argument('--voice-segments', type=int, default=None,
                        metavar='K',
                        help='damaged segments scored per call, the rest '
                        f'estimated ({VOICE_SEGMENTS}; '
                        f'{QUICK_VOICE_SEGMENTS} with --quick)')
    parser.add_argument('--only', choices=ONLY_SECTIONS, default=None,
                        help='run only this section and replace only it in '
                        'OUT/evaluation.md')
    parser.add_argument('--voice-only', action='store_const', dest='only',
                        const='voice', help='the same as --only voice')
    args = parser.parse_args(argv)
    if args.calls is not None and args.calls < 1:
        parser.error('--calls must be at least 1')
    for name in ('voice_calls', 'voice_segments'):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f'--{name.replace("_", "-")} must be at least 1')
    if args.out is None:
        args.out = (os.path.join(args.build, QUICK_OUT) if args.quick
                    else 'docs')
    return args


def reproducing_command(args, only=None):
    """The command that gives these figures again: the whole page, or with
    only, that section of it."""
    parts = ['build-venv/bin/python3 tools/evaluate.py']
    if only:
        parts.append(f'--only {only}')
    if args.quick:
        parts.append('--quick')
    if args.calls:
        parts.append(f'--calls {args.calls}')
    if args.seed != 1:
        parts.append(f'--seed {args.seed}')
    if only == 'shared-fate':
        return ' '.join(parts)
    if args.voice_calls:
        parts.append(f'--voice-calls {args.voice_calls}')
    if args.voice_segments:
        parts.append(f'--voice-segments {args.voice_segments}')
    return ' '.join(parts)


def check_tools(build):
    for tool in TOOLS:
        path = os.path.join(build, 'tools', tool)
        if not os.access(path, os.X_OK):
            sys.exit(f'evaluate: {path} is missing: build first '
                     f'(meson setup {build} && ninja -C {build})')


def write_section_alone(out, what, replace, section):
    """Replaces one section of OUT/evaluation.md (replace: (page, section)
    -> page) and nothing else, or starts a page with it.  Returns the
    page's path."""
    os.makedirs(out, exist_ok=True)
    page_path = os.path.join(out, 'evaluation.md')
    try:
        with open(page_path, encoding='utf-8') as f:
            page = f.read()
    except FileNotFoundError:
        page = ('# DONAR evaluation: seed 000, section 6, over the Tor link '
                f'model ({what} only)\n')
    write_atomically(page_path, replace(page, section))
    return page_path


def voice_only(args, plan):
    """Runs the voice-quality section alone and replaces it in the page."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='donar-evaluate-') as scratch:
        voice = run_voice(snapshot_tools(args.build, scratch), plan, scratch)
    wall_s = time.monotonic() - started
    os.makedirs(args.out, exist_ok=True)
    write_voice_plot(args.out, voice, plan)
    page_path = write_section_alone(args.out, 'voice quality',
                                    replace_voice_section,
                                    section_voice(voice, plan, wall_s))
    log(f'wrote the voice-quality section of {page_path} in '
        f'{duration_text(wall_s)}')


def shared_fate_figures(args, plan, fate_plan, reports):
    """What section_shared_fate needs of the runs of fate_plan."""
    return {'reports': {key: reports[run] for key, run in fate_plan.items()},
            'command': reproducing_command(args, 'shared-fate'),
            'cpu_s': sum(reports[run]['cpu_s'] for run in fate_plan.values())}


def shared_fate_only(args, plan):
    """Runs the shared-fate section alone and replaces it in the page."""
    started = time.monotonic()
    fate_plan = shared_fate_runs(plan)
    log(f'{len(fate_plan)} donar-sim runs on {os.cpu_count()} cores' +
        (' (quick)' if plan.quick else ''))
    with tempfile.TemporaryDirectory(prefix='donar-evaluate-') as scratch:
        _, reports = run_all(snapshot_tools(args.build, scratch),
                             list(fate_plan.values()), plan.seed, plan.quick,
                             scratch, calibrate=False)
    fate = shared_fate_figures(args, plan, fate_plan, reports)
    page_path = write_section_alone(
        args.out, 'shared fate', replace_shared_fate_section,
        section_shared_fate(fate['reports'], plan, fate['command'],
                            fate['cpu_s']))
    log(f'wrote the shared-fate section of {page_path} in '
        f'{duration_text(time.monotonic() - started)}')


def short_call_figures(args, short_plan, reports):
    """What section_short_calls needs of the runs of short_plan."""
    return {'reports': {key: reports[run] for key, run in short_plan.items()},
            'command': reproducing_command(args, 'short-calls'),
            'cpu_s': sum(reports[run]['cpu_s']
                         for run in short_plan.values())}


def short_calls_only(args, plan):
    """Runs the short-call section alone and replaces it in the page."""
    started = time.monotonic()
    short_plan = short_call_runs(plan)
    with tempfile.TemporaryDirectory(prefix='donar-evaluate-') as scratch:
        _, reports = run_all(snapshot_tools(args.build, scratch),
                             list(short_plan.values()), plan.seed,
                             plan.quick, scratch, calibrate=False)
    short = short_call_figures(args, short_plan, reports)
    page_path = write_section_alone(
        args.out, 'short calls', replace_short_calls_section,
        section_short_calls(short['reports'], plan, short['command'],
                            short['cpu_s']))
    log(f'wrote the short-call section of {page_path} in '
        f'{duration_text(time.monotonic() - started)}')


def main(argv):
    args = parse_args(argv)
    check_tools(args.build)
    plan = make_plan(args)
    if args.only == 'shared-fate':
        shared_fate_only(args, plan)
        return
    if args.only == 'short-calls':
        short_calls_only(args, plan)
        return
    import_pyplot()              # fail now rather than after the runs
    import_quality()
    if args.only == 'voice':
        voice_only(args, plan)
        return
    started = time.monotonic()
    main_plan, sweep_plan = main_runs(plan), sweep_runs(plan)
    fault_plan, news_plan = fault_runs(plan), news_runs(plan)
    fate_plan = shared_fate_runs(plan)
    short_plan = short_call_runs(plan)
    log(f'{len(main_plan)} + {len(sweep_plan)} + {len(fault_plan)} + '
        f'{len(news_plan)} + {len(fate_plan)} + {len(short_plan)} donar-sim '
        f'runs on {os.cpu_count()} cores' + (' (quick)' if plan.quick else ''))
    with tempfile.TemporaryDirectory(prefix='donar-evaluate-') as scratch:
        tools = snapshot_tools(args.build, scratch)
        calibration, reports = run_all(
            tools, list(main_plan.values()) + list(sweep_plan.values()) +
            list(fault_plan.values()) + list(news_plan.values()) +
            list(fate_plan.values()) + list(short_plan.values()), plan.seed,
            plan.quick, scratch)
        voice_started = time.monotonic()
        voice = run_voice(tools, plan, scratch)
        voice_wall_s = time.monotonic() - voice_started
        speeds = measure_speed(tools, plan.speed_seconds, plan.seed)
    results = {key: reports[run] for key, run in main_plan.items()}
    sweep = {key: reports[run] for key, run in sweep_plan.items()}
    faults = {key: reports[run] for key, run in fault_plan.items()}
    news = {key: reports[run] for key, run in news_plan.items()}
    fate = shared_fate_figures(args, plan, fate_plan, reports)
    short = short_call_figures(args, short_plan, reports)
    cpu_s = sum(report['cpu_s'] for report in reports.values())

    os.makedirs(args.out, exist_ok=True)
    write_plots(args.out, results, sweep, plan)
    write_voice_plot(args.out, voice, plan)
    page_path = os.path.join(args.out, 'evaluation.md')
    wall_s = time.monotonic() - started
    page = render_page(plan, reproducing_command(args), calibration, results,
                       sweep, faults, news, fate, short, speeds, wall_s,
                       cpu_s,
                       read_notes(page_path), voice, voice_wall_s, args.out)
    write_atomically(page_path, page)
    log(f'wrote {page_path} in {duration_text(wall_s)}')


if __name__ == '__main__':
    main(sys.argv[1:])
