"""scripts/report.py's library: load (the results folder: results validated
against docs/result.schema.json, timelines, the registry run_suite.sh saved),
render (report.md and --table), plot (the PNGs, with matplotlib) and compare
(--compare). It decides nothing about the figures: every word that
interprets them is a verdict's sentence from the JSON, quoted as it is.
"""


class ResultError(Exception):
    """A results folder or file that cannot be read, or an output that cannot be written: one line naming the
    file and the field, and report.py exits 2."""
