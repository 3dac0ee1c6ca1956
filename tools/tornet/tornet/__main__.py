"""python3 -m tornet COMMAND [options] (PYTHONPATH=tools/tornet):

  evaluate ...             the evaluation over real tor (evaluate-tornet.py)
  calibrate ...            the testbed's calibration (calibrate-tornet.py)
  cross-traffic ...        the bulk cross traffic (tornet.sh starts it)
  paired [KEEP...]         each pair's share of frames late or lost
  report link-use ...      how each policy used the links
  report late-persistence ...  whether a late frame's links stay late
  report shared-relay ...  whether a frame's links shared a relay

Each takes --help."""

import sys


def _commands():
    from . import (calibrate, cross_traffic, evaluate, late_persistence,
                   link_use, shared_relay)
    return {
        ('evaluate',): evaluate.main,
        ('calibrate',): calibrate.main,
        ('cross-traffic',): cross_traffic.main,
        ('paired',): lambda: evaluate.paired_main(sys.argv[1:]),
        ('report', 'link-use'): link_use.main,
        ('report', 'late-persistence'): late_persistence.main,
        ('report', 'shared-relay'): shared_relay.main,
    }


def main(argv):
    commands = _commands()
    for words, run in commands.items():
        if tuple(argv[:len(words)]) == words:
            sys.argv = ['tornet ' + ' '.join(words)] + argv[len(words):]
            return run()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
