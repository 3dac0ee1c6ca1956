"""Whether the links that carried a frame's copies shared a relay, and how
often such frames came late: from the calls evaluate-tornet.py kept (the
rounds' circuit snapshots, each sender's --send-log, the receiver's frame
log).

  PYTHONPATH=tools/tornet python3 -m tornet report shared-relay [--keep build/tornet-eval]

A link's relays on the caller's side are those of its HS_CLIENT_REND
circuit, found by the SOCKS username of its dial (donar-<nonce>-<link>-<n>,
lib/link/donar-link-dial.c) and the callee's onion (REND_QUERY); on the
callee's side, those of the callee's HS_SERVICE_REND circuit of that onion
that ends at the same rendezvous point, where exactly one does.  A link
dialed again has the path of the dial seen in most snapshots.  The two
links of a frame: its two copies (two-copy policies), or the link it went
on and the link of the next frame, whose message carries its piggybacked
copy (one-copy policies).  The rendezvous point is left out: each link has
its own, shared only by chance."""

import collections
import os
import re
import sys

from . import link_use

USERNAME = re.compile(r'SOCKS_USERNAME="donar-[0-9a-f]+-(\d+)-(\d+)"')


def field(line, name):
    m = re.search(rf'\b{name}=(\S+)', line)
    return m.group(1) if m else None


def relays(path_field):
    return [hop.split('~')[-1] for hop in path_field.split(',')]


def onion_of(keep, name):
    try:
        with open(os.path.join(keep, f'{name}-address')) as f:
            text = f.read().strip()
    except OSError:
        return None
    m = re.match(r'donar://([a-z2-7]{56})\.onion', text)
    return m.group(1) if m else None


def read_snapshots(path):
    """{onion: (client {(link, dial): {tuple path: count}}, service
    {tuple path: count})} from a round's circuit snapshots."""
    calls = collections.defaultdict(
        lambda: (collections.defaultdict(collections.Counter),
                 collections.Counter()))
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 5 or parts[3] != 'BUILT':
                continue
            purpose, onion = field(line, 'PURPOSE'), field(line, 'REND_QUERY')
            if onion is None:
                continue
            path = tuple(relays(parts[4]))
            if purpose == 'HS_CLIENT_REND':
                m = USERNAME.search(line)
                if m:
                    key = (int(m.group(1)), int(m.group(2)))
                    calls[onion][0][key][path] += 1
            elif purpose == 'HS_SERVICE_REND':
                calls[onion][1][path] += 1
    return calls


def link_paths(client, service):
    """({link: caller-side relays}, {link: callee-side relays}), the
    rendezvous point left out."""
    by_link = collections.defaultdict(collections.Counter)
    for (link, _), paths in client.items():
        for path, count in paths.items():
            by_link[link][path] += count
    caller = {link: paths.most_common(1)[0][0]
              for link, paths in by_link.items()}
    by_point = collections.defaultdict(list)
    for path in service:
        by_point[path[-1]].append(path)
    points = collections.Counter(path[-1] for path in caller.values())
    callee = {}
    for link, path in caller.items():
        ends = by_point.get(path[-1], [])
        if points[path[-1]] == 1 and len(ends) == 1:
            callee[link] = set(ends[0][:-1])
    return {link: set(path[:-1]) for link, path in caller.items()}, callee


def pairs(sends):
    """(seq, link, link) of each frame's two chances, from
    link_use.read_sends ()."""
    links_of = {seq: links for seq, (links, _, _) in sends.items()}
    for seq, links in links_of.items():
        if seq == 0:
            continue
        if len(links) >= 2:
            yield seq, links[0], links[1]
        elif len(links) == 1 and links_of.get(seq + 1):
            following = links_of[seq + 1][0]
            if following != links[0]:
                yield seq, links[0], following


def main():
    keep, calls = link_use.kept_calls('shared-relay-report',
                                      __doc__.split('\n\n')[0])
    snapshots = {}
    # links with the caller's half of the circuit known, and with the
    # callee's known whole
    links_seen = [0, 0]
    # policy -> side -> shared? -> [frames, late]
    counts = collections.defaultdict(
        lambda: collections.defaultdict(lambda: collections.defaultdict(
            lambda: [0, 0])))
    for call in calls:
        r = call['round']
        if r not in snapshots:
            path = os.path.join(keep, f'round{r:02d}-circuits.txt')
            snapshots[r] = read_snapshots(path) if os.path.exists(path) else {}
        onion = onion_of(keep, call['name'])
        if onion is None or onion not in snapshots[r]:
            continue
        caller, callee = link_paths(*snapshots[r][onion])
        links_seen[0] += len(caller)
        links_seen[1] += len(callee)
        base = os.path.join(keep, call['name'])
        for sender, receiver in (('caller', 'callee'), ('callee', 'caller')):
            try:
                sends = link_use.read_sends(f'{base}-{sender}-sends.csv')
                late = link_use.read_lateness(f'{base}-{receiver}.csv')
            except (OSError, ValueError, KeyError):
                continue
            for seq, a, b in pairs(sends):
                if seq not in late:
                    continue
                for side, known in (('caller', caller), ('callee', callee)):
                    if a in known and b in known:
                        cell = counts[call['policy']][side][
                            bool(known[a] & known[b])]
                        cell[0] += 1
                        cell[1] += late[seq]
    if not counts:
        sys.exit(f'shared-relay-report: no call in {keep} with circuit '
                 'snapshots and send logs')

    def cell(c):
        return f'{c[0]}, {100.0 * c[1] / c[0]:.2f}' if c[0] else '0'

    print('| policy | caller\'s side: pairs sharing a relay %, frames | '
          'sharing: frames, late % | not sharing: frames, late % | '
          'callee\'s side: pairs sharing a relay % | sharing: frames, late % '
          '| not sharing: frames, late % |')
    print('|---|---|---|---|---|---|---|')
    for policy, sides in counts.items():
        row = [policy]
        for side in ('caller', 'callee'):
            shared, apart = sides[side][True], sides[side][False]
            n = shared[0] + apart[0]
            row += [f'{100.0 * shared[0] / n:.0f}, {n}' if n else '0',
                    cell(shared), cell(apart)]
        print('| ' + ' | '.join(row) + ' |')
    print(f'\nLinks whose callee-side circuit is known whole (its rendezvous '
          f'point unique among the call\'s links and its circuits): '
          f'{links_seen[1]} of {links_seen[0]}.')


if __name__ == '__main__':
    main()
