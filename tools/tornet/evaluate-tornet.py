#!/usr/bin/env python3
"""The evaluation over real tor: `python3 -m tornet evaluate` (tornet/
evaluate.py), here for scripts/setup.sh evaluate-tor and the docs."""
import sys

from tornet.evaluate import main

if __name__ == '__main__':
    sys.exit(main())
