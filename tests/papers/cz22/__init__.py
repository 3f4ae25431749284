"""Tests of cz22, whose algorithms are the policies layer (tests/policies)."""
