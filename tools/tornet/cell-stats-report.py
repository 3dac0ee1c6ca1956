#!/usr/bin/env python3
"""Where the calls' cells waited: reads a calibration run kept with
TOR_NETWORK_CELL_STATS=1 (calibrate-tornet.py --keep DIR) and prints, for
the tors' circuit queues (tor's CELL_STATS events, logged by
cell-stats.py), the voice circuits' per-cell waits next to the calls'
late frames.

    cell-stats-report.py DIR [--round R] [--late-ms 1000]

Reads DIR/round<R>-*-caller.csv, -callee.csv and their -caller.log,
-callee.log (the frame logs' origin on CLOCK_MONOTONIC), DIR/round<R>-
circuits.txt (the clients' rendezvous circuits), DIR/run/net/cellstats/
(the relays' events), DIR/run/cellstats-round<R>/ (the caller's and
callee's tors) and DIR/run/net/shaper/relays (capacities). Every time is
on CLOCK_MONOTONIC, the clock of cell-stats.py's first column.

A voice circuit at a relay: one that carried, over 20 s or more, 10 to 60
relay cells a second in both directions (a 172-byte frame every 40 ms
each way is 25 cells a second); the bulk circuits carry hundreds one way.
Its place on a call's path is told by its neighbours (the previous and
next relay, or a client: the channels' peers from tor's dumps). Standard library only.
"""

import argparse
import collections
import csv
import glob
import os
import re
import statistics

RELAY_CMDS = ('relay', 'relay_early')


def kv(tokens):
    out = {}
    for t in tokens:
        if '=' in t:
            k, v = t.split('=', 1)
            out[k] = v
    return out


def by_cmd(v):
    """'relay:12,create2:1' -> {'relay': 12, 'create2': 1}"""
    out = {}
    for part in v.split(','):
        if ':' in part:
            c, n = part.split(':', 1)
            out[c] = int(n)
    return out


def relay_sum(d):
    return sum(d.get(c, 0) for c in RELAY_CMDS)


class Tor:
    """One tor's events: queue records, conn peers, BW, CIRC_BW."""

    def __init__(self, name, path, fp_names):
        self.name = name
        # (direction, conn, queue, circuit id or None) -> [(t, removed,
        # wait_ms)]
        self.queues = collections.defaultdict(list)
        self.links = {}      # ('I', conn, q) <-> ('O', conn, q)
        self.peer = {}       # channel id -> relay nickname or 'client'
        self.bufs = []       # (t, peer, 'inbuf'|'outbuf', bytes)
        conn_peer = {}
        self.bw = []         # (t, read, written)
        self.circ_bw = collections.defaultdict(list)
        for line in open(path, errors='replace'):
            parts = line.split()
            if len(parts) < 4 or parts[2] != '650':
                continue
            t, ev = float(parts[0]), parts[3]
            if ev == 'CELL_STATS':
                f = kv(parts[4:])
                cid = f.get('ID')
                keys = {}
                for d, pre in (('I', 'Inbound'), ('O', 'Outbound')):
                    if pre + 'Queue' not in f:
                        continue
                    key = (d, f[pre + 'Conn'], f[pre + 'Queue'])
                    keys[d] = key
                    rem = by_cmd(f.get(pre + 'Removed', ''))
                    tim = by_cmd(f.get(pre + 'Time', ''))
                    self.queues[key].append(
                        (t, relay_sum(rem), relay_sum(tim), cid))
                if len(keys) == 2:
                    self.links[keys['I']] = keys['O']
                    self.links[keys['O']] = keys['I']
            elif ev == 'INFO':
                # tor's dumpstats (cell-stats.py --dump-every): channel
                # ids (CELL_STATS's Conn) to peers, connections' buffers.
                text = ' '.join(parts[4:])
                m = re.match(r'\* Channel (\d+) says it is connected to an OR '
                             r'with digest (\w+)', text)
                if m:
                    self.peer[m.group(1)] = fp_names.get(m.group(2), 'client')
                m = re.match(r'Conn (\d+) \(socket \d+\) is a OR connection '
                             r'\(open\) with (\S+)(?: .*RSA_ID=(\w+))?', text)
                if m:
                    conn_peer[m.group(1)] = fp_names.get(
                        m.group(3) or '', 'client ' + m.group(2))
                m = re.match(r'Conn (\d+): (\d+) bytes waiting on (inbuf|'
                             r'outbuf)', text)
                if m and m.group(1) in conn_peer:
                    self.bufs.append((t, conn_peer[m.group(1)], m.group(3),
                                      int(m.group(2))))
                if text.startswith('Dumping stats'):
                    conn_peer = {}
            elif ev == 'BW':
                self.bw.append((t, int(parts[4]), int(parts[5])))
            elif ev == 'CIRC_BW':
                f = kv(parts[4:])
                self.circ_bw[f['ID']].append((t, f))

    def circuits(self):
        """[(inbound key or None, outbound key or None)]"""
        seen, out = set(), []
        for key in self.queues:
            if key in seen:
                continue
            other = self.links.get(key)
            seen.add(key)
            if other:
                seen.add(other)
            pair = (key, other) if key[0] == 'I' else (other, key)
            out.append(pair)
        return out


def stats(recs, t0=None, t1=None):
    """(cells, seconds spanned, mean wait ms, max per-second mean wait ms,
    time of that max) of a queue's records, within [t0, t1] if given."""
    recs = [r for r in recs if (t0 is None or r[0] >= t0)
            and (t1 is None or r[0] <= t1)]
    cells = sum(r[1] for r in recs)
    if not recs or not cells:
        return 0, 0, 0.0, 0.0, None
    span = recs[-1][0] - recs[0][0] + 1
    worst = max((r for r in recs if r[1]), key=lambda r: r[2] / r[1])
    return (cells, span, sum(r[2] for r in recs) / cells,
            worst[2] / worst[1], worst[0])


def read_frames(csv_path, log_path):
    """[(arrival time on CLOCK_MONOTONIC s, latency ms)] of a frame log."""
    origin = None
    for line in open(log_path, errors='replace'):
        m = re.search(r'frame-log: origin (\d+) us', line)
        if m:
            origin = int(m.group(1)) / 1e6
    if origin is None:
        return []
    out = []
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            if row['arrival_ms']:
                a = float(row['arrival_ms'])
                out.append((origin + a / 1000, a - float(row['sent_ms'])))
    return out


def late_windows(frames, late_ms):
    """[(start, end, worst ms, frames)] of runs of frames later than
    late_ms (gaps under 2 s joined)."""
    out = []
    for t, lat in frames:
        if lat <= late_ms:
            continue
        if out and t - out[-1][1] < 2:
            s, _, w, n = out[-1]
            out[-1] = (s, t, max(w, lat), n + 1)
        else:
            out.append((t, t, lat, 1))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('dir')
    p.add_argument('--round', type=int, default=0)
    p.add_argument('--late-ms', type=float, default=1000)
    p.add_argument('--min-wait-ms', type=float, default=500,
                   help='list every circuit queue whose cells waited more '
                   'than this in some second')
    args = p.parse_args()
    d, r = args.dir, args.round
    net = os.path.join(d, 'run', 'net')
    fp_names, capacity = {}, {}
    for fpf in glob.glob(os.path.join(net, '*', 'fingerprint')):
        name, fp = open(fpf).read().split()[:2]
        fp_names[fp] = name
    for line in open(os.path.join(net, 'shaper', 'relays')):
        f = line.split()
        c = kv(f[1:]).get('capacity_kib', 'none')
        capacity[f[0]] = None if c == 'none' else int(c)

    # The calls: late windows of each direction.
    print(f'== calls of round {r}: frames later than {args.late_ms:g} ms '
          '(CLOCK_MONOTONIC s) ==')
    calls = {}
    t_min, t_max = None, None
    for cc in sorted(glob.glob(os.path.join(d, f'round{r}-*-callee.csv'))):
        base = cc[:-len('-callee.csv')]
        name = os.path.basename(base)
        onion = ''
        if os.path.exists(base + '-address'):
            m = re.search(r'(\w{56})\.onion', open(base + '-address').read())
            onion = m.group(1) if m else ''
        fwd = read_frames(base + '-callee.csv', base + '-callee.log')
        back = read_frames(base + '-caller.csv', base + '-caller.log') \
            if os.path.exists(base + '-caller.csv') else []
        calls[name] = (onion, fwd, back)
        for label, fr in (('caller->callee', fwd), ('callee->caller', back)):
            if not fr:
                continue
            t_min = fr[0][0] if t_min is None else min(t_min, fr[0][0])
            t_max = fr[-1][0] if t_max is None else max(t_max, fr[-1][0])
            lats = sorted(x for _, x in fr)
            w = late_windows(fr, args.late_ms)
            print(f'{name} {label}: {len(fr)} frames, median '
                  f'{statistics.median(lats):.0f} ms, '
                  f'{sum(1 for x in lats if x > 360)} > 360 ms; late: '
                  + ', '.join(f'{a:.0f}-{b:.0f} (worst {m / 1000:.1f} s, '
                              f'{n} frames)' for a, b, m, n in w))

    # The clients' rendezvous circuits.
    circ_of = collections.defaultdict(dict)   # name -> side -> (id, path)
    onion_call = {v[0]: k for k, v in calls.items() if v[0]}
    cpath = os.path.join(d, f'round{r}-circuits.txt')
    if os.path.exists(cpath):
        for line in open(cpath):
            m = re.search(r'^\S+ (caller|callee) (\d+) BUILT (\S+) .*PURPOSE='
                          r'HS_(?:CLIENT|SERVICE)_REND .*REND_QUERY=(\w+)',
                          line)
            if m and m.group(4) in onion_call:
                path = [x.split('~')[-1] for x in m.group(3).split(',')]
                circ_of[onion_call[m.group(4)]].setdefault(
                    m.group(1), {})[m.group(2)] = path

    clients = {}
    for side in ('caller', 'callee'):
        f = os.path.join(d, 'run', f'cellstats-round{r}', f'{side}.events')
        if os.path.exists(f):
            clients[side] = Tor(side, f, fp_names)
    print('\n== the clients\' own circuit queues (outbound: towards the '
          'guard), voice circuits ==')
    for name in sorted(calls):
        for side, circs in sorted(circ_of.get(name, {}).items()):
            tor = clients.get(side)
            for cid, path in circs.items():
                if tor is None:
                    continue
                recs = [rec for k, v in tor.queues.items() for rec in v
                        if rec[3] == cid and k[0] == 'O']
                recs.sort()
                cells, span, mean, worst, at = stats(recs)
                cw = tor.circ_bw.get(cid, [])
                cwnd = [int(f['CWND']) for _, f in cw if 'CWND' in f]
                rtt = [int(f['RTT']) for _, f in cw if 'RTT' in f]
                print(f'{name} {side} circuit {cid} {",".join(path)}: '
                      f'{cells} cells out over {span:.0f} s, wait mean '
                      f'{mean:.0f} ms, worst second {worst:.0f} ms'
                      + (f' at {at:.0f}' if at else '')
                      + (f'; CWND {min(cwnd)}-{max(cwnd)}, RTT '
                         f'{min(rtt)}-{max(rtt)} ms' if cwnd and rtt else
                         '; no congestion control fields in CIRC_BW'))

    # The relays.
    if t_min is None:
        t_min, t_max = 0.0, float('inf')
    relays = {}
    for f in sorted(glob.glob(os.path.join(net, 'cellstats', '*.events'))):
        name = os.path.basename(f)[:-len('.events')]
        relays[name] = Tor(name, f, fp_names)
    print(f'\n== relays: bytes a second against RelayBandwidthRate, '
          f'{t_min:.0f}-{t_max:.0f} ==')
    for name, tor in sorted(relays.items(), key=lambda x: (len(x[0]), x[0])):
        bw = [(t, rd, wr) for t, rd, wr in tor.bw if t_min <= t <= t_max]
        cap = capacity.get(name)
        if not bw:
            continue
        rd = [x[1] / 1024 for x in bw]
        wr = [x[2] / 1024 for x in bw]
        line = (f'{name}: read KiB/s median {statistics.median(rd):.0f} '
                f'max {max(rd):.0f}, written median {statistics.median(wr):.0f}'
                f' max {max(wr):.0f}')
        if cap:
            line += (f'; capacity {cap}: seconds at >= 90 % read '
                     f'{sum(1 for x in rd if x >= 0.9 * cap)}, written '
                     f'{sum(1 for x in wr if x >= 0.9 * cap)} of {len(bw)}')
        print(line)

    print(f'\n== relays: voice-like circuits (10-60 relay cells/s each way '
          'over >= 20 s) ==')
    print('relay prev->next: inbound (towards the circuit\'s origin) cells, '
          'mean / worst-second wait ms | outbound the same')
    for name, tor in sorted(relays.items(), key=lambda x: (len(x[0]), x[0])):
        for ik, ok in tor.circuits():
            si = stats(tor.queues[ik]) if ik else (0, 0, 0, 0, None)
            so = stats(tor.queues[ok]) if ok else (0, 0, 0, 0, None)
            ri = si[0] / si[1] if si[1] else 0
            ro = so[0] / so[1] if so[1] else 0
            if not (si[1] >= 20 and so[1] >= 20 and 10 <= ri <= 60
                    and 10 <= ro <= 60):
                continue
            prev = tor.peer.get(ik[1], '?') if ik else '-'
            nxt = tor.peer.get(ok[1], '?') if ok else '-'
            start = min(x[0] for k in (ik, ok) if k for x in tor.queues[k])
            print(f'{name} {prev}->{nxt} from {start:.0f}: in {si[0]} '
                  f'({ri:.0f}/s) {si[2]:.0f} / {si[3]:.0f}'
                  + (f' at {si[4]:.0f}' if si[4] else '')
                  + f' | out {so[0]} ({ro:.0f}/s) {so[2]:.0f} / {so[3]:.0f}'
                  + (f' at {so[4]:.0f}' if so[4] else ''))

    print('\n== relays: the largest connection buffers (tor\'s dumps, KiB;'
          ' inbuf: read, not yet processed; outbuf: not yet written to the '
          'kernel) ==')
    for name, tor in sorted(relays.items(), key=lambda x: (len(x[0]), x[0])):
        top = sorted(tor.bufs, key=lambda b: -b[3])[:3]
        if top and top[0][3] >= 64 * 1024:
            print(f'{name}: ' + ', '.join(
                f'{w} to/from {p} {n / 1024:.0f} at {t:.0f}'
                for t, p, w, n in top))
    for side, tor in sorted(clients.items()):
        top = sorted(tor.bufs, key=lambda b: -b[3])[:3]
        if top:
            print(f'{side} tor: ' + ', '.join(
                f'{w} to/from {p} {n / 1024:.0f} at {t:.0f}'
                for t, p, w, n in top))

    print(f'\n== relays: every circuit queue whose cells waited more than '
          f'{args.min_wait_ms:g} ms in some second ==')
    for name, tor in sorted(relays.items(), key=lambda x: (len(x[0]), x[0])):
        for key, recs in tor.queues.items():
            cells, span, mean, worst, at = stats(recs)
            if worst <= args.min_wait_ms:
                continue
            other = tor.links.get(key)
            ocells = sum(x[1] for x in tor.queues[other]) if other else 0
            print(f'{name} {key[0]} conn {key[1]} ({tor.peer.get(key[1], "?")})'
                  f': {cells} cells over {span:.0f} s ({cells / span:.0f}/s),'
                  f' wait mean {mean:.0f} ms, worst second {worst:.0f} ms at '
                  f'{at:.0f}; other direction {ocells} cells')


if __name__ == '__main__':
    main()
