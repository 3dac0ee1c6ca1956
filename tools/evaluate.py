#!/usr/bin/env python3
"""DONAR's evaluation of record: seed 000, section 6, over the Tor link model.

Runs build/tools/donar-sim and build/tools/donar-netmodel-calibrate, then
writes docs/evaluation.md and the plots under docs/img/. Every figure of that
page comes from the package tools/evaluation/ (its __init__ lists the
modules), except the paper's figures, which are in evaluation/paper.py with
the sentences they come from.

    build-venv/bin/python3 tools/evaluate.py [--build build] [--out docs]
        [--calls 96] [--seed 1] [--voice-calls 32] [--voice-segments 8]
    build-venv/bin/python3 tools/evaluate.py --only voice   # that section
    build-venv/bin/python3 tools/evaluate.py --only shared-fate  # that one
    build-venv/bin/python3 tools/evaluate.py --only short-calls  # that one
    build-venv/bin/python3 tools/evaluate.py --quick --out /tmp/eval  # smoke

Python 3 with matplotlib, numpy and scipy (Debian) and PyPI's pesq for the
voice-quality section (tools/quality/trace_quality.py): the virtual
environment build-venv/ that scripts/setup.sh makes has them all.
"""

import sys

from evaluation.cli import main

if __name__ == '__main__':
    main(sys.argv[1:])
