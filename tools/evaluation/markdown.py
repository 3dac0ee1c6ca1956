"""How figures and tables are written in markdown, and how a page file is
written or one of its marked sections replaced.
"""

import os
import re

from .policies import DIFFERS_MARK, NO_FIGURE
from .paper import percent


def duration_text(seconds):
    if seconds < 120:
        return f'{seconds:.0f} s'
    return f'{seconds / 60:.1f} min'


def ms(value):
    return NO_FIGURE if value is None else f'{value:g}'


def pct(ratio):
    return f'{percent(ratio):.1f}'


def table(header, rows):
    lines = ['| ' + ' | '.join(header) + ' |',
             '|' + '---|' * len(header)]
    lines += ['| ' + ' | '.join(str(cell) for cell in row) + ' |'
              for row in rows]
    return '\n'.join(lines)


def marked(text, differs):
    return f'{text} {DIFFERS_MARK}' if differs else text


def replace_marked_section(page, begin, end, section, before):
    """page with the section between the markers begin and end replaced by
    section (or, if it has none, section inserted before the heading
    `before`, where a whole run puts it, else appended)."""
    found = re.search(re.escape(begin) + '.*?' + re.escape(end), page,
                      re.DOTALL)
    if found:
        return page[:found.start()] + section + page[found.end():]
    heading = page.find(f'\n{before}\n')
    if heading >= 0:
        return page[:heading + 1] + section + '\n\n' + page[heading + 1:]
    return page.rstrip('\n') + '\n\n' + section + '\n'


def write_atomically(path, text):
    temporary = path + '.tmp'
    with open(temporary, 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(temporary, path)
