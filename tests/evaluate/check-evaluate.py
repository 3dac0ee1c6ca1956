#!/usr/bin/env python3
"""Smoke test of tools/evaluate.py: a quick run into a temporary directory
writes evaluation.md and its plots, with the voice-quality section, and
keeps the notes a human wrote and the section "Over real tor" that
tools/tornet/evaluate-tornet.py left in evaluation-tor.md, and has the
section "Shared fate" with its targets; --voice-only, --only shared-fate
and --only short-calls
then replace their section alone.

    check-evaluate.py EVALUATE_PY BUILD_DIR
"""

import os
import re
import subprocess
import sys
import tempfile

SKIP = 77                    # meson: the test was skipped

NOTES = 'A note written by hand, kept across regenerations.'
OLD_PAGE = ('# old page\n\n<!-- notes begin -->\n' + NOTES +
            '\n<!-- notes end -->\n')
OVER_TOR = '## Over real tor\n\nWritten by evaluate-tornet.py, not here.\n'


def fail(message):
    print(f'check-evaluate: {message}', file=sys.stderr)
    sys.exit(1)


def check_page(out):
    path = os.path.join(out, 'evaluation.md')
    if not os.path.isfile(path):
        fail(f'{path} was not written')
    with open(path, encoding='utf-8') as f:
        page = f.read()
    if 'quick run' not in page.lower():
        fail('the page does not say it is a quick run')
    if '<!-- notes begin -->\n' + NOTES + '\n<!-- notes end -->' not in page:
        fail('the notes of the previous page were not kept')
    if len(voice_section(page)) != 1:
        fail('the page has no voice-quality section (or several)')
    fate = shared_fate_section(page)
    if len(fate) != 1:
        fail('the page has no section "Shared fate" (or several)')
    for needed in SHARED_FATE_NEEDS:
        if needed not in fate[0]:
            fail(f'the section "Shared fate" has no {needed!r}')
    if page.count('<!-- over real tor begin -->\n' + OVER_TOR +
                  '<!-- over real tor end -->') != 1:
        fail('the section "Over real tor" of evaluation-tor.md is not '
             'on the page once')
    return page


def voice_section(page):
    return re.findall(r'<!-- voice quality begin -->.*?'
                      r'<!-- voice quality end -->', page, re.DOTALL)


def shared_fate_section(page):
    return re.findall(r'<!-- shared fate begin -->.*?'
                      r'<!-- shared fate end -->', page, re.DOTALL)


# What the section "Shared fate" shows: its heading, the command that
# writes it alone, the targets' table, a scenario of each side.
SHARED_FATE_NEEDS = ('## Shared fate', '--only shared-fate',
                     '| scenario | --paths |', '| targets |',
                     "the callee's 2 guards flaky", '`--paths none`',
                     'told 100 ms late')


def short_calls_section(page):
    return re.findall(r'<!-- short calls begin -->.*?'
                      r'<!-- short calls end -->', page, re.DOTALL)


def check_only(evaluate, build, out, page, options, section, written):
    """evaluate.py OPTIONS replaces section (a function finding it on a
    page) with one in which `written` shows, and nothing else."""
    done = subprocess.run([sys.executable, evaluate, '--quick', *options,
                           '--build', build, '--out', out])
    if done.returncode != 0:
        fail(f'evaluate.py {" ".join(options)} failed ({done.returncode})')
    with open(os.path.join(out, 'evaluation.md'), encoding='utf-8') as f:
        again = f.read()
    (old,), new = section(page), section(again)
    if len(new) != 1 or written not in new[0]:
        fail(f'{" ".join(options)} did not write its section')
    if again.replace(new[0], '') != page.replace(old, ''):
        fail(f'{" ".join(options)} changed the page outside its section')
    return again


def check_images(out, page):
    images = re.findall(r'!\[[^]]*\]\(([^)]+\.png)\)', page)
    if not images:
        fail('the page shows no plot')
    for image in images:
        path = os.path.join(out, image)
        if not os.path.isfile(path):
            fail(f'{path} is shown on the page but was not written')
        with open(path, 'rb') as f:
            if f.read(8) != b'\x89PNG\r\n\x1a\n':
                fail(f'{path} is not a PNG')
    return images


def main(evaluate, build):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print('check-evaluate: matplotlib is missing, skipped')
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory(prefix='donar-evaluate-test-') as out:
        with open(os.path.join(out, 'evaluation.md'), 'w',
                  encoding='utf-8') as f:
            f.write(OLD_PAGE)
        with open(os.path.join(out, 'evaluation-tor.md'), 'w',
                  encoding='utf-8') as f:
            f.write(OVER_TOR)
        done = subprocess.run([sys.executable, evaluate, '--quick',
                               '--build', build, '--out', out])
        if done.returncode != 0:
            fail(f'evaluate.py failed ({done.returncode})')
        page = check_page(out)
        images = check_images(out, page)
        if 'img/voice-pesq-cdf.png' not in images:
            fail('the voice-quality plot is not shown')
        page = check_only(evaluate, build, out, page,
                          ('--voice-only', '--voice-calls', '1'),
                          voice_section, '1 calls of')
        page = check_only(evaluate, build, out, page,
                          ('--only', 'shared-fate', '--calls', '2'),
                          shared_fate_section, '2 calls of')
        # Both ways and one way, each policy a row: 4 x 2 calls of 3 s.
        page = check_only(evaluate, build, out, page,
                          ('--only', 'short-calls', '--calls', '2'),
                          short_calls_section, '8 calls of 3 s')
        if '| ADAPTIVE, budget 2 |' not in short_calls_section(page)[0]:
            fail('the short-call section has no row of ADAPTIVE, budget 2')
        print(f'check-evaluate: evaluation.md and {len(images)} plots '
              'written, notes and the section over real tor kept, the '
              'voice-quality, shared-fate and short-call sections replaced '
              'alone')


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
