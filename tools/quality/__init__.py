"""Voice quality of frame logs (docs/quality.md): trace_quality replays them
through Opus and the playout and scores them with PESQ; qscore has the
scorer and G.107's E-model.  A package so that tools/evaluation imports
them by name (tools/ on sys.path); each is also a script."""
