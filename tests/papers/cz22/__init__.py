"""Tests of paper 003 (cz22), whose algorithms are the policies layer (tests/policies)."""
