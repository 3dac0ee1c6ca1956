"""DONAR's evaluation of record (tools/evaluate.py, docs/evaluation.md):
seed 000, section 6, over the Tor link model.

Modules, in the order a run uses them:
  policies       what is run: policies, configurations, call lengths, the
                 protocol's parameters, the page's thresholds
  paper          the paper's figures and their sentences; comparing ours
  plan           the donar-sim runs of each section (SimRun, Plan)
  run            running donar-sim and donar-netmodel-calibrate on all cores
  voice          the voice-quality cells: frame logs scored with PESQ
                 (tools/quality/, imported as the package `quality`)
  plot           the plots (matplotlib)
  markdown       figures and tables in markdown; writing a page's file
  sections       the sections only a whole run writes
  only_sections  the sections --only writes alone (voice, shared fate,
                 short calls)
  page           the page in order, with the notes and "Over real tor" kept
  cli            the command line: the options, the whole run, --only
"""
