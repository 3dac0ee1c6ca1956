"""Frame logs in Python (frame_log.py), importable as the package
`framelog` with tools/ on sys.path, as tools/evaluation/ has it; a script
elsewhere puts this directory on sys.path and imports frame_log."""
