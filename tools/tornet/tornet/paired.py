"""Calls in pairs: one policy against the other of its budget, the two
calls at the same minutes through the same caller tor and callee tor.

Over the shaped network which guards and layer-2 guards a call's fresh
tors draw, and where the bulk flows run at its minutes, decide more of
its fate than its policy does (docs/findings/tornet-evaluation.md: one
policy's rate of late frames moved 15 times from one run to the next).
Two calls through the same pair of tors meet the same relays at the same
minutes, so what
differs between them is the policy: their difference is measured within
each pair, where the draw cancels out, and not between two sets of
draws.

The partners are the policies of the same budget (the same cells a
frame): ADAPTIVE budget 2 with DOUBLE-SEND, ADAPTIVE budget 1 with
ALTERNATE, and the two single-path baselines with each other.
"""

import math

PARTNERS = (('ADAPTIVE budget 2', 'DOUBLE-SEND'),
            ('ADAPTIVE budget 1', 'ALTERNATE'),
            ('SIMPLE', 'TORFONE'))


def partner_of(label):
    for a, b in PARTNERS:
        if label == a:
            return b
        if label == b:
            return a
    return None


def placement(labels, tors):
    """The tor pair (an index from 0) each call of a round goes through:
    tors 'call', a pair each; 'round', one for all; 'pair', the k-th call
    of a policy with the k-th of its partner (a call whose partner the
    round lacks goes alone)."""
    if tors == 'call':
        return list(range(len(labels)))
    if tors == 'round':
        return [0] * len(labels)
    place = [None] * len(labels)
    n = 0
    for i, label in enumerate(labels):
        if place[i] is not None:
            continue
        place[i] = n
        for j in range(i + 1, len(labels)):
            if place[j] is None and labels[j] == partner_of(label):
                place[j] = n
                break
        n += 1
    return place


def matched(manifest):
    """{(a, b): [(call of a, call of b)]} for each partnership: the calls
    that went through the same tor pair of the same round, both set up
    (a 'result' that is not None)."""
    groups = {}
    for c in manifest:
        if 'tor_pair' in c:
            groups.setdefault((c['round'], c['tor_pair']), []).append(c)
    out = {p: [] for p in PARTNERS}
    for calls in groups.values():
        for a, b in PARTNERS:
            ca = [c for c in calls if c['policy'] == a]
            cb = [c for c in calls if c['policy'] == b]
            if len(ca) == 1 and len(cb) == 1 and \
                    ca[0]['result'] is not None and \
                    cb[0]['result'] is not None:
                out[(a, b)].append((ca[0], cb[0]))
    return out


def paired_interval(both, only_a, only_b, neither, wilson):
    """The difference of two paired proportions, a's successes less b's, in
    points, and its 95 % interval: Newcombe's (1998, Stat Med 17:2635)
    from the two Wilson intervals (wilson (k, n), in %) and the pairs'
    correlation phi, whose numerator ad - bc is taken n/2 towards 0 when
    positive (continuity).  None without pairs."""
    n = both + only_a + only_b + neither
    if n == 0:
        return None
    p1, p2 = 100 * (both + only_a) / n, 100 * (both + only_b) / n
    l1, u1 = wilson(both + only_a, n)
    l2, u2 = wilson(both + only_b, n)
    margins = ((both + only_a) * (only_b + neither) * (both + only_b)
               * (only_a + neither))
    cross = both * neither - only_a * only_b
    if cross > n / 2:
        cross -= n / 2
    elif cross > 0:
        cross = 0
    phi = cross / math.sqrt(margins) if margins else 0.0
    d = p1 - p2
    lo = d - math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2)
                           + (u2 - p2) ** 2))
    hi = d + math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1)
                           + (u1 - p1) ** 2))
    return d, max(lo, -100.0), min(hi, 100.0)


def sign_test(wins, losses):
    """Two-sided exact p of wins against losses under even odds (McNemar's
    exact test on the discordant pairs; ties left out)."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def late_share(result, deadline_ms):
    """Of a call's frames, both directions, the share later than the
    deadline or lost (None in the latencies)."""
    frames = [x for lat in result for x in lat]
    late = sum(1 for x in frames if x is None or x > deadline_ms)
    return late / len(frames) if frames else 0.0


def pair_shares(pairs, deadline_ms):
    """Each pair's % of frames late or lost, a's and b's."""
    return [(100 * late_share(ca['result'], deadline_ms),
             100 * late_share(cb['result'], deadline_ms)) for ca, cb in pairs]


def compare(pairs, judge, wilson, deadline_ms):
    """What the pairs of one partnership say: the 2 x 2 table of successful
    calls, its difference and interval, McNemar's p; and per frame, in how
    many pairs a's call had fewer late or lost frames than b's, more, or
    as many, with the sign test's p."""
    both = only_a = only_b = neither = 0
    fewer = more = same = 0
    for ca, cb in pairs:
        sa, sb = judge(ca['result'])[0], judge(cb['result'])[0]
        both += sa and sb
        only_a += sa and not sb
        only_b += sb and not sa
        neither += not sa and not sb
        la = late_share(ca['result'], deadline_ms)
        lb = late_share(cb['result'], deadline_ms)
        fewer += la < lb
        more += la > lb
        same += la == lb
    return {'pairs': len(pairs), 'both': both, 'only_a': only_a,
            'only_b': only_b, 'neither': neither,
            'difference': paired_interval(both, only_a, only_b, neither,
                                          wilson),
            'mcnemar_p': sign_test(only_a, only_b),
            'fewer_late': fewer, 'more_late': more, 'same_late': same,
            'sign_p': sign_test(fewer, more)}


def ranks(figures):
    """Whether the pairs rank the two on successful calls: the interval of
    the difference leaves out 0."""
    d = figures['difference']
    return d is not None and (d[1] > 0 or d[2] < 0)


def table(manifest, judge, wilson, deadline_ms):
    """The section's table of the partnerships, as markdown lines."""
    return table_of(matched(manifest), judge, wilson, deadline_ms)


def table_of(partnerships, judge, wilson, deadline_ms):
    """The table of {(a, b): pairs}, as markdown lines."""
    rows = ['| a against b | pairs | both successful | a only | b only | '
            'neither | a − b, points [95 %] | McNemar p | a fewer late frames '
            '/ more / as many | sign test p |',
            '|---|---|---|---|---|---|---|---|---|---|']
    for (a, b), pairs in partnerships.items():
        f = compare(pairs, judge, wilson, deadline_ms)
        d = f['difference']
        diff = '—' if d is None else \
            f'{d[0]:+.0f} [{d[1]:+.0f}, {d[2]:+.0f}]'
        rows.append(f'| {a} against {b} | {f["pairs"]} | {f["both"]} | '
                    f'{f["only_a"]} | {f["only_b"]} | {f["neither"]} | '
                    f'{diff} | {f["mcnemar_p"]:.2f} | {f["fewer_late"]} / '
                    f'{f["more_late"]} / {f["same_late"]} | '
                    f'{f["sign_p"]:.3f} |')
    return rows
