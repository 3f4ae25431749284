"""Tests of dpbandits.papers.dpdpe."""
