"""Tests of what belongs to one paper alone (src/dpbandits/papers/<prefix>/)."""
