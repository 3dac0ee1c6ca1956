"""What is run and how it is judged: the policies, security configurations
and call lengths, the protocol as seed 000, 6.1 ran it, the sizes of each
part of the run and the thresholds of the page.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    key: str        # short name used in file names and tables
    label: str      # as the paper writes it
    args: tuple     # donar-sim options that select it
    links: int      # nLINKS as the paper ran it


SIMPLE = Policy('simple', 'SIMPLE', ('--policy', 'simple'), 1)
TORFONE = Policy('torfone', 'TORFONE', ('--policy', 'torfone'), 2)
# DONAR as seed 000 has it: links leave L1ST / L2ND only at the end of a
# window.  The paper's figures are compared with these.
ALTERNATE = Policy('alternate', 'ALTERNATE',
                   ('--policy', 'alternate', '--alarm-frames', '0'), 12)
DOUBLE_SEND = Policy('double-send', 'DOUBLE-SEND',
                     ('--policy', 'double-send', '--alarm-frames', '0'), 12)
# Ours: a link whose frame is overtaken by ALARM_FRAMES later ones leaves at
# once (lib/core, config alarm_frames; docs/protocol.md).
ALARM_FRAMES = 8
ALTERNATE_ALARM = Policy(
    'alternate-alarm', 'ALTERNATE + alarm',
    ('--policy', 'alternate', '--alarm-frames', str(ALARM_FRAMES)), 12)
DOUBLE_SEND_ALARM = Policy(
    'double-send-alarm', 'DOUBLE-SEND + alarm',
    ('--policy', 'double-send', '--alarm-frames', str(ALARM_FRAMES)), 12)
ORACLE_1 = Policy('oracle-1', 'oracle, 1 send',
                  ('--policy', 'oracle', '--oracle-sends', '1'), 12)
ORACLE_2 = Policy('oracle-2', 'oracle, 2 sends',
                  ('--policy', 'oracle', '--oracle-sends', '2'), 12)

# Beyond the paper: each frame on the link predicted to deliver it first,
# a second copy only where that is unsure, within a budget of messages a
# frame (docs/protocol.md, "ADAPTIVE").
ADAPTIVE_1 = Policy('adaptive-1', 'ADAPTIVE, budget 1',
                    ('--policy', 'adaptive', '--budget', '1'), 12)
ADAPTIVE_125 = Policy('adaptive-1.25', 'ADAPTIVE, budget 1.25',
                      ('--policy', 'adaptive', '--budget', '1.25'), 12)
ADAPTIVE_2 = Policy('adaptive-2', 'ADAPTIVE, budget 2',
                    ('--policy', 'adaptive', '--budget', '2'), 12)

MAIN_POLICIES = (SIMPLE, TORFONE, ALTERNATE, DOUBLE_SEND, ALTERNATE_ALARM,
                 DOUBLE_SEND_ALARM, ADAPTIVE_1, ADAPTIVE_125, ADAPTIVE_2,
                 ORACLE_1, ORACLE_2)

# The oracle that spends the same bandwidth as each policy (seed 000, 6.1:
# SIMPLE is the bandwidth reference of ALTERNATE, TORFONE of DOUBLE-SEND).
SAME_BANDWIDTH_ORACLE = {
    SIMPLE.key: ORACLE_1, ALTERNATE.key: ORACLE_1,
    TORFONE.key: ORACLE_2, DOUBLE_SEND.key: ORACLE_2,
    ALTERNATE_ALARM.key: ORACLE_1, DOUBLE_SEND_ALARM.key: ORACLE_2,
    ADAPTIVE_1.key: ORACLE_1, ADAPTIVE_2.key: ORACLE_2,
}

POLICY_COLOURS = {
    SIMPLE.key: 'tab:gray', TORFONE.key: 'tab:orange',
    ALTERNATE.key: 'tab:blue', DOUBLE_SEND.key: 'tab:green',
    ALTERNATE_ALARM.key: 'tab:cyan', DOUBLE_SEND_ALARM.key: 'tab:olive',
    ADAPTIVE_1.key: 'tab:brown', ADAPTIVE_125.key: 'tab:pink',
    ADAPTIVE_2.key: 'black',
    ORACLE_1.key: 'tab:purple', ORACLE_2.key: 'tab:red',
}
POLICY_LINE_STYLES = {ORACLE_1.key: ':', ORACLE_2.key: '-.',
                      ALTERNATE_ALARM.key: '--', DOUBLE_SEND_ALARM.key: '--'}


@dataclass(frozen=True)
class Security:
    key: str        # donar-sim --security
    label: str


SECURITIES = (
    Security('default', 'Default'),
    Security('2hop', '2-hop'),
    Security('1way', '1-way anonymity'),
)


@dataclass(frozen=True)
class CallLength:
    key: str        # the paper's call length this stands for: 5min or 90min
    label: str
    seconds: int


FULL_CALL_LENGTHS = (CallLength('5min', '5 min', 300),
                     CallLength('90min', '90 min', 5400))
QUICK_CALL_LENGTHS = (CallLength('5min', '30 s (quick run, for 5 min)', 30),
                      CallLength('90min', '60 s (quick run, for 90 min)', 60))

# The protocol as seed 000, 6.1 ran it, passed to donar-sim explicitly.
FRAME_MS = 40                # "a rate of 25 frames per second"
FRAME_BYTES = 172
WINDOW_MS = 2000             # w = 2s
N_1ST = 3
N_2ND = 3
REDUNDANCY = 1               # previous frames piggybacked

DEFAULT_CALLS = 96           # seed 000, 6.1: "We run 96 instances"
QUICK_CALLS = 4
QUICK_CALIBRATION_CALLS = 16
QUICK_OUT = 'evaluation-quick'     # under the build directory

# Fig. 10: the paper's links had 4 relays and unlimited guards; the nearest
# setting we have is 2-hop (4 relays, 2 guards a side).
SWEEP_SECURITY = SECURITIES[1]
SWEEP_POLICIES = (ALTERNATE, DOUBLE_SEND)
SWEEP_SECONDS = 5400
QUICK_SWEEP_SECONDS = 30
SWEEP_CALLS_DIVISOR = 3      # 32 calls a point when the main table has 96


@dataclass(frozen=True)
class SweepParameter:
    key: str
    label: str
    values: tuple
    default: float
    log_axis: bool

    def options(self, value):
        """The donar-sim options that set this parameter to value."""
        if self.key == 'w':
            return {'--window-ms': round(value * 1000)}
        if self.key == 'links':
            return {'--links': value}
        return {'--n1st': value, '--n2nd': value}

    def show(self, value):
        return f'{value:g}'


SWEEP_PARAMETERS = (
    SweepParameter('w', 'w (s)', (0.2, 0.5, 1, 2, 4, 8, 16, 32), 2, True),
    SweepParameter('links', 'nLINKS', (8, 10, 12, 16, 20), 12, False),
    # 2·n1ST <= nLINKS = 12
    SweepParameter('n1st', 'n1ST = n2ND', (1, 2, 3, 4, 5), 3, False),
)

# Voice quality (issue 6): PESQ-WB of real speech replayed from the frame
# logs of simulated calls (tools/quality/trace_quality.py, docs/quality.md),
# and seed 001's good call.
VOICE_POLICIES = (SIMPLE, TORFONE, ALTERNATE, DOUBLE_SEND, ADAPTIVE_2)
VOICE_SECONDS = 300          # 90-minute calls are out of reach
QUICK_VOICE_SECONDS = 30
DEFAULT_VOICE_CALLS = 32
QUICK_VOICE_CALLS = 2
VOICE_SEGMENTS = 8           # damaged segments scored per call; the rest
QUICK_VOICE_SEGMENTS = 1     # estimated (trace_quality max_damaged)
VOICE_DIRECTION = 0          # caller to callee
GOOD_PESQ = 3.0              # seed 001: PESQ > 3 ...
GOOD_DELAY_MS = 400          # ... and one-way delay < 400 ms
DIRECT_DELAY_MS = 1          # direct UDP: every frame 1 ms after it is sent
DIRECT_KEY = 'direct'

SPEED_LINKS = 12
SPEED_SECONDS = 5400
SPEED_TARGET_CPU_S = 0.2
QUICK_SPEED_SECONDS = 60

DEADLINE_MS = 360            # Table 1: 400 ms minus Tframe
DROP_AFTER_MS = 1000         # later than this, a frame counts as missing
OBJECTIVE_MS = 110           # 150 ms mouth to ear minus Tframe
CDF_X_MAX_MS = 1000
CCDF_FLOOR = 1e-6
LATENCY_TICKS_MS = (50, 100, 200, 300, 500, 1000, 2000, 5000)
DIFFERENCE_POINTS = 10       # a figure this far from the paper's is marked
DIFFERS_MARK = '†'
NO_FIGURE = '—'
