"""What the Python element tests over donar-torsim share: a donar-torsim
of the build on free ports, stopped by its PID, and waiting for the files
that processes and elements write (ports, addresses)."""

import os
import subprocess
import sys
import time


def wait_file(path, seconds=30):
    """The file's text once it is not empty; exits if it never is."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        time.sleep(0.05)
    sys.exit("no %s in %d s" % (path, seconds))


def start_torsim(build, work, seed, extra=()):
    """(its process, its control port); extra: more options."""
    ports = os.path.join(work, "ports")
    process = subprocess.Popen(
        [os.path.join(build, "tools", "donar-torsim"), "--port-file", ports,
         "--seed", str(seed)] + list(extra),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        text = wait_file(ports)
    except SystemExit:
        stop(process)
        raise
    values = dict(line.split("=", 1) for line in text.split() if "=" in line)
    return process, values["CONTROL_PORT"]


def stop(process):
    """SIGTERM, then SIGKILL after 5 s."""
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
