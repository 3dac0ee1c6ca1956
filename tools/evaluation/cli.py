"""DONAR's evaluation of record: seed 000, section 6, over the Tor link model.

The command line of tools/evaluate.py (and of `python3 -m evaluation` from
tools/): its options, the whole run, and the sections that --only runs
alone.
"""

import argparse
import os
import tempfile
import time

from .policies import (
    DEFAULT_CALLS, DEFAULT_VOICE_CALLS, QUICK_CALLS, QUICK_OUT,
    QUICK_VOICE_CALLS, QUICK_VOICE_SEGMENTS, VOICE_SEGMENTS)
from .plan import (
    fault_runs, main_runs, make_plan, news_runs, shared_fate_runs,
    short_call_runs, sweep_runs)
from .run import check_tools, log, measure_speed, run_all, snapshot_tools
from .voice import import_quality, run_voice
from .plot import import_pyplot, write_plots, write_voice_plot
from .markdown import duration_text, write_atomically
from .only_sections import (
    ONLY_SECTIONS, replace_shared_fate_section,
    replace_short_calls_section, replace_voice_section,
    section_shared_fate, section_short_calls, section_voice)
from .page import read_notes, render_page, write_section_alone


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--build', default='build',
                        help='meson build directory (build)')
    parser.add_argument('--out', default=None,
                        help='where evaluation.md and img/ go (docs; with '
                        f'--quick, BUILD/{QUICK_OUT}, so that a smoke run '
                        'never replaces the evaluation of record)')
    parser.add_argument('--calls', type=int, default=None,
                        help=f'calls per table cell ({DEFAULT_CALLS}; '
                        f'{QUICK_CALLS} with --quick)')
    parser.add_argument('--quick', action='store_true',
                        help='few, short calls: a smoke test')
    parser.add_argument('--seed', type=int, default=1, help='seed (1)')
    parser.add_argument('--voice-calls', type=int, default=None,
                        help='calls per policy and configuration in the '
                        f'voice-quality section ({DEFAULT_VOICE_CALLS}; '
                        f'{QUICK_VOICE_CALLS} with --quick)')
    parser.add_argument('--voice-segments', type=int, default=None,
                        metavar='K',
                        help='damaged segments scored per call, the rest '
                        f'estimated ({VOICE_SEGMENTS}; '
                        f'{QUICK_VOICE_SEGMENTS} with --quick)')
    parser.add_argument('--only', choices=ONLY_SECTIONS, default=None,
                        help='run only this section and replace only it in '
                        'OUT/evaluation.md')
    parser.add_argument('--voice-only', action='store_const', dest='only',
                        const='voice', help='the same as --only voice')
    args = parser.parse_args(argv)
    if args.calls is not None and args.calls < 1:
        parser.error('--calls must be at least 1')
    for name in ('voice_calls', 'voice_segments'):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f'--{name.replace("_", "-")} must be at least 1')
    if args.out is None:
        args.out = (os.path.join(args.build, QUICK_OUT) if args.quick
                    else 'docs')
    return args


def reproducing_command(args, only=None):
    """The command that gives these figures again: the whole page, or with
    only, that section of it."""
    parts = ['build-venv/bin/python3 tools/evaluate.py']
    if only:
        parts.append(f'--only {only}')
    if args.quick:
        parts.append('--quick')
    if args.calls:
        parts.append(f'--calls {args.calls}')
    if args.seed != 1:
        parts.append(f'--seed {args.seed}')
    if only == 'shared-fate':
        return ' '.join(parts)
    if args.voice_calls:
        parts.append(f'--voice-calls {args.voice_calls}')
    if args.voice_segments:
        parts.append(f'--voice-segments {args.voice_segments}')
    return ' '.join(parts)


def voice_only(args, plan):
    """Runs the voice-quality section alone and replaces it in the page."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='donar-evaluate-') as scratch:
        voice = run_voice(snapshot_tools(args.build, scratch), plan, scratch)
    wall_s = time.monotonic() - started
    os.makedirs(args.out, exist_ok=True)
    write_voice_plot(args.out, voice, plan)
    page_path = write_section_alone(args.out, 'voice quality',
                                    replace_voice_section,
                                    section_voice(voice, plan, wall_s))
    log(f'wrote the voice-quality section of {page_path} in '
        f'{duration_text(wall_s)}')


def section_figures(args, only, section_plan, reports):
    """What section_shared_fate or section_short_calls needs of the runs of
    section_plan (only: the section's name for --only)."""
    return {'reports': {key: reports[run]
                        for key, run in section_plan.items()},
            'command': reproducing_command(args, only),
            'cpu_s': sum(reports[run]['cpu_s']
                         for run in section_plan.values())}


# The sections of donar-sim runs that --only runs alone: their runs, the
# section, how it replaces its old self on the page, the page's name when
# it is all there is, the log's name, whether the runs are counted first.
SIMS_ONLY = {
    'shared-fate': (shared_fate_runs, section_shared_fate,
                    replace_shared_fate_section, 'shared fate',
                    'shared-fate section', True),
    'short-calls': (short_call_runs, section_short_calls,
                    replace_short_calls_section, 'short calls',
                    'short-call section', False),
}


def sims_only(args, plan):
    """Runs the section of donar-sim runs that --only names alone and
    replaces it in the page."""
    runs_of, section, replace, what, written, count = SIMS_ONLY[args.only]
    started = time.monotonic()
    section_plan = runs_of(plan)
    if count:
        log(f'{len(section_plan)} donar-sim runs on {os.cpu_count()} cores' +
            (' (quick)' if plan.quick else ''))
    with tempfile.TemporaryDirectory(prefix='donar-evaluate-') as scratch:
        _, reports = run_all(snapshot_tools(args.build, scratch),
                             list(section_plan.values()), plan.seed,
                             plan.quick, scratch, calibrate=False)
    figures = section_figures(args, args.only, section_plan, reports)
    page_path = write_section_alone(
        args.out, what, replace,
        section(figures['reports'], plan, figures['command'],
                figures['cpu_s']))
    log(f'wrote the {written} of {page_path} in '
        f'{duration_text(time.monotonic() - started)}')


def run_everything(args, plan):
    """The whole run: every donar-sim run, the link model's calibration,
    the voice-quality cells and the speed test.  Returns what render_page
    takes of them, by its parameters' names."""
    plans = {'results': main_runs(plan), 'sweep': sweep_runs(plan),
             'faults': fault_runs(plan), 'news': news_runs(plan),
             'fate': shared_fate_runs(plan), 'short': short_call_runs(plan)}
    log(' + '.join(str(len(runs)) for runs in plans.values()) +
        f' donar-sim runs on {os.cpu_count()} cores' +
        (' (quick)' if plan.quick else ''))
    with tempfile.TemporaryDirectory(prefix='donar-evaluate-') as scratch:
        tools = snapshot_tools(args.build, scratch)
        calibration, reports = run_all(
            tools, [run for runs in plans.values() for run in runs.values()],
            plan.seed, plan.quick, scratch)
        voice_started = time.monotonic()
        voice = run_voice(tools, plan, scratch)
        voice_wall_s = time.monotonic() - voice_started
        speeds = measure_speed(tools, plan.speed_seconds, plan.seed)
    figures = {name: {key: reports[run] for key, run in runs.items()}
               for name, runs in plans.items()
               if name in ('results', 'sweep', 'faults', 'news')}
    figures['fate'] = section_figures(args, 'shared-fate', plans['fate'],
                                      reports)
    figures['short'] = section_figures(args, 'short-calls', plans['short'],
                                       reports)
    figures.update(calibration=calibration, voice=voice,
                   voice_wall_s=voice_wall_s, speeds=speeds,
                   cpu_s=sum(report['cpu_s'] for report in reports.values()))
    return figures


def whole_page(args, plan):
    """Runs everything, then writes OUT/evaluation.md and its plots."""
    started = time.monotonic()
    figures = run_everything(args, plan)
    os.makedirs(args.out, exist_ok=True)
    write_plots(args.out, figures['results'], figures['sweep'], plan)
    write_voice_plot(args.out, figures['voice'], plan)
    page_path = os.path.join(args.out, 'evaluation.md')
    wall_s = time.monotonic() - started
    page = render_page(plan, reproducing_command(args), wall_s=wall_s,
                       notes=read_notes(page_path), out=args.out, **figures)
    write_atomically(page_path, page)
    log(f'wrote {page_path} in {duration_text(wall_s)}')


def main(argv):
    args = parse_args(argv)
    check_tools(args.build)
    plan = make_plan(args)
    if args.only in SIMS_ONLY:
        sims_only(args, plan)
        return
    import_pyplot()              # fail now rather than after the runs
    import_quality()
    if args.only == 'voice':
        voice_only(args, plan)
        return
    whole_page(args, plan)
