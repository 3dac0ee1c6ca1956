"""What the evaluation (evaluate.py) and the calibration (calibrate.py)
both need: the testbed's defaults as tornet.sh gives them, the processes
they start and stop by PID, the frame logs, the Wilson interval, and the
splicing of a generated section into a page."""

import math
import os
import re
import shlex
import signal
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/tornet
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
# The frame logs' one reader and writer (tools/framelog/frame_log.py).
if os.path.join(ROOT, 'tools', 'framelog') not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, 'tools', 'framelog'))
import frame_log  # noqa: E402
JSON_FILE = 'tornet-calibration.json'
LONG_CALLS, SHORT_CALLS = 8, 3   # the calibration's calls at once, its defaults


def wilson(k, n, z=1.96):
    """The Wilson 95 % interval of k successes in n, in %."""
    if n == 0:
        return (0.0, 100.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (100 * max(0.0, c - h), 100 * min(1.0, c + h))


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


def tornet_defaults():
    """tornet.sh's defaults: {'scale', 'cross_flows', 'sets'}."""
    out = subprocess.run([os.path.join(HERE, 'tornet.sh'), 'defaults'],
                         check=True, capture_output=True, text=True).stdout
    d = {'sets': []}
    for line in out.splitlines():
        k, v = line.split('=', 1)
        if k == 'set':
            d['sets'].append(v)
        elif k == 'scale':
            d['scale'] = float(v)
        elif k == 'cross_flows':
            d['cross_flows'] = int(v)
    return d


def read_frame_log(path):
    """Latencies in ms of a frame log's frames, None for a lost one."""
    return frame_log.latencies(frame_log.read_frame_log(path))


def splice(page_path, section, begin, end, before='## Where we differ'):
    """page_path with the section between its markers, added before the
    heading `before` the first time (docs/evaluation.md's "Where we differ";
    calibrate-tornet.py splices docs/tornet-calibration.md with its own)."""
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
