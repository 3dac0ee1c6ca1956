"""The page: its sections in order, the notes a human wrote between the
notes markers and the section "Over real tor", both kept across
regenerations.
"""

import os
import re

from .policies import DIFFERENCE_POINTS, DIFFERS_MARK
from .paper import PAPER_DROPPED, PAPER_SUCCESSFUL, compare, in_table_order
from .markdown import write_atomically
from .sections import (
    section_budget, section_cdfs, section_details, section_faults,
    section_headline, section_link_model, section_news_age, section_run,
    section_speed, section_sweep)
from .only_sections import (
    section_shared_fate, section_short_calls, section_voice)


# The section "Over real tor" comes from tools/tornet/evaluate-tornet.py,
# which writes it to evaluation-tor.md beside the page (half an hour of
# real tor, not rerun here) and between these markers of the page itself.
OVER_TOR_BEGIN = '<!-- over real tor begin -->'
OVER_TOR_END = '<!-- over real tor end -->'
OVER_TOR_FILE = 'evaluation-tor.md'

NOTES_BEGIN = '<!-- notes begin -->'
NOTES_END = '<!-- notes end -->'


def section_differences(differences, notes):
    lines = ['## Where we differ from the paper', '',
             f'Our figures more than {DIFFERENCE_POINTS} points from the '
             f'paper\'s ({DIFFERS_MARK} in the tables).', '']
    if differences:
        for difference in differences:
            lines += [f'- {difference.text}',
                      f'  <!-- explain: {difference.key} -->']
    else:
        lines += ['None.']
    lines += ['', 'Explanations (kept when the page is regenerated):', '',
              NOTES_BEGIN, notes, NOTES_END]
    return '\n'.join(lines)


def read_notes(path):
    """The human-written text between the notes markers of an existing
    page, or an empty line."""
    try:
        with open(path, encoding='utf-8') as f:
            page = f.read()
    except FileNotFoundError:
        return ''
    found = re.search(re.escape(NOTES_BEGIN) + r'\n?(.*?)\n?' +
                      re.escape(NOTES_END), page, re.DOTALL)
    return found.group(1) if found else ''


def section_over_tor(out):
    """The last section written by tools/tornet/evaluate-tornet.py, kept
    as it is, or where to get it."""
    try:
        with open(os.path.join(out, OVER_TOR_FILE), encoding='utf-8') as f:
            body = f.read().rstrip('\n') + '\n'
    except FileNotFoundError:
        body = ('## Over real tor\n\nNot measured yet: '
                '`build-venv/bin/python3 tools/tornet/evaluate-tornet.py` '
                '(about 30 minutes) writes this section.\n')
    return f'{OVER_TOR_BEGIN}\n{body}{OVER_TOR_END}'


def render_page(plan, command, calibration, results, sweep, faults, news,
                fate, short, speeds, wall_s, cpu_s, notes, voice,
                voice_wall_s, out):
    successful_diffs = compare(results, PAPER_SUCCESSFUL, 'successful_ratio',
                               'successful calls', plan)
    dropped_diffs = compare(results, PAPER_DROPPED, 'dropped_ratio',
                            'dropped calls', plan)
    title = '# DONAR evaluation: seed 000, section 6, over the Tor link model'
    if plan.quick:
        title += ' (QUICK RUN)'
    sections = [
        title,
        'Written by `tools/evaluate.py`: do not edit by hand, except between '
        'the notes markers at the end, which are kept.',
        section_run(plan, command, wall_s, cpu_s, voice_wall_s),
        section_headline(results, successful_diffs, plan),
        section_details(results, successful_diffs, dropped_diffs, plan),
        section_budget(results, plan),
        section_news_age(results, news, plan),
        section_faults(faults, plan),
        section_shared_fate(fate['reports'], plan, fate['command'],
                            fate['cpu_s']),
        section_short_calls(short['reports'], plan, short['command'],
                            short['cpu_s']),
        section_cdfs(plan),
        section_sweep(sweep, plan),
        section_voice(voice, plan, voice_wall_s),
        section_speed(speeds, plan, wall_s),
        section_link_model(calibration, plan),
        section_over_tor(out),
        section_differences(in_table_order(successful_diffs, dropped_diffs),
                            notes),
    ]
    return '\n\n'.join(sections) + '\n'


def write_section_alone(out, what, replace, section):
    """Replaces one section of OUT/evaluation.md (replace: (page, section)
    -> page) and nothing else, or starts a page with it.  Returns the
    page's path."""
    os.makedirs(out, exist_ok=True)
    page_path = os.path.join(out, 'evaluation.md')
    try:
        with open(page_path, encoding='utf-8') as f:
            page = f.read()
    except FileNotFoundError:
        page = ('# DONAR evaluation: seed 000, section 6, over the Tor link '
                f'model ({what} only)\n')
    write_atomically(page_path, replace(page, section))
    return page_path
