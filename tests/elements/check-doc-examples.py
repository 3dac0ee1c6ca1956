#!/usr/bin/python3
"""Every gst-launch-1.0 example of README.md and docs/elements.md runs as
written over donar-torsim (suite elements, test doc-examples; issue 25).

The examples are read from the documents themselves (indented or fenced
code blocks whose command is gst-launch-1.0, `\\` continuations joined), so
an example that changes is tested as it now reads.  Each runs in bash, in a
directory of its own (address.txt, callee.key and contacts/ are where the
examples put them), with what the documents tell a user to add and nothing
else:
  - the ports: `tor-control=PORT` (donar-torsim's ControlPort) on every
    donarsrc and donarsink, as *Examples* says for a running tor, in place
    of the tor-control the example names (Debian's /run/tor/control);
  - the callee's address where the example has `donar://…`, with
    `&auth=$(cat alice.key)` for the contacts' example, and a callee made
    by `donar-call contact-key alice contacts/` for it, as the text says;
  - a caller made from a callee example the way the text says ("the
    caller the same with address=… in place of callee=true and
    address-file") where the document gives no caller line.
A pair is judged as a user would: both processes keep running for the
call's seconds, then the caller is interrupted (Ctrl-C) and the callee,
told by the hang-up, ends by itself with status 0 within 10 s.  A callee
that never had a call would wait for ever: it fails.  An example the test
does not know how to run fails too, so that none is left untested; the
lines of *The donar:// URI* that test uri-launch runs as written are left
to it.

Usage: check-doc-examples.py BUILD_DIR SOURCE_DIR"""

import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torsim_fixture  # noqa: E402

CALL_SECONDS = 6
END_SECONDS = 10
DOCS = ("README.md", os.path.join("docs", "elements.md"))
ELLIPSIS = "\u2026"
URI_SECTION = "The donar:// URI"


def examples(path):
    """[(line number, command, section)] of the gst-launch-1.0 commands of
    path's code blocks."""
    found = []
    lines = open(path, encoding="utf-8").read().split("\n")
    fenced = False
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if not fenced and line.startswith("## "):
            section = line[3:].strip()
        if line.startswith("```"):
            fenced = not fenced
            i += 1
            continue
        code = fenced or line.startswith("    ")
        if code and line.strip().startswith("gst-launch-1.0"):
            start = i + 1
            command = line.strip()
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1].rstrip() + " " + lines[i].strip()
            found.append((start, command, section))
        i += 1
    return found


def with_port(command, port):
    """tor-control=PORT on every DONAR element (and in a URI's parameters),
    in place of any other."""
    command = re.sub(r"tor-control=[^\s&']+", "tor-control=%s" % port,
                     command)
    return re.sub(r"\b(donarsrc|donarsink)\b(?![^!]*tor-control=)",
                  r"\1 tor-control=%s" % port, command)


def with_address(command, address):
    """The callee's address where the example has donar://… (a URI's
    other parameters kept after it)."""
    command = command.replace('"donar://%s"' % ELLIPSIS, shlex.quote(address))
    return re.sub(r"donar://%s[^'&\s]*" % ELLIPSIS,
                  lambda m: address, command)


def caller_of(callee):
    """What the documents say a caller is, from a callee: address=… in
    place of callee=true and of address-file (on each element that had
    either), and no key-file or contacts."""
    address = 'address="donar://%s"' % ELLIPSIS
    chunks = []
    for chunk in callee.replace(" -m ", " ").split("!"):
        chunk = re.sub(r"\s(key-file|client-auth-dir)=\S+", "", chunk)
        if "callee=true" in chunk or "address-file=" in chunk:
            chunk = re.sub(r"\s(callee=true|address-file=\S+)", "", chunk)
            chunk = re.sub(r"\b(donarsrc|donarsink)\b", r"\1 " + address,
                           chunk, count=1)
        chunks.append(chunk)
    return "!".join(chunks)


class Run:
    """One gst-launch-1.0 command in bash, in cwd; stopped by its PID."""

    def __init__(self, name, command, cwd, env):
        self.name = name
        self.command = command
        self.log = open(os.path.join(cwd, name + ".log"), "wb")
        self.process = subprocess.Popen(
            ["bash", "-c", "exec " + command], cwd=cwd, env=env,
            stdout=self.log, stderr=subprocess.STDOUT)

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.alive():
            self.process.kill()
            self.process.wait()
        self.log.close()

    def tail(self):
        with open(self.log.name, "rb") as f:
            return f.read().decode("utf-8", "replace")[-1500:]


def run_pair(callee_cmd, caller_cmd, port, build, env, auth=False):
    """(ok, what happened) of one call between two examples."""
    with tempfile.TemporaryDirectory(prefix="doc-example-") as work:
        runs = []
        try:
            if "client-auth-dir=contacts" in callee_cmd:
                with open(os.path.join(work, "alice.key"), "wb") as key:
                    subprocess.run(
                        [os.path.join(build, "tools", "donar-call"),
                         "contact-key", "alice", "contacts/"],
                        cwd=work, stdout=key, check=True)
            callee = Run("callee", with_port(callee_cmd, port), work, env)
            runs.append(callee)
            address = torsim_fixture.wait_file(
                os.path.join(work, "address.txt")).strip()
            if auth:
                with open(os.path.join(work, "alice.key")) as f:
                    address += "&auth=" + f.read().strip()
            caller = Run("caller", with_address(with_port(caller_cmd, port),
                                                address), work, env)
            runs.append(caller)
            time.sleep(CALL_SECONDS)
            for r in runs:
                if not r.alive():
                    return False, "%s ended during the call (status %s):\n%s" % (
                        r.name, r.process.returncode, r.tail())
            caller.process.send_signal(signal.SIGINT)
            try:
                status = callee.process.wait(END_SECONDS)
            except subprocess.TimeoutExpired:
                return False, ("the callee did not end within %d s of the "
                               "caller's Ctrl-C (no call?):\n%s"
                               % (END_SECONDS, callee.tail()))
            if status != 0:
                return False, "the callee ended with status %d:\n%s" % (
                    status, callee.tail())
            return True, "the callee ended with status 0 on the hang-up"
        finally:
            for r in runs:
                r.stop()


def main():
    build, source = sys.argv[1], sys.argv[2]
    # No sound card here: autoaudiosrc and autoaudiosink fall back to fake
    # devices, unless gst-plugins-bad's OpenAL elements (softphone.py's echo
    # canceller brings the package) are tried first, which open no device
    # and fail to negotiate.
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, "gst"),
               GST_PLUGIN_FEATURE_RANK="openalsrc:NONE,openalsink:NONE")
    found = []
    for doc in DOCS:
        for line, command, section in examples(os.path.join(source, doc)):
            where = "%s:%d" % (doc, line)
            # Test uri-launch runs that section's lines as written (the
            # callee's URI, "$(cat address.txt)", the pair of URIs, playbin);
            # the one with a donar://… placeholder is run here.
            if section == URI_SECTION and ELLIPSIS not in command:
                print("ok   %s: run by test uri-launch" % where)
                continue
            found.append((where, command))
    callees = [(w, c) for w, c in found if "callee=true" in c]
    callers = [(w, c) for w, c in found if "callee=true" not in c]
    plain_callee = next((c for w, c in callees if "key-file" not in c
                         and "rtpbin" not in c and "/run/tor" not in c), None)
    plain_caller = next((c for w, c in callers if 'address="donar://' in c),
                        None)
    if plain_callee is None or plain_caller is None:
        sys.exit("FAIL docs/elements.md's *Examples* callee and caller not found")
    pairs = []
    for where, command in found:
        if command in (plain_callee, plain_caller):
            continue
        if "callee=true" in command:
            if "client-auth-dir=contacts" in command:
                pairs.append((where, command, plain_caller, True))
            else:
                pairs.append((where, command, caller_of(command), False))
        elif "'donar://" in command:
            pairs.append((where, plain_callee, command, False))
        else:
            pairs.append((where, None, command, False))
    pairs.insert(0, ("*Examples*", plain_callee, plain_caller, False))

    torsim_dir = tempfile.TemporaryDirectory(prefix="doc-examples-torsim-")
    process, port = torsim_fixture.start_torsim(build, torsim_dir.name, 5)
    ok = True
    try:
        for where, callee_cmd, caller_cmd, auth in pairs:
            if callee_cmd is None:
                print("FAIL %s: an example this test cannot run: %s"
                      % (where, caller_cmd))
                ok = False
                continue
            good, what = run_pair(callee_cmd, caller_cmd, port, build,
                                  env, auth)
            print("%s %s: %s" % ("ok  " if good else "FAIL", where, what))
            ok = ok and good
    finally:
        torsim_fixture.stop(process)
        torsim_dir.cleanup()
    print("# %d examples in %s, %d calls" % (len(found), ", ".join(DOCS),
                                             len(pairs)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
