"""Frame logs in Python (the format of tools/framelog/frame-log.h, which
frame-log-writer.h writes: donar-sim, donar-call and donar-demo
--frame-log, donar-playout-gen): a CSV file, header seq,sent_ms,arrival_ms,
one row per frame in send order, arrival_ms empty for a frame that never
came.

The standard library only, so that a test under Debian's python3 can
import it as well as the quality tools under build-venv: put this
directory on sys.path.
"""

import csv


def read_frame_log(path):
    """[(seq, sent_ms, arrival_ms or None)], a tuple a row, in file order."""
    with open(path, newline='') as f:
        return [(int(row['seq']), float(row['sent_ms']),
                 float(row['arrival_ms']) if row['arrival_ms'] else None)
                for row in csv.DictReader(f)]


def latencies(rows):
    """[arrival_ms - sent_ms or None], a latency a frame of read_frame_log's
    rows, None for a lost one."""
    return [None if arrival is None else arrival - sent
            for _, sent, arrival in rows]


def write_frame_log(path, rows):
    """Writes [(seq, sent_ms, arrival_ms or None)] as frame-log-writer.h
    does: milliseconds to 3 decimals, arrival_ms empty for a lost frame."""
    with open(path, 'w', encoding='utf-8') as f:
        f.write('seq,sent_ms,arrival_ms\n')
        for seq, sent, arrival in rows:
            f.write(f'{seq},{sent:.3f},'
                    f'{"" if arrival is None else f"{arrival:.3f}"}\n')
