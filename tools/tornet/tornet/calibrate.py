"""The shaped Tor network's calibration (docs/tornet.md, "Calibration"):
single-link calls through real tor against the targets the link model was
fitted to (seed 000 section 3, Fig. 3; docs/netmodel.md, "Calibration").

    python3 tools/tornet/calibrate-tornet.py [--scale F] [--rounds 4]
        [--long-calls 8] [--short-calls 3] [--keep DIR] [--docs DIR]
    tools/tornet/tornet.sh calibrate [the same options]

The network is tornet.sh's (seed 3, bulk cross traffic on, the shaper's
relays scaled by --scale, by default tornet.sh's TORNET_SCALE). Each round
starts, for each call slot, a fresh caller tor and a fresh callee tor, both
with 2 entry guards (NumEntryGuards 2, as the product launches its tor), so
that every call has its own guards, as each user has, and every round new
ones (--tors round: one pair for all the calls of a round, as before
2026-11-27 21:50 UTC: its guards then carry every call of the round and
their onions' descriptor uploads, docs/findings/tornet-lateness.md). In
a round, --long-calls 5-minute calls run at once, and beside them
--short-calls 30-second calls at a time, one after the other until the long ones end. Every call is
donar-call with SIMPLE on one link (Fig. 3's single-link calls), its own
onion, a frame of 172 bytes every 40 ms.

A call is judged as donar-netmodel-calibrate judges it, on the caller's
frames (caller to callee, as Fig. 3 and the model's calls): unacceptable
when more than 1 % of its frames (integer division, as the model) came
later than 360 ms or never. Latency: each call's median one-way delay over
its delivered frames, then the 10th, 50th and 90th percentiles of those
medians over the calls of a duration (nearest rank, as the model). Both
are checked against `donar-netmodel-calibrate --quick --json` (Default):
shares within 8 points, p10/p50/p90 within 10 %.

Writes docs/tornet-calibration.md (the block between its markers)
and docs/tornet-calibration.json (every run kept by scale, so that the
unscaled "before" stays beside the calibrated one). Exits 1 when the run is
outside the targets.
"""

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time

from .common import (HERE, JSON_FILE, LONG_CALLS, ROOT, SHORT_CALLS,
                     Processes, free_port, read_env, read_frame_log, splice,
                     tornet_defaults, wilson)
from .torctl import CheckError, Control, authenticate, circuit_lines

SIMPLE = ['--policy', 'simple', '--links', '1', '--n1st', '1', '--n2nd', '0']
FRAME_MS = 40
DEADLINE_MS = 360
GUARDS = 2
SHARE_POINTS = 8.0           # the bound on the unacceptable shares
LATENCY_FRACTION = 0.10      # and on p10, p50, p90
# Fig. 3 of seed 000 (section 3): only the exit links' shares are in its
# text; the onion links' (B, C, D) are "worse", read from the figure.
FIG3 = {'30s': 'exit links 20 %; onion links worse',
        '5min': 'exit links 37 %; onion links worse'}
BEGIN = '<!-- calibration begin -->'
END = '<!-- calibration end -->'


def log(message):
    print(f'calibrate-tornet: {message}', file=sys.stderr, flush=True)


def effective_sets(defaults, given):
    """The NAME=VALUE a network ran with: tornet.sh's defaults, then the
    command line's, the last value of a name winning, in first-seen order."""
    values = {}
    for assignment in list(defaults) + list(given):
        name, _, value = assignment.partition('=')
        values[name] = value
    return [f'{name}={value}' for name, value in values.items()]


def nearest_rank(sorted_values, q):
    """donar-netmodel-calibrate's sorted_percentile."""
    n = len(sorted_values)
    if n == 0:
        return math.nan
    return sorted_values[min(n - 1, int(math.floor(q * (n - 1) + 0.5)))]


def call_median(delivered):
    """The model's histogram_percentile(0.5) without its 1-ms bins: the
    ceil(0.5 n)-th smallest."""
    s = sorted(delivered)
    return s[max(1, math.ceil(0.5 * len(s))) - 1]


def start_tor(procs, d, include, socks):
    """A fresh tor of the network with 2 entry guards: (control port,
    cookie, process)."""
    os.makedirs(d, mode=0o700)
    port = free_port()
    lines = [f'%include {include}', f'DataDirectory {d}',
             f'SocksPort {"127.0.0.1:" + str(free_port()) if socks else 0}',
             f'ControlPort 127.0.0.1:{port}', 'CookieAuthentication 1',
             f'Log notice file {d}/notice.log', 'SafeLogging 0',
             'ShutdownWaitLength 0', 'AvoidDiskWrites 1',
             # seed 000's Default, as the product launches its tor
             f'NumEntryGuards {GUARDS}']
    with open(os.path.join(d, 'torrc'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    p = procs.start(['tor', '-f', os.path.join(d, 'torrc'),
                     '--defaults-torrc', '/dev/null'], os.devnull, os.devnull)
    return port, os.path.join(d, 'control_auth_cookie'), p


def wait_bootstrapped(d, deadline_s=90):
    notice = os.path.join(d, 'notice.log')
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if os.path.exists(notice) and 'Bootstrapped 100%' in open(notice).read():
            return
        time.sleep(0.2)
    raise RuntimeError(f'{d}: tor did not bootstrap in {deadline_s} s')


class TorPair:
    """A fresh caller tor and callee tor of the network (2 entry guards
    each), as one user at each end has: started at once, ready () once both
    bootstrapped."""

    def __init__(self, procs, work, include):
        self.work = work
        self.caller = start_tor(procs, os.path.join(work, 'caller-tor'),
                                include, socks=True)
        self.callee = start_tor(procs, os.path.join(work, 'callee-tor'),
                                include, socks=False)
        self.processes = [self.caller[2], self.callee[2]]

    def ready(self):
        """((caller port, cookie), (callee port, cookie))."""
        wait_bootstrapped(os.path.join(self.work, 'caller-tor'))
        wait_bootstrapped(os.path.join(self.work, 'callee-tor'))
        return self.caller[:2], self.callee[:2]


def pairs_for(procs, work, include, n):
    """n fresh pairs, ready: [(pair, (caller, callee))]."""
    pairs = [TorPair(procs, os.path.join(work, f'pair{i}'), include)
             for i in range(n)]
    return [(p, p.ready()) for p in pairs]


def control_ports(pairs):
    """(side, port, cookie) of every tor of the pairs."""
    return [(side, port, cookie) for _, ends in pairs
            for side, (port, cookie) in zip(('caller', 'callee'), ends)]


class Call:
    """One call (single-link unless options say otherwise; links: the
    links both ends wait for): its callee publishes, then its caller
    dials."""

    def __init__(self, procs, call_bin, keep, name, seconds, caller, callee,
                 options=SIMPLE, links=1):
        self.procs, self.call_bin = procs, call_bin
        self.options, self.links = list(options), str(links)
        self.base = os.path.join(keep, name)
        self.name, self.seconds = name, seconds
        self.caller_tor, self.callee_tor = caller, callee
        self.caller = None
        self.gave_up_at = None
        for f in ('-address', '-caller.csv', '-callee.csv',
                  '-caller-sends.csv', '-callee-sends.csv'):
            if os.path.exists(self.base + f):
                os.unlink(self.base + f)
        port, cookie = callee
        self.callee = procs.start(
            [call_bin, 'callee', '--tor-control', str(port), '--tor-cookie',
             cookie, '--seconds', str(seconds + 120), '--address-file',
             self.base + '-address', '--setup-timeout', '90', '--wait-links',
             self.links, '--json', '--frame-log', self.base + '-callee.csv',
             '--send-log', self.base + '-callee-sends.csv']
            + self.options, self.base + '-callee.json',
            self.base + '-callee.log')
        self.started = time.monotonic()

    def published(self):
        a = self.base + '-address'
        return os.path.exists(a) and os.path.getsize(a) > 0

    def dial(self):
        port, cookie = self.caller_tor
        address = open(self.base + '-address').read().strip()
        self.caller = self.procs.start(
            [self.call_bin, 'caller', address, '--tor-control', str(port),
             '--tor-cookie', cookie, '--seconds', str(self.seconds),
             '--wait-links', self.links, '--setup-timeout', '60', '--json',
             '--frame-log', self.base + '-caller.csv', '--send-log',
             self.base + '-caller-sends.csv'] + self.options,
            self.base + '-caller.json', self.base + '-caller.log')

    def step(self):
        """Dials once published; True once both ends are done."""
        if self.caller is None:
            if self.published():
                self.dial()
            elif (self.callee.poll() is not None
                  or time.monotonic() - self.started > 120):
                self.procs.stop([self.callee])
                return True
            return False
        if self.caller.poll() is None:
            # A caller that gave up (no link for --peer-timeout) may not
            # exit, busy on a core (seen with donar-call of 2026-11-27):
            # stopped, so that it takes no CPU from the calls measured.
            if self.gave_up_at is None and 'peer-unreachable' in open(
                    self.base + '-caller.log', errors='replace').read():
                self.gave_up_at = time.monotonic()
            if (self.gave_up_at is None
                    or time.monotonic() - self.gave_up_at < 5):
                return False
            log(f'{self.name}: the caller gave up but did not exit: stopped')
            self.procs.stop([self.caller])
        try:
            self.callee.wait(15)
        except subprocess.TimeoutExpired:
            self.procs.stop([self.callee])
        return True


def snapshot_circuits(tors, out, t):
    for side, port, cookie in tors:
        try:
            ctl = Control(port, timeout=5)
            authenticate(ctl, cookie)
            for line in circuit_lines(ctl).values():
                if ' BUILT ' in line and 'HS_' in line:
                    out.write(f'{t:.0f} {side} {line}\n')
            ctl.close()
        except (OSError, CheckError):
            pass
    out.flush()


def run_round(args, procs, env, keep, r, call_bin):
    work = os.path.join(keep, 'run', f'round{r}')
    include = env['TOR_TORRC_INCLUDE']
    # --tors call: each call slot (a long call, a slot of short calls one
    # after the other) has its own pair, as each user has a tor; round: one
    # pair for all (before 2026-11-27 21:50 UTC), whose 2 + 2 guards then
    # carry every call's voice and every onion's descriptor uploads.
    slots = args.long_calls + args.short_calls
    pairs = pairs_for(procs, work, include,
                      slots if args.tors == 'call' else 1)
    ends = [pairs[i % len(pairs)][1] for i in range(slots)]
    log(f'round {r}: {len(pairs)} fresh caller and callee tor pairs '
        'bootstrapped')
    tors = control_ports(pairs)
    longs = [Call(procs, call_bin, keep, f'round{r}-long{i}', args.long_seconds,
                  *ends[i]) for i in range(args.long_calls)]
    n_short = 0
    # Each slot holds the running short call and the next, published ahead,
    # and the slot's tors.
    slots = []
    for i in range(args.short_calls):
        slot_ends = ends[args.long_calls + i]
        slots.append([Call(procs, call_bin, keep, f'round{r}-short{n_short}',
                           args.short_seconds, *slot_ends), None, slot_ends])
        n_short += 1
    t0 = time.monotonic()
    # Short calls start while a whole one fits before the long ones end
    # (they dial some 20 s after t0: publishing).
    last_start = t0 + 20 + args.long_seconds - args.short_seconds
    running = list(longs)
    next_snap = 0.0
    with open(os.path.join(keep, f'round{r}-circuits.txt'), 'w') as circ:
        while running or any(s[0] is not None for s in slots):
            now = time.monotonic()
            if now >= next_snap:
                next_snap = now + 10
                snapshot_circuits(tors, circ, now - t0)
            running = [c for c in running if not c.step()]
            for s in slots:
                if s[0] is not None and s[0].step():
                    s[0], s[1] = s[1], None
                if (s[0] is not None and s[0].caller is not None
                        and s[1] is None and now < last_start):
                    s[1] = Call(procs, call_bin, keep,
                                f'round{r}-short{n_short}', args.short_seconds,
                                *s[2])
                    n_short += 1
                if s[0] is None and s[1] is not None:
                    s[0], s[1] = s[1], None
                # A published call waits for its slot: it must not start
                # after the long calls.
                if (s[0] is not None and s[0].caller is None
                        and time.monotonic() > last_start):
                    procs.stop([s[0].callee])
                    s[0] = None
            time.sleep(0.2)
    procs.stop([x for p, _ in pairs for x in p.processes])
    log(f'round {r}: {len(longs)} long and {n_short} short calls started')


def judge_file(path, seconds):
    """(unacceptable, median ms or None, frames, late, lost) of one
    direction's frame log; frames never logged (a call cut short) count as
    lost."""
    lat = read_frame_log(path)
    expected = seconds * 1000 // FRAME_MS
    missing = max(0, expected - len(lat))
    frames = len(lat) + missing
    lost = sum(1 for x in lat if x is None) + missing
    late = lost + sum(1 for x in lat if x is not None and x > DEADLINE_MS)
    delivered = [x for x in lat if x is not None]
    return (late > frames // 100, call_median(delivered) if delivered else None,
            frames, late, lost, min(delivered) if delivered else None)


def rend_paths(keep):
    """{(round, onion, side): relays of its rendezvous circuits} from the
    rounds' circuit snapshots."""
    paths = {}
    for name in os.listdir(keep):
        m = re.match(r'round(\d+)-circuits\.txt$', name)
        if not m:
            continue
        for line in open(os.path.join(keep, name)):
            c = re.search(r'^\S+ (caller|callee) \d+ BUILT (\S+) .*PURPOSE='
                          r'HS_(?:CLIENT|SERVICE)_REND .*REND_QUERY=(\w+)', line)
            if c:
                relays = [x.split('~')[-1] for x in c.group(2).split(',')]
                paths.setdefault((int(m.group(1)), c.group(3), c.group(1)),
                                 []).append(relays)
    return paths


def collect(keep, args):
    """{'30s': [...], '5min': [...]} of judged calls, and the calls that
    never set up."""
    paths = rend_paths(keep)
    out = {'30s': [], '5min': []}
    never = {'30s': 0, '5min': 0}
    for name in sorted(os.listdir(keep)):
        m = re.match(r'round(\d+)-(long|short)(\d+)-callee\.json$', name)
        if not m:
            continue
        kind = '5min' if m.group(2) == 'long' else '30s'
        seconds = args.long_seconds if kind == '5min' else args.short_seconds
        base = os.path.join(keep, name[:-len('-callee.json')])
        if not os.path.exists(base + '-caller.json'):
            continue            # never dialed (the round's end)
        try:
            fwd = judge_file(base + '-callee.csv', seconds)
            back = judge_file(base + '-caller.csv', seconds)
        except OSError:
            never[kind] += 1
            continue
        if fwd[1] is None:
            never[kind] += 1
            continue
        onion = re.search(r'//(\w+)\.onion', open(base + '-address').read())
        r = int(m.group(1))
        relays = set()
        for side in ('caller', 'callee'):
            for path in paths.get((r, onion.group(1) if onion else '', side), []):
                relays.update(path)
        out[kind].append({'relays': sorted(relays),'call': os.path.basename(base),
                          'round': int(m.group(1)),
                          'unacceptable': fwd[0], 'median_ms': fwd[1],
                          'frames': fwd[2], 'late': fwd[3], 'lost': fwd[4],
                          'min_ms': fwd[5],
                          'back_unacceptable': back[0],
                          'back_median_ms': back[1]})
    return out, never


def figures(calls):
    n = len(calls)
    k = sum(c['unacceptable'] for c in calls)
    meds = sorted(c['median_ms'] for c in calls)
    kb = sum(c['back_unacceptable'] for c in calls)
    lo, hi = wilson(k, n)
    return {'calls': n, 'unacceptable_calls': k,
            'unacceptable': 100.0 * k / n if n else math.nan,
            'wilson95': [lo, hi],
            'p10_ms': nearest_rank(meds, 0.1), 'p50_ms': nearest_rank(meds, 0.5),
            'p90_ms': nearest_rank(meds, 0.9),
            'back_unacceptable': 100.0 * kb / n if n else math.nan,
            'min_p50_ms': nearest_rank(sorted(c['min_ms'] for c in calls), 0.5),
            'rounds': sorted({c['round'] for c in calls})}


def model_figures(build):
    cmd = [os.path.join(build, 'tools', 'donar-netmodel-calibrate'), '--quick',
           '--json', '--security', 'default']
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                  text=True).stdout)['default']['calls']
    return {k: {'unacceptable': 100.0 * v['unacceptable'],
                'p10_ms': v['p10_latency_ms'], 'p50_ms': v['median_latency_ms'],
                'p90_ms': v['p90_latency_ms']} for k, v in d.items()}


def check(tb, model):
    """The failed targets, as text (empty: within)."""
    bad = []
    for kind in ('30s', '5min'):
        t, m = tb[kind], model[kind]
        if not t['calls']:
            bad.append(f'{kind}: no calls')
            continue
        if abs(t['unacceptable'] - m['unacceptable']) > SHARE_POINTS:
            bad.append(f'{kind}: {t["unacceptable"]:.1f} % unacceptable, the '
                       f'model {m["unacceptable"]:.1f} %')
        for q in ('p10_ms', 'p50_ms', 'p90_ms'):
            if abs(t[q] - m[q]) > LATENCY_FRACTION * m[q]:
                bad.append(f'{kind}: {q[:3]} {t[q]:.0f} ms, the model '
                           f'{m[q]:.0f} ms')
    return bad


def render(data, default_scale):
    model = data['model']
    lines = [
        '## Every run', '',
        'Written by `tools/tornet/calibrate-tornet.py` (`tools/tornet/tornet.sh '
        'calibrate`); do not edit: rerun it. Single-link calls through real '
        'tor over the shaped network (seed 3, bulk cross traffic on, as '
        'tornet.sh starts it), SIMPLE on one link as Fig. 3 (`--policy simple '
        '--links 1 --n1st 1 --n2nd 0`), a 172-byte frame every 40 ms; each '
        'call its own onion and, each round, its own fresh caller tor and '
        f'callee tor with `NumEntryGuards {GUARDS}` (a short call after '
        'another in its slot takes the slot\'s pair), several calls at once; '
        'rows marked *one tor pair a round* ran every call of a round through '
        'one pair. Judged as `donar-netmodel-calibrate` judges the model\'s calls, '
        'on the caller\'s frames (caller to callee): *unacceptable* when more '
        'than 1 % of the frames came later than 360 ms or never; latency: each '
        'call\'s median one-way delay over its delivered frames, then the 10th, '
        '50th and 90th percentiles of those medians over the calls (the '
        'model\'s "median of link medians, p10-p90"). Targets (issue 23): '
        f'shares within {SHARE_POINTS:.0f} points of the model\'s Default, '
        f'p10/p50/p90 within {100 * LATENCY_FRACTION:.0f} %. Intervals: '
        'Wilson 95 %. Load average: the 1-minute load of the machine (2 cores, '
        'shared with other sessions) at the end of each round, least to most. '
        'A call that never connected is counted apart.', '',
        '| network | calls | unacceptable % [95 %] | median one-way ms: p10 / '
        'p50 / p90 | fastest frame ms (median over calls) | within targets | '
        'load average | command |',
        '|---|---|---|---|---|---|---|---|']
    for kind in ('30s', '5min'):
        m = model[kind]
        lines.append(
            f'| model, Default, {kind} | 256 | {m["unacceptable"]:.1f} | '
            f'{m["p10_ms"]:.0f} / {m["p50_ms"]:.0f} / {m["p90_ms"]:.0f} | | | | '
            '`build/tools/donar-netmodel-calibrate --quick` |')
    for kind in ('30s', '5min'):
        lines.append(f'| seed 000 Fig. 3, {kind} | 64 | {FIG3[kind]} | | | | | |')
    for key in run_order(data):
        run = data['runs'][key]
        for kind in ('30s', '5min'):
            t = run['testbed'][kind]
            ok = 'yes' if not [b for b in run['outside'] if
                               b.startswith(kind)] else 'no'
            name = ('testbed, ' + key + (
                ' (before)' if run['scale'] == 1.0 and run['cross_flows']
                else ' (the default)' if run['scale'] == default_scale
                and run['cross_flows']
                and run.get('sets', []) == data.get('default_sets', [])
                and run.get('at_once') in (None, LONG_CALLS + SHORT_CALLS)
                and run.get('tors') == 'call'
                else ''))
            lines.append(
                f'| {name}, {kind} | {t["calls"]} ({run["never"][kind]} never '
                f'set up) | {t["unacceptable"]:.1f} [{t["wilson95"][0]:.0f}-'
                f'{t["wilson95"][1]:.0f}] | {t["p10_ms"]:.0f} / '
                f'{t["p50_ms"]:.0f} / {t["p90_ms"]:.0f} | '
                f'{t.get("min_p50_ms", math.nan):.0f} | {ok} | '
                f'{run["load"]} | `{run["command"]}` ({run["wall_min"]:.0f} '
                f'min, {run["date"]}) |')
    lines += ['', 'The other direction of the same calls (callee to caller, '
              'the same link) for comparison, unacceptable %: ' + '; '.join(
                  f'{k}: {data["runs"][k]["testbed"]["30s"]["back_unacceptable"]:.1f}'
                  f' (30 s), {data["runs"][k]["testbed"]["5min"]["back_unacceptable"]:.1f}'
                  ' (5 min)' for k in run_order(data)),
              '', *relay_rows(data), '', 'Every call, its median and late frames: '
              f'[{JSON_FILE}]({JSON_FILE}).', '']
    return '\n'.join(lines)




ONE_PAIR = ', one tor pair a round'


def run_key(scale, cross_flows, long_calls=LONG_CALLS,
            short_calls=SHORT_CALLS, sets=(), tors='call'):
    return (f'scale {scale:g}' + ('' if cross_flows else ', no cross traffic')
            + ('' if (long_calls, short_calls) == (LONG_CALLS, SHORT_CALLS)
               else f', {long_calls} + {short_calls} calls at once')
            + ''.join(f', {x}' for x in sets)
            + (ONE_PAIR if tors == 'round' else ''))


def with_tors(runs):
    """The runs, those made before --tors (one pair a round) said so in
    their key and their 'tors'."""
    out = {}
    for key, run in runs.items():
        if 'tors' not in run:
            run = dict(run, tors='round')
            key += ONE_PAIR
        out[key] = run
    return out


def run_order(data):
    """Runs with cross traffic first, the largest scale (the unscaled
    "before") first."""
    return sorted(data['runs'], key=lambda k: (
        not data['runs'][k]['cross_flows'], -data['runs'][k]['scale'],
        -data['runs'][k].get('at_once', LONG_CALLS + SHORT_CALLS),
        data['runs'][k].get('tors') == 'call'))


def relay_rows(data):
    """Where the late frames come from: per relay, the calls whose
    rendezvous circuits (either side, as snapshotted) crossed it, and how
    many of them were unacceptable, 30-s and 5-min calls together."""
    rows = ['Per relay, the calls whose rendezvous circuits crossed it '
            '(either side, from the rounds\' circuit snapshots) and the share '
            'of them unacceptable, 30-s and 5-min calls together; the shaped '
            'base, tor\'s capacity and the seconds the model\'s spikes covered '
            'during the run (of the first run with cross traffic at the '
            'default scale); X: a guard of that run\'s cross traffic:', '',
            '| relay | base ms | KiB/s | spiky s | ' + ' | '.join(
                f'{k}: calls, unacceptable %' for k in run_order(data))
            + ' |', '|---|---|---|---|' + '---|' * len(data['runs'])]
    runs = [data['runs'][k] for k in run_order(data)]
    ref = next((r for r in runs if r['cross_flows']
                and r['scale'] == data.get('default_scale')
                and r.get('sets', []) == data.get('default_sets', [])
                and r.get('at_once') in (None, LONG_CALLS + SHORT_CALLS)),
               runs[0])
    names = []
    for run in runs:
        names += [n for n in run.get('relays', {}) if n not in names]
    for name in names:
        cells = []
        for run in runs:
            calls = [c for kind in ('30s', '5min') for c in run['calls'][kind]
                     if name in c.get('relays', [])]
            bad = sum(c['unacceptable'] for c in calls)
            mark = (' X' if run['cross_flows']
                    and name in run.get('cross_guards', []) else '')
            cells.append(f'{len(calls)}, {100.0 * bad / len(calls):.0f}{mark}'
                         if calls else f'0{mark}')
        info = ref.get('relays', {}).get(name) or runs[0]['relays'][name]
        rows.append(f'| {name} | {info["base_ms"]:.1f} | '
                    f'{info["capacity_kib"]} | {info.get("spike_s", 0):.0f} | '
                    + ' | '.join(cells) + ' |')
    return rows


def load_average():
    return ' '.join(open('/proc/loadavg').read().split()[:3])


def relay_facts(args, scale, relays_path, seconds):
    """{relay: base, capacity, exit, seconds in the model's spikes during
    the run} of the network's relays file."""
    relays = {}
    for line in open(relays_path):
        f = line.split()
        kv = dict(x.split('=', 1) for x in f[1:])
        relays[f[0]] = {'base_ms': int(kv['base_us']) / 1000,
                        'capacity_kib': kv['capacity_kib'],
                        'exit': kv['exit'] == '1'}
    spikes = subprocess.run(
        [os.path.join(args.build, 'tools', 'donar-shaper'), '--model',
         str(args.seed), '--scale', str(scale), '--describe', str(len(relays)),
         '--describe-spikes', str(int(seconds) + 60)],
        check=True, capture_output=True, text=True).stdout
    names = list(relays)
    for line in spikes.splitlines():
        kv = dict(x.split('=', 1) for x in line.split()[1:])
        if line.startswith('spike '):
            r = relays[names[int(kv['relay'])]]
            r['spike_s'] = r.get('spike_s', 0) + int(kv['duration_ms']) / 1000
    return relays


def measure(args, keep, scale):
    t0 = time.monotonic()
    loads = [load_average()]
    net = os.path.join(keep, 'run', 'net')
    tornet = os.path.join(HERE, 'tornet.sh')
    if os.path.exists(os.path.join(keep, 'run')):
        subprocess.run([tornet, 'stop', net], check=False,
                       stderr=subprocess.DEVNULL)
        subprocess.run(['rm', '-rf', os.path.join(keep, 'run')], check=True)
    for name in os.listdir(keep):
        if name.startswith('round'):
            os.unlink(os.path.join(keep, name))
    os.makedirs(os.path.join(keep, 'run'))
    procs = Processes()
    call_bin = os.path.join(args.build, 'tools', 'donar-call')
    try:
        env = read_env(subprocess.run(
            [tornet, 'start', net, '--seed', str(args.seed), '--scale',
             str(scale), '--cross-flows', str(args.cross_flows)]
            + [x for v in args.set for x in ('--set', v)] + ['--shaper',
             os.path.join(args.build, 'tools', 'donar-shaper')],
            check=True, capture_output=True, text=True).stdout)
        log(f'network up (scale {scale:g}): cross traffic through '
            f'{env["TOR_CROSS_GUARDS"]}')
        for r in range(args.rounds):
            run_round(args, procs, env, keep, r, call_bin)
            loads.append(load_average())
            log(f'round {r} done ({(time.monotonic() - t0) / 60:.1f} min, '
                f'load {loads[-1]})')
    finally:
        procs.stop()
        subprocess.run([tornet, 'stop', net], check=False,
                       stderr=subprocess.DEVNULL)
    one_min = [float(x.split()[0]) for x in loads[1:]] or [0.0]
    relays = relay_facts(args, scale, env['TOR_SHAPER_RELAYS'],
                         time.monotonic() - t0)
    return {'wall_min': (time.monotonic() - t0) / 60,
            'load': f'{min(one_min):.1f}-{max(one_min):.1f}',
            'loads': loads, 'relays': relays,
            'cross_guards': env['TOR_CROSS_GUARDS'].split(',')}


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--build', default=os.path.join(ROOT, 'build'))
    p.add_argument('--scale', type=float, default=None,
                   help="the shaper's scale (default: tornet.sh's)")
    p.add_argument('--seed', type=int, default=3)
    p.add_argument('--set', action='append', default=[], metavar='NAME=VALUE',
                   help='a relay parameter of docs/netmodel.md for the '
                   'network (tornet.sh --set; repeatable): not a calibration '
                   'knob, an experiment')
    p.add_argument('--cross-flows', type=int, default=4,
                   help="bulk flows through each cross guard (tornet.sh's "
                   "4; 0: no cross traffic)")
    # 4 rounds of about 6 minutes: some 25 minutes on 2 shared cores.
    p.add_argument('--rounds', type=int, default=4)
    p.add_argument('--long-calls', type=int, default=LONG_CALLS)
    p.add_argument('--short-calls', type=int, default=SHORT_CALLS)
    p.add_argument('--long-seconds', type=int, default=300)
    p.add_argument('--short-seconds', type=int, default=30)
    p.add_argument('--tors', choices=('call', 'round'), default='call',
                   help='a fresh caller and callee tor pair for each call '
                   'slot (the default: one user, one tor), or one pair for '
                   'all the calls of a round (before 2026-11-27)')
    p.add_argument('--keep', default=None,
                   help='frame logs (default build/tornet-calibration/'
                   'scale-F)')
    p.add_argument('--docs', default=os.path.join(ROOT, 'docs'))
    p.add_argument('--no-docs', action='store_true',
                   help='check only: write neither docs/tornet-calibration.md nor the '
                   'JSON')
    p.add_argument('--report-only', action='store_true',
                   help='no calls: judge the calls kept in --keep again')
    args = p.parse_args()
    # tornet.sh's own account of its defaults, read once (`tornet.sh
    # defaults`), as evaluate-tornet.py reads them.
    defaults = tornet_defaults()
    default_scale = defaults['scale']
    scale = default_scale if args.scale is None else args.scale
    default_sets = defaults['sets']
    sets = effective_sets(default_sets, args.set)
    keep = os.path.abspath(args.keep or os.path.join(
        ROOT, 'build', 'tornet-calibration', f'scale-{scale:g}'
        + ('' if args.cross_flows else '-no-cross')
        + ('' if (args.long_calls, args.short_calls) == (LONG_CALLS, SHORT_CALLS)
           else f'-{args.long_calls}+{args.short_calls}')
        + ''.join('-' + x.replace('=', '-') for x in sets)
        + ('-one-pair' if args.tors == 'round' else '')))
    os.makedirs(keep, exist_ok=True)
    command = ' '.join(['tools/tornet/tornet.sh calibrate']
                       + [shlex.quote(a) for a in sys.argv[1:]
                          if a not in ('--report-only',)])
    meta_path = os.path.join(keep, 'meta.json')
    if not args.report_only:
        meta = measure(args, keep, scale)
        meta.update({'command': command,
                     # tornet.sh applied these before --set: the run's
                     # relay parameters are both (evaluate-tornet.py).
                     'default_sets': default_sets,
                     'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
                     'scale': scale})
        json.dump(meta, open(meta_path, 'w'))
    meta = json.load(open(meta_path))
    if 'relays' not in meta:       # kept by an older version of this script
        env = read_env(open(os.path.join(keep, 'run', 'net', 'env')).read())
        meta['relays'] = relay_facts(args, meta['scale'],
                                     env['TOR_SHAPER_RELAYS'],
                                     meta['wall_min'] * 60)
        meta['cross_guards'] = env['TOR_CROSS_GUARDS'].split(',')
    calls, never = collect(keep, args)
    tb = {kind: figures(c) for kind, c in calls.items()}
    model = model_figures(args.build)
    outside = check(tb, model)
    for kind in ('30s', '5min'):
        t, m = tb[kind], model[kind]
        log(f'{kind}: {t["calls"]} calls ({never[kind]} never set up), '
            f'unacceptable {t["unacceptable"]:.1f} % [{t["wilson95"][0]:.0f}-'
            f'{t["wilson95"][1]:.0f}] (model {m["unacceptable"]:.1f} %), '
            f'median p10/p50/p90 {t["p10_ms"]:.0f}/{t["p50_ms"]:.0f}/'
            f'{t["p90_ms"]:.0f} ms (model {m["p10_ms"]:.0f}/{m["p50_ms"]:.0f}/'
            f'{m["p90_ms"]:.0f}); other direction {t["back_unacceptable"]:.1f} %')
    if not args.no_docs:
        json_path = os.path.join(args.docs, JSON_FILE)
        try:
            data = json.load(open(json_path))
        except (OSError, ValueError):
            data = {'runs': {}}
        data['model'] = model
        data['default_scale'] = default_scale
        data['default_sets'] = default_sets
        data['targets'] = {'share_points': SHARE_POINTS,
                           'latency_fraction': LATENCY_FRACTION}
        # Runs of an older version of this script (keyed by scale alone)
        # are left out: --report-only writes them again.
        data['runs'] = with_tors({k: v for k, v in data['runs'].items()
                                  if 'scale' in v})
        data['runs'][run_key(scale, args.cross_flows, args.long_calls,
                             args.short_calls, sets, args.tors)] = {
            'scale': scale, 'cross_flows': args.cross_flows, 'tors': args.tors,
            'at_once': args.long_calls + args.short_calls, 'sets': sets,
            'command': meta['command'], 'date': meta['date'],
            'wall_min': meta['wall_min'], 'load': meta['load'],
            'loads': meta['loads'], 'testbed': tb, 'never': never,
            'outside': outside, 'calls': calls,
            'default_sets': meta.get('default_sets', []),
            'relays': meta.get('relays', {}),
            'cross_guards': meta.get('cross_guards', [])}
        with open(json_path, 'w') as f:
            json.dump(data, f, indent=1)
            f.write('\n')
        splice(os.path.join(args.docs, 'tornet-calibration.md'),
               render(data, default_scale), BEGIN, END, '## Figures')
        log(f'wrote {json_path} and docs/tornet-calibration.md')
    if outside:
        log('OUTSIDE THE TARGETS: ' + '; '.join(outside))
        return 1
    log('within the targets')
    return 0


if __name__ == '__main__':
    sys.exit(main())
