"""Long runs: chunks seeded by their number, on every core or a Dask cluster, kept as they finish.

- :mod:`~tarot_analysis.runs.simulate`: a run cut into chunks, run in order, with a progress bar;
- :mod:`~tarot_analysis.runs.runner`: chunks streamed to a Parquet folder that a stopped run
  resumes;
- :mod:`~tarot_analysis.runs.cluster`: the same chunks on a Dask cluster;
- :mod:`~tarot_analysis.runs.progress`, :mod:`~tarot_analysis.runs.files` and
  :mod:`~tarot_analysis.runs.memory`: the bars, the files written whole or not at all, and the
  memory a run will need, checked before it starts.
"""
