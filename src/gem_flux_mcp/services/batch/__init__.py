"""Batch reconstruction: many genomes, each built, gapfilled, checked and exported as one Dask
task (`task.py`), run on a local or existing Dask cluster (`runner.py`), written to one output
folder that a rerun resumes (`outputs.py`); the inputs found in files and folders (`inputs.py`),
batches run in the background of a server (`background.py`), and what a batch whose cluster went away
reports (`lost.py`)."""

from .inputs import GenomeInput, find_inputs, genome_name
from .lost import ClusterLost
from .runner import BatchOutcome, BatchProgress, BatchSpec, run_batch

__all__ = ["BatchOutcome", "BatchProgress", "BatchSpec", "ClusterLost", "GenomeInput", "find_inputs",
           "genome_name", "run_batch"]
