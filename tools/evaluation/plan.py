"""The plan of a run: every donar-sim run of each section (SimRun), from
the command line's options (Plan).
"""

import os
from dataclasses import dataclass, field

from .policies import (
    ADAPTIVE_1, ADAPTIVE_2, ALTERNATE, ALTERNATE_ALARM, DEADLINE_MS,
    DEFAULT_CALLS, DEFAULT_VOICE_CALLS, DOUBLE_SEND, DOUBLE_SEND_ALARM,
    DROP_AFTER_MS, FRAME_BYTES, FRAME_MS, FULL_CALL_LENGTHS, MAIN_POLICIES,
    N_1ST, N_2ND, ORACLE_1, ORACLE_2, Policy, QUICK_CALLS,
    QUICK_CALL_LENGTHS, QUICK_SPEED_SECONDS, QUICK_SWEEP_SECONDS,
    QUICK_VOICE_CALLS, QUICK_VOICE_SECONDS, QUICK_VOICE_SEGMENTS,
    REDUNDANCY, SECURITIES, SIMPLE, SPEED_SECONDS, SWEEP_CALLS_DIVISOR,
    SWEEP_PARAMETERS, SWEEP_POLICIES, SWEEP_SECONDS, SWEEP_SECURITY,
    Security, TORFONE, VOICE_SECONDS, VOICE_SEGMENTS, WINDOW_MS)


def protocol_options(policy, overrides=None):
    """The protocol options of a donar-sim run of policy, as sorted
    (option, value) pairs, with overrides (a dict) replacing some."""
    options = {'--frame-ms': FRAME_MS, '--frame-bytes': FRAME_BYTES,
               '--window-ms': WINDOW_MS, '--redundancy': REDUNDANCY,
               '--deadline-ms': DEADLINE_MS, '--drop-after-ms': DROP_AFTER_MS,
               '--links': policy.links}
    if policy.links >= N_1ST + N_2ND:
        options.update({'--n1st': N_1ST, '--n2nd': N_2ND})
    options.update(overrides or {})
    return tuple(sorted((name, str(value)) for name, value in options.items()))


@dataclass(frozen=True)
class SimRun:
    policy: Policy
    security: Security
    seconds: int
    calls: int
    seed: int
    options: tuple          # from protocol_options()
    histogram: bool = False
    note: str = field(default='', compare=False)   # for the progress lines

    def command(self, build, histogram_path=None):
        cmd = [os.path.join(build, 'tools', 'donar-sim'), *self.policy.args,
               '--security', self.security.key, '--calls', str(self.calls),
               '--duration', str(self.seconds), '--seed', str(self.seed),
               '--jobs', '1', '--json']
        for name, value in self.options:
            cmd += [name, value]
        if histogram_path:
            cmd += ['--histogram', histogram_path]
        return cmd

    def describe(self):
        return (f'{self.policy.label}, {self.security.label}, '
                f'{self.calls} x {self.seconds} s {self.note}').rstrip()

    def cost(self):
        return self.seconds * self.calls


@dataclass(frozen=True)
class Plan:
    quick: bool
    seed: int
    calls: int
    call_lengths: tuple
    sweep_calls: int
    sweep_seconds: int
    speed_seconds: int
    voice_calls: int = DEFAULT_VOICE_CALLS
    voice_seconds: int = VOICE_SECONDS
    voice_segments: int = VOICE_SEGMENTS


def make_plan(args):
    calls = args.calls or (QUICK_CALLS if args.quick else DEFAULT_CALLS)
    return Plan(
        quick=args.quick, seed=args.seed, calls=calls,
        call_lengths=QUICK_CALL_LENGTHS if args.quick else FULL_CALL_LENGTHS,
        sweep_calls=max(2, calls // SWEEP_CALLS_DIVISOR),
        sweep_seconds=QUICK_SWEEP_SECONDS if args.quick else SWEEP_SECONDS,
        speed_seconds=QUICK_SPEED_SECONDS if args.quick else SPEED_SECONDS,
        voice_calls=args.voice_calls or (QUICK_VOICE_CALLS if args.quick
                                         else DEFAULT_VOICE_CALLS),
        voice_seconds=QUICK_VOICE_SECONDS if args.quick else VOICE_SECONDS,
        voice_segments=args.voice_segments or (
            QUICK_VOICE_SEGMENTS if args.quick else VOICE_SEGMENTS))


# The adaptive policy and the paper's with alarms under faults, Default,
# 90-minute calls (a third of the calls of the main table): bulk downloads
# through one of the caller's guards for the second half hour (seed 003:
# 8 flows of 100 KiB/s, more than most guards give), that guard failing
# for good at 30 min, and a link killed every minute.
FAULT_POLICIES = (ALTERNATE_ALARM, DOUBLE_SEND_ALARM, ADAPTIVE_1, ADAPTIVE_2)
FAULTS = (
    ('as is', ()),
    ('cross traffic through a guard', ('--cross-traffic', '1800,1800,8')),
    ('the guard fails at 30 min', ('--guard-failure', '1800')),
    ('a link killed every minute', ('--kill-link-every', '60')),
)


# The oracles told of the links late (donar-sim --oracle-lag-ms), Default,
# the longest calls, all the calls of the main table: the links a frame
# would take with news as old as it is when it comes to a policy (a one-way
# delay, 89 ms at the least on the model's links).  Lag 0 is the main
# table's.
NEWS_LAGS_MS = (50, 100, 150)


def lagged_oracle(oracle, lag):
    """oracle choosing by what a frame sent lag ms earlier met."""
    return Policy(f'{oracle.key}-lag{lag}',
                  f'{oracle.label}, told {lag} ms late',
                  oracle.args + ('--oracle-lag-ms', str(lag)), oracle.links)


def news_runs(plan):
    length = plan.call_lengths[-1]
    return {(oracle.key, lag):
            SimRun(lagged_oracle(oracle, lag), SECURITIES[0], length.seconds,
                   plan.calls, plan.seed, protocol_options(oracle),
                   note=f'news {lag} ms old')
            for oracle in (ORACLE_1, ORACLE_2) for lag in NEWS_LAGS_MS}


def fault_runs(plan):
    length = plan.call_lengths[-1]
    return {(name, policy.key):
            SimRun(Policy(policy.key, policy.label, policy.args + args,
                          policy.links), SECURITIES[0], length.seconds,
                   max(2, plan.calls // SWEEP_CALLS_DIVISOR), plan.seed,
                   protocol_options(policy), note=name)
            for name, args in FAULTS for policy in FAULT_POLICIES}


# Shared fate (issue 24): links that cross one relay share its spikes, its
# cross traffic and its failure, and every link of a side crosses one of
# its 2 guards.  Default, the shortest calls, each scenario under the three
# states of knowledge of donar-sim --paths (which sides learn their links'
# guards from tor).  The options are formatted with the call's length
# ({seconds}) and its middle ({half}).
@dataclass(frozen=True)
class Scenario:
    key: str
    label: str
    options: tuple          # donar-sim options, formatted by length

    def args(self, seconds):
        return tuple(option.format(seconds=seconds, half=seconds // 2)
                     for option in self.options)

    def command(self, seconds):
        """The options as the page shows them."""
        return f'`{" ".join(self.args(seconds))}`'


# The callee's guards flaky for the whole call at the quiet period of the
# model's median flaky relay (spike_gap_flaky_median_s, docs/netmodel.md).
CALLEE_GUARD_SPIKE_GAP_S = 10
# Seed 003's bulk downloads, as issue 24 measured them: 8 flows of 50 KiB/s
# (400 KiB/s, more than the median guard's 250) for the whole call.
SHARED_FATE_SCENARIOS = (
    Scenario('bulk-caller', "bulk downloads through the caller's guard 0",
             ('--cross-traffic', '0,{seconds},8,50,0,0')),
    Scenario('bulk-callee', "bulk downloads through the callee's guard 0",
             ('--cross-traffic', '0,{seconds},8,50,1,0')),
    Scenario('spikes-callee', "the callee's 2 guards flaky",
             ('--set',
              f'callee_guard_spike_gap_s={CALLEE_GUARD_SPIKE_GAP_S}')),
    Scenario('guard-fails-caller', "the caller's guard 0 fails halfway",
             ('--guard-failure', '{half}')),
    Scenario('guard-fails-callee', "the callee's guard 0 fails halfway",
             ('--guard-failure', '{half},1')),
)
# donar-sim --paths: own (each side its half of every circuit), caller (only
# the caller, as the link engine does today), none (neither: trace replay).
SHARED_FATE_PATHS = ('own', 'caller', 'none')
SHARED_FATE_POLICIES = (SIMPLE, TORFONE, ALTERNATE, DOUBLE_SEND,
                        ALTERNATE_ALARM, DOUBLE_SEND_ALARM, ADAPTIVE_1,
                        ADAPTIVE_2)
SHARED_FATE_LAG_MS = 100
# The oracles run no session of lib/core, so --paths means nothing to them:
# one run a scenario, shown under every --paths.
SHARED_FATE_ORACLES = (ORACLE_1, ORACLE_2,
                       lagged_oracle(ORACLE_1, SHARED_FATE_LAG_MS),
                       lagged_oracle(ORACLE_2, SHARED_FATE_LAG_MS))
# Issue 24's targets: ADAPTIVE at least as many calls successful as the
# paper's policy with alarms at the same budget, and no more dropped.
SHARED_FATE_TARGETS = ((ADAPTIVE_1, ALTERNATE_ALARM),
                       (ADAPTIVE_2, DOUBLE_SEND_ALARM))


def shared_fate_run(plan, scenario, policy, paths):
    """The SimRun of policy in scenario with --paths paths (None: the
    oracles, which take no --paths)."""
    length = plan.call_lengths[0]
    args = policy.args + scenario.args(length.seconds)
    if paths is not None:
        args += ('--paths', paths)
    return SimRun(Policy(policy.key, policy.label, args, policy.links),
                  SECURITIES[0], length.seconds, plan.calls, plan.seed,
                  protocol_options(policy),
                  note=f'{scenario.label}, --paths {paths or "-"}')


def shared_fate_runs(plan):
    """{(scenario key, paths, policy key): SimRun}; the oracles' under
    paths None."""
    runs = {}
    for scenario in SHARED_FATE_SCENARIOS:
        for paths in SHARED_FATE_PATHS:
            for policy in SHARED_FATE_POLICIES:
                runs[(scenario.key, paths, policy.key)] = shared_fate_run(
                    plan, scenario, policy, paths)
        for oracle in SHARED_FATE_ORACLES:
            runs[(scenario.key, None, oracle.key)] = shared_fate_run(
                plan, scenario, oracle, None)
    return runs


# The first seconds of a call, apart (the README's demo is a 20-s call),
# both ways and one way: a callee that only listens gives the caller its
# news in acknowledgements alone (docs/protocol.md, *Keepalives*); donar-sim's
# long calls of both sides sending never see either.
SHORT_CALL_SECONDS = 20
SHORT_CALLS_FACTOR = 4
SHORT_CALL_POLICIES = (ALTERNATE, DOUBLE_SEND, ADAPTIVE_1, ADAPTIVE_2)
SHORT_CALL_WAYS = (('two-way', 'both ends talk', ()),
                   ('one-way', 'the callee only listens', ('--one-way',)))


def short_call_runs(plan):
    """{(policy key, way key): SimRun} of 20-s calls (a tenth of the quick
    run's 30 s in a quick run, for a smoke test)."""
    seconds = 3 if plan.quick else SHORT_CALL_SECONDS
    runs = {}
    for policy in SHORT_CALL_POLICIES:
        for way, label, args in SHORT_CALL_WAYS:
            runs[(policy.key, way)] = SimRun(
                Policy(policy.key, policy.label, policy.args + args,
                       policy.links),
                SECURITIES[0], seconds, plan.calls * SHORT_CALLS_FACTOR,
                plan.seed, protocol_options(policy),
                note=f'{seconds}-s calls, {label}')
    return runs


def main_runs(plan):
    return {(policy.key, security.key, length.key):
            SimRun(policy, security, length.seconds, plan.calls, plan.seed,
                   protocol_options(policy), histogram=True)
            for security in SECURITIES for length in plan.call_lengths
            for policy in MAIN_POLICIES}


def sweep_runs(plan):
    return {(parameter.key, value, policy.key):
            SimRun(policy, SWEEP_SECURITY, plan.sweep_seconds,
                   plan.sweep_calls, plan.seed,
                   protocol_options(policy, parameter.options(value)),
                   note=f'{parameter.label} = {parameter.show(value)}')
            for parameter in SWEEP_PARAMETERS for value in parameter.values
            for policy in SWEEP_POLICIES}
