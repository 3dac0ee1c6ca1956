"""How each policy used the links over real tor, and which of its frames
came late: from the calls that evaluate-tornet.py kept, three tables of
one row a policy, both directions of every call that set up.

  PYTHONPATH=tools/tornet python3 -m tornet report link-use [--keep build/tornet-eval]

- Late or lost frames over real tor (each direction apart) against
  donar-sim's beside it, and the share of them in bursts shorter than a
  round trip; and the same over the first 20 s of each direction and
  after.
- From each end's `donar-call --json` ("links"): the share of a call's
  messages on its 2 busiest links (median over calls and directions; 2 of
  12 links used evenly is 17 %), the links that carried 90 % of them, the
  frames later than the deadline and the share of them whose first copy
  came on one of the 2 busiest links (a late frame came late on every link
  it was sent on; its first copy's link is the one that brought it
  soonest), links dialed again.
- From each sender's `donar-call --send-log` and the receiver's frame log:
  the frames by how they were sent (copies, no link in time, a copy on a
  link idle 1 s) and the share of each that came late; and how many links
  a frame's chances take: its copies and the next frame's messages, which
  carry it again (4 when every one is on a link of its own at 2 copies)."""

import argparse
import csv
import glob
import json
import os
import re
import statistics
import sys

from .common import frame_log

DEADLINE_MS = 360


def ends(keep, name):
    """(sender's links, receiver's links, caller's links) for both
    directions of a call: the caller's sends with the callee's arrivals,
    then the other way; only the caller dials."""
    out = {}
    for end in ('caller', 'callee'):
        try:
            with open(os.path.join(keep, f'{name}-{end}.json')) as f:
                out[end] = json.load(f).get('links')
        except (OSError, ValueError):
            return []
    if not out['caller'] or not out['callee']:
        return []
    return [(out['caller'], out['callee'], out['caller']),
            (out['callee'], out['caller'], out['caller'])]


def direction_figures(sent, got, dialer):
    messages = [link['messages_sent'] for link in sent]
    total = sum(messages)
    if total == 0:
        return None
    order = sorted(range(len(messages)), key=lambda i: -messages[i])
    busiest = set(order[:2])
    carried, links90 = 0, 0
    for i in order:
        if carried >= 0.9 * total:
            break
        carried += messages[i]
        links90 += 1
    late = sum(link['first_copies_late'] for link in got)
    late_busiest = sum(got[i]['first_copies_late'] for i in busiest)
    return {'top2': 100.0 * sum(messages[i] for i in busiest) / total,
            'links90': links90, 'late': late, 'late_busiest': late_busiest,
            'redials': sum(1 for link in dialer if link['dials'] > 1)}


def table(keep, calls):
    """The markdown table's lines, one row a policy in the calls' order;
    None when no call kept its links (runs before donar-call gave them)."""
    by_policy = {}
    for call in calls:
        rows = by_policy.setdefault(call['policy'], [])
        for sent, got, dialer in ends(keep, call['name']):
            figures = direction_figures(sent, got, dialer)
            if figures:
                rows.append(figures)
    if not any(by_policy.values()):
        return None
    lines = ['| policy | directions | messages on the 2 busiest links %, '
             'median | links carrying 90 %, median | frames late | of them '
             'first on the 2 busiest links % | links dialed again, a '
             'direction |', '|---|---|---|---|---|---|---|']
    for policy, rows in by_policy.items():
        if not rows:
            lines.append(f'| {policy} | 0 | | | | | |')
            continue
        late = sum(r['late'] for r in rows)
        late_busiest = sum(r['late_busiest'] for r in rows)
        lines.append(
            f'| {policy} | {len(rows)} '
            f'| {statistics.median(r["top2"] for r in rows):.0f} '
            f'| {statistics.median(r["links90"] for r in rows):g} '
            f'| {late} '
            f'| {100.0 * late_busiest / late if late else 0:.0f} '
            f'| {statistics.mean(r["redials"] for r in rows):.1f} |')
    return lines


IDLE_FRAMES = 25     # a link not sent on for 1 s of 40-ms frames


def read_sends(path):
    """{seq: (links, no_link_in_time, idle)} from donar-call --send-log;
    idle: a copy went on a link not sent on in the IDLE_FRAMES frames
    before (a probe of a link the policy had left, or its first use)."""
    sends = {}
    last = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            seq = int(row['seq'])
            links = [int(x) for x in row['links'].split()]
            idle = any(seq - last.get(link, -IDLE_FRAMES - 1) > IDLE_FRAMES
                       for link in links)
            for link in links:
                last[link] = seq
            sends[seq] = (links, row['no_link_in_time'] == '1', idle)
    return sends


def read_frames(path):
    """{seq: (sent_ms, late)} from donar-call --frame-log: late, later than
    the deadline or never came."""
    return {seq: (sent, arrival is None or arrival - sent > DEADLINE_MS)
            for seq, sent, arrival in frame_log.read_frame_log(path)}


def read_lateness(path):
    """{seq: late} from donar-call --frame-log: later than the deadline or
    never came."""
    return {seq: late for seq, (_, late) in read_frames(path).items()}


def copies_table(keep, calls):
    """How each policy sent its frames (copies, the state in which no link
    was known to deliver in time) and how many of each kind came late; the
    first frame of a direction (with the links' opening messages) left out.
    None when no call kept a send log."""
    by_policy = {}
    for call in calls:
        counts = by_policy.setdefault(call['policy'], {})
        for sender, receiver in (('caller', 'callee'), ('callee', 'caller')):
            base = os.path.join(keep, call['name'])
            try:
                sends = read_sends(f'{base}-{sender}-sends.csv')
                late = read_lateness(f'{base}-{receiver}.csv')
            except (OSError, ValueError, KeyError):
                continue
            for seq, (links, stalled, idle) in sends.items():
                if seq == 0 or seq not in late:
                    continue
                # A frame's chances: its copies, and the messages of the
                # next frame, which carry it again (piggybacked).
                if seq + 1 in sends:
                    n, m = counts.get('chances', (0, 0))
                    counts['chances'] = (n + 1, m + len(
                        set(links) | set(sends[seq + 1][0])))
                kind = ('no link in time' if stalled else
                        '1 copy' if len(links) <= 1 else '2 copies or more')
                for k in (kind, 'a copy on a link idle 1 s' if idle else
                          'every copy on a link used within 1 s'):
                    n, m = counts.get(k, (0, 0))
                    counts[k] = (n + 1, m + late[seq])
    if not any(by_policy.values()):
        return None
    kinds = ('1 copy', '2 copies or more', 'no link in time',
             'a copy on a link idle 1 s', 'every copy on a link used within 1 s')
    lines = ['| policy | ' + ' | '.join(f'{k}: frames, late %'
                                        for k in kinds) +
             ' | links a frame\'s copies and the next frame\'s take, mean |',
             '|---|' + '---|' * (len(kinds) + 1)]
    for policy, counts in by_policy.items():
        cells = []
        for kind in kinds:
            n, k = counts.get(kind, (0, 0))
            cells.append(f'{n}, {100.0 * k / n:.2f}' if n else '0')
        n, k = counts.get('chances', (0, 0))
        cells.append(f'{k / n:.2f}' if n else '—')
        lines.append(f'| {policy} | ' + ' | '.join(cells) + ' |')
    return lines


SHORT_MS = 400       # a burst shorter than a round trip on these links
BURST_GAP = 3        # late frames this close (in frames) are one burst


def late_share(paths):
    """(frames, late, late in bursts of at most SHORT_MS) over frame logs;
    None when none could be read."""
    frames = late = short = 0
    for path in paths:
        try:
            fates = read_lateness(path)
        except (OSError, ValueError, KeyError):
            continue
        frames += len(fates)
        seqs = sorted(seq for seq, is_late in fates.items() if is_late)
        late += len(seqs)
        i = 0
        while i < len(seqs):
            j = i
            while j + 1 < len(seqs) and seqs[j + 1] - seqs[j] <= BURST_GAP:
                j += 1
            if (seqs[j] - seqs[i] + 1) * 40 <= SHORT_MS:
                short += j - i + 1
            i = j + 1
    return (frames, late, short) if frames else None


START_MS = 20000     # the start of a call: links still coming up


def start_table(keep, calls):
    """Each policy's frames later than the deadline or lost in the first
    START_MS of each direction and after (both directions of its calls
    that set up): what a call's start costs, while its links come up and
    before a policy has news of them; None without frame logs."""
    rows = []
    for policy in dict.fromkeys(c['policy'] for c in calls):
        counts = {True: [0, 0], False: [0, 0]}
        for c in calls:
            if c['policy'] != policy:
                continue
            for end in ('callee', 'caller'):
                try:
                    frames = read_frames(
                        os.path.join(keep, f'{c["name"]}-{end}.csv'))
                except (OSError, ValueError, KeyError):
                    continue
                if not frames:
                    continue
                first = min(sent for sent, _ in frames.values())
                for sent, late in frames.values():
                    cell = counts[sent - first < START_MS]
                    cell[0] += 1
                    cell[1] += late
        if counts[True][0] == 0:
            continue
        rows.append(f'| {policy} | ' + ' | '.join(
            f'{n}, {100.0 * k / n:.2f}' if n else '0'
            for n, k in (counts[True], counts[False])) + ' |')
    if not rows:
        return None
    return [f'| policy | the first {START_MS // 1000} s of a direction: '
            'frames, late or lost % | after: frames, late or lost % |',
            '|---|---|---|', *rows]


def late_table(keep, calls):
    """Each policy's frames later than the deadline or lost, over real tor
    (both directions of its calls that set up, and each direction apart)
    and over donar-sim beside it (keep/sim-<policy>/, as evaluate-tornet.py
    writes them), and the share of the late frames over tor in bursts
    shorter than a round trip; None without sim logs."""
    def pct(x):
        return f'{100.0 * x[1] / x[0]:.2f}' if x else '—'

    rows = []
    for policy in dict.fromkeys(c['policy'] for c in calls):
        ways = {}
        for end in ('callee', 'caller'):
            logs = [os.path.join(keep, f'{c["name"]}-{end}.csv')
                    for c in calls if c['policy'] == policy]
            ways[end] = late_share(
                p for p in logs if os.path.exists(p) and
                os.path.getsize(p) > len('seq,sent_ms,arrival_ms\n'))
        if not ways['callee'] and not ways['caller']:
            continue
        tor = [sum(w[k] for w in ways.values() if w) for k in range(3)]
        slug = re.sub(r'[^a-z0-9]+', '-', policy.lower()).strip('-')
        sim = late_share(glob.glob(os.path.join(keep, f'sim-{slug}',
                                                'call*-dir*.csv')))
        if not sim:
            continue
        ratio = (f'{(tor[1] / tor[0]) / (sim[1] / sim[0]):.1f}'
                 if sim[1] else '—')
        short = f'{100.0 * tor[2] / tor[1]:.0f}' if tor[1] else '—'
        rows.append(f'| {policy} | {pct(tor)} | {pct(ways["callee"])} | '
                    f'{pct(ways["caller"])} | {pct(sim)} | {ratio} | '
                    f'{short} |')
    if not rows:
        return None
    return ['| policy | late or lost over real tor % | caller to callee % | '
            'callee to caller % | over donar-sim % | tor / sim | of the late '
            f'over tor, in bursts of at most {SHORT_MS} ms % |',
            '|---|---|---|---|---|---|---|', *rows]


def kept_calls(program, description):
    """(--keep, its calls.json) from the command line of a report on a run
    evaluate-tornet.py kept; exits with the reason if it cannot be read."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--keep', default='build/tornet-eval')
    args = parser.parse_args()
    try:
        with open(os.path.join(args.keep, 'calls.json')) as f:
            return args.keep, json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f'{program}: {args.keep}/calls.json: {e}')


def main():
    keep, calls = kept_calls('link-use-report', __doc__.split('\n\n')[0])
    lines = table(keep, calls)
    copies = copies_table(keep, calls)
    late = late_table(keep, calls)
    start = start_table(keep, calls)
    if lines is None and copies is None:
        sys.exit(f'link-use-report: no call in {keep} kept its links '
                 'or its sends (donar-call before --json "links" and '
                 '--send-log)')
    print('\n\n'.join('\n'.join(t) for t in (late, start, lines, copies)
                        if t))


if __name__ == '__main__':
    main()
