"""The shaped Tor network's Python side (docs/tornet.md): the evaluation of
record over real tor and its calibration, the bulk cross traffic, the tor
control and SOCKS clients, and the reports on a kept run.

    PYTHONPATH=tools/tornet python3 -m tornet COMMAND [options]

Modules: evaluate (the evaluation, tools/tornet/evaluate-tornet.py),
calibrate (its calibration, tools/tornet/calibrate-tornet.py), common
(what both need), paired (calls in pairs), link_use, late_persistence and
shared_relay (reports on a kept run), cross_traffic (the bulk flows that
tornet.sh starts), torctl (control port and SOCKS5)."""
