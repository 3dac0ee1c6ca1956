"""Running the tools: donar-sim and donar-netmodel-calibrate on all
cores, a copy of the build's tools for the whole run, the speed test.
"""

import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .policies import (
    MAIN_POLICIES, QUICK_CALIBRATION_CALLS, SECURITIES, SPEED_LINKS)
from .plan import SimRun, protocol_options


TOOLS = ('donar-sim', 'donar-netmodel-calibrate', 'donar-quality-replay')


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
    futures = {pool.submit(run_sim, build, run, scratch): run
               for run in ordered}
    return gather(futures, started, '', SimRun.describe)


def gather(futures, started, prefix, describe):
    """{what: result} of futures ({future: what}) as they complete, each
    with a progress line: its count, the seconds since started and
    describe(what)."""
    results = {}
    for count, future in enumerate(
            concurrent.futures.as_completed(futures), 1):
        what = futures[future]
        results[what] = future.result()
        log(f'{prefix}[{count}/{len(futures)}] '
            f'{time.monotonic() - started:6.0f} s  {describe(what)}')
    return results


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


def check_tools(build):
    for tool in TOOLS:
        path = os.path.join(build, 'tools', tool)
        if not os.access(path, os.X_OK):
            sys.exit(f'evaluate: {path} is missing: build first '
                     f'(meson setup {build} && ninja -C {build})')
