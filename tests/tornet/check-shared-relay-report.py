#!/usr/bin/env python3
"""`python3 -m tornet report shared-relay` (tools/tornet) on a kept run made up here: one
DOUBLE-SEND call whose caller links 0 and 1 share their guard (relayA) and
link 2 shares nothing with link 0; frames 1-10 went on links 0 and 1, 11-20
on 0 and 2, and frame 5 came late.  So 20 pairs, 10 sharing (50 %), 1 of
them late (10.00 %), none of the others; on the callee's side only link 0's
circuit is known (its rendezvous point alone ends a service circuit), so no
pair, and 1 of the 3 links is known whole there.

    check-shared-relay-report.py TOOLS_TORNET_DIR
"""

import json
import os
import subprocess
import sys
import tempfile

# Frame logs through their one writer (tools/framelog/frame_log.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'tools', 'framelog'))
from frame_log import write_frame_log  # noqa: E402

ONION = 'a' * 56


def fp(name):
    return '$' + name.encode().hex().upper().ljust(40, '0')[:40] + '~' + name


def circuit(side, cid, relays, rest):
    return (f'10 {side} {cid} BUILT ' + ','.join(fp(r) for r in relays)
            + f' {rest} REND_QUERY={ONION}\n')


def main():
    script = sys.argv[1]
    with tempfile.TemporaryDirectory() as keep:
        name = 'round00-double-send-0'
        json.dump([{'name': name, 'policy': 'DOUBLE-SEND', 'round': 0}],
                  open(os.path.join(keep, 'calls.json'), 'w'))
        with open(os.path.join(keep, f'{name}-address'), 'w') as f:
            f.write(f'donar://{ONION}.onion:5004?secret=00\n')
        with open(os.path.join(keep, 'round00-circuits.txt'), 'w') as f:
            for link, path in ((0, ('relayA', 'relayL', 'rp1')),
                               (1, ('relayA', 'relayM', 'rp2')),
                               (2, ('relayB', 'relayN', 'rp3'))):
                f.write(circuit('caller', 10 + link, path,
                                'PURPOSE=HS_CLIENT_REND SOCKS_USERNAME='
                                f'"donar-0000abcd-{link}-0"'))
            f.write(circuit('callee', 30, ('relayC', 'relayD', 'relayE', 'rp1'),
                            'PURPOSE=HS_SERVICE_REND'))
        with open(os.path.join(keep, f'{name}-caller-sends.csv'), 'w') as f:
            f.write('seq,sent_ms,links,no_link_in_time\n0,0,0 1 2,0\n')
            for seq in range(1, 21):
                f.write(f'{seq},{seq * 40},{"0 1" if seq <= 10 else "0 2"},0\n')
        write_frame_log(os.path.join(keep, f'{name}-callee.csv'),
                        [(seq, seq * 40, seq * 40 + (500 if seq == 5 else 200))
                         for seq in range(21)])
        out = subprocess.run([sys.executable, '-m', 'tornet', 'report',
                              'shared-relay', '--keep', keep],
                             capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=script))
    # The caller's 3 links, of which the callee knows link 0's whole.
    for want in ('| DOUBLE-SEND | 50, 20 | 10, 10.00 | 10, 0.00 | 0 | 0 | 0 |',
                 'is known whole (its rendezvous point unique among the '
                 "call's links and its circuits): 1 of 3."):
        if out.returncode != 0 or want not in out.stdout:
            print(f'check-shared-relay-report: wanted {want!r}, got '
                  f'(exit {out.returncode}):\n{out.stdout}{out.stderr}',
                  file=sys.stderr)
            return 1
    print('check-shared-relay-report: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
