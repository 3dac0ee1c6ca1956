#!/usr/bin/env python3
"""The report of tools/tornet/evaluate-tornet.py (tornet/evaluate.py) from a small kept run made
up here (no tor): 4-second calls whose frame logs say by construction which
calls are successful, dropped or never set up, figures worked out by hand
(the Wilson interval of 20 of 24: 64.2-93.3 %), the targets' verdicts, the
calibration check, and the section spliced between the markers of the page.

    check-evaluate-tornet.py EVALUATE_TORNET_PY BUILD_DIR
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

# Frame logs through their one writer (tools/framelog/frame_log.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'tools', 'framelog'))
from frame_log import write_frame_log  # noqa: E402

SECONDS = 4
FRAMES = SECONDS * 1000 // 40


def fail(message):
    print(f'check-evaluate-tornet: {message}', file=sys.stderr)
    sys.exit(1)


def paired_command(script):
    """`python3 -m tornet paired` beside the evaluate-tornet.py given, and
    the environment that finds its package."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(script)))
    return [sys.executable, '-m', 'tornet', 'paired'], env


def write_log(path, latencies):
    write_frame_log(path, [(i, i * 40, None if x is None else i * 40 + x)
                           for i, x in enumerate(latencies)])


def good():
    return [200.0] * FRAMES


def late():
    """2 frames of 100 late: under 99 % in time, not dropped."""
    lat = good()
    lat[10] = lat[11] = 600.0
    return lat


def dropped():
    """30 frames lost in a row (and so not successful either)."""
    lat = good()
    lat[20:50] = [None] * 30
    return lat


def link(sent, late=0, dials=0):
    return {'messages_sent': sent, 'first_copies': sent, 'first_copies_late':
            late, 'dials': dials, 'records_dropped': 0}


def write_links(base):
    """The caller sends 50 and 30 messages on links 0 and 1, 2 on each
    other (1 redialed); the callee 10 on each; 3 of the caller's frames
    came late first on link 0, 1 on link 5."""
    caller = [link(50), link(30)] + [link(2) for _ in range(10)]
    caller[3]['dials'] = 2
    callee = [link(10) for _ in range(12)]
    callee[0]['first_copies_late'] = 3
    callee[5]['first_copies_late'] = 1
    for end, links in (('caller', caller), ('callee', callee)):
        json.dump({'links': links}, open(f'{base}-{end}.json', 'w'))


def write_sends(base):
    """The caller's sends: frame 0 (left out), 1-49 on two links, 50-99 on
    one, 10-11 (late in late ()) while no link was in time."""
    with open(f'{base}-caller-sends.csv', 'w') as f:
        f.write('seq,sent_ms,links,no_link_in_time\n')
        for seq in range(FRAMES):
            links = '0 1' if seq < 50 else '2'
            stalled = 1 if seq in (10, 11) else 0
            f.write(f'{seq},{seq * 40},{links},{stalled}\n')


def make_run(keep, ev, defaults):
    net = os.path.join(keep, 'run', 'net')
    os.makedirs(os.path.join(net, 'cross'))
    with open(os.path.join(net, 'relays'), 'w') as f:
        f.write('relay1 model_relay=3 base_us=12000 capacity_kib=200 '
                'listen=1 target=2 exit=0\n'
                'relay2 model_relay=4 base_us=30000 capacity_kib=600 '
                'listen=3 target=4 exit=1\n')
    with open(os.path.join(net, 'env'), 'w') as f:
        f.write(f'TOR_SHAPER_RELAYS={net}/relays\nTOR_CROSS_GUARDS=relay1,'
                f'relay2\nTOR_CROSS_DIR={net}/cross\n')
    json.dump({'flows': [{'kib_per_s': 40.0, 'socks_port': 1}]},
              open(os.path.join(net, 'cross', 'summary.json'), 'w'))
    # SIMPLE: 20 successful of 24, one of the 4 others dropped; TORFONE:
    # one successful, one never set up; the DONAR policies one call each,
    # ADAPTIVE budget 1 late.  Through one tor pair (paired.py): each of
    # SIMPLE's first two calls with a TORFONE call (the second never set
    # up: no pair), ADAPTIVE budget 1 with ALTERNATE; budget 2 and
    # DOUBLE-SEND each through its own pair, as --tors call runs them.
    pair_of = {('SIMPLE', 0): 0, ('TORFONE', 0): 0, ('SIMPLE', 1): 1,
               ('TORFONE', 1): 1, ('ALTERNATE', 0): 2,
               ('ADAPTIVE budget 1', 0): 2, ('DOUBLE-SEND', 0): 3,
               ('ADAPTIVE budget 2', 0): 4}
    calls = []
    fates = {'SIMPLE': ['good'] * 20 + ['late'] * 3 + ['dropped'],
             'TORFONE': ['good', 'never'],
             'ALTERNATE': ['good'], 'DOUBLE-SEND': ['good'],
             'ADAPTIVE budget 1': ['late'], 'ADAPTIVE budget 2': ['good']}
    for label, _ in ev.POLICIES:
        for i, fate in enumerate(fates[label]):
            name = f'round00-{ev.slug(label)}-{i}'
            calls.append({'name': name, 'policy': label, 'round': i % 2,
                          'tor_pair': pair_of.get((label, i), 5 + i)})
            base = os.path.join(keep, name)
            if fate == 'never':
                write_log(base + '-callee.csv', [])
                continue
            lat = {'good': good, 'late': late, 'dropped': dropped}[fate]()
            write_log(base + '-callee.csv', lat)
            write_log(base + '-caller.csv', good())
            if label == 'ADAPTIVE budget 2':
                write_links(base)
            if label == 'ADAPTIVE budget 1':
                write_sends(base)
    json.dump(calls, open(os.path.join(keep, 'calls.json'), 'w'))
    json.dump({'command': 'python3 tools/tornet/evaluate-tornet.py',
               'date': '2026-11-27 16:00 UTC', 'seconds': SECONDS,
               'calls_per_policy': 24, 'at_once': 12, 'seed': 3,
               'scale': defaults['scale'], 'sets': [],
               'cross_flows': defaults['cross_flows'],
               'loads': ['0.5 0.5 0.5', '2.5 2.0 1.0', '3.5 2.0 1.0'],
               'rounds': [{'round': 0, 'load': '2.5 2.0 1.0', 'wall_s': 9,
                           'guards': {'caller': ['relay1', 'relay2'],
                                      'callee': ['relay2']}}],
               'wall_s': 600}, open(os.path.join(keep, 'run.json'), 'w'))


def make_docs(docs, defaults, outside):
    """The page and a calibration made on tornet.sh's defaults (its relay
    parameters given as --set, as a calibration run before they were
    defaults has them)."""
    os.makedirs(docs)
    with open(os.path.join(docs, 'evaluation.md'), 'w') as f:
        f.write('# page\n\n<!-- over real tor begin -->\nOLD SECTION\n'
                '<!-- over real tor end -->\n\n## Where we differ\n')
    figures = {'calls': 24, 'unacceptable': 50.0, 'wilson95': [31, 69],
               'p10_ms': 150, 'p50_ms': 190, 'p90_ms': 260}
    model = {'unacceptable': 58.6, 'p10_ms': 136, 'p50_ms': 184,
             'p90_ms': 288}
    json.dump({'model': {'30s': model, '5min': model}, 'runs': {
        'scale 0.6': {'scale': defaults['scale'],
                      'cross_flows': defaults['cross_flows'],
                      'sets': defaults['sets'],
                      'at_once': 11, 'command': 'tools/tornet/tornet.sh '
                      'calibrate', 'date': '2026-11-27 15:00 UTC',
                      'wall_min': 25, 'load': '2-4',
                      'testbed': {'30s': figures, '5min': figures},
                      'never': {'30s': 0, '5min': 1}, 'outside': outside}}},
              open(os.path.join(docs, 'tornet-calibration.json'), 'w'))


def check_paired(ev):
    """Which tors each call of a round goes through, and the paired
    statistics, against values worked out by hand."""
    paired = ev.paired
    labels = ['SIMPLE', 'TORFONE', 'ALTERNATE', 'DOUBLE-SEND',
              'ADAPTIVE budget 1', 'ADAPTIVE budget 2'] * 2
    got = paired.placement(labels, 'pair')
    if got != [0, 0, 1, 2, 1, 2, 3, 3, 4, 5, 4, 5]:
        fail(f'a round of 12 in pairs of the same budget: {got}')
    if paired.placement(labels[:3], 'pair') != [0, 0, 1]:
        fail('ALTERNATE without its partner in the round does not go alone')
    if paired.placement(labels[:3], 'call') != [0, 1, 2] or \
            paired.placement(labels[:3], 'round') != [0, 0, 0]:
        fail('--tors call or round do not place the calls as before')
    # 5 pairs one way, none the other: 2 x 2^-5; 1 against 9: 2 x 11 / 1024.
    for (w, l), p in (((0, 5), 0.0625), ((9, 1), 0.021484), ((3, 3), 1.0)):
        if abs(paired.sign_test(w, l) - p) > 1e-5:
            fail(f'sign test {w} against {l}: {paired.sign_test(w, l)}, not {p}')
    # 24 pairs: both 10, a only 2, b only 6, neither 6.  p1 12/24, p2 16/24;
    # Wilson 31.43-68.57 and 46.71-82.03; ad - bc = 48, less n/2: 36, over
    # sqrt(12 x 12 x 16 x 8) = 135.76: phi 0.2652.  Lower: -16.67 -
    # sqrt(18.57^2 - 2 phi 18.57 x 15.37 + 15.37^2) = -16.67 - 20.73;
    # upper: -16.67 + sqrt(19.96^2 - 2 phi 19.96 x 18.57 + 18.57^2) =
    # -16.67 + 23.38.
    d, lo, hi = paired.paired_interval(10, 2, 6, 6, ev.wilson)
    if abs(d + 16.67) > 0.01 or abs(lo + 37.40) > 0.05 or abs(hi - 6.71) > 0.05:
        fail(f'paired 10/2/6/6: {d:.2f} [{lo:.2f}, {hi:.2f}], not -16.67 '
             '[-37.40, +6.71]')
    # 20 pairs, 6 of them a's only (phi 0: b failed in no pair that a
    # did): 20/20 against 14/20, Wilson 83.89-100 and 48.10-85.45, so
    # +30 - hypot(16.11, 15.45) = +7.7 and +30 + hypot(21.90, 0) = +51.9:
    # 6 pairs all one way rank the two, as McNemar's p of 2/64 says.
    d, lo, hi = paired.paired_interval(14, 6, 0, 0, ev.wilson)
    if abs(d - 30.0) > 0.01 or abs(lo - 7.68) > 0.05 or abs(hi - 51.90) > 0.05:
        fail(f'paired 14/6/0/0: {d:.2f} [{lo:.2f}, {hi:.2f}], not +30 '
             '[+7.68, +51.90]')


def check_link_use_report(script, keep):
    """`python3 -m tornet report link-use` prints the tables of the
    section's "How each policy used the links" from the same kept run."""
    command, env = paired_command(script)
    done = subprocess.run(command[:-1] + ['report', 'link-use', '--keep', keep],
                          env=env, capture_output=True, text=True)
    for needed in ('| ADAPTIVE budget 2 | 2 | 48 | 9 | 4 | 75 | 1.0 |',
                   '| ADAPTIVE budget 1 | 50, 0.00 | 47, 0.00 | 2, 100.00 '
                   '| 1, 0.00 | 98, 2.04 | 1.51 |',
                   '| SIMPLE | 0.75 | 1.50 | 0.00 | '):
        if done.returncode != 0 or needed not in done.stdout:
            fail(f'report link-use (exit {done.returncode}) has no '
                 f'{needed!r}:\n{done.stdout}{done.stderr}')


def check_variant(script, build, keep):
    """--variant: a made-up variant X beside ADAPTIVE budget 2 in two
    pairs; X's calls good, budget 2's first late (2 of its 200 frames:
    1.00 %, not successful), its second good."""
    os.makedirs(keep)
    calls = []
    for i, (label, fate) in enumerate((('X', good), ('ADAPTIVE budget 2', late),
                                       ('X', good), ('ADAPTIVE budget 2', good))):
        name = f'round00-{label.lower().replace(" ", "-")}-{i}'
        calls.append({'name': name, 'policy': label, 'round': 0,
                      'tor_pair': i // 2})
        write_log(os.path.join(keep, name + '-callee.csv'), fate())
        write_log(os.path.join(keep, name + '-caller.csv'), good())
    json.dump(calls, open(os.path.join(keep, 'calls.json'), 'w'))
    # As --variant writes it: the policy, then the variant.
    json.dump({'seconds': SECONDS, 'policies': [
        ['ADAPTIVE budget 2', ['--policy', 'adaptive', '--budget', '2']],
        ['X', ['--policy', 'adaptive', '--spread-copies']]]},
        open(os.path.join(keep, 'run.json'), 'w'))
    proc = subprocess.run(
        [sys.executable, script, '--variant', 'X=--policy adaptive '
         '--spread-copies', '--report-only', '--no-calibration-check',
         '--build', build, '--keep', keep], capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f'--variant --report-only exited {proc.returncode}: '
             f'{proc.stderr}')
    for needed in ('X against ADAPTIVE budget 2, in 2 pairs',
                   'successful: 2 against 1 (both 1, only X 1, only '
                   'ADAPTIVE budget 2 0, neither 0); difference +50.0 points',
                   'McNemar p 1.00',
                   'X fewer late or lost in 1 pairs, more in 0, as many in 1 '
                   '(sign test p 1.000); % late or lost, median 0.00 against '
                   '0.50, mean 0.00 against 0.50',
                   'each pair: 0.00/1.00 0.00/0.00'):
        if needed not in proc.stdout:
            fail(f'--variant printed no {needed!r}:\n{proc.stdout}')
    figures = json.load(open(os.path.join(keep, 'variant.json')))
    if figures['options']['X'] != ['--policy', 'adaptive', '--spread-copies']:
        fail(f"variant.json's options: {figures['options']}")
    # paired.py reads the pairs of the variant from run.json.
    paired, env = paired_command(script)
    proc = subprocess.run(paired + [keep], capture_output=True, text=True,
                          env=env)
    needed = ('X against ADAPTIVE budget 2, % of frames late or lost: median '
              '0.00 against 0.50\n  0.00/1.00 0.00/0.00\n')
    if proc.returncode != 0 or proc.stdout != needed:
        fail(f'paired.py on a --variant run: {proc.returncode} '
             f'{proc.stdout!r} {proc.stderr}, not {needed!r}')
    for bad in ('X', 'ADAPTIVE budget 2=--policy adaptive'):
        proc = subprocess.run([sys.executable, script, '--variant', bad,
                               '--report-only', '--keep', keep],
                              capture_output=True, text=True)
        if proc.returncode == 0 or 'evaluate-tornet: --variant' not in \
                proc.stderr:
            fail(f'--variant {bad!r} was not refused with a clear error: '
                 f'{proc.returncode} {proc.stderr}')


def check_pooled(script, keep, variant_keep, tmp):
    """paired.py over two kept runs: each run's pairs, then the pairs of
    both together; a run named twice, or runs of other policies, refused."""
    paired, env = paired_command(script)
    second = os.path.join(tmp, 'keep-second')
    shutil.copytree(keep, second)
    proc = subprocess.run(paired + [keep, second], capture_output=True,
                          text=True, env=env)
    if proc.returncode != 0:
        fail(f'paired.py over two runs exited {proc.returncode}: '
             f'{proc.stderr}')
    pooled = proc.stdout.split('The pairs of the 2 runs together:\n')
    if len(pooled) != 2:
        fail(f'paired.py over two runs printed no pooled table:\n'
             f'{proc.stdout}')
    for needed in (
            '| ADAPTIVE budget 2 against DOUBLE-SEND | 0 | 0 | 0 | 0 | 0 | '
            '— |',
            # Budget 1 failed where ALTERNATE did not, once a run: 0 of 2
            # (Wilson 0-65.76) against 2 of 2, phi 0 (a margin is empty):
            # -100 + hypot(65.76, 65.76) = -7; McNemar 2 x 1/4.
            '| ADAPTIVE budget 1 against ALTERNATE | 2 | 0 | 0 | 2 | 0 | '
            '-100 [-100, -7] | 0.50 | 0 / 2 / 0 | 0.500 |',
            # 2 of 2 both: Wilson 34.24-100, so 0 -/+ 65.76.
            '| SIMPLE against TORFONE | 2 | 2 | 0 | 0 | 0 | +0 [-66, +66] | '
            '1.00 | 0 / 0 / 2 | 1.000 |'):
        if needed not in pooled[1]:
            fail(f'the pooled table has no {needed!r}:\n{pooled[1]}')
    for keeps, why in (([keep, keep + '/'], 'named twice'),
                       ([keep, variant_keep], 'not have the same policies')):
        proc = subprocess.run(paired + keeps, capture_output=True, text=True,
                              env=env)
        if proc.returncode == 0 or why not in proc.stderr:
            fail(f'paired.py {" ".join(keeps)} was not refused ({why}): '
                 f'{proc.returncode} {proc.stderr}')


def main():
    script, build = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    import tornet.evaluate as ev
    lo, hi = ev.wilson(20, 24)
    if abs(lo - 64.15) > 0.05 or abs(hi - 93.32) > 0.05:
        fail(f'Wilson 95 % of 20/24: {lo:.2f}-{hi:.2f}, not 64.15-93.32')
    # 17 of 22 against 20 of 22: Wilson 56.56-89.88 and 72.19-97.47, so
    # -13.64 - hypot(77.27 - 56.56, 97.47 - 90.91) = -35.36 and
    # -13.64 + hypot(89.88 - 77.27, 90.91 - 72.19) = +8.94.
    d, lo, hi = ev.difference_interval(17, 22, 20, 22)
    if abs(d + 13.64) > 0.01 or abs(lo + 35.36) > 0.05 or abs(hi - 8.94) > 0.05:
        fail(f'17/22 - 20/22: {d:.2f} [{lo:.2f}, {hi:.2f}], not -13.64 '
             '[-35.36, +8.94]')
    check_paired(ev)
    defaults = ev.tornet_defaults()
    network = {'scale': defaults['scale'],
               'cross_flows': defaults['cross_flows'],
               'params': ev.relay_parameters(defaults['sets'])}
    with tempfile.TemporaryDirectory() as tmp:
        keep, docs = os.path.join(tmp, 'keep'), os.path.join(tmp, 'docs')
        make_run(keep, ev, defaults)
        make_docs(docs, defaults, [])
        if ev.check_calibration(docs, network) is not None:
            fail('the calibration check failed a calibration that met its '
                 'targets: ' + ev.check_calibration(docs, network))
        wrong = ev.check_calibration(docs, dict(network, scale=0.5))
        if wrong is None or 'no calibration of this network' not in wrong:
            fail(f'the check passed a calibration of another scale: {wrong}')
        proc = subprocess.run(
            [sys.executable, script, '--report-only', '--no-voice',
             '--build', build, '--keep', keep, '--docs', docs,
             '--sim-calls', '2'], capture_output=True, text=True)
        if proc.returncode != 0:
            fail(f'--report-only exited {proc.returncode}: {proc.stderr}')
        section = open(os.path.join(docs, 'evaluation-tor.md')).read()
        page = open(os.path.join(docs, 'evaluation.md')).read()
        if ('<!-- over real tor begin -->\n' + section
                + '<!-- over real tor end -->') not in page or 'OLD SECTION' in page:
            fail('the section is not spliced between the page\'s markers')
        needs = [
            # 20 of 24, 1 dropped (4 %), every frame 200 ms but 2 x 600
            # (3 calls) and 30 lost: p99.9 of 4800 frames is the 4795th.
            '| SIMPLE | 24 (0) | 83 [64-93] | 4 | 200 / 200 / lost |',
            '| TORFONE | 2 (1) | 100 [21-100] | 0 |',
            '| ADAPTIVE budget 1 | 1 (0) | 0 [0-79] | 0 |',
            '| ADAPTIVE budget 2: successful ≥ 90 % | 100 % | met |',
            # 1 of 1 each: Wilson 20.65-100, so 0 -/+ hypot(79.35, 0).
            '| ADAPTIVE budget 2 ≥ DOUBLE-SEND | 100 % against 100 %; '
            'difference +0 points, 95 % [-79, +79]: does not rank them | met |',
            # 0 of 1 (Wilson 0-79.35) against 1 of 1, one pair (phi 0: a
            # margin is empty): -100 + hypot(79.35, 79.35) = +12.
            '| ADAPTIVE budget 1 ≥ ALTERNATE + 15 points | 0 % against '
            '100 %; in 1 pair, difference -100 points, 95 % [-100, +12]: '
            'does not rank them | not met |',
            # The pairs: budget 2 and DOUBLE-SEND never shared tors; budget
            # 1 failed where ALTERNATE did not (McNemar: 1 discordant pair,
            # p 1), with 2 frames late against none; SIMPLE's first call
            # and TORFONE's both successful, no frame late in either.
            '| ADAPTIVE budget 2 against DOUBLE-SEND | 0 | 0 | 0 | 0 | 0 | — |',
            '| ADAPTIVE budget 1 against ALTERNATE | 1 | 0 | 0 | 1 | 0 | '
            '-100 [-100, +12] | 1.00 | 0 / 1 / 0 | 1.000 |',
            '| SIMPLE against TORFONE | 1 | 1 | 0 | 0 | 0 | +0 [-79, +79] | '
            '1.00 | 0 / 0 / 1 | 1.000 |',
            '| testbed, scale 0.6, 30s | 24 (0 never set up) | 50.0 [31-69] '
            '| 150 / 190 / 260 | yes |',
            '| 0 | 2.5 | relay1, relay2 | relay2 | 10/12 |',
            # Caller to callee: 80 of 100 on the 2 busiest, 7 links carry
            # 90 (50, 30, then 2 a link), the 4 late frames 3 on link 0;
            # back: 20 of 120, 11 links carry 108; medians 48 and 9.
            '| ADAPTIVE budget 2 | 2 | 48 | 9 | 4 | 75 | 1.0 |',
            '| SIMPLE | 0 | | | | | |',
            # 24 calls, 2 directions of 100 frames: 3 x 2 late (3 bursts
            # of 80 ms) and 30 lost (a burst of 1200 ms), all caller to
            # callee: 36 of 4800, 36 of 2400, none of 2400; 6 of 36 short.
            '| SIMPLE | 0.75 | 1.50 | 0.00 | ',
            # Those 4-s calls are all start: 36 of 4800, none after.
            '| SIMPLE | 4800, 0.75 | 0 |',
            ' | 17 |\n| TORFONE | 0.00 | 0.00 | 0.00 |',
            # 47 two-copy frames (1-49 less 10-11), none late; 50 single
            # copies, none late; 2 with no link in time, both late.  Link 2
            # is first used at frame 50 (idle): 1 frame, not late; the 98
            # others (1-99 but 50), 2 late.  The links of a frame and of
            # the next: 2 for frames 1-48, 3 for 49 (0 1, then 2), 1 for
            # 50-98, none counted for 99 (no next): 148 / 98 = 1.51.
            '| ADAPTIVE budget 1 | 50, 0.00 | 47, 0.00 | 2, 100.00 | 1, 0.00 '
            '| 98, 2.04 | 1.51 |',
            'frames sent with no link in time, both directions: ADAPTIVE '
            'budget 1 0, ADAPTIVE budget 2 0.',
            '--report-only --keep',
            'build/tools/donar-sim --calls 2 --duration 4 --seed 3',
            # Each side knows its own half of each link, as the product.
            '--policy adaptive --budget 2 --set']
        for needed in needs:
            if needed not in section:
                fail(f'the section has no {needed!r}:\n{section}')
        check_link_use_report(script, keep)
        if not os.path.getsize(os.path.join(docs, 'img',
                                            'tornet-latency-cdf.png')):
            fail('no latency CDF')
        make_docs(os.path.join(tmp, 'docs2'), defaults,
                  ['30s: 80.0 % unacceptable, the model 58.6 %'])
        wrong = ev.check_calibration(os.path.join(tmp, 'docs2'), network)
        if wrong is None or 'missed its share targets' not in wrong:
            fail(f'the check passed a calibration that missed: {wrong}')
        check_variant(script, build, os.path.join(tmp, 'variant'))
        check_pooled(script, keep, os.path.join(tmp, 'variant'), tmp)
    print('check-evaluate-tornet: ok')


if __name__ == '__main__':
    main()
