"""Tests of dpbandits.papers.plasso."""
