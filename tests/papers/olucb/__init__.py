"""Tests of dpbandits.papers.olucb."""
