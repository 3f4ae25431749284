"""Tests of dpbandits.papers.op24."""
