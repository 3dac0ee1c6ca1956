"""The sections that `--only` regenerates alone, each between its markers
on the page: voice quality, shared fate, short calls.
"""

import os

from .policies import (
    DIRECT_DELAY_MS, DIRECT_KEY, GOOD_DELAY_MS, GOOD_PESQ, SECURITIES,
    VOICE_POLICIES)
from .paper import percent
from .plan import (
    CALLEE_GUARD_SPIKE_GAP_S, SHARED_FATE_LAG_MS, SHARED_FATE_ORACLES,
    SHARED_FATE_PATHS, SHARED_FATE_POLICIES, SHARED_FATE_SCENARIOS,
    SHARED_FATE_TARGETS, SHORT_CALL_POLICIES, SHORT_CALL_WAYS,
    short_call_runs)
from .voice import voice_figures
from .plot import VOICE_IMAGE
from .markdown import duration_text, ms, pct, replace_marked_section, table
from .sections import SECTION_AFTER_SHARED_FATE


# The sections `--only` runs alone, each between its markers on the page.
ONLY_SECTIONS = ('voice', 'shared-fate', 'short-calls')
VOICE_BEGIN = '<!-- voice quality begin -->'
VOICE_END = '<!-- voice quality end -->'
SHARED_FATE_BEGIN = '<!-- shared fate begin -->'
SHARED_FATE_END = '<!-- shared fate end -->'
SHORT_CALLS_BEGIN = '<!-- short calls begin -->'
SHORT_CALLS_END = '<!-- short calls end -->'


def calls_of(report, measure, calls):
    """How many of the run's calls the ratio `measure` stands for."""
    return round(report[measure] * calls)


def shared_fate_report(fate, scenario, paths, policy):
    report = fate.get((scenario.key, paths, policy.key))
    return report if report is not None else fate[(scenario.key, None,
                                                   policy.key)]


def target_verdict(fate, scenario, paths, calls):
    """'ok', or which of issue 24's targets fail under scenario and paths:
    ADAPTIVE fewer calls successful, or more dropped, than the paper's
    policy with alarms at the same budget."""
    failing = []
    for adaptive, paper in SHARED_FATE_TARGETS:
        ours = shared_fate_report(fate, scenario, paths, adaptive)
        theirs = shared_fate_report(fate, scenario, paths, paper)
        if (calls_of(ours, 'successful_ratio', calls) <
                calls_of(theirs, 'successful_ratio', calls)):
            failing.append(f'{adaptive.label}: successful '
                           f'{pct(ours["successful_ratio"])} < '
                           f'{pct(theirs["successful_ratio"])}')
        if (calls_of(ours, 'dropped_ratio', calls) >
                calls_of(theirs, 'dropped_ratio', calls)):
            failing.append(f'{adaptive.label}: dropped '
                           f'{pct(ours["dropped_ratio"])} > '
                           f'{pct(theirs["dropped_ratio"])}')
    return '; '.join(failing) or 'ok'


def shared_fate_cell(report):
    latency = report['latency_ms']
    return (f'{pct(report["successful_ratio"])} / '
            f'{pct(report["dropped_ratio"])} / {ms(latency["p99"])} / '
            f'{ms(latency["p999"])}')


def shared_fate_targets_table(fate, plan):
    rows = []
    for scenario in SHARED_FATE_SCENARIOS:
        for paths in SHARED_FATE_PATHS:
            row = [scenario.label, paths]
            for adaptive, paper in SHARED_FATE_TARGETS:
                for policy in (adaptive, paper):
                    report = shared_fate_report(fate, scenario, paths, policy)
                    row.append(f'{pct(report["successful_ratio"])} / '
                               f'{pct(report["dropped_ratio"])}')
            row.append(target_verdict(fate, scenario, paths, plan.calls))
            rows.append(row)
    header = ['scenario', '--paths']
    header += [policy.label for pair in SHARED_FATE_TARGETS for policy in pair]
    return table(header + ['targets'], rows)


def shared_fate_scenario_table(fate, scenario):
    header = ['policy'] + [f'`--paths {paths}`'
                           for paths in SHARED_FATE_PATHS]
    rows = [[policy.label] + [shared_fate_cell(shared_fate_report(
        fate, scenario, paths, policy)) for paths in SHARED_FATE_PATHS]
        for policy in SHARED_FATE_POLICIES + SHARED_FATE_ORACLES]
    return table(header, rows)


def section_shared_fate(fate, plan, command, cpu_s):
    length = plan.call_lengths[0]
    lines = [
        SHARED_FATE_BEGIN, '## Shared fate', '',
        'Links that cross one relay share its spikes, its cross traffic and '
        'its failure, and every link of a side crosses one of that side\'s 2 '
        'guards (issue 24). '
        f'{plan.calls} calls of {length.label} per cell, '
        f'{SECURITIES[0].label}, seed {plan.seed}; call *i* has the same '
        'network under every policy and `--paths`. The scenarios, as '
        'donar-sim options: '
        + '; '.join(f'{scenario.label}: {scenario.command(length.seconds)}'
                    for scenario in SHARED_FATE_SCENARIOS)
        + f' (bulk downloads: seed 003\'s, 8 flows of 50 KiB/s; the flaky '
        'guards: quiet periods of '
        f'{CALLEE_GUARD_SPIKE_GAP_S} s on average, the model\'s median flaky '
        'relay, docs/netmodel.md).', '',
        '`--paths`: which sides learn their links\' guards from tor; '
        '`own`: each side its half of every circuit, `caller`: only the '
        'caller (what the link engine does today), `none`: neither (as in '
        'trace replay). Only ADAPTIVE uses them; the oracles run no session '
        'and are run once a scenario, shown under each `--paths`. '
        f'"told {SHARED_FATE_LAG_MS} ms late": the oracle choosing by what a '
        f'frame sent {SHARED_FATE_LAG_MS} ms earlier met '
        f'(`--oracle-lag-ms {SHARED_FATE_LAG_MS}`).', '',
        f'Regenerate this section alone: `{command}` '
        f'({len(fate)} donar-sim runs, '
        f'{duration_text(cpu_s)} of CPU).', '',
        '### The targets', '',
        'Issue 24: ADAPTIVE at budget 1 at least as many calls successful as '
        'ALTERNATE + alarm and at most as many dropped; at budget 2 the same '
        'against DOUBLE-SEND + alarm. Successful % / dropped %; "targets": '
        'ok, or the ones that fail.', '',
        shared_fate_targets_table(fate, plan)]
    for scenario in SHARED_FATE_SCENARIOS:
        lines += ['', f'### {scenario.label[0].upper()}{scenario.label[1:]}',
                  '', f'{scenario.command(length.seconds)}; '
                  'successful % / dropped % / p99 / p99.9 ms (over the '
                  'frames delivered).', '',
                  shared_fate_scenario_table(fate, scenario)]
    lines.append(SHARED_FATE_END)
    return '\n'.join(lines)


def section_short_calls(reports, plan, command, cpu_s):
    run = next(iter(short_call_runs(plan).values()))
    header = ['policy'] + [f'{label}: successful % / p99 / p99.9 ms'
                           for _, label, _ in SHORT_CALL_WAYS]
    rows = []
    for policy in SHORT_CALL_POLICIES:
        row = [policy.label]
        for way, _, _ in SHORT_CALL_WAYS:
            r = reports[(policy.key, way)]
            latency = r['latency_ms']
            row.append(f'{pct(r["successful_ratio"])} / '
                       f'{ms(latency.get("p99"))} / '
                       f'{ms(latency.get("p999"))}')
        rows.append(row)
    lines = [
        SHORT_CALLS_BEGIN, '## Short and one-way calls', '',
        f'{run.calls} calls of {run.seconds} s, {SECURITIES[0].label}, seed '
        f'{plan.seed}: the first seconds of a call, which the long calls '
        'above dilute (a frame late in the first second is 0.07 % of a '
        '5-minute call, 0.2 % of a 20-s one), with both ends talking and '
        'with a callee that only listens (`donar-sim --one-way`, as the '
        'README\'s demo), whose acknowledgements alone tell the caller of '
        'its links (docs/protocol.md, *Keepalives*). A one-way call is '
        'successful when 99 % of the caller\'s frames are in time.', '',
        table(header, rows), '',
        f'Regenerate this section alone: `{command}` ({len(reports)} '
        f'donar-sim runs, {duration_text(cpu_s)} of CPU).',
        SHORT_CALLS_END]
    return '\n'.join(lines)


def replace_short_calls_section(page, section):
    return replace_marked_section(page, SHORT_CALLS_BEGIN, SHORT_CALLS_END,
                                  section, SECTION_AFTER_SHARED_FATE)


def section_voice(voice, plan, wall_s):
    direct = voice_figures(voice[(DIRECT_KEY, 'none')])
    header = ['policy']
    for security in SECURITIES:
        header += [f'{security.label}: median', 'p10', 'good %', 'R']
    rows = [['direct UDP (no Tor)'] + [
        f'{direct["median"]:.2f}', f'{direct["p10"]:.2f}',
        f'{percent(direct["good"]):.0f}', f'{direct["r"]:.1f}']
        * len(SECURITIES)]
    delay_rows = [['direct UDP (no Tor)'] + [
        f'{direct["delay"]:.0f} / {percent(direct["unplayed"]):.2f}']
        * len(SECURITIES)]
    damaged = scored = segments = 0
    for policy in VOICE_POLICIES:
        row, delay_row = [policy.label], [policy.label]
        for security in SECURITIES:
            f = voice_figures(voice[(policy.key, security.key)])
            row += [f'{f["median"]:.2f}', f'{f["p10"]:.2f}',
                    f'{percent(f["good"]):.0f}', f'{f["r"]:.1f}']
            delay_row.append(f'{f["delay"]:.0f} / '
                             f'{percent(f["unplayed"]):.2f}')
            damaged += f['damaged']
            scored += f['scored']
            segments += f['segments']
        rows.append(row)
        delay_rows.append(delay_row)
    cells = len(VOICE_POLICIES) * len(SECURITIES)
    lines = [
        VOICE_BEGIN,
        '## Voice quality', '',
        'How the calls sound (issue 6; [quality.md](quality.md)): real '
        'speech (codec2-examples\' `speech_orig_16k.wav`, looped) through '
        'Opus at 32 kbit/s and the adaptive playout of `donarjitterbuffer`, '
        'each frame played, late or lost as in a simulated call, scored '
        'with PESQ wide band (ITU-T P.862.2) against what was sent: '
        '`donar-sim --frame-log` and `tools/quality/trace_quality.py`, '
        'offline. Per policy and security configuration: '
        f'{plan.voice_calls} calls of {plan.voice_seconds} s '
        '(5-minute calls in the evaluation of record; 90-minute ones are '
        'out of reach of this run\'s time) with the same seed and protocol '
        'options as the rest; the caller-to-callee direction of each call.',
        '',
        f'- **PESQ-WB of a call**: the mean over its {10.8:g}-s segments '
        '(one loop of the speech each). A segment whose frames were all '
        'played takes the codec\'s own score; of the damaged ones at most '
        f'{plan.voice_segments} per call are scored for real, evenly spread '
        'in the order of their frames not played, and each other takes the '
        'score of its nearest in that order: an estimate '
        f'({scored} of {damaged} damaged segments scored, of {segments} '
        'segments). Measured on 32 calls of SIMPLE and of DOUBLE-SEND, '
        'Default, scored whole: with 8 damaged segments scored per call, '
        'the estimate of a call was off by 0.06 and 0.013 rms, 0.17 and '
        '0.03 at most.',
        '- **one-way delay**, as seed 001 counts it ("from encoding at the '
        'sender to decoding at the receiver"): the playout delay, from '
        'sending a frame to its playout time (the median over the call\'s '
        'frames, `playout_delay_ms` p50 of the replay). '
        f'A **good call** (seed 001): PESQ-WB > {GOOD_PESQ:g} and that '
        f'delay < {GOOD_DELAY_MS} ms.',
        '- **R**: ITU-T G.107\'s E-model as `tools/quality/qscore.py` has '
        'it (Opus: Ie = 0, Bpl = 20, our assumptions; 93.2 with no delay '
        'and no loss), with Ta = that delay, Ppl = the frames lost or late '
        '(not played), BurstR from the runs of frames not played.',
        f'- **direct UDP**: no Tor; modelled as a call whose every frame '
        f'arrives {DIRECT_DELAY_MS} ms after it is sent (the same for every '
        'configuration): the codec and the playout alone.',
        '- median and 10th percentile (linear between ranks) of the calls\' '
        'PESQ-WB; good %: share of the calls; R: the median over the calls.',
        '',
        table(header, rows), '',
        'The one-way delay (median over the calls, ms) / the frames not '
        'played (lost or late, % of all frames):', '',
        table(['policy'] + [s.label for s in SECURITIES], delay_rows), '',
        f'![PESQ-WB per call]({VOICE_IMAGE})', '',
        f'The CDF of the calls\' PESQ-WB per policy (dashed: {GOOD_PESQ:g}; '
        'dotted: direct UDP). This section took '
        f'{duration_text(wall_s)} of wall time on {os.cpu_count()} cores '
        f'({cells} donar-sim runs and their scoring, a process each).',
        VOICE_END]
    return '\n'.join(lines)


def replace_voice_section(page, section):
    return replace_marked_section(page, VOICE_BEGIN, VOICE_END, section,
                                  '## Speed')


def replace_shared_fate_section(page, section):
    return replace_marked_section(page, SHARED_FATE_BEGIN, SHARED_FATE_END,
                                  section, SECTION_AFTER_SHARED_FATE)
