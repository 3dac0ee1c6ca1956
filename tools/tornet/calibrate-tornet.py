#!/usr/bin/env python3
"""The testbed's calibration: `python3 -m tornet calibrate` (tornet/
calibrate.py), here for tornet.sh calibrate and evaluate-tornet.py
--calibrate."""
import sys

from tornet.calibrate import main

if __name__ == '__main__':
    sys.exit(main())
