"""The plots of the page (matplotlib, written under OUT/img/).
"""

import os
import sys

from .policies import (
    ADAPTIVE_2, CCDF_FLOOR, CDF_X_MAX_MS, DEADLINE_MS, DIRECT_KEY,
    GOOD_PESQ, LATENCY_TICKS_MS, MAIN_POLICIES, OBJECTIVE_MS,
    POLICY_COLOURS, POLICY_LINE_STYLES, SECURITIES, SWEEP_PARAMETERS,
    SWEEP_POLICIES, SWEEP_SECURITY, VOICE_POLICIES)
from .paper import percent
from .run import log


def import_pyplot():
    try:
        import matplotlib
    except ImportError:
        sys.exit('evaluate: matplotlib is missing: apt-get install '
                 'python3-matplotlib, and run Debian\'s /usr/bin/python3')
    matplotlib.use('Agg')
    import matplotlib.pyplot as pyplot
    import matplotlib.ticker as ticker
    return pyplot, ticker


def latency_curve(report):
    """(x ms, fraction of all frames delivered within x, fraction later or
    never) over 0..CDF_X_MAX_MS; lost frames never arrive."""
    histogram = report['histogram']
    delivered = sum(histogram.values())
    loss = report['frame_loss_ratio']
    frames = delivered / (1 - loss) if loss < 1 else max(delivered, 1)
    xs, within, later = [], [], []
    seen = 0
    for ms in range(CDF_X_MAX_MS + 1):
        seen += histogram.get(ms, 0)
        xs.append(ms)
        within.append(seen / frames if frames else 0.0)
        later.append(max(1 - seen / frames, 0.0) if frames else 1.0)
    return xs, within, later


def plot_cdf(pyplot, reports, security, length, path):
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(11, 4.2))
    for policy in MAIN_POLICIES:
        xs, within, later = latency_curve(reports[policy.key])
        style = POLICY_LINE_STYLES.get(policy.key, '-')
        colour = POLICY_COLOURS[policy.key]
        left.plot(xs, within, style, color=colour, label=policy.label)
        right.plot(xs, [v if v > 0 else float('nan') for v in later], style,
                   color=colour, label=policy.label)
    for axis in (left, right):
        axis.set_xlim(0, CDF_X_MAX_MS)
        axis.set_xlabel('one-way frame latency (ms)')
        for line_ms in (OBJECTIVE_MS, DEADLINE_MS):
            axis.axvline(line_ms, color='black', linewidth=0.8,
                         linestyle='--')
        axis.grid(True, alpha=0.3)
    left.set_ylim(0, 1)
    left.set_ylabel('fraction of frames delivered within x')
    right.set_yscale('log')
    right.set_ylim(CCDF_FLOOR, 1)
    right.set_ylabel('fraction of frames later than x or lost (log scale)')
    right.axhline(0.01, color='grey', linewidth=0.6)
    left.legend(loc='lower right', fontsize=8)
    figure.suptitle(f'Frame latency, {security.label}, {length.label}')
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


def plot_sweep(pyplot, ticker, parameter, sweep, plan, path):
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(11, 4.2))
    styles = (('p50', '-', 'p50'), ('p99', '--', 'p99'),
              ('p999', ':', 'p99.9'))
    for policy in SWEEP_POLICIES:
        colour = POLICY_COLOURS[policy.key]
        reports = [sweep[(parameter.key, v, policy.key)]
                   for v in parameter.values]
        for field, style, name in styles:
            ys = [r['latency_ms'][field] for r in reports]
            left.plot(parameter.values, [float('nan') if y is None else y
                                         for y in ys],
                      style, marker='o', markersize=3, color=colour,
                      label=f'{policy.label} {name}')
        right.plot(parameter.values,
                   [percent(r['successful_ratio']) for r in reports],
                   '-', marker='o', color=colour, label=policy.label)
    left.axhline(DEADLINE_MS, color='black', linewidth=0.8, linestyle='--')
    left.set_yscale('log')
    low, high = left.get_ylim()
    left.set_yticks([t for t in LATENCY_TICKS_MS if low <= t <= high])
    left.set_yticks([], minor=True)
    left.yaxis.set_major_formatter(ticker.ScalarFormatter())
    left.set_ylabel('frame latency (ms, log scale)')
    right.set_ylabel('successful calls (%)')
    right.set_ylim(0, 101)
    for axis in (left, right):
        if parameter.log_axis:
            axis.set_xscale('log')
        axis.set_xticks(parameter.values)
        axis.set_xticklabels([parameter.show(v) for v in parameter.values])
        axis.set_xlabel(parameter.label)
        axis.grid(True, alpha=0.3)
    left.legend(fontsize=7, ncol=2)
    right.legend(fontsize=8)
    figure.suptitle(f'{parameter.label}: {SWEEP_SECURITY.label}, '
                    f'{plan.sweep_calls} calls of {plan.sweep_seconds} s '
                    'per point')
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


VOICE_IMAGE = 'img/voice-pesq-cdf.png'
DIRECT_COLOUR = 'black'


def plot_voice(pyplot, voice, plan, path):
    """A CDF of the calls' PESQ-WB per policy, a plot per configuration."""
    figure, axes = pyplot.subplots(1, len(SECURITIES), figsize=(13, 4.2),
                                   sharey=True)
    direct = voice[(DIRECT_KEY, 'none')][0]['pesq_wb']
    for axis, security in zip(axes, SECURITIES):
        for policy in VOICE_POLICIES:
            scores = sorted(c['pesq_wb'] for c in
                            voice[(policy.key, security.key)])
            n = len(scores)
            axis.step([1.0] + scores + [4.7],
                      [0.0] + [(i + 1) / n for i in range(n)] + [1.0],
                      where='post', color=POLICY_COLOURS[policy.key],
                      label=policy.label)
        axis.axvline(direct, color=DIRECT_COLOUR, linewidth=0.8,
                     linestyle=':', label=f'direct UDP ({direct:.2f})')
        axis.axvline(GOOD_PESQ, color='black', linewidth=0.8,
                     linestyle='--')
        axis.set_xlim(1.0, 4.7)
        axis.set_ylim(0, 1)
        axis.set_xlabel('PESQ-WB of the call (caller to callee)')
        axis.set_title(security.label)
        axis.grid(True, alpha=0.3)
    axes[0].set_ylabel('fraction of calls with PESQ-WB ≤ x')
    axes[0].legend(loc='upper left', fontsize=8)
    figure.suptitle(f'Voice quality: {plan.voice_calls} calls of '
                    f'{plan.voice_seconds} s per policy and configuration')
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


def write_voice_plot(out, voice, plan):
    pyplot, _ = import_pyplot()
    os.makedirs(os.path.join(out, 'img'), exist_ok=True)
    path = os.path.join(out, VOICE_IMAGE)
    plot_voice(pyplot, voice, plan, path)
    log(f'wrote {path}')


def cdf_image_name(security, length):
    return f'img/latency-cdf-{security.key}-{length.key}.png'


def sweep_image_name(parameter):
    return f'img/sweep-{parameter.key}.png'


BUDGET_IMAGE = 'img/budget-default-90min.png'


def plot_budget(pyplot, results, plan, path):
    """Successful calls against the cells a second they cost, Default,
    the longest calls: every policy a point, ADAPTIVE's budgets a line."""
    length = plan.call_lengths[-1]
    figure, axes = pyplot.subplots(figsize=(8.4, 4.2))
    adaptive = []
    for policy in MAIN_POLICIES:
        report = results[(policy.key, SECURITIES[0].key, length.key)]
        x, y = report['cells_per_s'], percent(report['successful_ratio'])
        if policy.key.startswith('adaptive'):
            adaptive.append((x, y))
        axes.plot([x], [y], 'o', color=POLICY_COLOURS[policy.key],
                  label=policy.label)
    adaptive.sort()
    axes.plot([x for x, _ in adaptive], [y for _, y in adaptive], '-',
              color=POLICY_COLOURS[ADAPTIVE_2.key], linewidth=0.8)
    axes.set_xlabel('Tor cells per second, each way')
    axes.set_ylabel(f'successful calls (% of {plan.calls})')
    axes.set_title(f'{SECURITIES[0].label}, {length.label}')
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize='small', loc='upper left', bbox_to_anchor=(1.02, 1))
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


def write_plots(out, results, sweep, plan):
    pyplot, ticker = import_pyplot()
    os.makedirs(os.path.join(out, 'img'), exist_ok=True)
    for security in SECURITIES:
        for length in plan.call_lengths:
            reports = {p.key: results[(p.key, security.key, length.key)]
                       for p in MAIN_POLICIES}
            path = os.path.join(out, cdf_image_name(security, length))
            plot_cdf(pyplot, reports, security, length, path)
            log(f'wrote {path}')
    for parameter in SWEEP_PARAMETERS:
        path = os.path.join(out, sweep_image_name(parameter))
        plot_sweep(pyplot, ticker, parameter, sweep, plan, path)
        log(f'wrote {path}')
    path = os.path.join(out, BUDGET_IMAGE)
    plot_budget(pyplot, results, plan, path)
    log(f'wrote {path}')
