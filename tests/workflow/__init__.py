"""Tests that run Snakemake on a copy of the project (marker `pipeline`)."""
