"""python3 -m evaluation [options] (from tools/, or with PYTHONPATH=tools):
the same as tools/evaluate.py."""

import sys

from .cli import main

if __name__ == '__main__':
    main(sys.argv[1:])
