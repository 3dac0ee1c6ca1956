"""Whether a late frame's links stay late: over real tor (a run that
evaluate-tornet.py kept) and over donar-sim, for one policy; and whether
calls through the same tors come late at the same moments.

  PYTHONPATH=tools/tornet python3 -m tornet report late-persistence [--keep build/tornet-eval]
      [--policy ALTERNATE] [--sim DIR]

ADAPTIVE picks a frame's links by news of them that is a round trip old.
That pays where a link late now is still late a round trip later, and
the links apart from it are not: lateness that belongs to links.  It
cannot pay where the links are late together, at the same moments:
lateness that belongs to moments.  So for every late frame (10 s into a
direction, up to 2 s before its end), of the frames sent 0.4 to 1 s after
it (the news of it is then back), this counts those whose chances cross
the same links (the links of its own copies and of the next frame's
messages, which carry it again) and those whose chances share no link
with it, and how many of each came late (later than 360 ms, or lost).

Over real tor the links come from each sender's `--send-log` and the
arrivals from the receiver's frame log; over donar-sim from the
`--frame-log` and `--send-log` of one directory, by default KEEP/sim-SLUG
(evaluate-tornet.py writes both there).  A policy that does not choose by
news (ALTERNATE, DOUBLE-SEND) measures the network; ADAPTIVE's own rows
are biased: it sends on the links it judged well.

Whose moments: of the policy's late frames over real tor, the share with
a late frame of another call of the same round, the same direction,
within 0.5 s (each end's frame log says its origin on the machine's
monotonic clock), for the calls through the same caller and callee tors
and for those through other tors; beside each, the same with the other
call's frames 20 s later and 20 s earlier: what chance alone gives.  Only
the policy's frames in the other call's span but its first and last 10 s
count, so that the shifted ones have frames to meet."""

import argparse
import bisect
import collections
import csv
import glob
import json
import os
import re
import sys

from . import link_use as LOGS

AFTER_MS = (400, 1000)
SKIP_START_MS = 10000
SKIP_END_MS = 2000
TOGETHER_MS = 500
CHANCE_SHIFTS_MS = (20000, -20000)




def direction(arrivals, own):
    """[(sent_ms, late, chances)] of the frames whose next frame was sent
    too: arrivals {seq: (sent_ms, late)}, own {seq: links}."""
    return [(arrivals[q][0], arrivals[q][1],
             frozenset(own[q]) | frozenset(own[q + 1]))
            for q in sorted(arrivals) if q in own and q + 1 in own]


def tor_directions(keep, policy):
    with open(os.path.join(keep, 'calls.json')) as f:
        calls = [c['name'] for c in json.load(f) if c['policy'] == policy]
    out = []
    for name in calls:
        for sender, receiver in (('caller', 'callee'), ('callee', 'caller')):
            sends = os.path.join(keep, f'{name}-{sender}-sends.csv')
            frames = os.path.join(keep, f'{name}-{receiver}.csv')
            if not (os.path.exists(sends) and os.path.exists(frames)):
                continue
            own = {seq: links for seq, (links, _, _)
                   in LOGS.read_sends(sends).items()}
            out.append(direction(LOGS.read_frames(frames), own))
    return out


def sim_directions(d):
    out = []
    for sends in sorted(glob.glob(os.path.join(d, 'call*-sends.csv'))):
        own = collections.defaultdict(set)
        with open(sends) as f:
            for r in csv.DictReader(f):
                own[(int(r['dir']), int(r['frame']))].add(int(r['link']))
        for di in (0, 1):
            path = re.sub(r'-sends\.csv$', f'-dir{di}.csv', sends)
            out.append(direction(LOGS.read_frames(path), {
                q: links for (k, q), links in own.items() if k == di}))
    return out


def persistence(directions):
    """Counter: frames and late ones (n, late); after each late frame, the
    frames on the same links and on links apart, and the late of each."""
    c = collections.Counter()
    for frames in directions:
        if not frames:
            continue
        sent = [f[0] for f in frames]
        end = sent[-1] - SKIP_END_MS
        for t, is_late, chances in frames:
            if t < SKIP_START_MS or t > end:
                continue
            c['n'] += 1
            c['late'] += is_late
            if not is_late:
                continue
            lo = bisect.bisect_left(sent, t + AFTER_MS[0])
            hi = bisect.bisect_left(sent, t + AFTER_MS[1])
            for _, later_late, later in frames[lo:hi]:
                if later == chances:
                    kind = 'same'
                elif not later & chances:
                    kind = 'apart'
                else:
                    continue
                c[kind] += 1
                c[kind + ' late'] += later_late
    return c


def origin_ms(path):
    with open(path) as f:
        for text in f:
            m = re.match(r'frame-log: origin (\d+) us', text)
            if m:
                return int(m.group(1)) / 1000.0
    return None


def moments(keep, name, sender):
    """[(time on the machine's clock in ms, late)] of one direction's
    frames, or None without its logs."""
    receiver = 'callee' if sender == 'caller' else 'caller'
    frames = os.path.join(keep, f'{name}-{receiver}.csv')
    log = os.path.join(keep, f'{name}-{sender}.log')
    if not (os.path.exists(frames) and os.path.exists(log)):
        return None
    start = origin_ms(log)
    if start is None:
        return None
    frames = LOGS.read_frames(frames)
    return [(start + frames[q][0], frames[q][1]) for q in sorted(frames)]


def together(keep, policy):
    """Counter: for 'same' and 'other' tors, the policy's late frames
    counted and those with a late frame of the other call within
    TOGETHER_MS; and the same against the other call shifted."""
    with open(os.path.join(keep, 'calls.json')) as f:
        calls = json.load(f)
    c = collections.Counter()
    for call in calls:
        if call['policy'] != policy or 'tor_pair' not in call:
            continue
        for other in calls:
            if other is call or other.get('round') != call['round'] or \
                    'tor_pair' not in other:
                continue
            kind = 'same' if other['tor_pair'] == call['tor_pair'] \
                else 'other'
            for sender in ('caller', 'callee'):
                mine = moments(keep, call['name'], sender)
                theirs = moments(keep, other['name'], sender)
                if not mine or not theirs:
                    continue
                their_late = sorted(t for t, is_late in theirs if is_late)
                first = theirs[0][0] + SKIP_START_MS
                last = theirs[-1][0] - SKIP_START_MS
                for t, is_late in mine:
                    if not is_late or t < first or t > last:
                        continue
                    for shift in (0,) + CHANCE_SHIFTS_MS:
                        at = t + shift
                        i = bisect.bisect_left(their_late, at - TOGETHER_MS)
                        hit = i < len(their_late) and \
                            their_late[i] <= at + TOGETHER_MS
                        key = kind if shift == 0 else kind + ' chance'
                        c[key] += 1
                        c[key + ' hit'] += hit
    return c


def together_line(policy, c):
    def share(k):
        return 100.0 * c[k + ' hit'] / c[k] if c[k] else 0.0
    parts = []
    for kind, label in (('same', 'the same tors'), ('other', 'other tors')):
        if c[kind]:
            parts.append(f'through {label} {share(kind):.0f} % ({c[kind]}; '
                         f'20 s apart {share(kind + " chance"):.0f} %)')
    return (f"{policy}'s late frames with one of another call's within "
            f"0.5 s: {', '.join(parts) if parts else 'no other call'}")


def line(label, c):
    def share(k):
        return 100.0 * c[k + ' late'] / c[k] if c[k] else 0.0
    ratio = (f'{share("same") / share("apart"):.1f} times'
             if c['apart late'] else 'no late frame apart')
    return (f'{label}: {c["n"]} frames, {100.0 * c["late"] / max(1, c["n"]):.2f} '
            f'% late; of the frames 0.4-1 s after a late one, on the same '
            f'links {share("same"):.1f} % late ({c["same"]}), on links apart '
            f'{share("apart"):.1f} % late ({c["apart"]}): {ratio}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--keep', default='build/tornet-eval')
    ap.add_argument('--policy', default='ALTERNATE',
                    help="a label of the run's calls.json")
    ap.add_argument('--sim', help='a donar-sim --frame-log and --send-log '
                    'directory (default KEEP/sim-SLUG)')
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.keep, 'calls.json')):
        sys.exit(f'late-persistence: no calls.json in {args.keep}: the '
                 '--keep directory of an evaluate-tornet.py run')
    tor = tor_directions(args.keep, args.policy)
    if not tor:
        sys.exit(f'late-persistence: no call of {args.policy!r} with send '
                 f'logs in {args.keep}')
    print(line(f'{args.policy} over real tor', persistence(tor)))
    print(together_line(args.policy, together(args.keep, args.policy)))
    sim = args.sim or os.path.join(
        args.keep, 'sim-' + args.policy.lower().replace(' ', '-'))
    if glob.glob(os.path.join(sim, 'call*-sends.csv')):
        print(line(f'{args.policy} over donar-sim', persistence(
            sim_directions(sim))))
    elif args.sim:
        sys.exit(f'late-persistence: no call*-sends.csv in {args.sim}: '
                 'run donar-sim with --frame-log and --send-log there')
    else:
        print(f'(no donar-sim send logs in {sim})')


if __name__ == '__main__':
    main()
