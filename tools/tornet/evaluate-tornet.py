#!/usr/bin/env python3
"""Every policy's calls over real tor: the shaped network of tools/tornet
(16 relays behind donar-shaper, the model's capacities as tor's
RelayBandwidthRate, bulk cross traffic through the caller's guard and
another), with donar-sim beside it on the same relay parameters and cross
traffic, so that the model's error is a number (docs/tornet.md).

    build-venv/bin/python3 tools/tornet/evaluate-tornet.py [--rounds 4]
        [--seconds 300] [--seed 3] [--keep DIR] [--no-call-guard]

A round runs one call of every policy at once (SIMPLE, TORFONE,
ALTERNATE, DOUBLE-SEND, ADAPTIVE budget 1 and 2) through one caller tor
(the network's client) and one callee tor, each call with its own onion
and its links isolated by SOCKS credentials. Each call keeps its frame
logs (donar-call --frame-log) in --keep. Writes docs/evaluation-tor.md
(the section "Over real tor"), puts it into docs/evaluation.md between its
markers (tools/evaluate.py includes the same file when it regenerates the
page), and the latency CDF docs/img/tornet-latency-cdf.png.
"""

import argparse
import csv
import importlib.util
import json
import math
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
_spec = importlib.util.spec_from_file_location(
    'check_onion', os.path.join(ROOT, 'tests', 'tor-network', 'check-onion.py'))
check_onion = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_onion)

# (label, donar-call and donar-sim options): the policies of
# docs/evaluation.md, the baselines on 1 and 2 links as the paper ran them.
POLICIES = [
    ('SIMPLE', ['--policy', 'simple', '--links', '1', '--n1st', '1',
                '--n2nd', '0']),
    ('TORFONE', ['--policy', 'torfone', '--links', '2', '--n1st', '2',
                 '--n2nd', '0']),
    ('ALTERNATE', ['--policy', 'alternate']),
    ('DOUBLE-SEND', ['--policy', 'double-send']),
    ('ADAPTIVE budget 1', ['--policy', 'adaptive', '--budget', '1']),
    ('ADAPTIVE budget 2', ['--policy', 'adaptive', '--budget', '2']),
]
FRAME_MS = 40
DEADLINE_MS = 360            # seed 000, Table 1
DROP_FRAMES = 25             # 1 s of frames missing in a row
DROP_AFTER_MS = 1000         # later than this counts as missing
SIM_CALLS = 200              # the model's figures: cheap, so many calls
BEGIN = '<!-- over real tor begin -->'
END = '<!-- over real tor end -->'
SECTION_FILE = os.path.join('docs', 'evaluation-tor.md')
CDF_IMAGE = os.path.join('img', 'tornet-latency-cdf.png')
CDF_X_MAX_MS = 1500


def log(message):
    print(f'evaluate-tornet: {message}', file=sys.stderr, flush=True)


def slug(label):
    return re.sub(r'[^a-z0-9]+', '-', label.lower()).strip('-')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Processes:
    """Everything started, stopped by PID: SIGTERM, SIGKILL after 5 s."""

    def __init__(self):
        self.procs = []

    def start(self, cmd, out, err, cwd=None):
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                             stdout=open(out, 'w'), stderr=open(err, 'w'),
                             cwd=cwd)
        self.procs.append(p)
        return p

    def stop(self, procs=None):
        procs = self.procs if procs is None else procs
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def read_env(text):
    env = {}
    for line in text.splitlines():
        if '=' in line:
            k, v = line.split('=', 1)
            env[k] = shlex.split(v)[0] if v else ''
    return env


def start_callee_tor(procs, work, include):
    """A client of the network with a ControlPort for the callees' onions
    (as tests/tor-network/callee-tor.sh)."""
    d = os.path.join(work, 'callee-tor')
    os.makedirs(d, mode=0o700)
    port = free_port()
    with open(os.path.join(d, 'torrc'), 'w') as f:
        f.write(f'%include {include}\nDataDirectory {d}\nSocksPort 0\n'
                f'ControlPort 127.0.0.1:{port}\nCookieAuthentication 1\n'
                f'Log notice file {d}/notice.log\n')
    procs.start(['tor', '-f', os.path.join(d, 'torrc'), '--defaults-torrc',
                 '/dev/null'], os.devnull, os.devnull)
    notice = os.path.join(d, 'notice.log')
    for _ in range(600):
        if os.path.exists(notice) and 'Bootstrapped 100%' in open(notice).read():
            return port, os.path.join(d, 'control_auth_cookie')
        time.sleep(0.1)
    raise RuntimeError('the callee tor did not bootstrap in 60 s')


def run_round(procs, build, env, callee_control, callee_cookie, seconds,
              keep, round_index):
    """One call of every policy at once: frame logs, reports and logs in
    keep as round<R>-<policy>-{caller,callee}.{csv,json,log}."""
    call = os.path.join(build, 'tools', 'donar-call')
    callees, callers = {}, {}
    for label, options in POLICIES:
        base = os.path.join(keep, f'round{round_index}-{slug(label)}')
        # Both ends send once all their links are up, as donar-sim's calls
        # start with every circuit ready: a callee that sent from its first
        # link on would lose frames to links not yet open at either end.
        links = options[options.index('--links') + 1] if '--links' in options else '12'
        for f in ('-address', '-caller.csv', '-callee.csv'):
            if os.path.exists(base + f):
                os.unlink(base + f)
        callees[label] = (base, procs.start(
            [call, 'callee', '--tor-control', str(callee_control),
             '--tor-cookie', callee_cookie, '--seconds', str(seconds + 120),
             '--address-file', base + '-address', '--setup-timeout', '90',
             '--wait-links', links,
             '--json', '--frame-log', base + '-callee.csv'] + options,
            base + '-callee.json', base + '-callee.log'))
    deadline = time.monotonic() + 90
    for label, (base, p) in callees.items():
        while not (os.path.exists(base + '-address')
                   and os.path.getsize(base + '-address') > 0):
            if p.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f'{label}: the callee published no address')
            time.sleep(0.1)
    log(f'round {round_index}: {len(callees)} onions published')
    for label, options in POLICIES:
        base, _ = callees[label]
        links = options[options.index('--links') + 1] if '--links' in options else '12'
        address = open(base + '-address').read().strip()
        callers[label] = procs.start(
            [call, 'caller', address, '--tor-control', env['TOR_CONTROL_PORT'],
             '--tor-cookie', env['TOR_COOKIE'], '--seconds', str(seconds),
             '--wait-links', links, '--setup-timeout', '60', '--json',
             '--frame-log', base + '-caller.csv'] + options,
            base + '-caller.json', base + '-caller.log')
    watch_circuits(env, callee_control, callee_cookie, callers,
                   os.path.join(keep, f'round{round_index}'))
    # The callees end when their caller hangs up; one whose caller never
    # reached it is stopped.
    end = time.monotonic() + 15
    for _, p in callees.values():
        try:
            p.wait(max(0.1, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    procs.stop([p for _, p in callees.values()] + list(callers.values()))


def watch_circuits(env, callee_control, callee_cookie, callers, base):
    """While the callers run: both tors' circuits every 5 s to
    base-circuits.txt, and when each caller ended to base-ends.txt, in
    seconds of the shaper's clock (its ready line's origin_us), which
    `donar-shaper --describe-spikes` counts in: which relays every link
    crossed when a stretch came, and whether the model's spikes were on
    them."""
    ready = open(os.path.join(env['TOR_NETWORK_DIR'], 'shaper',
                              'stdout.log')).read()
    origin_us = int(ready.split('origin_us=')[1].split()[0])

    def shaper_s():
        return time.monotonic_ns() / 1000 / 1e6 - origin_us / 1e6

    tors = []
    for side, port, cookie in (('caller', int(env['TOR_CONTROL_PORT']),
                                env['TOR_COOKIE']),
                               ('callee', callee_control, callee_cookie)):
        ctl = check_onion.Control(port, timeout=10)
        check_onion.authenticate(ctl, cookie)
        tors.append((side, ctl))
    running = dict(callers)
    with open(base + '-circuits.txt', 'w') as out, \
            open(base + '-ends.txt', 'w') as ends:
        next_poll = 0.0
        while running:
            if time.monotonic() >= next_poll:
                next_poll = time.monotonic() + 5
                t = shaper_s()
                for side, ctl in tors:
                    try:
                        for line in check_onion.circuit_lines(ctl).values():
                            if ' BUILT ' in line and 'HS_' in line:
                                out.write(f'{t:.1f} {side} {line}\n')
                    except (OSError, check_onion.CheckError):
                        pass
                out.flush()
            for label, p in list(running.items()):
                if p.poll() is not None:
                    ends.write(f'{shaper_s():.1f} {slug(label)}\n')
                    del running[label]
            time.sleep(0.2)
    for _, ctl in tors:
        ctl.close()


def read_frame_log(path):
    """Latencies in ms of a frame log's frames, None for a lost one."""
    out = []
    with open(path) as f:
        for row in csv.DictReader(f):
            out.append(float(row['arrival_ms']) - float(row['sent_ms'])
                       if row['arrival_ms'] else None)
    return out


def judge(directions):
    """(successful, dropped) of a call from its two directions' latencies,
    as donar-sim counts them (tools/sim/sim-report.c)."""
    successful, dropped = True, False
    for lat in directions:
        in_time = sum(1 for x in lat if x is not None and x <= DEADLINE_MS)
        if not lat or in_time * 100 < len(lat) * 99:
            successful = False
        run = 0
        for x in lat:
            if x is None or x > DROP_AFTER_MS:
                run += 1
                if run >= DROP_FRAMES:
                    dropped = True
            else:
                run = 0
    return successful, dropped


def percentile(sorted_latencies, p):
    if not sorted_latencies:
        return math.inf
    return sorted_latencies[min(len(sorted_latencies) - 1,
                                int(p * (len(sorted_latencies) - 1) + 0.5))]


def summarize(calls, cells):
    """calls: one (dir0 latencies, dir1 latencies) or None (never set up)
    per call; cells: cells/s per endpoint. Percentiles over every frame,
    a lost one as infinitely late."""
    n = len(calls)
    ok = dropped = 0
    frames = []
    for c in calls:
        if c is None:
            dropped += 1
            continue
        s, d = judge(c)
        ok += s
        dropped += d
        for lat in c:
            frames += [math.inf if x is None else x for x in lat]
    frames.sort()
    return {'calls': n, 'successful': 100.0 * ok / n if n else 0.0,
            'dropped': 100.0 * dropped / n if n else 0.0,
            'p50': percentile(frames, 0.5), 'p99': percentile(frames, 0.99),
            'p999': percentile(frames, 0.999),
            'cells_per_s': sum(cells) / len(cells) if cells else 0.0,
            'frames': frames}


def run_sim(build, options, calls, seconds, seed, cross, keep, label):
    d = os.path.join(keep, f'sim-{slug(label)}')
    os.makedirs(d, exist_ok=True)
    cmd = [os.path.join(build, 'tools', 'donar-sim'), '--calls', str(calls),
           '--duration', str(seconds), '--seed', str(seed), '--json',
           '--frame-log', d] + options
    if cross:
        cmd += ['--cross-traffic', cross]
    report = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                       text=True).stdout)
    pairs = []
    for c in range(calls):
        pairs.append((read_frame_log(os.path.join(d, f'call{c}-dir0.csv')),
                      read_frame_log(os.path.join(d, f'call{c}-dir1.csv'))))
    return summarize(pairs, [report['cells_per_s']]), ' '.join(
        shlex.quote(x) for x in cmd[1:])


def shown(path):
    """A path as the docs show it: from the top of the tree if inside."""
    path = os.path.abspath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def ms(x):
    return 'lost' if math.isinf(x) else f'{x:.0f}'


def plot(tor, sim, path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, (label, _) in enumerate(POLICIES):
        color = f'C{i}'
        for source, style, name in ((tor, '-', 'tor'), (sim, '--', 'donar-sim')):
            frames = source[label]['frames']
            if not frames:
                continue
            xs = [x for x in frames if not math.isinf(x)]
            ys = [(k + 1) / len(frames) for k in range(len(xs))]
            ax.plot(xs, ys, style, color=color, linewidth=1.2,
                    label=f'{label} ({name})')
    ax.axvline(DEADLINE_MS, color='grey', linewidth=0.8, linestyle=':')
    ax.set_xlim(0, CDF_X_MAX_MS)
    ax.set_ylim(0, 1)
    ax.set_xlabel('one-way frame latency (ms)')
    ax.set_ylabel('fraction of frames')
    ax.set_title('Over real tor (solid) and donar-sim (dashed)')
    ax.legend(fontsize=7, ncol=2, loc='lower right')
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def round_rows(results):
    rows = ['| round | ' + ' | '.join(label for label, _ in POLICIES) + ' |',
            '|---|' + '---|' * len(POLICIES)]
    for r in range(max(len(calls) for calls in results.values())):
        cells = []
        for label, _ in POLICIES:
            call = results[label][r] if r < len(results[label]) else None
            if call is None:
                cells.append('not set up')
                continue
            ok, dropped = judge(call)
            frames = sorted(math.inf if x is None else x for x in call[0] + call[1])
            cells.append(ms(percentile(frames, 0.99)) + (' S' if ok else '')
                         + (' D' if dropped else ''))
        rows.append(f'| {r} | ' + ' | '.join(cells) + ' |')
    return rows


def render(args, command, tor, sim, plain, sim_commands, network, cross,
           wall_s, setup_failures, results):
    rows = ['| policy | calls | successful % (sim) | dropped % (sim) | '
            'p50 ms (sim) | p99 ms (sim) | p99.9 ms (sim) | cells/s (sim) | '
            'error of the model: successful, p99 | sim without cross traffic: '
            'successful %, p99 ms |',
            '|---|---|---|---|---|---|---|---|---|---|']
    for label, _ in POLICIES:
        t, s, q = tor[label], sim[label], plain[label]
        d99 = ('—' if math.isinf(t['p99']) or math.isinf(s['p99'])
               else f'{s["p99"] - t["p99"]:+.0f} ms')
        rows.append(
            f'| {label} | {t["calls"]} | {t["successful"]:.0f} '
            f'({s["successful"]:.0f}) | {t["dropped"]:.0f} ({s["dropped"]:.0f}) | '
            f'{ms(t["p50"])} ({ms(s["p50"])}) | {ms(t["p99"])} ({ms(s["p99"])}) | '
            f'{ms(t["p999"])} ({ms(s["p999"])}) | {t["cells_per_s"]:.1f} '
            f'({s["cells_per_s"]:.1f}) | {s["successful"] - t["successful"]:+.0f} '
            f'points, {d99} | {q["successful"]:.0f}, {ms(q["p99"])} |')
    flows = ', '.join(f'{f["kib_per_s"]:.0f}' for f in cross['flows'])
    lines = [
        '## Over real tor', '',
        'Written by `tools/tornet/evaluate-tornet.py`'
        + (f' ({wall_s / 60:.1f} min on 2 shared cores)' if wall_s else '')
        + '; do not edit: rerun it. The testbed is '
        '[tornet.md](tornet.md): '
        f'{network["relays"]} tor relays (Debian\'s tor {network["tor"]}) on '
        '127.0.0.1, each behind donar-shaper with lib/netmodel\'s relay '
        f'{network["first"]}..{network["last"]} of seed {args.seed} (base '
        f'delays {network["base_min"]:.0f}-{network["base_max"]:.0f} ms, '
        'median %.0f ms) and its capacity as `RelayBandwidthRate` '
        '(%d-%d KiB/s); bulk cross traffic of seed 003 (5 MiB files back to '
        'back, %d flows through each of %s%s: measured %s KiB/s a flow).'
        % (network['base_median'], network['cap_min'], network['cap_max'],
           args.cross_flows, network['cross_guards'],
           ', the callers\' guard among them' if not args.no_call_guard else '',
           flows), '',
        f'{args.rounds} rounds of {args.seconds}-second calls: in each, one '
        'call of every policy at once, through one caller tor (the '
        'network\'s client) and one callee tor, every call on its own onion, '
        'every link on its own circuit. A call counts as donar-sim counts it: '
        f'successful when 99 % of the frames of each direction came within '
        f'{DEADLINE_MS} ms, dropped when {DROP_FRAMES} frames in a row were '
        f'missing or later than {DROP_AFTER_MS} ms (a call that never set up '
        'counts as dropped). Latencies over every frame of both directions, a '
        'lost frame as infinitely late. cells/s per endpoint: donar-call\'s '
        'messages a frame × 25 (donar-sim also counts its hellos).', '',
        'Beside each figure, in parentheses, donar-sim over the link model '
        f'with the same relay parameters, {SIM_CALLS} calls of the same '
        'length, and the cross traffic as the model has it: the callers\' '
        f'{args.cross_flows} bulk flows through guard 0 of the caller at the '
        'rate a flow through that guard was measured to get here. The last '
        'column but one is the model\'s error: donar-sim minus real tor; '
        'the last, donar-sim without the cross traffic.', '',
        *rows, '',
        'Round by round (the calls of a round share the caller\'s guard, '
        'the callee\'s tor and its guard, and the same minutes of the '
        'network): p99 of the call in ms; S successful, D dropped.', '',
        *round_rows(results), '',
        f'![frame latency CDF over real tor and donar-sim]({CDF_IMAGE})', '',
        'Where the two differ by construction: the model draws 6 fresh relays '
        'per circuit from the same parameters and gives each side 2 guards, '
        'half the links on each; here 16 relays are shared by every path, '
        'and stock tor gives each client one primary guard, so every link '
        'of a call crosses the caller\'s guard and its cross traffic. The '
        'model\'s failures, loss and per-packet jitter are not drawn here '
        '(tor and the kernel have their own); the shaper\'s spikes follow '
        'the model\'s calm/flaky timeline from the network\'s start. With '
        f'{args.rounds} calls a policy, one call is '
        f'{100 / max(args.rounds, 1):.0f} points of successful %.', '']
    if setup_failures:
        lines += [f'Calls that never set up: {setup_failures}.', '']
    lines += ['Commands:', '', '```', command, '```', '',
              'donar-sim, per policy:', '', '```',
              *sim_commands, '```', '',
              f'Frame logs: `{shown(args.keep)}/round<R>-<policy>-caller.csv` (the '
              'callee\'s frames) and `-callee.csv`, `sim-<policy>/`.']
    return '\n'.join(lines) + '\n'


def splice(page_path, section, begin=BEGIN, end=END,
           before='## Where we differ'):
    """page_path with the section between its markers, added before the
    heading `before` the first time (docs/evaluation.md's "Where we differ";
    calibrate-tornet.py splices docs/tornet.md with its own)."""
    block = f'{begin}\n{section}{end}'
    page = open(page_path, encoding='utf-8').read()
    if begin in page and end in page:
        page = re.sub(re.escape(begin) + '.*?' + re.escape(end),
                      lambda _: block, page, flags=re.DOTALL)
    else:
        at = page.find(before)
        at = len(page) if at < 0 else at
        page = page[:at] + block + '\n\n' + page[at:]
    tmp = page_path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(page)
    os.replace(tmp, page_path)


def network_facts(relays_path, env):
    rows = []
    for line in open(relays_path):
        fields = line.split()
        kv = dict(x.split('=', 1) for x in fields[1:])
        rows.append(kv)
    bases = sorted(int(r['base_us']) / 1000 for r in rows)
    caps = [int(r['capacity_kib']) for r in rows if r['capacity_kib'] != 'none']
    version = subprocess.run(['tor', '--version'], capture_output=True,
                             text=True).stdout.split()[2].rstrip('.')
    return {'relays': len(rows), 'first': rows[0]['model_relay'],
            'last': rows[-1]['model_relay'], 'base_min': bases[0],
            'base_max': bases[-1], 'base_median': bases[len(bases) // 2],
            'cap_min': min(caps), 'cap_max': max(caps), 'tor': version,
            'cross_guards': ' and '.join(env['TOR_CROSS_GUARDS'].split(','))}


def measure(args, keep, command):
    """The calls over real tor: frame logs and reports in keep, the run's
    facts in keep/run.json."""
    t0 = time.monotonic()
    work = os.path.join(keep, 'run')
    tornet = os.path.join(HERE, 'tornet.sh')
    net = os.path.join(work, 'net')
    if os.path.exists(work):
        subprocess.run([tornet, 'stop', net], check=False)
        subprocess.run(['rm', '-rf', work], check=True)
    os.makedirs(work)
    procs = Processes()
    start = [tornet, 'start', net, '--seed', str(args.seed),
             '--cross-flows', str(args.cross_flows), '--shaper',
             os.path.join(args.build, 'tools', 'donar-shaper')]
    if args.no_call_guard:
        start.append('--no-call-guard')
    if args.scale is not None:
        start += ['--scale', str(args.scale)]
    try:
        env = read_env(subprocess.run(start, check=True, capture_output=True,
                                      text=True).stdout)
        log(f'network up: call guard {env["TOR_CALL_GUARD"]}, cross traffic '
            f'through {env["TOR_CROSS_GUARDS"]}')
        callee_control, callee_cookie = start_callee_tor(
            procs, work, env['TOR_TORRC_INCLUDE'])
        for r in range(args.rounds):
            run_round(procs, args.build, env, callee_control, callee_cookie,
                      args.seconds, keep, r)
            log(f'round {r} done ({(time.monotonic() - t0) / 60:.1f} min)')
        stop_cross(env)
    finally:
        procs.stop()
        subprocess.run([tornet, 'stop', net], check=False,
                       stderr=subprocess.DEVNULL)
    with open(os.path.join(keep, 'run.json'), 'w') as f:
        json.dump({'wall_s': time.monotonic() - t0, 'command': command}, f)


def collect(args, keep):
    """{label: per call (dir0, dir1) latencies or None}, {label: cells/s
    per endpoint} and how many calls never set up, from keep."""
    results = {label: [] for label, _ in POLICIES}
    cells = {label: [] for label, _ in POLICIES}
    setup_failures = 0
    for r in range(args.rounds):
        for label, _ in POLICIES:
            base = os.path.join(keep, f'round{r}-{slug(label)}')
            try:
                pair = (read_frame_log(base + '-callee.csv'),
                        read_frame_log(base + '-caller.csv'))
            except OSError:
                pair = None
                setup_failures += 1
            results[label].append(pair)
            for side in ('caller', 'callee'):
                try:
                    rep = json.load(open(f'{base}-{side}.json'))
                    cells[label].append(rep['messages_per_frame'] * 1000 / FRAME_MS)
                except (OSError, ValueError):
                    pass
    return results, cells, setup_failures


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--build', default=os.path.join(ROOT, 'build'))
    # 4 rounds of 5-minute calls: 23 min on 2 shared cores, a fifth
    # would pass 28.
    p.add_argument('--rounds', type=int, default=4)
    p.add_argument('--seconds', type=int, default=300)
    p.add_argument('--seed', type=int, default=3)
    # The shaper's scale: tornet.sh's calibrated default unless given
    # (docs/tornet.md, "Calibration"); never tuned on these results.
    p.add_argument('--scale', type=float, default=None)
    p.add_argument('--cross-flows', type=int, default=4)
    p.add_argument('--no-call-guard', action='store_true')
    p.add_argument('--keep', default=os.path.join(ROOT, 'build', 'tornet-eval'))
    p.add_argument('--docs', default=os.path.join(ROOT, 'docs'))
    p.add_argument('--report-only', action='store_true',
                   help='no calls: the section again from the calls kept '
                   'in --keep (with the same --rounds, --seconds, --seed)')
    args = p.parse_args()
    python = os.path.relpath(sys.executable, ROOT)
    python = python if not python.startswith('..') else sys.executable
    command = ' '.join([python, 'tools/tornet/evaluate-tornet.py']
                       + [shlex.quote(a) for a in sys.argv[1:]
                          if a != '--report-only'])
    keep = os.path.abspath(args.keep)
    os.makedirs(keep, exist_ok=True)
    if not args.report_only:
        measure(args, keep, command)
    try:
        run = json.load(open(os.path.join(keep, 'run.json')))
    except OSError:
        run = {'wall_s': None, 'command': command}
    net = os.path.join(keep, 'run', 'net')
    env = read_env(open(os.path.join(net, 'env')).read())
    cross = json.load(open(os.path.join(env['TOR_CROSS_DIR'], 'summary.json')))
    network = network_facts(env['TOR_SHAPER_RELAYS'], env)
    results, cells, setup_failures = collect(args, keep)
    tor = {label: summarize(results[label], cells[label]) for label, _ in POLICIES}
    guard_flows = [f['kib_per_s'] for f in cross['flows']
                   if f['socks_port'] == cross['flows'][0]['socks_port']]
    kib = sum(guard_flows) / len(guard_flows) if guard_flows else 100
    cross_spec = (None if args.no_call_guard else
                  f'0,{args.seconds},{args.cross_flows},{kib:.0f},0,0')
    sim, plain, sim_commands = {}, {}, []
    for label, options in POLICIES:
        sim[label], cmd = run_sim(args.build, options, SIM_CALLS, args.seconds,
                                  args.seed, cross_spec, keep, label)
        sim_commands.append('build/tools/donar-sim ' + cmd.replace(
            keep, shown(keep)))
        plain[label], _ = run_sim(args.build, options, SIM_CALLS, args.seconds,
                                  args.seed, None, keep, label + ' plain')
    img = os.path.join(args.docs, CDF_IMAGE)
    os.makedirs(os.path.dirname(img), exist_ok=True)
    plot(tor, sim, img)
    section = render(args, run['command'], tor, sim, plain, sim_commands,
                     network, cross, run['wall_s'], setup_failures, results)
    with open(os.path.join(args.docs, 'evaluation-tor.md'), 'w') as f:
        f.write(section)
    splice(os.path.join(args.docs, 'evaluation.md'), section)
    log('wrote docs/evaluation-tor.md and its section of docs/evaluation.md')
    print(section)
    return 0


def stop_cross(env):
    """Stops the cross traffic first, so that it writes its summary."""
    pids = os.path.join(env['TOR_NETWORK_DIR'], 'pids')
    for line in open(pids):
        name, pid = line.split()
        # (ours: it runs in the network's directory)
        if name == 'cross-traffic' and os.path.realpath(
                f'/proc/{pid}/cwd') == os.path.realpath(env['TOR_CROSS_DIR']):
            try:
                os.kill(int(pid), signal.SIGTERM)
            except ProcessLookupError:
                pass
    path = os.path.join(env['TOR_CROSS_DIR'], 'summary.json')
    for _ in range(100):
        try:
            json.load(open(path))
            return
        except (OSError, ValueError):
            time.sleep(0.1)


if __name__ == '__main__':
    sys.exit(main())
