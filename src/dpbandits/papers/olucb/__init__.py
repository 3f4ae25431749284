"""olucb: the modules of one paper."""
