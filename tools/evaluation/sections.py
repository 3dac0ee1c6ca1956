"""The sections of the page that only a whole run writes: the run, the
paper's tables, the budget, the faults, the sweeps, speed, the link model.
"""

import os

from .policies import (
    ADAPTIVE_1, ADAPTIVE_2, ALARM_FRAMES, ALTERNATE, CDF_X_MAX_MS,
    DEADLINE_MS, DIFFERENCE_POINTS, DIFFERS_MARK, DROP_AFTER_MS,
    FRAME_BYTES, FRAME_MS, MAIN_POLICIES, NO_FIGURE, N_1ST, N_2ND,
    OBJECTIVE_MS, ORACLE_1, ORACLE_2, QUICK_CALIBRATION_CALLS, REDUNDANCY,
    SAME_BANDWIDTH_ORACLE, SECURITIES, SIMPLE, SPEED_LINKS,
    SPEED_TARGET_CPU_S, SWEEP_CALLS_DIVISOR, SWEEP_PARAMETERS,
    SWEEP_POLICIES, SWEEP_SECURITY, TORFONE, WINDOW_MS)
from .paper import (
    PAPER_DROPPED, PAPER_QUOTES, PAPER_SUCCESSFUL, PAPER_SWEEP_QUOTES,
    paper_cell, percent)
from .plan import FAULTS, FAULT_POLICIES, NEWS_LAGS_MS
from .plot import BUDGET_IMAGE, cdf_image_name, sweep_image_name
from .markdown import duration_text, marked, ms, pct, table


def section_run(plan, command, wall_s, cpu_s, voice_wall_s):
    lines = ['## The run', '']
    if plan.quick:
        lines += ['**This is a quick run** (`--quick`): few calls, short '
                  'calls; its figures are a smoke test, not the evaluation.',
                  '']
    lengths = ', '.join(f'{l.seconds} s' for l in plan.call_lengths)
    kbit_s = FRAME_BYTES * 8 / FRAME_MS
    lines += [
        f'- command: `{command}` (after `ninja -C build`), or '
        '`bash scripts/setup.sh evaluate` on a fresh Debian 12 machine',
        f'- seed {plan.seed}; {plan.calls} calls per policy, security '
        f'configuration and call length ({lengths}); call *i* has the same '
        'seed under every policy',
        f'- the protocol as in seed 000, 6.1: nLINKS = {ALTERNATE.links}, '
        f'n1ST = {N_1ST}, n2ND = {N_2ND}, w = {WINDOW_MS / 1000:g} s, one '
        f'{FRAME_BYTES}-byte frame every {FRAME_MS} ms ({kbit_s:.1f} kbit/s), '
        f'{REDUNDANCY} previous frame(s) piggybacked; SIMPLE on '
        f'{SIMPLE.links} link, TORFONE on {TORFONE.links}',
        f'- ALTERNATE and DOUBLE-SEND as the paper has them (links change '
        'groups only at the end of a window); "+ alarm": ours, where a link '
        f'one of whose frames is overtaken by {ALARM_FRAMES} later ones '
        'leaves L1ST / L2ND at once (`--alarm-frames`, docs/protocol.md)',
        f'- a successful call delivers at least 99 % of its frames within '
        f'{DEADLINE_MS} ms; a dropped call misses 25 frames in a row (a frame '
        f'more than {DROP_AFTER_MS} ms late counts as missing)',
        f'- machine: {os.cpu_count()} cores; the whole run took '
        f'{duration_text(wall_s)} of wall time and {duration_text(cpu_s)} '
        'of CPU in donar-sim; the voice-quality section '
        f'{duration_text(voice_wall_s)} of that wall time',
    ]
    return '\n'.join(lines)


def section_headline(results, successful_diffs, plan):
    header = ['policy'] + [f'{s.label}, {l.label}' for s in SECURITIES
                           for l in plan.call_lengths]
    rows = []
    for policy in MAIN_POLICIES:
        row = [policy.label]
        for security in SECURITIES:
            for length in plan.call_lengths:
                key = (policy.key, security.key, length.key)
                ours = marked(pct(results[key]['successful_ratio']),
                              key in successful_diffs)
                row.append(f'{ours} ({paper_cell(PAPER_SUCCESSFUL.get(key))})')
        rows.append(row)
    return '\n'.join([
        '## Successful calls: ours (the paper\'s)', '',
        f'% of {plan.calls} calls with at least 99 % of frames within '
        f'{DEADLINE_MS} ms; in brackets the paper\'s figure where its text '
        f'gives one ({NO_FIGURE}: none); {DIFFERS_MARK}: more than '
        f'{DIFFERENCE_POINTS} points from the paper\'s.', '',
        table(header, rows)])


def detail_table(results, security, length, successful_diffs, dropped_diffs):
    header = ['policy', 'successful %', 'paper', 'dropped %', 'paper',
              'frames lost %', 'p50 ms', 'p99 ms', 'p99.9 ms',
              'p99 over the oracle', 'cells/s', 'bytes/s']
    rows = []
    for policy in MAIN_POLICIES:
        key = (policy.key, security.key, length.key)
        report = results[key]
        latency = report['latency_ms']
        oracle = SAME_BANDWIDTH_ORACLE.get(policy.key)
        if oracle and latency['p99'] is not None:
            oracle_p99 = results[(oracle.key, security.key,
                                  length.key)]['latency_ms']['p99']
            over = (NO_FIGURE if oracle_p99 is None
                    else f'{latency["p99"] - oracle_p99:+g} ms')
        else:
            over = NO_FIGURE
        rows.append([
            policy.label,
            marked(pct(report['successful_ratio']), key in successful_diffs),
            paper_cell(PAPER_SUCCESSFUL.get(key)),
            marked(pct(report['dropped_ratio']), key in dropped_diffs),
            paper_cell(PAPER_DROPPED.get(key)),
            f'{percent(report["frame_loss_ratio"]):.3f}',
            ms(latency['p50']), ms(latency['p99']), ms(latency['p999']),
            over, f'{report["cells_per_s"]:.1f}',
            f'{report["bytes_per_s"]:.0f}'])
    return table(header, rows)


def section_details(results, successful_diffs, dropped_diffs, plan):
    lines = [
        '## Fig. 8 and Fig. 9: the calls in detail', '',
        'Per endpoint: cells/s and bytes/s on the wire. Latencies over the '
        'delivered frames (1 ms bins). "p99 over the oracle": this policy\'s '
        'p99 minus that of the oracle with the same bandwidth (1 send a frame '
        'for SIMPLE and ALTERNATE, 2 for TORFONE and DOUBLE-SEND). The '
        'paper\'s dropped calls (Fig. 8) are for 90-minute calls only.', '']
    for security in SECURITIES:
        for length in plan.call_lengths:
            lines += [f'### {security.label}, {length.label}', '',
                      detail_table(results, security, length,
                                   successful_diffs, dropped_diffs), '']
    lines += ['### Where the paper\'s figures come from', '',
              'Seed 000, section 6.1 (small capitals and line breaks of the '
              'text extraction undone; the "≥" lost in the extraction '
              'restored in brackets). "32 (87 − 55)" is TORFONE\'s figure '
              'implied by the 55-point difference; "ALTERNATE − 43" means '
              '43 points below ALTERNATE in the same configuration, and is '
              'compared with our own gap.', '']
    lines += [f'- *{key}*: "{quote}"' for key, quote in PAPER_QUOTES.items()]
    return '\n'.join(lines)


def section_budget(results, plan):
    length = plan.call_lengths[-1]
    rows = []
    for policy in MAIN_POLICIES:
        report = results[(policy.key, SECURITIES[0].key, length.key)]
        rows.append([policy.label, f'{report["cells_per_s"]:.2f}',
                     f'{report["bytes_per_s"]:.0f}',
                     pct(report['successful_ratio']),
                     pct(report['dropped_ratio']),
                     ms(report['latency_ms']['p99'])])
    return '\n'.join([
        '## Successful calls against bandwidth', '',
        f'{SECURITIES[0].label}, {length.label}, the runs of the tables '
        'above: what each policy buys with the cells it sends. ADAPTIVE\'s '
        'budget is messages (one cell each) a frame: 1 spends ALTERNATE\'s '
        'cells, 2 DOUBLE-SEND\'s.', '',
        table(['policy', 'cells/s', 'bytes/s', 'successful %', 'dropped %',
               'p99 ms'], rows), '',
        f'![successful calls against cells/s]({BUDGET_IMAGE})'])


def section_news_age(results, news, plan):
    length = plan.call_lengths[-1]
    rows = []

    def main_row(policy):
        return results[(policy.key, SECURITIES[0].key, length.key)]

    def row(label, lag, report):
        latency = report['latency_ms']
        rows.append([label, lag, f'{report["cells_per_s"]:.2f}',
                     pct(report['successful_ratio']),
                     pct(report['dropped_ratio']), ms(latency['p50']),
                     ms(latency['p99']), ms(latency['p999'])])

    for oracle in (ORACLE_1, ORACLE_2):
        row(oracle.label, '0', main_row(oracle))
        for lag in NEWS_LAGS_MS:
            row(oracle.label, str(lag), news[(oracle.key, lag)])
    for policy in (ADAPTIVE_1, ADAPTIVE_2):
        row(policy.label, 'a one-way delay or more', main_row(policy))
    oracle_1 = main_row(ORACLE_1)
    fastest_ms = min(oracle_1['histogram'], default=None)
    return '\n'.join([
        '## What a policy could know', '',
        f'{SECURITIES[0].label}, {plan.calls} calls of {length.label}, seed '
        f'{plan.seed}. The oracle picks the links that deliver a frame '
        'first; here it picks them by what a frame sent *lag* ms earlier '
        'met (`donar-sim --policy oracle --oracle-lag-ms LAG`). News of a '
        'link takes a one-way delay to come: the oracle\'s median frame '
        f'takes {ms(oracle_1["latency_ms"]["p50"])} ms here, and none less '
        f'than {ms(fastest_ms)} ms. With a lag of 100 ms '
        'the oracle still knows more than any policy could: every link at '
        'once, not only those the peer sent on, and the queue behind its '
        'own frames as soon as it sends them. ADAPTIVE\'s rows are those of '
        'the tables above. p50 / p99 / p99.9 over the frames delivered.', '',
        table(['policy', 'lag ms', 'cells/s', 'successful %', 'dropped %',
               'p50 ms', 'p99 ms', 'p99.9 ms'], rows)])


def section_faults(faults, plan):
    calls = max(2, plan.calls // SWEEP_CALLS_DIVISOR)
    header = ['policy'] + [name for name, _ in FAULTS]
    rows = []
    for policy in FAULT_POLICIES:
        row = [policy.label]
        for name, _ in FAULTS:
            report = faults[(name, policy.key)]
            row.append(f'{pct(report["successful_ratio"])} / '
                       f'{pct(report["dropped_ratio"])} / '
                       f'{ms(report["latency_ms"]["p99"])} ms')
        rows.append(row)
    return '\n'.join([
        '## ADAPTIVE under faults', '',
        f'{calls} calls of {plan.call_lengths[-1].label}, '
        f'{SECURITIES[0].label}, seed {plan.seed}; successful % / dropped % '
        '/ p99. The faults, as donar-sim options: '
        + '; '.join(f'{name}: `{" ".join(args) or "none"}`'
                    for name, args in FAULTS)
        + ' (cross traffic: 8 bulk flows of 100 KiB/s through guard 0 of '
        'the caller from 30 min for 30 min, seed 003\'s bulk downloads).',
        '', table(header, rows)])


SECTION_AFTER_SHARED_FATE = '## Fig. 9: frame latency distributions'


def section_cdfs(plan):
    lines = [
        SECTION_AFTER_SHARED_FATE, '',
        'One plot per security configuration and call length, a curve per '
        'policy and the two oracles (dotted: 1 send, dash-dotted: 2 sends; '
        'they often coincide), over all frames of the '
        f'{plan.calls} calls. x axis linear, 0 to {CDF_X_MAX_MS} ms; dashed '
        f'lines at {OBJECTIVE_MS} ms and {DEADLINE_MS} ms as in the paper. '
        'Left: the CDF (fraction of the frames sent that were delivered '
        'within x). Right: its tail, the fraction later than x or never '
        'delivered, on a log scale (the grey line is 1 %: a curve must be '
        f'below it at {DEADLINE_MS} ms).', '']
    for security in SECURITIES:
        for length in plan.call_lengths:
            lines += [f'![{security.label}, {length.label}]'
                      f'({cdf_image_name(security, length)})', '']
    return '\n'.join(lines)


def best_value(parameter, sweep, policy):
    """The value with the lowest p99, then p99.9 (None counts as worst)."""
    def rank(value):
        latency = sweep[(parameter.key, value, policy.key)]['latency_ms']
        return tuple(float('inf') if latency[f] is None else latency[f]
                     for f in ('p99', 'p999'))
    return min(parameter.values, key=rank)


def sweep_table(parameter, sweep):
    header = [parameter.label]
    for policy in SWEEP_POLICIES:
        header += [f'{policy.label} p50', 'p99', 'p99.9', 'successful %']
    rows = []
    for value in parameter.values:
        shown = parameter.show(value)
        row = [f'**{shown}**' if value == parameter.default else shown]
        for policy in SWEEP_POLICIES:
            report = sweep[(parameter.key, value, policy.key)]
            latency = report['latency_ms']
            row += [ms(latency['p50']), ms(latency['p99']),
                    ms(latency['p999']), pct(report['successful_ratio'])]
        rows.append(row)
    return table(header, rows)


def section_sweep(sweep, plan):
    lines = [
        '## Fig. 10: protocol parameters', '',
        'Frame latency (ms) and successful calls as one parameter varies, '
        'the others at their defaults (w = 2 s, nLINKS = 12, n1ST = n2ND = 3, '
        'in bold). The paper used links of 4 relays with an unlimited number '
        'of guards; we have no unlimited-guard setting, so these runs use '
        f'the {SWEEP_SECURITY.label} configuration (4 relays, 2 guards a '
        f'side): {plan.sweep_calls} calls of {plan.sweep_seconds} s per '
        'point (fewer than the main table, to keep the run short).', '']
    for parameter in SWEEP_PARAMETERS:
        best = ', '.join(
            f'{p.label} {parameter.show(best_value(parameter, sweep, p))}'
            for p in SWEEP_POLICIES)
        lines += [f'### {parameter.label}', '',
                  sweep_table(parameter, sweep), '',
                  f'Lowest p99 (then p99.9) here: {best}. The paper: '
                  f'"{PAPER_SWEEP_QUOTES[parameter.key]}"', '',
                  f'![{parameter.label}]({sweep_image_name(parameter)})', '']
    return '\n'.join(lines)


def section_speed(speeds, plan, wall_s):
    rows = [[p.label, f'{speeds[p.key]:.3f}',
             'yes' if speeds[p.key] <= SPEED_TARGET_CPU_S else 'no']
            for p in MAIN_POLICIES]
    return '\n'.join([
        '## Speed', '',
        f'CPU seconds of one {plan.speed_seconds}-s call with {SPEED_LINKS} '
        'links (every policy, SIMPLE and TORFONE included), Default '
        'configuration, on one core (`donar-sim --calls 1 --duration '
        f'{plan.speed_seconds} --links {SPEED_LINKS} --jobs 1`, its cpu_s), '
        f'against the target of {SPEED_TARGET_CPU_S:g} s for a 90-minute '
        'call. The whole evaluation took '
        f'{duration_text(wall_s)} of wall time on {os.cpu_count()} cores.', '',
        table(['policy', 'CPU s', f'within {SPEED_TARGET_CPU_S:g} s'],
              rows)])


CALIBRATION_DURATIONS = ('30s', '5min', '90min')


def calibration_rows(figures):
    """(target of seed 000 section 3, the model's figure) for the
    calibration figures of one configuration (donar-netmodel-calibrate)."""
    def calls(duration, name, scale, spec, unit):
        return _figure(figures.get('calls', {}).get(duration, {}), name,
                       scale, spec, unit)

    def over_durations(name, scale, spec, unit):
        return ' / '.join(calls(d, name, scale, spec, unit)
                          for d in CALIBRATION_DURATIONS)

    def with_formula(name):
        return (f"{_figure(figures, name, 100, '.1f', ' %')} "
                f"({_figure(figures, name + '_formula', 100, '.1f', ' %')})")

    return [
        ('Fig. 3: single-link calls unacceptable, 30 s / 5 min / 90 min '
         '(exit links, 3 relays: 20 / 37 / 50 %; two-way anonymity worse)',
         over_durations('unacceptable', 100, '.1f', ' %')),
        ('the same among calls whose link did not fail',
         over_durations('unacceptable_held', 100, '.1f', ' %')),
        ('Fig. 3: latencies grow with call duration (median over calls of '
         'the p99, 30 s / 5 min / 90 min)',
         over_durations('median_p99_ms', 1, '.0f', ' ms')),
        ('Fig. 5: max often ≥ 3× the 75th percentile, on any link (5-min '
         'calls: all; links under / over the median of medians)',
         f"{calls('5min', 'max_over_3x_p75', 100, '.1f', ' %')}; "
         f"{calls('5min', 'max_over_3x_p75_best_half', 100, '.1f', ' %')} / "
         f"{calls('5min', 'max_over_3x_p75_worst_half', 100, '.1f', ' %')}"),
        ('the same over 90-min calls',
         calls('90min', 'max_over_3x_p75', 100, '.1f', ' %')),
        ('Fig. 4: ≥ 4 % of links failed after 10 min (formula)',
         with_formula('failed_10min')),
        ('Fig. 4: 7-16 % after 60 min (formula)',
         with_formula('failed_60min')),
        ('median one-way latency of a link: a few hundred ms at most '
         '(median of link medians, p10-p90, 5-min calls)',
         f"{calls('5min', 'median_latency_ms', 1, '.0f', ' ms')} "
         f"({calls('5min', 'p10_latency_ms', 1, '.0f', '')}-"
         f"{calls('5min', 'p90_latency_ms', 1, '.0f', ' ms')})"),
        ('12-link calls where ≥ 2 links fail at the same instant within '
         '90 min (shared guard); no target',
         _figure(figures, 'simultaneous_failures', 100, '.1f', ' %')),
        ('circuit setup, median: "a few seconds" (an assumption)',
         _figure(figures, 'setup_median_s', 1, '.2f', ' s')),
        ('cost of a send; no target',
         _figure(figures, 'ns_per_send', 1, '.0f', ' ns')),
    ]


def _figure(figures, name, scale, spec, unit):
    """figures[name] × scale, formatted with spec, or NO_FIGURE."""
    value = figures.get(name)
    return NO_FIGURE if value is None else f'{value * scale:{spec}}{unit}'



def section_link_model(calibration, plan):
    header = ['target (seed 000, section 3)'] + [s.label for s in SECURITIES]
    columns = [calibration_rows(calibration.get(s.key, {}))
               for s in SECURITIES]
    rows = [[target] + [column[i][1] for column in columns]
            for i, (target, _) in enumerate(columns[0])]
    calls = QUICK_CALIBRATION_CALLS if plan.quick else 256
    lines = ['## The link model', '',
             'Every call runs over the Tor link model of `lib/netmodel/`; '
             '[netmodel.md](netmodel.md) gives its parameters and why. Its '
             'calibration figures, from `donar-netmodel-calibrate --json` '
             f'({calls} single-link calls per configuration and duration'
             + (', no 90-minute calls in a quick run' if plan.quick else '')
             + '), against the targets of seed 000, section 3:', '',
             table(header, rows)]
    return '\n'.join(lines)
