#!/usr/bin/python3
"""The figures of docs/performance.md, "The elements" (a benchmark, not a test).

    tools/bench/bench-elements.py [--build DIR] [--runs N] [--seconds S]
        [--policies alternate,double-send,adaptive] [--skip-torsim]
        [--tor-network] [--callgrind] [--load N]

Each figure against the elements' target of issue 5 (and issue 14's):

1. CPU per frame event of one endpoint (12 links, 25 frames/s each way,
   direct transport over 127.0.0.1): build/tools/donar-bench-elements, a
   callee and a caller (two processes), each against its baseline (the same
   pipeline shape without the donar elements, run right after), once per
   policy of --policies.  In the same run the anchor: the same frames
   through udpsink and udpsrc, the elements DONAR replaces (two processes
   in --udp mode, each the other's peer), against the same baseline.  The
   machine's load moves between runs; within one run the three are measured
   minutes apart, so the ratio DONAR / udpsink+udpsrc of one run is the
   figure to compare across machines and days.
2. Memory beyond GStreamer's own: VmRSS (and VmHWM) of the same endpoint
   minus its baseline.
3. The one-way delay donarsink + donarsrc add on zero-delay links: per frame,
   donarsrc's src pad at one end minus donarsink's sink pad at the other
   (one machine, one CLOCK_MONOTONIC); and donar-call --direct's own p99.
   With --callgrind: the instructions (user space, every thread) of the
   window per frame event under valgrind --tool=callgrind, a measure that
   does not depend on the machine's load (the kernel's share is not in it).
4. The time from a reachable onion to all 12 links open: donar-call over
   donar-torsim (--wait-links 12, its all_links_up_s), and with --tor-network
   over the private Tor network of tools/tornet/tor-network.sh (about a minute a run).

With --load N, N processes that each keep a core busy run through the
whole benchmark (issue 14's "another process keeps both cores busy": 2 on
a 2-core machine), and every figure is taken under that load.

Every process started here is stopped by its PID.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROCS = []


def start(argv, **kw):
    p = subprocess.Popen(argv, **kw)
    PROCS.append(p)
    return p


def stop_all():
    for p in PROCS:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in PROCS:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    PROCS.clear()


def start_load(n):
    """n spinning processes, kept apart from PROCS, which the runs clear."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(n)]


def stop_load(load):
    for p in load:
        p.send_signal(signal.SIGTERM)
    for p in load:
        p.wait()


def wait_file(path, timeout, proc=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return open(path).read()
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("%s exited (%d)" % (proc.args[0], proc.returncode))
        time.sleep(0.02)
    raise RuntimeError("no %s within %d s" % (path, timeout))


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))] if v else float("nan")


def rng(values, fmt="%.1f"):
    return (fmt + " – " + fmt) % (min(values), max(values)) if values else "n/a"


def read_times(path):
    times = {}
    for line in open(path):
        seq, t = line.split()
        times.setdefault(int(seq), int(t))
    return times


def bench_common(build, seconds):
    tool = os.path.join(build, "tools", "donar-bench-elements")
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, "gst"))
    return tool, env, ["--seconds", str(seconds), "--warmup", "2", "--tail", "3"]


def pair_results(procs, seconds):
    res = {}
    for role, p in procs:
        out, _ = p.communicate(timeout=seconds + 60)
        if p.returncode != 0:
            raise RuntimeError("donar-bench-elements %s exited %d" % (role, p.returncode))
        res[role] = json.loads(out.strip().splitlines()[-1])
    PROCS.clear()
    return res


def pair_delays(tmp):
    lat = []
    for a, b in (("caller", "callee"), ("callee", "caller")):
        sent = read_times(os.path.join(tmp, a + ".sent"))
        recv = read_times(os.path.join(tmp, b + ".recv"))
        lat += [(recv[s] - t) / 1000.0 for s, t in sent.items() if s in recv]
    return lat


def elements_run(build, tmp, seconds, policy):
    """One call of two donar-bench-elements: each end's figures, and the
    one-way delays of both directions."""
    tool, env, common = bench_common(build, seconds)
    common = common + ["--policy", policy]
    address = os.path.join(tmp, "address")
    if os.path.exists(address):
        os.unlink(address)
    callee = start([tool, "callee", "--address-file", address,
                    "--times", os.path.join(tmp, "callee")] + common,
                   env=env, stdout=subprocess.PIPE, text=True)
    addr = wait_file(address, 20, callee).strip()
    caller = start([tool, "caller", "--address", addr,
                    "--times", os.path.join(tmp, "caller")] + common,
                   env=env, stdout=subprocess.PIPE, text=True)
    res = pair_results((("caller", caller), ("callee", callee)), seconds)
    return res, pair_delays(tmp)


def udp_ports():
    """Two free UDP ports on 127.0.0.1 (free when asked; nothing else here
    binds UDP ports in between)."""
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def udp_run(build, tmp, seconds):
    """The anchor: two donar-bench-elements --udp, each the other's peer,
    the same frames as a call each way; figures and delays as a call's."""
    tool, env, common = bench_common(build, seconds)
    a, b = udp_ports()
    procs = []
    for role, port, peer in (("callee", a, b), ("caller", b, a)):
        procs.append((role, start([
            tool, role, "--udp", "--port", str(port), "--peer-port", str(peer),
            "--times", os.path.join(tmp, role)] + common,
            env=env, stdout=subprocess.PIPE, text=True)))
    res = pair_results(procs, seconds)
    return res, pair_delays(tmp)


def baseline_runs(build, seconds, n=2):
    tool, env, common = bench_common(build, seconds)
    base = []
    for _ in range(n):
        out = subprocess.run([tool, "--baseline"] + common, env=env, check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        base.append(json.loads(out.strip().splitlines()[-1]))
    return base


def callgrind_summary(path):
    for line in open(path):
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError("no summary in " + path)


def callgrind_run(build, tmp, seconds):
    """Instructions (user space, all threads) per frame event of the window,
    each end, the anchor's (udp-caller, udp-callee) and the baseline under
    valgrind --tool=callgrind."""
    tool = os.path.join(build, "tools", "donar-bench-elements")
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, "gst"))
    address = os.path.join(tmp, "cg-address")
    if os.path.exists(address):
        os.unlink(address)

    def vg(name):
        return ["valgrind", "--tool=callgrind", "-q",
                "--callgrind-out-file=" + os.path.join(tmp, "cg-" + name)]
    common = ["--seconds", str(seconds), "--warmup", "3", "--tail", "5"]
    callee = start(vg("callee") + [tool, "callee", "--address-file", address] + common,
                   env=env, stdout=subprocess.PIPE, text=True)
    addr = wait_file(address, 60, callee).strip()
    caller = start(vg("caller") + [tool, "caller", "--address", addr] + common,
                   env=env, stdout=subprocess.PIPE, text=True)
    res = {}
    for role, p in (("caller", caller), ("callee", callee)):
        out, _ = p.communicate(timeout=seconds + 120)
        res[role] = json.loads(out.strip().splitlines()[-1])
    PROCS.clear()
    a, b = udp_ports()
    procs = []
    for role, port, peer in (("callee", a, b), ("caller", b, a)):
        procs.append(("udp-" + role, start(vg("udp-" + role) + [
            tool, role, "--udp", "--port", str(port), "--peer-port", str(peer)] + common,
            env=env, stdout=subprocess.PIPE, text=True)))
    for role, p in procs:
        out, _ = p.communicate(timeout=seconds + 120)
        res[role] = json.loads(out.strip().splitlines()[-1])
    PROCS.clear()
    out = subprocess.run(vg("baseline") + [tool, "--baseline"] + common, env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    res["baseline"] = json.loads(out.strip().splitlines()[-1])
    ir = {}
    for name, r in res.items():
        events = (r["frames_sent"] + r["frames_received"]) / 2
        # The dump of the client request at the window's end: FILE.1.
        ir[name] = callgrind_summary(os.path.join(tmp, "cg-%s.1" % name)) / events
    return ir


def donar_call_direct(build, tmp, seconds):
    tool = os.path.join(build, "tools", "donar-call")
    address = os.path.join(tmp, "call-address")
    if os.path.exists(address):
        os.unlink(address)
    callee = start([tool, "callee", "--direct", "--quiet", "--json", "--address-file", address,
                    "--seconds", str(seconds + 3)], stdout=subprocess.PIPE, text=True)
    addr = wait_file(address, 20, callee).strip()
    caller = subprocess.run([tool, "caller", addr, "--direct", "--quiet", "--json",
                             "--wait-links", "12", "--seconds", str(seconds)],
                            stdout=subprocess.PIPE, text=True, check=True).stdout
    out, _ = callee.communicate(timeout=seconds + 30)
    PROCS.clear()
    return json.loads(caller.strip().splitlines()[-1]), json.loads(out.strip().splitlines()[-1])


def torsim_links(build, tmp, seed):
    torsim = os.path.join(build, "tools", "donar-torsim")
    tool = os.path.join(build, "tools", "donar-call")
    ports = os.path.join(tmp, "ports-%d" % seed)
    address = os.path.join(tmp, "torsim-address-%d" % seed)
    start([torsim, "--port-file", ports, "--seed", str(seed)], stdout=subprocess.DEVNULL,
          stderr=subprocess.DEVNULL)
    text = wait_file(ports, 10)
    while "CONTROL_PORT=" not in text:
        time.sleep(0.02)
        text = open(ports).read()
    control = [l.split("=", 1)[1] for l in text.splitlines() if l.startswith("CONTROL_PORT=")][0]
    callee = start([tool, "callee", "--tor-control", control, "--quiet", "--json",
                    "--address-file", address, "--seconds", "8"],
                   stdout=subprocess.PIPE, text=True)
    # The address comes once the descriptor is uploaded: the onion is reachable.
    addr = wait_file(address, 30, callee).strip()
    caller = subprocess.run([tool, "caller", addr, "--tor-control", control, "--quiet",
                             "--json", "--wait-links", "12", "--seconds", "1"],
                            stdout=subprocess.PIPE, text=True, check=True).stdout
    stop_all()
    return json.loads(caller.strip().splitlines()[-1])["all_links_up_s"]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def tor_network_links(build, tmp, runs):
    """Over the private Tor network: one network, a callee tor, a new
    callee (a new onion) per run."""
    net_sh = os.path.join(TOP, "tools", "tornet", "tor-network.sh")
    tool = os.path.join(build, "tools", "donar-call")
    net = os.path.join(tmp, "net")
    env_text = subprocess.run([net_sh, "start", net, "--relays", "8"], check=True,
                              stdout=subprocess.PIPE, text=True).stdout
    env = dict(l.split("=", 1) for l in env_text.splitlines() if "=" in l)
    times = []
    try:
        ctl = free_port()
        ctor = os.path.join(tmp, "callee-tor")
        os.mkdir(ctor, 0o700)
        with open(os.path.join(ctor, "torrc"), "w") as f:
            f.write("%%include %s\nDataDirectory %s\nSocksPort 0\nControlPort 127.0.0.1:%d\n"
                    "CookieAuthentication 1\nLog notice file %s/notice.log\n"
                    % (env["TOR_TORRC_INCLUDE"], ctor, ctl, ctor))
        start(["tor", "-f", os.path.join(ctor, "torrc"), "--defaults-torrc", "/dev/null"],
              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            log = os.path.join(ctor, "notice.log")
            if os.path.exists(log) and "Bootstrapped 100%" in open(log).read():
                break
            time.sleep(0.2)
        for run in range(runs):
            address = os.path.join(tmp, "tor-address-%d" % run)
            callee = start([tool, "callee", "--tor-control", str(ctl), "--tor-cookie",
                            os.path.join(ctor, "control_auth_cookie"), "--quiet", "--json",
                            "--address-file", address, "--seconds", "30",
                            "--setup-timeout", "90"], stdout=subprocess.PIPE, text=True)
            addr = wait_file(address, 120, callee).strip()
            out = subprocess.run([tool, "caller", addr, "--tor-control", env["TOR_CONTROL_PORT"],
                                  "--tor-cookie", env["TOR_COOKIE"], "--quiet", "--json",
                                  "--wait-links", "12", "--seconds", "1",
                                  "--setup-timeout", "60"],
                                 stdout=subprocess.PIPE, text=True, check=True).stdout
            t = json.loads(out.strip().splitlines()[-1])["all_links_up_s"]
            print("  tor network run %d: all 12 links open %.2f s after dialing" % (run + 1, t),
                  flush=True)
            times.append(t)
            callee.send_signal(signal.SIGTERM)
            callee.wait(timeout=20)
            PROCS.remove(callee)
    finally:
        stop_all()
        subprocess.run([net_sh, "stop", net], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return times


def mean(values):
    return sum(values) / len(values)


def report_table(modes, policies, ratios):
    """The table of docs/performance.md: each mode's ranges over its runs and
    ends, the ratio to the anchor within each run."""
    cols = ["baseline", "udp"] + policies
    names = {"baseline": "baseline (appsrc ! fakesink ×2)",
             "udp": "udpsink / udpsrc (the anchor)"}
    print("\n| per frame event | " + " | ".join(
        names.get(c, "DONAR " + c.upper()) for c in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")

    def row(label, f):
        print("| %s | %s |" % (label, " | ".join(f(c) for c in cols)))
    row("CPU, whole endpoint (µs)", lambda c: rng(modes[c]["cpu"]))
    row("CPU beyond the baseline (µs)",
        lambda c: "–" if c == "baseline" else rng(modes[c]["cpu_beyond"]))
    row("… ÷ the anchor's, same run",
        lambda c: rng(ratios[c], "%.2f") if c in ratios else "–")
    row("context switches, whole endpoint", lambda c: rng(modes[c]["sw"], "%.2f"))
    row("context switches beyond the baseline",
        lambda c: "–" if c == "baseline" else rng(modes[c]["sw_beyond"], "%+.2f"))
    row("… of them voluntary (the threads' waits)",
        lambda c: "–" if c == "baseline" else rng(modes[c]["vol_beyond"], "%+.2f"))
    row("one-way delay p50 / p99 (ms)", lambda c: "–" if c == "baseline" else "%s / %s" % (
        rng([x[0] for x in modes[c]["lat"]], "%.2f"),
        rng([x[1] for x in modes[c]["lat"]], "%.2f")))
    row("VmRSS beyond the baseline (MiB)",
        lambda c: "–" if c == "baseline" else rng(modes[c]["rss_beyond"]))
    print(flush=True)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=20,
                    help="the measured window of each run (20)")
    ap.add_argument("--policies", default="alternate",
                    help="comma-separated policies of the DONAR calls, each in every run "
                    "(alternate; e.g. alternate,double-send,adaptive)")
    ap.add_argument("--skip-torsim", action="store_true")
    ap.add_argument("--links-only", action="store_true",
                    help="only the time to all links (4.), not 1.-3.")
    ap.add_argument("--tor-network", action="store_true",
                    help="also over the private Tor network (tools/tornet/tor-network.sh, ~1 min a run)")
    ap.add_argument("--callgrind", action="store_true",
                    help="also count instructions per frame event under valgrind's callgrind")
    ap.add_argument("--load", type=int, default=0, metavar="N",
                    help="keep N cores busy (N spinning processes) all along (0)")
    ap.add_argument("--json", action="store_true", help="print every figure as JSON too")
    a = ap.parse_args()
    if a.load < 0:
        ap.error("--load needs 0 or more processes")
    return a


def record_mode(m, run, mode, got, base):
    """A mode's two endpoints of one run into m, beside the run's baseline."""
    res, lats = got
    for role in ("caller", "callee"):
        r = res[role]
        m["cpu"].append(r["cpu_us_per_event"])
        m["cpu_beyond"].append(r["cpu_us_per_event"] - base["cpu"])
        m["sw"].append(r["switches_per_event"])
        m["sw_beyond"].append(r["switches_per_event"] - base["sw"])
        m["vol_beyond"].append(r["voluntary_switches_per_event"] - base["vol"])
        m["rss_beyond"].append((r["vmrss_kib"] - base["rss"]) / 1024)
        m["hwm_beyond"].append((r["vmhwm_kib"] - base["hwm"]) / 1024)
        print("  run %d %s %s: %.1f µs/event (%+.1f), %.2f switches/event "
              "(%+.2f; voluntary %+.2f), VmRSS %.1f MiB, VmHWM %.1f MiB, %d frames sent, "
              "%d received"
              % (run + 1, mode, role, r["cpu_us_per_event"],
                 r["cpu_us_per_event"] - base["cpu"], r["switches_per_event"],
                 r["switches_per_event"] - base["sw"],
                 r["voluntary_switches_per_event"] - base["vol"],
                 r["vmrss_kib"] / 1024,
                 r["vmhwm_kib"] / 1024, r["frames_sent"],
                 r["frames_received"]), flush=True)
    print("  run %d %s one-way delay sink -> src: p50 %.3f ms, p99 %.3f ms, "
          "max %.3f ms (%d frames)" % (run + 1, mode, pct(lats, .5),
                                      pct(lats, .99), max(lats), len(lats)),
          flush=True)
    m["lat"].append((pct(lats, .5), pct(lats, .99), max(lats)))


def measure_run(build, tmp, seconds, policies, run, modes, ratios):
    """One run: every mode within minutes, on the same load."""
    got = {}
    for policy in policies:
        got[policy] = elements_run(build, tmp, seconds, policy)
    got["udp"] = udp_run(build, tmp, seconds)
    baselines = baseline_runs(build, seconds)
    base = {"cpu": min(x["cpu_us_per_event"] for x in baselines),
            "sw": min(x["switches_per_event"] for x in baselines),
            "vol": min(x["voluntary_switches_per_event"] for x in baselines),
            "rss": min(x["vmrss_kib"] for x in baselines),
            "hwm": min(x["vmhwm_kib"] for x in baselines)}
    modes["baseline"]["cpu"].append(base["cpu"])
    modes["baseline"]["sw"].append(base["sw"])
    print("  run %d baseline (best of 2): %.1f µs/event, %.2f switches/event "
          "(%.2f voluntary), VmRSS %.1f MiB"
          % (run + 1, base["cpu"], base["sw"], base["vol"], base["rss"] / 1024),
          flush=True)
    for mode in ["udp"] + policies:
        record_mode(modes[mode], run, mode, got[mode], base)
    u = mean(modes["udp"]["cpu_beyond"][-2:])
    for policy in policies:
        d = mean(modes[policy]["cpu_beyond"][-2:])
        ratios.setdefault(policy, []).append(d / u if u > 0 else float("nan"))
        print("  run %d %s CPU beyond the baseline ÷ the anchor's: %.2f"
              % (run + 1, policy, ratios[policy][-1]), flush=True)


def measure_endpoints(a, build, tmp, results):
    """1-3: CPU, memory and delay of one endpoint, each policy against the
    anchor and the baseline."""
    policies = [p for p in a.policies.split(",") if p]
    modes = {m: {k: [] for k in ("cpu", "cpu_beyond", "sw", "sw_beyond", "vol_beyond",
                                 "rss_beyond", "hwm_beyond", "lat")}
             for m in ["baseline", "udp"] + policies}
    ratios = {}
    print("# 1-3: one endpoint (12 links, 25 frames/s each way, direct), "
          "%d runs of %.0f s; in each run a call per policy (%s), the anchor "
          "(udpsink/udpsrc) and the baseline" % (a.runs, a.seconds,
                                                  ", ".join(policies)),
          flush=True)
    for run in range(a.runs):
        measure_run(build, tmp, a.seconds, policies, run, modes, ratios)
    results["modes"] = modes
    results["ratio_to_anchor"] = ratios
    report_table(modes, policies, ratios)


def measure_instructions(a, build, tmp, results):
    """3. under callgrind: instructions per frame event beyond the baseline."""
    irs, irs_udp = [], []
    for run in range(a.runs):
        ir = callgrind_run(build, tmp, min(a.seconds, 10))
        print("  callgrind run %d: instructions per frame event: caller %.0f, "
              "callee %.0f, udp caller %.0f, udp callee %.0f, baseline %.0f"
              % (run + 1, ir["caller"], ir["callee"], ir["udp-caller"],
                 ir["udp-callee"], ir["baseline"]), flush=True)
        irs += [ir["caller"] - ir["baseline"], ir["callee"] - ir["baseline"]]
        irs_udp += [ir["udp-caller"] - ir["baseline"],
                    ir["udp-callee"] - ir["baseline"]]
    results["instructions_per_event"] = irs
    results["udp_instructions_per_event"] = irs_udp
    print("user-space instructions per frame event beyond the baseline: DONAR "
          "(alternate) %s, udpsink/udpsrc %s"
          % (rng(irs, "%.0f"), rng(irs_udp, "%.0f")), flush=True)


def measure_donar_call(a, build, tmp, results):
    """3. donar-call --direct's own one-way p99, both ends."""
    dc = []
    for run in range(a.runs):
        caller, callee = donar_call_direct(build, tmp, min(a.seconds, 10))
        dc += [caller["latency_ms"]["p99"], callee["latency_ms"]["p99"]]
    results["donar_call_direct_p99_ms"] = dc
    print("donar-call --direct one-way p99 (both ends, %d runs): %s ms"
          % (a.runs, rng(dc)), flush=True)


def measure_links(a, build, tmp, results):
    """4. the time to all 12 links open."""
    if not a.skip_torsim:
        t = [torsim_links(build, tmp, seed) for seed in range(1, a.runs + 1)]
        results["torsim_all_links_s"] = t
        print("donar-torsim (seeds 1-%d): all 12 links open %s s after dialing"
              % (a.runs, rng(t, "%.2f")), flush=True)
    if a.tor_network:
        t = tor_network_links(build, tmp, a.runs)
        results["tor_network_all_links_s"] = t
        print("private Tor network: all 12 links open %s s after dialing"
              % rng(t, "%.2f"), flush=True)


def main():
    a = parse_args()
    build = os.path.abspath(a.build)
    results = {"load": a.load}
    load = []
    with tempfile.TemporaryDirectory(prefix="bench-elements-") as tmp:
        try:
            if a.load:
                load = start_load(a.load)
                print("# under load: %d spinning processes (PIDs %s) all along"
                      % (a.load, ", ".join(str(p.pid) for p in load)), flush=True)
            runs = 0 if a.links_only else a.runs
            if runs:
                measure_endpoints(a, build, tmp, results)
            if a.callgrind and runs:
                measure_instructions(a, build, tmp, results)
            if runs:
                measure_donar_call(a, build, tmp, results)
            measure_links(a, build, tmp, results)
        finally:
            stop_all()
            stop_load(load)
    if a.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
