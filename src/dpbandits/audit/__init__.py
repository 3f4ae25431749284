"""Audits of what the papers claim, evaluated on simulated data."""
